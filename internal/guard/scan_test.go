package guard

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
)

// TestScannerAgreesWithEncodingJSON: the scanner accepts exactly what
// encoding/json accepts as one value.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range scanSeeds {
		got := jsontok.Valid([]byte(in))
		if want := json.Valid([]byte(in)); got != want {
			t.Errorf("jsontok.Valid(%q) = %v, json.Valid = %v", in, got, want)
		}
	}
}

var scanSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+3`, `true`, `null`, ` {"a" : [1, "x\"y", {"b":null}] } `,
	`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `-`, `1e`, `"\u12"`, `"\x"`, "\"a\tb\"", `{"a"}`, `{"a":1 "b":2}`,
	`{"a":1}{}`, `nul`, `"é"`, `"\ud800"`, `[[[[]]]]`, `{"a":"\\"}`, `"unterminated`, ``, ` `,
}

func FuzzScanner(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, c := range hostileScan {
		if len(c.in) < 1000 {
			f.Add([]byte(c.in))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := jsontok.Valid(b), json.Valid(b); got != want {
			t.Fatalf("jsontok.Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
		// What the guard reads as members or elements is JSON, and each
		// value is the span of the line it names.
		if ms, err := objectMembers(b); err == nil {
			if !json.Valid(b) {
				t.Fatalf("objectMembers(%q) accepted what is not JSON", b)
			}
			for _, m := range ms {
				if !json.Valid(m.val) || &b[m.off] != &m.val[0] || b[m.koff] != '"' {
					t.Fatalf("objectMembers(%q): member %+v is not a span of the line", b, m)
				}
			}
		}
		if els, err := arrayElems(b); err == nil {
			if !json.Valid(b) {
				t.Fatalf("arrayElems(%q) accepted what is not JSON", b)
			}
			for _, el := range els {
				if off := cap(b) - cap(el); !json.Valid(el) || &b[off] != &el[0] {
					t.Fatalf("arrayElems(%q): element %q is not a span of the line", b, el)
				}
			}
		}
	})
}

func TestObjectMembersRefusesFoldedDuplicates(t *testing.T) {
	for _, in := range []string{
		`{"result":1,"Result":2}`,
		`{"result":1,"reſult":2}`, // U+017F folds to s
		`{"id":1,"ID":2}`,
		`{"tools":[],"TOOLS":[]}`,
		`{"a":1,"a":2}`,
	} {
		if _, err := objectMembers([]byte(in)); !errors.Is(err, errAmbiguous) {
			t.Errorf("objectMembers(%s) = %v, want ambiguous", in, err)
		}
	}
	ms, err := objectMembers([]byte(`{"Result":{"x":1},"id":"\u0031"}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := get(ms, "result"); !ok || string(v) != `{"x":1}` {
		t.Errorf("get(result) = %s, %v: a case-folding client reads Result as result", v, ok)
	}
	id, _ := get(ms, "id")
	if k, _ := idKey(id); k != "s1" {
		t.Errorf("idKey = %q", k)
	}
}

func TestIDKeys(t *testing.T) {
	keys := map[string]string{}
	for _, raw := range []string{`1`, `"1"`, `-1`, `"-1"`, `1.5`, `"a"`} {
		k, ok := idKey([]byte(raw))
		if !ok {
			t.Fatalf("idKey(%s) not ok", raw)
		}
		if prev, dup := keys[k]; dup {
			t.Errorf("ids %s and %s share key %q", prev, raw, k)
		}
		keys[k] = raw
	}
	for _, raw := range []string{`null`, `{}`, `[]`, ``} {
		if _, ok := idKey([]byte(raw)); ok {
			t.Errorf("idKey(%s) ok", raw)
		}
	}
}

// TestRelistFastPath: a line that is an accepted list answer but for its
// id's value passes on the fast path only when that value is a plain id of
// a tools/list request in flight; anything else spliced in goes the whole
// way (and is refused there when it is a trick).
func TestRelistFastPath(t *testing.T) {
	pre, post := `{"jsonrpc":"2.0","id":`, `,"result":{"tools":[]}}`
	s := &session{pending: map[string]pendingReq{}, relists: []relist{{method: "tools/list", pre: []byte(pre), post: []byte(post)}}}
	s.pending["n7"] = pendingReq{id: []byte("7"), method: "tools/list"}
	s.pending[`s"x`] = pendingReq{method: "tools/list"}
	s.pending["n8"] = pendingReq{id: []byte("8"), method: "tools/call"}
	for _, tc := range []struct {
		id   string
		fast bool
	}{
		{`7`, true},
		{`7`, false}, // no longer in flight
		{`8`, false}, // in flight, but not a list request
		{`9`, false}, // not in flight
		{`07`, false}, {`-`, false}, {`1.5`, false}, {`""`, false},
		{`7,"Method":""`, false}, {`7,"Result":{}`, false},
		{`"x"`, false}, // key s"x is not what idKey makes of "x"
		{`"a\"b"`, false},
	} {
		if got := s.relisted([]byte(pre + tc.id + post)); got != tc.fast {
			t.Errorf("relisted(id %s) = %v, want %v", tc.id, got, tc.fast)
		}
	}
	s.pending["sx"] = pendingReq{method: "tools/list"}
	if !s.relisted([]byte(pre + `"x"` + post)) {
		t.Error(`relisted(id "x") = false`)
	}
	if s.relisted([]byte(pre + `7` + post[:len(post)-1] + ` }`)) {
		t.Error("a different tail passed")
	}
}

// TestClassify: the kinds JSON-RPC 2.0 defines, from members spelled as it
// spells them, and every shape two clients could read two ways.
func TestClassify(t *testing.T) {
	ok := map[string]msgKind{
		`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`:                           kindRequest,
		`{"jsonrpc":"2.0","id":"a","method":"sampling/createMessage","params":{}}`: kindRequest,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`:           kindNotification,
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                                     kindResponse,
		`{"result":{},"jsonrpc":"2.0","id":"x"}`:                                   kindResponse,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`:    kindResponse,
		`{"jsonrpc":"2.0","id":1,"result":{},"_meta":{},"x-extra":1}`:              kindResponse,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","Params":{}}`:               0,
	}
	for in, want := range ok {
		ms, err := objectMembers([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		r, err := classify(ms)
		if want == 0 {
			if err == nil {
				t.Errorf("classify(%s) = %v, want refused", in, r.kind)
			}
			continue
		}
		if err != nil || r.kind != want {
			t.Errorf("classify(%s) = %v, %v; want %v", in, r.kind, err, want)
		}
	}
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"Method":"","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"\u004dethod":"","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","error":{}}`,
		`{"jsonrpc":"2.0","id":1,"Result":{}}`,
		`{"jsonrpc":"2.0","id":1,"reſult":{}}`,
		`{"jsonrpc":"2.0","ID":1,"result":{}}`,
		`{"jsonrpc":"2.0","Id":1,"method":"ping"}`,
		`{"JSONRPC":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"params":{},"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","id":1,"error":"boom"}`,
		`{"id":1,"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":2.0,"id":1,"result":{}}`,
	} {
		ms, err := objectMembers([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if r, err := classify(ms); !errors.Is(err, errAmbiguous) {
			t.Errorf("classify(%s) = %v, %v; want refused as ambiguous", in, r.kind, err)
		}
	}
}

// TestSanitizeJSON: only the strings that hide something are re-encoded;
// every other byte stays as it came, escapes included.
func TestSanitizeJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a":"x\u001b[31my","b":"<caf\u00e9>","n":1.50}`, `{"a":"xy","b":"<caf\u00e9>","n":1.50}`},
		{"{\"t\":\"done\U000E0041\U000E0042\"}", `{"t":"done"}`},
		{`{"t":"done\udb40\udc41"}`, `{"t":"done"}`},
		{`{"k":"v","s":"a<b&c\u200b"}`, `{"k":"v","s":"a<b&c"}`},
		{`{"t":"see \u001b]8;;https://x.invalid/\u0007docs\u001b]8;;\u0007"}`, `{"t":"see docs"}`},
	}
	for _, tc := range cases {
		got, removed, ok := sanitize([]byte(tc.in))
		if !ok || string(got) != tc.want || len(removed) == 0 {
			t.Errorf("sanitize(%s) = %s, %q, %v; want %s", tc.in, got, removed, ok, tc.want)
		}
		if !json.Valid(got) {
			t.Errorf("sanitize(%s) is not JSON: %s", tc.in, got)
		}
	}
	if out, _, ok := sanitize([]byte(`{"text":"a","te\u200bxt":"b"}`)); ok {
		t.Errorf("a key hiding a character was stripped into %s: two \"text\" members", out)
	}
	if _, _, ok := sanitize([]byte(`{"a":"clean"}`)); ok {
		t.Error("sanitize of clean JSON reported a change")
	}
}

// FuzzSanitize: whatever JSON a server sends, a sanitized message is JSON
// the inspection rules no longer flag, and classify never panics on it.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		`{"a":"x\u001b[31my"}`, "{\"t\":\"done\U000E0041\"}", `{"t":"\udb40\udc41"}`, `["\u200b",1,{"\u202e":null}]`,
		`{"jsonrpc":"2.0","id":1,"Method":"","result":{}}`, `{"t":"a\u009b2Kb\rc"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if ms, err := objectMembers(b); err == nil {
			classify(ms)
		}
		if !json.Valid(b) {
			return
		}
		out, _, ok := sanitize(b)
		if !ok {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("sanitize(%q) = %q: not JSON", b, out)
		}
		if fs := inspect.Controls(inspect.Subject{Raw: out}); len(fs) > 0 {
			t.Fatalf("sanitize(%q) = %q: still flagged: %s", b, out, fs[0].Message)
		}
	})
}
