package check

import (
	"maps"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// newInputProperties names the input properties an added field brings: the
// field itself when it is inputSchema/.../properties/NAME, every key of an
// added properties object, or every top-level property of an input schema
// that was absent before.
func newInputProperties(c lock.FieldChange) []string {
	if !c.Added || !(c.Path == "inputSchema" || strings.HasPrefix(c.Path, "inputSchema/")) {
		return nil
	}
	if lock.IsInputProperty(c.Path) {
		return []string{c.Path}
	}
	var props any
	switch {
	case c.Path == "inputSchema":
		if m, ok := c.AfterValue.(map[string]any); ok {
			props = m["properties"]
		}
	case strings.HasSuffix(c.Path, "/properties"):
		props = c.AfterValue
	}
	m, ok := props.(map[string]any)
	if !ok {
		return nil
	}
	base := c.Path
	if base == "inputSchema" {
		base = "inputSchema/properties"
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, lock.AppendFieldPath(base, k))
	}
	return out
}
