package check

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// FieldChange is one differing place between two definitions.
type FieldChange = fieldChange

// FieldChanges lists the field paths where two canonical definitions
// differ ("description", "inputSchema/properties/path/description").
func FieldChanges(before, after []byte) []FieldChange { return diffJSON(before, after) }

// fieldChange is one differing place between two definitions.
type fieldChange struct {
	Path          string
	Before, After string // rendered values; "" when absent
	Added         bool   // present only in the live definition
	// AfterValue is the live value (decoded), for callers that look inside
	// an added object.
	AfterValue any
}

// maxFieldChanges bounds the field paths reported for one entity; a
// rewritten schema is summarized after that.
const maxFieldChanges = 25

// diffJSON lists the field paths where two canonical definitions differ,
// as JSON-pointer-like paths ("inputSchema/properties/path/description").
// Arrays of different length are one change at the array's path.
func diffJSON(before, after []byte) []fieldChange {
	a, errA := decode(before)
	b, errB := decode(after)
	if errA != nil || errB != nil {
		return []fieldChange{{Path: "", Before: string(before), After: string(after)}}
	}
	var out []fieldChange
	walkDiff("", a, b, &out)
	return out
}

func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func walkDiff(path string, a, b any, out *[]fieldChange) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := join(path, k)
			av, ina := am[k]
			bv, inb := bm[k]
			switch {
			case !ina:
				*out = append(*out, fieldChange{Path: p, After: render(bv), Added: true, AfterValue: bv})
			case !inb:
				*out = append(*out, fieldChange{Path: p, Before: render(av)})
			default:
				walkDiff(p, av, bv, out)
			}
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			walkDiff(join(path, strconv.Itoa(i)), as[i], bs[i], out)
		}
		return
	}
	if !equalJSON(a, b) {
		*out = append(*out, fieldChange{Path: path, Before: render(a), After: render(b)})
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// render shows a value for a human: a string as its text, anything else
// as compact JSON.
func render(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(buf.String(), "\n")
}

// join appends a key to a field path in the report's one form
// (lock.AppendFieldPath): a key holding "/" cannot forge a path, and a
// top-level key "" does not vanish into the root.
func join(path, key string) string { return lock.AppendFieldPath(path, key) }

// newInputProperties names the input properties an added field brings: the
// field itself when it is inputSchema/.../properties/NAME, every key of an
// added properties object, or every top-level property of an input schema
// that was absent before.
func newInputProperties(c fieldChange) []string {
	if !c.Added || !(c.Path == "inputSchema" || strings.HasPrefix(c.Path, "inputSchema/")) {
		return nil
	}
	if isInputProperty(c.Path) {
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
	for _, k := range sortedKeys(m) {
		out = append(out, join(base, k))
	}
	return out
}

// isInputProperty reports whether path names a property of a tool's input
// schema at any depth: inputSchema/.../properties/NAME.
func isInputProperty(path string) bool {
	if !strings.HasPrefix(path, "inputSchema/") {
		return false
	}
	parts := strings.Split(path, "/")
	return len(parts) >= 3 && parts[len(parts)-2] == "properties"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
