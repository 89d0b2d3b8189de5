package lock

import (
	"slices"
	"strings"
	"testing"
)

func buildPath(keys []string) string {
	p := ""
	for _, k := range keys {
		p = AppendFieldPath(p, k)
	}
	return p
}

// TestFieldPath pins the form the JSON report shows, and that keys an
// attacker chooses (empty, holding "/" or "~", dots, brackets, quotes,
// control and invisible characters) name exactly one place.
func TestFieldPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		keys []string
		want string
	}{
		{"root", nil, ""},
		{"top-level field", []string{"description"}, "description"},
		{"nested", []string{"inputSchema", "properties", "path", "description"}, "inputSchema/properties/path/description"},
		{"array index", []string{"content", "0", "text"}, "content/0/text"},
		{"slash in a key", []string{"inputSchema", "properties", "a/b"}, "inputSchema/properties/a~1b"},
		{"tilde in a key", []string{"~", "k~1"}, "~0/k~01"},
		{"empty key at the top", []string{""}, "~"},
		{"empty key at the top, then more", []string{"", "description"}, "~/description"},
		{"empty key inside", []string{"a", ""}, "a/"},
		{"empty keys inside", []string{"a", "", "", "b"}, "a///b"},
		{"dots, brackets, quotes", []string{"a.b", "args[0]", `"q"`, "'s'"}, `a.b/args[0]/"q"/'s'`},
		{"control and invisible characters stay data", []string{"a\x1b[2J", "b\u202e", "\U000E0041"}, "a\x1b[2J/b\u202e/\U000E0041"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := buildPath(tc.keys)
			if got != tc.want {
				t.Errorf("path of %q = %q, want %q", tc.keys, got, tc.want)
			}
			back, err := SplitFieldPath(got)
			if err != nil || !slices.Equal(back, tc.keys) {
				t.Errorf("SplitFieldPath(%q) = %q, %v; want %q", got, back, err, tc.keys)
			}
		})
	}
	if got := AppendFieldIndex("args", 3); got != "args/3" {
		t.Errorf("AppendFieldIndex = %q", got)
	}
}

func TestSplitFieldPathRefuses(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/a", "a~", "a/~2", "~x", "a/b~"} {
		if toks, err := SplitFieldPath(p); err == nil {
			t.Errorf("SplitFieldPath(%q) = %q, want an error", p, toks)
		}
	}
}

// TestJoinFieldPaths: a path found inside a part of a message, put under
// the part's own path, names the same keys in order, even when it starts
// with the empty key.
func TestJoinFieldPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prefix, rest []string
		want         string
	}{
		{[]string{"serverInfo"}, nil, "serverInfo"},
		{nil, []string{"description"}, "description"},
		{[]string{"serverInfo"}, []string{"version"}, "serverInfo/version"},
		{[]string{"serverInfo"}, []string{""}, "serverInfo/"},
		{[]string{"serverInfo"}, []string{"", "x"}, "serverInfo//x"},
		{[]string{""}, []string{""}, "~/"},
	} {
		got := JoinFieldPaths(buildPath(tc.prefix), buildPath(tc.rest))
		if got != tc.want {
			t.Errorf("JoinFieldPaths(%q, %q) = %q, want %q", tc.prefix, tc.rest, got, tc.want)
		}
		if back, err := SplitFieldPath(got); err != nil || !slices.Equal(back, append(slices.Clone(tc.prefix), tc.rest...)) {
			t.Errorf("SplitFieldPath(%q) = %q, %v", got, back, err)
		}
	}
}

// FuzzFieldPath: any list of keys (split from the input on NUL) encodes to
// a path that decodes back to the same keys, so two different places never
// share a path; joining two paths names their keys in order.
func FuzzFieldPath(f *testing.F) {
	for _, s := range []string{"", "\x00", "a\x00b", "~\x00/", "\x00\x00x", "a/b\x00~1\x00~0", "args[0]\x00\u202e"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var keys []string
		if s != "" {
			keys = strings.Split(s, "\x00")
		}
		p := buildPath(keys)
		back, err := SplitFieldPath(p)
		if err != nil || !slices.Equal(back, keys) {
			t.Fatalf("keys %q: path %q splits to %q, %v", keys, p, back, err)
		}
		if len(keys) == 0 {
			return
		}
		cut = ((cut % (len(keys) + 1)) + len(keys) + 1) % (len(keys) + 1)
		j := JoinFieldPaths(buildPath(keys[:cut]), buildPath(keys[cut:]))
		if j != p {
			t.Fatalf("keys %q cut at %d join to %q, want %q", keys, cut, j, p)
		}
	})
}

// TestIndexKeysCannotCollide attacks the lock's line index: a server whose
// name spells another server's entry path (with NUL, "/" or "~" where the
// index's separator would be) must not steal that entry's line.
func TestIndexKeysCannotCollide(t *testing.T) {
	t.Parallel()
	for _, evil := range []string{`a\u0000tools\u0000t`, `a/tools/t`, `a~1tools~1t`} {
		data := []byte("{\n\"lockfileVersion\": 1,\n\"servers\": {\n" +
			"\"a\": {\n\"tools\": {\n\"t\": {}\n}\n},\n" +
			"\"" + evil + "\": {}\n}\n}\n")
		idx := Index(data)
		if l := idx.Line("a", KindTool, "t"); l != 6 {
			t.Errorf("server %s: Line(a, tool, t) = %d, want 6", evil, l)
		}
	}
}
