package lock

import (
	"strings"
	"testing"
)

// TestIndexHostile attacks the line index with keys spelled two ways: an
// escape is the key it decodes to (the later line wins, as the later
// member wins in the lock encoding/json reads), NUL and invalid UTF-8 make
// other keys, and numbers and arrays between entries do not disturb it.
func TestIndexHostile(t *testing.T) {
	for _, c := range []struct {
		name, in, server string
		kind             Kind
		key              string
		want             int
	}{
		{"escaped duplicate server", "{\"servers\":{\n\"a\":{},\n\"\\u0061\":{}}}", "a", "", "", 3},
		{"duplicate entry", "{\"servers\":{\n\"a\":{\n\"tools\":{\n\"t\":{},\n\"t\":{}}}}}", "a", KindTool, "t", 5},
		{"NUL in a name", "{\"servers\":{\n\"a\\u0000b\":{},\n\"a\":{}}}", "a\x00b", "", "", 2},
		{"invalid UTF-8 in a name", "{\"servers\":{\n\"\xff\":{},\n\"b\":{}}}", "\uFFFD", "", "", 2},
		{"numbers between", "{\"servers\":{\n\"a\":{\"tools\":{\"t\":-0.5E-3,\n\"u\":1" + strings.Repeat("0", 500) + "}}}}", "a", KindTool, "u", 3},
		{"arrays between", "{\"servers\":{\n\"a\":{\"tools\":[\n\"t\",{\"u\":{}}],\n\"prompts\":{\n\"p\":{}}}}}", "a", KindPrompt, "p", 5},
	} {
		if got := Index([]byte(c.in)).Line(c.server, c.kind, c.key); got != c.want {
			t.Errorf("%s: Line = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestIndexHugeNumber: a number beyond float64 (a hand-edited definition
// may hold one; encoding/json's token reader failed on it and the old index
// lost every entry after it) does not end the index.
func TestIndexHugeNumber(t *testing.T) {
	data := []byte("{\"servers\":{\n\"a\":{\"tools\":{\"t\":{\"definition\":{\"maximum\":1e999999}},\n\"u\":{}}}}}")
	if l := Index(data).Line("a", KindTool, "u"); l != 3 {
		t.Errorf("Line(a, tool, u) = %d, want 3", l)
	}
}

// TestIndexTooDeep: nesting beyond jsontok's 10000 levels ends the index
// there (Read refuses such a lock before it indexes it; encoding/json's
// token reader had no bound of its own).
func TestIndexTooDeep(t *testing.T) {
	data := []byte("{\"servers\":{\"a\":" + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + ",\n\"b\":{}}}")
	if l := Index(data).Line("a", "", ""); l != 1 {
		t.Errorf("Line(a) = %d, want 1", l)
	}
	if l := Index(data).Line("b", "", ""); l != 0 {
		t.Errorf("Line(b) = %d, want 0", l)
	}
}
