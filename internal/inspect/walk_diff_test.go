package inspect

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// walkEvent is one visit, copied out of the walk.
type walkEvent struct {
	key  bool
	path string
	val  string
}

func walkEvents(walk func([]byte, func(textRef)) error, b []byte) ([]walkEvent, error) {
	var evs []walkEvent
	err := walk(b, func(r textRef) {
		p := fmt.Sprint(len(r.segs), r.segs[max(0, len(r.segs)-3):])
		if len(r.segs) < 64 {
			p = r.path() // deep paths cost quadratic time to join
		}
		evs = append(evs, walkEvent{r.key, p, r.value()})
	})
	return evs, err
}

// FuzzWalkDifferential holds the jsontok-based walkStrings to the
// hand-written walker it replaced: on JSON, the same strings with the same
// keys, paths and decoded text (escapes, surrogates, invalid UTF-8); on
// anything the old walker refused, a refusal too.
func FuzzWalkDifferential(f *testing.F) {
	files, _ := filepath.Glob("testdata/attacks/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var a attack
		if json.Unmarshal(data, &a) == nil {
			f.Add([]byte(a.Definition))
		}
	}
	for _, s := range hostileWalk {
		if len(s) < 1000 { // the deep ones stall the mutator; TestWalkHostile has them
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		compareWalkers(t, b)
	})
}

func compareWalkers(t *testing.T, b []byte) {
	t.Helper()
	ne, nerr := walkEvents(walkStrings, b)
	oe, oerr := walkEvents(oldWalkStrings, b)
	in := fmt.Sprintf("%q", b)
	if len(in) > 200 {
		in = in[:200] + "..."
	}
	if oerr != nil && nerr == nil {
		t.Fatalf("walkStrings(%s): old refused, new accepted", in)
	}
	if nerr != nil && oerr == nil && json.Valid(b) {
		t.Fatalf("walkStrings(%s): JSON refused", in)
	}
	if nerr == nil && !slices.Equal(ne, oe) {
		t.Fatalf("walkStrings(%s):\nnew %+v\nold %+v", in, ne, oe)
	}
}

var hostileWalk = []string{
	`{"description":"a","\u0064escription":"b","Description":"c"}`,
	`{"t":"\udb40\udc41\udb40\udc42"}`, `{"t":"\ud800"}`, `{"t":"\udc00\ud800x"}`, `{"t":"\ud800\u0041"}`, `{"t":"\ud800\ud800\udc00"}`,
	"{\"t\":\"\xff\\n\xfe\"}", "{\"\xff\\u0041\":\"\\ud800\xf3\xa0\x81\"}", "{\"t\":\"\\ud83d\xff\\ude00\"}",
	"{\"a\x00b\":1,\"a\\u0000b\":2}", "{\"a\xc0\":\"\\u00e9\"}",
	`{"n":1` + strings.Repeat("0", 3000) + `e999999}`, `[-0.0e-0,1E+2]`,
	`{"a":1} x`, `{"a":"x"}{"b":"y"}`, `["a"] ["b"]`, `"a" "b"`,
	strings.Repeat("[", 9999) + `"x"` + strings.Repeat("]", 9999),
	strings.Repeat("[", 10000) + `"x"` + strings.Repeat("]", 10000),
	strings.Repeat(`{"k":`, 10000) + `"x"` + strings.Repeat("}", 10000),
	strings.Repeat(`{"k":`, 10001) + `"x"` + strings.Repeat("}", 10001),
	"{\"a\":\"tab\there\"}", `{"a":01}`, `{"a":1-2}`, `{"a":--1}`, `{"a":1e}`, `[truex]`,
}

func TestWalkHostile(t *testing.T) {
	for _, in := range hostileWalk {
		compareWalkers(t, []byte(in))
	}
}
