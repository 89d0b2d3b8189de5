package lock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		a, b      string
		same      bool
		ambiguous string // substring of the reason for b, "" if none
	}{
		{"key order and whitespace", `{"b":1,"a":"x"}`, "{ \"a\" : \"x\",\n \"b\" : 1 }", true, ""},
		{"escape vs literal", `{"d":"café"}`, `{"d":"caf\u00e9"}`, true, ""},
		{"number forms", `{"n":1}`, `{"n":1.0}`, true, ""},
		{"exponent", `{"n":100}`, `{"n":1e2}`, true, ""},
		{"NFC vs NFD", `{"d":"café"}`, "{\"d\":\"cafe\u0301\"}", false, ""},
		{"one code point", `{"d":"abc"}`, `{"d":"abd"}`, false, ""},
		{"unknown fields kept", `{"name":"x"}`, `{"name":"x","execution":{"x-y":1}}`, false, ""},
		{"U+2028 escaped vs literal", `{"d":"a\u2028b"}`, "{\"d\":\"a\u2028b\"}", true, ""},
		{"duplicate keys", `{"d":"a"}`, `{"d":"a","d":"b"}`, false, "duplicate"},
		{"lone surrogate", `{"d":"a"}`, `{"d":"\ud800"}`, false, "surrogate"},
		{"invalid UTF-8", `{"d":"a"}`, "{\"d\":\"\xff\"}", false, "UTF-8"},
		{"big integer", `{"n":9007199254740992}`, `{"n":9007199254740993}`, false, "exact"},
		{"out of range", `{"n":1}`, `{"n":1e400}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Canonicalize([]byte(tt.a)), Canonicalize([]byte(tt.b))
			if a.Ambiguous != "" {
				t.Fatalf("a is ambiguous: %s", a.Ambiguous)
			}
			if (a.SHA256 == b.SHA256) != tt.same {
				t.Errorf("same = %v, want %v (%s vs %s)", a.SHA256 == b.SHA256, tt.same, a.Bytes, b.Bytes)
			}
			if tt.ambiguous != "" && !strings.Contains(b.Ambiguous, tt.ambiguous) {
				t.Errorf("ambiguous = %q, want it to mention %q", b.Ambiguous, tt.ambiguous)
			}
			if b.Ambiguous != "" && !bytes.Equal(b.Bytes, bytes.TrimSpace([]byte(tt.b))) {
				t.Errorf("ambiguous definition not kept byte for byte")
			}
		})
	}
}

func sample() *File {
	f := New()
	s := &Server{
		Launch:          Launch{Type: "stdio", Command: "npx", Args: []string{"-y", "pkg@1.0.0"}, Env: []string{"TOKEN"}},
		ProtocolVersion: "2025-06-18",
		ServerInfo:      []byte(`{"version":"1","name":"x"}`),
		Instructions:    []byte(`"Use <these> & tools"`),
		Tools:           map[string]*Entry{},
	}
	s.Tools["b_tool"] = NewEntry([]byte(`{"name":"b_tool","description":"B é"}`))
	s.Tools["a_tool"] = NewEntry([]byte(`{"name":"a_tool","inputSchema":{"type":"object"}}`))
	s.Tools["weird"] = NewEntry([]byte(`{"name":"weird","d":1,"d":2}`))
	s.Acknowledgements = []Ack{{Rule: "model-instruction", Kind: "tool", Subject: "b_tool", SHA256: "00", Reason: "ok"}}
	f.Servers["srv"] = s
	return f
}

func TestMarshalGoldenAndRoundTrip(t *testing.T) {
	t.Parallel()
	data, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/sample.lock.json", data)
	f, err := Parse("sample", data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Errorf("marshal is not stable across a round trip:\n%s\n---\n%s", data, again)
	}
	if f.Servers["srv"].Tools["weird"].Ambiguous == "" {
		t.Errorf("ambiguous entry lost its marker")
	}
	if got := f.Servers["srv"].Tools["weird"].Canonical(); string(got.Bytes) != `{"name":"weird","d":1,"d":2}` {
		t.Errorf("raw bytes of the ambiguous entry = %s", got.Bytes)
	}
	idx := Index(data)
	lines := strings.Split(string(data), "\n")
	if l := idx.Line("srv", KindTool, "b_tool"); l == 0 || !strings.Contains(lines[l-1], `"b_tool"`) {
		t.Errorf("Line(b_tool) = %d", l)
	}
	if l := idx.Line("srv", "", ""); l == 0 || !strings.Contains(lines[l-1], `"srv"`) {
		t.Errorf("Line(srv) = %d", l)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"{\n  \"lockfileVersion\": 1,\n  \"servers\": {\"x\": 12}\n}", "l.json:3:"},
		{`{"lockfileVersion": 2, "servers": {}}`, "lockfileVersion 2"},
		{`{"lockfileVersion": 1, "servers": {}, "extra": true}`, `l.json:1:39: invalid lockfile: unknown field "extra" in the top level`},
		// One meaning only: a second lockfileVersion, however spelt, a key
		// twice anywhere (server, tool, inside a definition), an unknown
		// field at any depth, each with line and column.
		{"{\"lockfileVersion\": 1,\n \"lockfileVersion\": 1, \"servers\": {}}", `l.json:2:2: invalid lockfile: key "lockfileVersion" appears twice in the top level (first on line 1)`},
		{`{"lockfileVersion": 1, "LockfileVersion": 2, "servers": {}}`, `l.json:1:24: invalid lockfile: unknown field "LockfileVersion"`},
		{"{\"lockfileVersion\": 1, \"servers\": {\n\"x\": {\"launch\":{\"type\":\"stdio\"},\"protocolVersion\":\"1\",\"tools\":{}},\n\"x\": {}}}", `l.json:3:1: invalid lockfile: key "x" appears twice in servers (first on line 2)`},
		{`{"lockfileVersion": 1, "servers": {"x": {"launch":{"type":"stdio"},"protocolVersion":"1","tools":{"t":{"definition":{"name":"t"},"sha256":"00"},"t":{"definition":{"name":"u"},"sha256":"01"}}}}}`, `key "t" appears twice in servers.x.tools`},
		{`{"lockfileVersion": 1, "servers": {"x": {"launch":{"type":"stdio"},"protocolVersion":"1","tools":{"t":{"definition":{"name":"t","description":"a","description":"b"},"sha256":"00"}}}}}`, `key "description" appears twice in servers.x.tools.t.definition`},
		{`{"lockfileVersion": 1, "servers": {"x": {"launch":{"type":"stdio","argv":["a"]},"protocolVersion":"1","tools":{}}}}`, `unknown field "argv" in servers.x.launch; known: args, command`},
		{`{"lockfileVersion": 1, "servers": {"x": {"launch":{"type":"stdio"},"protocolVersion":"1","tools":{},"acknowledgements":[{"rule":"r","kind":"tool","subject":"t","sha256":"00","reason":"x","reason":"y"}]}}}`, `key "reason" appears twice in servers.x.acknowledgements[0]`},
		{"{\n\"lockfileVersion\": 1,\n\"servers\": {\"x\": {\"launch\":{\"type\":\"stdio\"},\"protocolVersion\":\"1\",\"tools\":{\"t\":{\"sha256\":\"00\"}}}}}", "l.json:3: invalid lockfile: tool x/t has no definition"},
		{"{\"lockfileVersion\": 1,,}", "l.json:1:"},
		{"", "l.json"},
	}
	for _, tt := range tests {
		_, err := Parse("l.json", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// TestParseForeign: a file another tool wrote under the same name is
// named as not a lock of ours, with its top-level keys, and never read
// as one with a mistake in it; a lock of ours with a mistake is not
// called foreign.
func TestParseForeign(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in      string
		foreign bool
		want    string
	}{
		{`{"version": "1.0.0", "mcpServers": {"fs": {"command": "npx"}}}`, true, `it has no "lockfileVersion" (its top-level keys: "version", "mcpServers";`},
		{`{"version": "1.0.0", "lockfileVersion": 1, "createdAt": null, "servers": {"fs": {"version": "2.1.0", "integrity": "sha512-x"}}}`, true, `its server "fs" has no "launch"`},
		{`{"lockfileVersion": 1, "packages": {}}`, true, `it has no "servers"`},
		{`{"lockfileVersion": 1, "servers": []}`, true, `its "servers" is not an object`},
		{`[{"name": "fs"}]`, true, `it holds a JSON array`},
		{`"mcp"`, true, `it holds a JSON string`},
		// Ours, with a mistake: the line of the mistake, not "foreign".
		{`{"lockfileVersion": 1, "servers": {}, "extra": true}`, false, `l.json:1:39: invalid lockfile: unknown field "extra"`},
		{"{\"lockfileVersion\": 1, \"servers\": {\"x\": {\"launch\": {\"type\": \"stdio\"}, \"protocolVersion\": \"1\", \"tools\": {}, \"tool\": {}}}}", false, `unknown field "tool" in servers.x`},
		{`{"lockfileVersion": 1, "servers": {}}`, false, ""},
		{`{"lockfileVersion": 1,`, false, "l.json:1:"},
	} {
		_, err := Parse("l.json", []byte(tt.in))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Parse(%s) = %v, want no error", tt.in, err)
		case tt.want == "":
		case err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) || errors.Is(err, ErrForeign) != tt.foreign:
			t.Errorf("Parse(%s) = %v; want %q, foreign %v", tt.in, err, tt.want, tt.foreign)
		case tt.foreign && !strings.HasPrefix(err.Error(), "l.json: invalid lockfile: this is not an mcp-lockcheck lock: "):
			t.Errorf("Parse(%s) = %v; want it named as not an mcp-lockcheck lock, with the file", tt.in, err)
		}
	}
}

func TestWriteAtomicKeepsOldOnFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "mcp-lock.json")
	if err := WriteAtomic(p, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	if os.Geteuid() != 0 {
		if err := WriteAtomic(p, []byte("new\n")); err == nil {
			t.Fatal("write into a read-only dir succeeded")
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Errorf("lock = %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestPromptAnswersRoundTrip: a pinned prompts/get answer survives a write
// and a read, and a lock without promptAnswers reads as before.
func TestPromptAnswersRoundTrip(t *testing.T) {
	t.Parallel()
	f := New()
	s := &Server{Launch: Launch{Type: "stdio", Command: "x"}, Tools: map[string]*Entry{}}
	s.PromptAnswers = map[string]*PromptAnswer{"hello": NewPromptAnswer(nil, []byte(`{"messages":[{"role":"user","content":{"type":"text","text":"caf\u00e9"}}]}`))}
	f.Servers["s"] = s
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("mcp-lock.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	a := back.Servers["s"].PromptAnswers["hello"]
	if a == nil || string(a.Arguments) != "{}" || a.Canonical().SHA256 != s.PromptAnswers["hello"].SHA256 {
		t.Fatalf("read back %+v", a)
	}
	old := []byte(`{"lockfileVersion":1,"servers":{"s":{"launch":{"type":"stdio","command":"x"},"protocolVersion":"2025-06-18","tools":{}}}}`)
	if l, err := Parse("old.json", old); err != nil || l.Servers["s"].PromptAnswers != nil {
		t.Fatalf("a lock without promptAnswers: %v", err)
	}
	bad := []byte(`{"lockfileVersion":1,"servers":{"s":{"launch":{"type":"stdio"},"protocolVersion":"","tools":{},"promptAnswers":{"hello":{"sha256":"x"}}}}}`)
	if _, err := Parse("bad.json", bad); err == nil {
		t.Error("a prompt answer without arguments or answer was read")
	}
}

// TestEntryCanonicalKept: Parse and NewEntry keep each entry's canonical
// form, and Canonical answers from it only while the entry is what it was
// worked out from.
func TestEntryCanonicalKept(t *testing.T) {
	t.Parallel()
	data := []byte(`{"lockfileVersion": 1, "servers": {"x": {"launch": {"type": "stdio"}, "protocolVersion": "1", "tools": {
		"t": {"definition": {"name": "t",   "description": "a"}, "sha256": "00"},
		"r": {"raw": "` + base64.StdEncoding.EncodeToString([]byte(`{"a":1,"a":2}`)) + `", "ambiguous": "duplicate object key", "sha256": "00"}}}}}`)
	f, err := Parse("l.json", data)
	if err != nil {
		t.Fatal(err)
	}
	tools := f.Servers["x"].Entries(KindTool, false)
	e, r := tools["t"], tools["r"]
	if e.memo == nil || r.memo == nil {
		t.Fatal("Parse kept no canonical form")
	}
	want := `{"description":"a","name":"t"}`
	if got := e.Canonical(); string(got.Bytes) != want || got.SHA256 != Sum([]byte(want)) {
		t.Fatalf("Canonical = %s %s, want %s", got.Bytes, got.SHA256, want)
	}
	// What a caller appends to is its own, not shared with the next.
	one := append(e.Canonical().Bytes, 'X')
	two := append(e.Canonical().Bytes, 'Y')
	if string(one) != want+"X" || string(two) != want+"Y" {
		t.Errorf("two callers' appends: %s and %s", one, two)
	}
	if again := e.Canonical(); string(again.Bytes) != want {
		t.Errorf("after appends by callers, Canonical = %s", again.Bytes)
	}
	// A new definition is canonicalized anew, not answered from the kept one.
	e.Definition = json.RawMessage(`{"name": "t", "description": "b"}`)
	if got := e.Canonical(); string(got.Bytes) != `{"description":"b","name":"t"}` {
		t.Errorf("after the definition changed, Canonical = %s", got.Bytes)
	}
	if got := r.Canonical(); string(got.Bytes) != `{"a":1,"a":2}` || got.Ambiguous == "" {
		t.Errorf("raw entry: Canonical = %s (%q)", got.Bytes, got.Ambiguous)
	}
	r.Ambiguous = "other"
	if got := r.Canonical(); got.Ambiguous != "other" {
		t.Errorf("after Ambiguous changed, Canonical says %q", got.Ambiguous)
	}
	for _, in := range []string{`{"b": 2, "a": 1}`, `{"a":1,"a":2}`, "\xff"} {
		n := NewEntry([]byte(in))
		if want := n.canonical(); n.memo == nil || !reflect.DeepEqual(n.Canonical(), want) {
			t.Errorf("NewEntry(%q): memo %v, Canonical %+v, want %+v", in, n.memo, n.Canonical(), want)
		}
	}
}
