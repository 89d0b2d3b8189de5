package guard

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
)

// hostileScan are lines a hostile server would try on the guard's reader,
// with objectMembers' verdict: "ok", "ambiguous" (errAmbiguous: clients
// would read two different messages) or "syntax" (not one JSON object).
var hostileScan = []struct{ in, obj string }{
	// Nesting is bounded at 10000 levels, never recursed past.
	{`{"a":` + strings.Repeat(`{"a":`, 9999) + `1` + strings.Repeat("}", 10000), "ok"},
	{`{"a":` + strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat("}", 10001), "syntax"},
	{`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, "ok"},
	{`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, "syntax"},
	// Numbers are only validated: no range, no precision.
	{`{"n":1` + strings.Repeat("0", 5000) + `e99999999999}`, "ok"},
	{`{"n":-0.` + strings.Repeat("9", 5000) + `E-99999999999}`, "ok"},
	// Keys that some client reads as the same key.
	{`{"description":1,"\u0064escription":2}`, "ambiguous"},
	{`{"description":1,"Description":2}`, "ambiguous"},
	{`{"id":1,"\u0049\u0044":2}`, "ambiguous"},
	{`{"result":1,"re\u017Fult":2}`, "ambiguous"},
	{`{"a":1,"a":2}`, "ambiguous"},
	{"{\"\xff\":1,\"\\ufffd\":2}", "ambiguous"}, // both decode to U+FFFD
	{"{\"\xff\":1,\"\xfe\":2}", "ambiguous"},
	{`{"\ud800":1,"\udfff":2}`, "ambiguous"},    // lone surrogates decode to U+FFFD
	{`{"description":1,"DESCRİPTION":2}`, "ok"}, // U+0130 folds to nothing ASCII
	// NUL and invalid UTF-8 in keys.
	{`{"a\u0000b":1,"a":2}`, "ok"},
	{"{\"a\x00b\":1}", "syntax"}, // a raw control character
	{"{\"k\xc0\xaf\":1}", "ok"},
	// Exactly one value: no garbage or second value after it.
	{`{"a":1} x`, "syntax"},
	{`{"a":1}{"a":2}`, "syntax"},
	{`{"a":1} {"a":2}`, "syntax"},
	{`{"a":1}}`, "syntax"},
	{"{}\u00a0", "syntax"},
	{"{}\x00", "syntax"},
	{"\u00a0{}", "syntax"},
	{" \t\r\n{\"a\" \t:\r\n1 } \n", "ok"},
	// Not JSON.
	{`{"a":tru}`, "syntax"}, {`{"a":nulll}`, "syntax"}, {`{"a":01}`, "syntax"}, {`{"a":1.}`, "syntax"},
	{`{"a":-}`, "syntax"}, {`{"a":+1}`, "syntax"}, {`{"a":.1}`, "syntax"}, {`{"a":1e}`, "syntax"},
	{`{"a":"\u00"}`, "syntax"}, {`{"a":"\uZZZZ"}`, "syntax"}, {`{"a":"\'"}`, "syntax"},
	{`{"a":[1,2,]}`, "syntax"}, {`{,}`, "syntax"}, {`{"a"::1}`, "syntax"}, {`{"a":1,,"b":2}`, "syntax"},
	{`[{"a":1}]`, "syntax"}, {`"\ud800"`, "syntax"},
}

func TestScanHostileLines(t *testing.T) {
	for _, c := range hostileScan {
		_, err := objectMembers([]byte(c.in))
		got := "syntax"
		switch {
		case err == nil:
			got = "ok"
		case errors.Is(err, errAmbiguous):
			got = "ambiguous"
		}
		if got != c.obj {
			t.Errorf("objectMembers(%.80q) = %v, want %s", c.in, err, c.obj)
		}
		if (err == nil) && !jsontok.Valid([]byte(c.in)) {
			t.Errorf("objectMembers(%.80q) accepted what is not one JSON value", c.in)
		}
	}
}

// TestScanMembersAreSpans: the members the guard checks are the bytes the
// client gets: decoded keys, value spans aliasing the line with their
// offsets (the config rewriter splices at them).
func TestScanMembersAreSpans(t *testing.T) {
	line := []byte(` {"jsonrpc" : "2.0", "\u0069d":7 ,"result":{"tools":[ {"name":"a"} ,{"name":"b"}]}}`)
	ms, err := objectMembers(line)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ key, val string }{{"jsonrpc", `"2.0"`}, {"id", `7`}, {"result", `{"tools":[ {"name":"a"} ,{"name":"b"}]}`}}
	if len(ms) != len(want) {
		t.Fatalf("members %+v", ms)
	}
	for i, m := range ms {
		if m.key != want[i].key || string(m.val) != want[i].val || string(line[m.off:m.off+len(m.val)]) != want[i].val || line[m.koff] != '"' {
			t.Errorf("member %d = %+v, want %+v", i, m, want[i])
		}
	}
	tools, _ := objectMembers(ms[2].val)
	elems, err := arrayElems(tools[0].val)
	if err != nil || len(elems) != 2 || string(elems[1]) != `{"name":"b"}` {
		t.Fatalf("arrayElems = %q, %v", elems, err)
	}
	if off := ms[2].off + tools[0].off + cap(tools[0].val) - cap(elems[1]); string(line[off:off+len(elems[1])]) != `{"name":"b"}` {
		t.Errorf("element offset from cap = %d: %q", off, line[off:])
	}
}
