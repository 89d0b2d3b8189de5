package config

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// FuzzTreeDifferential holds the jsontok-based buildTree to the
// encoding/json-based builder it replaced, on every input parseJSON lets
// through (json.Unmarshal accepts it): the same kinds, values, keys in
// order with their duplicates, and the same offsets.
func FuzzTreeDifferential(f *testing.F) {
	for _, s := range samples {
		data, err := os.ReadFile(s.path)
		if err != nil {
			f.Fatal(err)
		}
		clean, _ := stripJSONC(data)
		f.Add(clean)
	}
	for _, s := range hostileTree {
		if len(s) < 1000 { // the deep ones stall the mutator; TestTreeHostile has them
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		compareTrees(t, b)
	})
}

func compareTrees(t *testing.T, b []byte) {
	t.Helper()
	var raw json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		return // parseJSON reports it before building a tree
	}
	in := fmt.Sprintf("%q", b)
	if len(in) > 200 {
		in = in[:200] + "..."
	}
	nt, nerr := buildTree(b)
	ot, oerr := oldBuildTree(b)
	if nerr != nil || oerr != nil {
		t.Fatalf("buildTree(%s): new %v, old %v", in, nerr, oerr)
	}
	if !reflect.DeepEqual(nt, ot) {
		t.Fatalf("buildTree(%s): trees differ", in)
	}
}

var hostileTree = []string{
	`{"mcpServers":{"a":{"command":"x"},"a":{"command":"y"}}}`,
	`{"mcpServers":{"a":{"command":"x","\u0063ommand":"y"}}}`,
	`{"mcpServers":{"a":{"command":"x","Command":"y"}}}`,
	"{\"mcpServers\":{\"a\\u0000\":{},\"a\x00\":{}}}",
	"{\"mcpServers\":{\"\xff\":{\"command\":\"\xfe\"},\"\\ufffd\":{}}}",
	`{"s":"\ud800","t":"\udc00\ud800","u":"\ud83d\ude00"}`,
	`{"n":1` + strings.Repeat("0", 400) + `e99999,"m":-0.0E-0,"b":[true,false,null]}`,
	" \t\n{ \"a\" :\r\n[ 1 , \"x\" ] }\n ",
	`"top"`, `[]`, `null`, `12`,
	strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
	strings.Repeat(`{"k":`, 9999) + "1" + strings.Repeat("}", 9999),
}

func TestTreeHostile(t *testing.T) {
	for _, in := range hostileTree {
		compareTrees(t, []byte(in))
	}
}
