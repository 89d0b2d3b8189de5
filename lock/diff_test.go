package lock

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// manifest builds a manifest of tools (key -> raw definition) with the
// given instructions string ("" for none).
func manifest(instructions string, tools map[string]string) *Manifest {
	m := &Manifest{Entries: map[Kind]map[string]Canonical{KindTool: {}}}
	if instructions != "" {
		b, _ := json.Marshal(instructions)
		m.Instructions = Canonicalize(b)
	}
	for k, raw := range tools {
		m.Entries[KindTool][k] = Canonicalize([]byte(raw))
	}
	return m
}

// summary is a change in one line: "op kind/name [paths]".
func summary(cs []Change) []string {
	var out []string
	for _, c := range cs {
		var paths []string
		for _, f := range c.Fields {
			if f.Path == "" {
				f.Path = "(whole)"
			}
			paths = append(paths, f.Path)
		}
		s := fmt.Sprintf("%s %s/%s", c.Op, c.Kind, c.Name)
		if len(paths) > 0 {
			s += " [" + strings.Join(paths, " ") + "]"
		}
		if c.Ambiguous() {
			s += " (bytes)"
		}
		out = append(out, s)
	}
	return out
}

func TestDiff(t *testing.T) {
	t.Parallel()
	const a = `{"name":"a","description":"A."}`
	for _, tc := range []struct {
		name      string
		ref, live *Manifest
		want      []string
	}{
		{"same", manifest("hi", map[string]string{"a": a}), manifest("hi", map[string]string{"a": " {\"description\" : \"A.\", \"name\":\"a\"}"}), nil},
		{
			"added, changed and removed, live keys first then removals",
			manifest("", map[string]string{"a": a, "c": `{"name":"c"}`, "z": `{"name":"z"}`}),
			manifest("", map[string]string{"a": `{"name":"a","description":"B."}`, "b": `{"name":"b"}`, "y": `{"name":"y"}`}),
			[]string{"changed tool/a [description]", "added tool/b", "added tool/y", "removed tool/c", "removed tool/z"},
		},
		{
			"the server's own fields first",
			manifest("", map[string]string{"a": a}),
			manifest("new text", map[string]string{"a": `{"name":"a"}`}),
			[]string{"added server/instructions", "changed tool/a [description]"},
		},
		{"instructions dropped", manifest("old", nil), manifest("", nil), []string{"removed server/instructions"}},
		{"instructions changed", manifest("old", nil), manifest("new", nil), []string{"changed server/instructions [(whole)]"}},
		{
			"ambiguous JSON is compared byte for byte",
			manifest("", map[string]string{"a": `{"name":"a","name":"b"}`}),
			manifest("", map[string]string{"a": `{"name":"a", "name":"b"}`}),
			[]string{"changed tool/a (bytes)"},
		},
		{
			"a key holding / or ~ cannot forge a path, the empty key is ~",
			manifest("", map[string]string{"a": `{"x/y":1,"m~n":1,"":{"description":"d"}}`}),
			manifest("", map[string]string{"a": `{"x/y":2,"m~n":2,"":{"description":"e"}}`}),
			[]string{"changed tool/a [~/description m~0n x~1y]"},
		},
		{
			"arrays of one length by index, of another length whole",
			manifest("", map[string]string{"a": `{"e":[1,2,3],"f":[1]}`}),
			manifest("", map[string]string{"a": `{"e":[1,5,3],"f":[1,2]}`}),
			[]string{"changed tool/a [e/1 f]"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summary(Diff(tc.ref, tc.live)); !slices.Equal(got, tc.want) {
				t.Errorf("Diff:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestDiffProtocolVersion: an unknown version (an old lock) is absent, not
// a value; a change carries both as JSON strings.
func TestDiffProtocolVersion(t *testing.T) {
	t.Parallel()
	ref, live := manifest("", nil), manifest("", nil)
	live.ProtocolVersion = "2025-06-18"
	cs := Diff(ref, live)
	if len(cs) != 1 || cs[0].Op != Added || cs[0].Name != "protocolVersion" {
		t.Fatalf("from none: %+v", cs)
	}
	ref.ProtocolVersion = "2025-03-26"
	cs = Diff(ref, live)
	if len(cs) != 1 || cs[0].Op != Changed || string(cs[0].Before.Bytes) != `"2025-03-26"` || cs[0].After.Text() != "2025-06-18" {
		t.Fatalf("changed: %+v", cs)
	}
}

// TestManifestReadsRawHandshake: a handshake value the lock keeps as raw
// bytes is compared as those bytes.
func TestManifestReadsRawHandshake(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"name":"s","name":"t"}`)
	s := &Server{Raw: map[string]string{"serverInfo": "eyJuYW1lIjoicyIsIm5hbWUiOiJ0In0="}}
	m := s.Manifest()
	if string(m.ServerInfo.Bytes) != string(raw) || m.ServerInfo.Ambiguous == "" {
		t.Fatalf("serverInfo %+v", m.ServerInfo)
	}
	live := &Manifest{ServerInfo: Canonicalize(raw)}
	if cs := Diff(m, live); len(cs) != 0 {
		t.Errorf("the same raw bytes differ: %+v", cs)
	}
}

func TestFieldDiffValues(t *testing.T) {
	t.Parallel()
	got := FieldDiff([]byte(`{"a":"x","b":{"c":1}}`), []byte(`{"a":"y","d":{"e":true}}`))
	want := []FieldChange{
		{Path: "a", Before: "x", After: "y"},
		{Path: "b", Before: `{"c":1}`},
		{Path: "d", After: `{"e":true}`, Added: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g := got[i]
		g.AfterValue = nil
		if g != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, g, want[i])
		}
	}
	if m, ok := got[2].AfterValue.(map[string]any); !ok || m["e"] != true {
		t.Errorf("AfterValue of an added object: %#v", got[2].AfterValue)
	}
	if got := FieldDiff([]byte(`{`), []byte(`{}`)); len(got) != 1 || got[0].Path != "" || got[0].Before != "{" {
		t.Errorf("undecodable bytes are one whole change: %+v", got)
	}
}

// TestKindTable: every entry kind has one row, found by kind and by its
// list method, and the lock's key is the list result's array.
func TestKindTable(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds {
		k, ok := InfoOf(kind)
		if !ok {
			t.Fatalf("no row for %s", kind)
		}
		if m, ok := InfoOfMethod(k.Method); !ok || m != k {
			t.Errorf("%s: by method %q: %+v", kind, k.Method, m)
		}
		if JSONKey(kind) != k.Field {
			t.Errorf("%s: JSONKey %q, list field %q", kind, JSONKey(kind), k.Field)
		}
	}
	for _, bad := range []Kind{KindServer, "", "tools"} {
		if _, ok := InfoOf(bad); ok {
			t.Errorf("%q is not an entry kind", bad)
		}
	}
	if _, ok := InfoOfMethod("tools/call"); ok {
		t.Error("tools/call lists nothing")
	}
}

// FuzzFieldDiff: the diff of two definitions is empty exactly when their
// canonical hashes agree, and is the same set of paths both ways round.
func FuzzFieldDiff(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":1}`, `{"a":1.0}`},
		{`{"a":[1,2]}`, `{"a":[2,1]}`},
		{`{"":{"d":"x"}}`, `{"d":"x"}`},
		{`{"a/b":1}`, `{"a":{"b":1}}`},
		{`{"a":"\u00e9"}`, `{"a":"é"}`},
		{`{"a":null}`, `{}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ca, cb := Canonicalize(a), Canonicalize(b)
		if ca.Ambiguous != "" || cb.Ambiguous != "" {
			return
		}
		ab, ba := FieldDiff(ca.Bytes, cb.Bytes), FieldDiff(cb.Bytes, ca.Bytes)
		if (len(ab) == 0) != (ca.SHA256 == cb.SHA256) {
			t.Fatalf("%d changes for %s vs %s", len(ab), ca.Bytes, cb.Bytes)
		}
		paths := func(fs []FieldChange) []string {
			var out []string
			for _, f := range fs {
				out = append(out, f.Path)
			}
			return out
		}
		if !slices.Equal(paths(ab), paths(ba)) {
			t.Fatalf("paths differ by direction: %q vs %q", paths(ab), paths(ba))
		}
		if _, ok := DiffOne(KindTool, "t", ca, ca); ok {
			t.Fatal("a definition differs from itself")
		}
	})
}

// TestParseKind pins the closed set of kinds: the entry kinds and server
// parse as themselves; other cases, plurals and names do not.
func TestParseKind(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Kind
		ok   bool
	}{
		{"tool", KindTool, true},
		{"prompt", KindPrompt, true},
		{"resource", KindResource, true},
		{"template", KindTemplate, true},
		{"server", KindServer, true},
		{"Tool", "", false},
		{"SERVER", "", false},
		{"tools", "", false},
		{"resourceTemplates", "", false},
		{"prompts/get", "", false},
		{"", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseKind(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseKind(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
			if Kind(tc.in).Valid() != tc.ok {
				t.Errorf("Kind(%q).Valid() = %v, want %v", tc.in, !tc.ok, tc.ok)
			}
		})
	}
	for _, k := range Kinds {
		if !k.Valid() {
			t.Errorf("%s is in Kinds but not Valid", k)
		}
	}
}
