package check

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// observe is a phase in which one tool "t" has the given definition.
func observe(raw []byte) probe.Observation {
	return probe.Observation{Phase: "launch-1/initial", Lists: map[lock.Kind][]probe.Def{probe.KindTool: {{Key: "t", Raw: raw}}}}
}

// FuzzCompare compares two hostile definitions of the same tool, as the
// lock's and as a live phase's. compare must not panic; it reports nothing
// exactly when the canonical hashes are equal; a definition compared with
// itself yields nothing; every field path it names is a JSON pointer that
// resolves in one of the two definitions, so a key holding "/" or "~"
// cannot forge a path.
func FuzzCompare(f *testing.F) {
	for _, s := range [][2]string{
		{`{"name":"t","description":"a"}`, `{"description":"b","name":"t"}`},
		{`{"inputSchema":{"properties":{"a/b":{"type":"string"}}}}`, `{"inputSchema":{"properties":{"a":{"properties":{"b":{}}}}}}`},
		{`{"k~1":1,"k/":2,"~":[1,2]}`, `{"k~1":1,"k/":3,"~":[1,2,3]}`},
		{`{"n":1.0,"m":[{"x":null}]}`, `{"n":1,"m":[{"x":false}]}`},
		{`{"d":"a","d":"b"}`, `{"d":"a"}`},
		{`{"n":9007199254740993}`, `{"n":9007199254740992}`},
		{`"\ud800"`, `"\udc00"`},
		{`[1,[2,[3]]]`, `{"":{"":""}}`},
		{"{\"a\":\"\xff\"}", `{"a":"x"}`},
		{`{"inputSchema":{"properties":{}}}`, `{"inputSchema":{"properties":{"evil/../x":{"type":"string"}}}}`},
		{`{"":{"description":"a"}}`, `{"":{"description":"b"},"description":"c"}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ref, live := newSnapshot("s", observe(a)), newSnapshot("s", observe(b))
		ca, cb := lock.Canonicalize(a), lock.Canonicalize(b)
		fs := compare("s", ref, live, "launch-1/initial", false)
		if (ca.SHA256 == cb.SHA256) != (len(fs) == 0) {
			t.Fatalf("equal hashes %v, but %d findings for %q vs %q: %+v", ca.SHA256 == cb.SHA256, len(fs), a, b, fs)
		}
		for _, x := range [][]byte{a, b} {
			s := newSnapshot("s", observe(x))
			if fs := compare("s", s, s, "launch-1/initial", true); len(fs) != 0 {
				t.Fatalf("%q compared with itself: %+v", x, fs)
			}
		}
		if ca.Ambiguous != "" || cb.Ambiguous != "" {
			return // compared byte for byte: no paths
		}
		var da, db any
		json.Unmarshal(ca.Bytes, &da)
		json.Unmarshal(cb.Bytes, &db)
		for _, fd := range fs {
			if fd.Field == "" {
				continue
			}
			if !resolves(da, fd.Field) && !resolves(db, fd.Field) {
				t.Fatalf("field %q resolves in neither %s nor %s", fd.Field, ca.Bytes, cb.Bytes)
			}
		}
		// lock.FieldDiff must agree with compare on what differs.
		if n := len(lock.FieldDiff(ca.Bytes, cb.Bytes)); (n == 0) != (ca.SHA256 == cb.SHA256) {
			t.Fatalf("lock.FieldDiff found %d changes for %s vs %s", n, ca.Bytes, cb.Bytes)
		}
	})
}

// resolves reports whether the JSON pointer (without its leading "/")
// names a value inside v.
func resolves(v any, pointer string) bool {
	for i, tok := range strings.Split(pointer, "/") {
		if i == 0 && tok == "~" {
			tok = "" // the top-level empty key (see join)
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return true
}
