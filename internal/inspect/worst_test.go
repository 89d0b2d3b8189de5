package inspect

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// worstDescriptions are descriptions built to cost the inspector the most
// per byte: every character hidden (zero-width alternating with tag
// characters, which decode to hidden ASCII), every word a prefix of a
// trigger phrase that never completes, and bidi controls that never close.
var worstDescriptions = []struct {
	name string
	unit string
}{
	{"zero-width-and-tags", "\u200b\U000E0069\u200c\U000E0067\u200d\U000E006E\u2060\U000E006F"},
	{"trigger-prefixes", "ignore previous ignore all previous before using this tool you must always "},
	{"unclosed-bidi", "a\u202eb\u2066c\u202ad "},
	{"escape-heavy", "\x1b[2K\r\x07\u00ad\ufeff"},
}

// BenchmarkWorstCaseDefinition runs each worst description at 100 KB and
// at 1 MB: ns/op must grow about 10x, not more.
func BenchmarkWorstCaseDefinition(b *testing.B) {
	for _, w := range worstDescriptions {
		for _, size := range []int{100 << 10, 1 << 20} {
			desc := strings.Repeat(w.unit, size/len(w.unit)+1)
			raw, _ := json.Marshal(map[string]any{"name": "w", "description": desc})
			s := Subject{Server: "s", Kind: finding.KindTool, Name: "w", Raw: raw}
			b.Run(fmt.Sprintf("%s/%dKB", w.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					_ = Definition(s)
				}
			})
		}
	}
}

// BenchmarkWorstCaseEscape: Escape on the same inputs, which every report
// applies to every quoted string.
func BenchmarkWorstCaseEscape(b *testing.B) {
	for _, w := range worstDescriptions {
		for _, size := range []int{100 << 10, 1 << 20} {
			s := strings.Repeat(w.unit, size/len(w.unit)+1)
			b.Run(fmt.Sprintf("%s/%dKB", w.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					_ = inert.Text(s)
				}
			})
		}
	}
}
