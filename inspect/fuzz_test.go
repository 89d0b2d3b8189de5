package inspect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// inert reports whether s is safe to print: valid UTF-8 with no control or
// format character, no invisible class and (unless allowNewline) no newline.
func inert(s string, allowNewline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\n' && allowNewline {
			continue
		}
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || classify(r) != visible || mustEscape(r) {
			return false
		}
	}
	return true
}

// FuzzDefinition feeds arbitrary bytes as a definition: Definition must not
// panic, must only emit registered rules at their default severity, and
// whatever it quotes must be escaped. Seeds: testdata/fuzz/FuzzDefinition
// and the attack files.
func FuzzDefinition(f *testing.F) {
	files, _ := filepath.Glob("testdata/attacks/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var a attack
		if json.Unmarshal(data, &a) == nil {
			f.Add([]byte(a.Definition))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fs := Definition(Subject{Server: "s", Kind: finding.KindTool, Name: "n", Raw: raw})
		for _, fd := range fs {
			if _, ok := finding.Lookup(fd.Rule); !ok || fd.Severity != finding.DefaultSeverity(fd.Rule) {
				t.Fatalf("bad rule/severity %q %s", fd.Rule, fd.Severity)
			}
			if !inert(fd.Message, false) || !inert(fd.Detail, true) {
				t.Fatalf("unescaped text in finding: %q / %q", fd.Message, fd.Detail)
			}
		}
		_ = Across([]Subject{{Server: "a", Kind: finding.KindTool, Name: string(raw), Raw: raw}, {Server: "b", Kind: finding.KindTool, Name: "read_file", Raw: raw}})
	})
}

// FuzzEscape: Escape never panics, its output is inert and one line, and
// printable ASCII passes through unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "a\tb\nc", "\x1b[2K", "\U000E0041", "\xff\xfe", "é\u200b\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !inert(e, false) {
			t.Fatalf("Escape(%q) = %q is not inert", s, e)
		}
		printable := true
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] >= 0x7F {
				printable = false
			}
		}
		if printable && e != s {
			t.Fatalf("Escape changed printable %q to %q", s, e)
		}
		if d := DecodeTags(s); strings.ContainsFunc(d, func(r rune) bool { return r < 0x20 || r > 0x7E }) {
			t.Fatalf("DecodeTags gave non-ASCII %q", d)
		}
	})
}
