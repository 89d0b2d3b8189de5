package guard

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestScannerAgreesWithEncodingJSON: the scanner accepts exactly what
// encoding/json accepts as one value.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range scanSeeds {
		got := validJSON([]byte(in)) == nil
		if want := json.Valid([]byte(in)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid = %v", in, got, want)
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
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b) == nil, json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid = %v", b, got, want)
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
