package lock

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzIndexDifferential holds the jsontok-based Index to the
// encoding/json-based one it replaced: the same lines for the same entry
// paths, on valid lockfiles and on whatever prefix of broken ones the two
// read before the error.
func FuzzIndexDifferential(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && len(data) < 4000 {
			f.Add(data)
		}
	}
	for _, s := range hostileIndex {
		if len(s) < 1000 { // the deep ones stall the mutator; TestIndexHostile has them
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		compareIndexes(t, b)
	})
}

func compareIndexes(t *testing.T, b []byte) {
	t.Helper()
	n, o := Index(b), oldIndex(b)
	if !reflect.DeepEqual(n.lines, o.lines) {
		in := fmt.Sprintf("%q", b)
		if len(in) > 300 {
			in = in[:300] + "..."
		}
		t.Fatalf("Index(%s):\nnew %v\nold %v", in, n.lines, o.lines)
	}
}

var hostileIndex = []string{
	"{\"servers\":{\n\"a\":{\n\"tools\":{\n\"t\":{},\n\"t\":{}}}}}",
	"{\"servers\":{\n\"a\":{},\n\"\\u0061\":{}}}",
	"{\"servers\":{\n\"a\\u0000b\":{},\n\"a\x00b\":{}}}",
	"{\"servers\":{\n\"\xff\":{},\n\"\\ufffd\":{},\n\"\\ud800\":{}}}",
	"{\"servers\":{\n\"a\":{}}}\n{\"servers\":{\n\n\"b\":{}}}",
	"{\"servers\":{\n\"a\":{}}} x {\"servers\":{\"b\":{}}}",
	"{\"servers\":{\n\"a\":{\"tools\":{\"t\":1e999999,\n\"u\":-0.5E-3,\n\"v\":01}}}}",
	"{\"servers\":{\n\"a\":{\"tools\":[\n\"t\",{\"u\":{}}]}}}",
	"{\"servers\":{\"a\":" + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + ",\n\"b\":{}}}",
	"{\"servers\":{\"a\":{\"tools\":{\"t\":\"\x01\"},\n\"u\":{}}}}",
}

func TestIndexHostileDifferential(t *testing.T) {
	for _, in := range hostileIndex {
		compareIndexes(t, []byte(in))
	}
}

