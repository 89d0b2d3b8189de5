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
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// isInert reports whether s is safe to print: valid UTF-8 with no control or
// format character, no invisible class and (unless allowNewline) no newline.
func isInert(s string, allowNewline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\n' && allowNewline {
			continue
		}
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || classify(r) != visible || inert.Unsafe(r) {
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
			if _, ok := finding.Lookup(fd.Rule); !ok || fd.Severity != finding.DefaultSeverity(fd.Rule) && fd.Rule != finding.ModelInstruction && !(fd.Rule == finding.HiddenCharacters && fd.Severity == finding.Warning) || fd.Severity > finding.Error {
				t.Fatalf("bad rule/severity %q %s", fd.Rule, fd.Severity)
			}
			if !isInert(fd.Message, false) || !isInert(fd.Detail, true) {
				t.Fatalf("unescaped text in finding: %q / %q", fd.Message, fd.Detail)
			}
		}
		_ = Across([]Subject{{Server: "a", Kind: finding.KindTool, Name: string(raw), Raw: raw}, {Server: "b", Kind: finding.KindTool, Name: "read_file", Raw: raw}})
	})
}

// FuzzDecodeTags: DecodeTags gives only printable ASCII, whatever the input.
// (Escaping itself is fuzzed once, in internal/inert.)
func FuzzDecodeTags(f *testing.F) {
	for _, s := range []string{"", "plain", "\U000E0041\U000E0001\U000E007F", "\xff\xf3\xa0\x81", "é\u200b\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := DecodeTags(s); strings.ContainsFunc(d, func(r rune) bool { return r < 0x20 || r > 0x7E }) {
			t.Fatalf("DecodeTags gave non-ASCII %q", d)
		}
	})
}
