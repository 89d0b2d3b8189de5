package check

import (
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestCompareFields: each changed field is named by its path, and every
// new input a schema change brings is a new-input-property, whether the
// property, the properties object or the whole schema was added.
func TestCompareFields(t *testing.T) {
	tests := []struct {
		name       string
		lock, live string
		want       []string // rule@field
	}{
		{"same", `{"name":"t","description":"d"}`, `{"description":"d","name":"t"}`, nil},
		{"description", `{"name":"t","description":"d"}`, `{"name":"t","description":"e"}`, []string{"tool-changed@description"}},
		{"annotation added", `{"name":"t"}`, `{"name":"t","annotations":{"readOnlyHint":false}}`, []string{"tool-changed@annotations"}},
		{"title", `{"name":"t","title":"A"}`, `{"name":"t","title":"B"}`, []string{"tool-changed@title"}},
		{"output schema", `{"name":"t","outputSchema":{"type":"object"}}`, `{"name":"t","outputSchema":{"type":"string"}}`, []string{"tool-changed@outputSchema/type"}},
		{"meta", `{"name":"t","_meta":{"a":1}}`, `{"name":"t","_meta":{"a":2}}`, []string{"tool-changed@_meta/a"}},
		{"nested description", `{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"string","description":"x"}}}}`,
			`{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"string","description":"y"}}}}`, []string{"tool-changed@inputSchema/properties/p/description"}},
		{"new property", `{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"string"}}}}`,
			`{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"string"},"sidenote":{"type":"string"}}}}`,
			[]string{"new-input-property@inputSchema/properties/sidenote", "tool-changed@inputSchema/properties/sidenote"}},
		{"properties added to an empty schema", `{"name":"t","inputSchema":{"type":"object"}}`,
			`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}}`,
			[]string{"new-input-property@inputSchema/properties/a", "new-input-property@inputSchema/properties/b", "tool-changed@inputSchema/properties"}},
		{"schema added", `{"name":"t"}`, `{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`,
			[]string{"new-input-property@inputSchema/properties/x", "tool-changed@inputSchema"}},
		{"nested new property", `{"name":"t","inputSchema":{"type":"object","properties":{"o":{"type":"object","properties":{}}}}}`,
			`{"name":"t","inputSchema":{"type":"object","properties":{"o":{"type":"object","properties":{"leak":{"type":"string"}}}}}}`,
			[]string{"new-input-property@inputSchema/properties/o/properties/leak", "tool-changed@inputSchema/properties/o/properties/leak"}},
		{"slash in a key", `{"name":"t","_meta":{"a/b":1}}`, `{"name":"t","_meta":{"a/b":2}}`, []string{"tool-changed@_meta/a~1b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := &lock.Server{Tools: map[string]*lock.Entry{"t": lock.NewEntry([]byte(tt.lock))}}
			live := newSnapshot("s", probe.Observation{Phase: "p", Lists: map[lock.Kind][]probe.Def{probe.KindTool: {{Key: "t", Raw: []byte(tt.live)}}}})
			fs := compare("s", lockView(ls), live, "p", false)
			finding.Sort(fs)
			var got []string
			for _, f := range fs {
				got = append(got, string(f.Rule)+"@"+f.Field)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %v\nwant %v", got, tt.want)
			}
		})
	}
}
