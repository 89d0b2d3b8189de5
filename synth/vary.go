package synth

import (
	"encoding/json"
	"sort"
)

// Vary plans n warm-up calls for the deep profile: round-robin over the
// tools Pick chooses (so a decoy tool cannot absorb every call), with the
// arguments changing from one round to the next. Round 0 is Pick's
// minimal arguments; each later round fills the tool's top-level
// properties, optional ones too, with a value taken in turn from the
// property's examples, enum, default, its name and a name-derived word, so
// a server that only misbehaves for a non-empty or particular argument is
// reached. Every value is kept only if the whole object still validates
// against the schema (with a fresh work budget), else the property keeps
// its round-0 value or stays absent: a variant is never less valid than
// the minimal call. The output is deterministic.
func Vary(tools []json.RawMessage, n int) []Call {
	picked := Pick(tools)
	if len(picked) == 0 || n <= 0 {
		return nil
	}
	schemas := map[string]json.RawMessage{}
	for _, raw := range tools {
		var def struct {
			Name        *string         `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &def) == nil && def.Name != nil {
			if _, dup := schemas[*def.Name]; !dup {
				schemas[*def.Name] = def.InputSchema
			}
		}
	}
	out := make([]Call, 0, n)
	for i := range n {
		c := picked[i%len(picked)]
		if round := i / len(picked); round > 0 {
			if args, ok := variant(schemas[c.Tool], c.Arguments, round); ok {
				c.Arguments = args
			}
		}
		out = append(out, c)
	}
	return out
}

// variant is the minimal arguments with each top-level property set to
// its round-th candidate value, where the schema still accepts it.
func variant(schema, minimal json.RawMessage, round int) (json.RawMessage, bool) {
	doc, err := decode(schema)
	if err != nil {
		return nil, false
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, false
	}
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		return nil, false
	}
	base, err := decode(minimal)
	if err != nil {
		return nil, false
	}
	obj, ok := base.(map[string]any)
	if !ok {
		return nil, false
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	root := map[string]any{"allOf": []any{map[string]any{"type": "object"}, doc}}
	changed := false
	for _, name := range names {
		cands := candidates(name, props[name])
		if len(cands) == 0 {
			continue
		}
		old, had := obj[name]
		obj[name] = cands[(round-1)%len(cands)]
		if !newGen(doc).valid(root, obj, 0) {
			if had {
				obj[name] = old
			} else {
				delete(obj, name)
			}
			continue
		}
		changed = true
	}
	if !changed {
		return nil, false
	}
	out, err := encode(obj)
	if err != nil {
		return nil, false
	}
	return out, true
}

// candidates are the values a property is tried with across rounds: what
// the schema suggests first, then, for a string, realistic non-empty words.
func candidates(name string, s any) []any {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	var out []any
	if ex, ok := m["examples"].([]any); ok {
		out = append(out, ex...)
	}
	if en, ok := m["enum"].([]any); ok {
		out = append(out, en...)
	}
	if d, ok := m["default"]; ok {
		out = append(out, d)
	}
	if t, _ := m["type"].(string); t == "string" || (m["type"] == nil && len(out) == 0) {
		out = append(out, name, "sample "+name, name+"-2")
	}
	return out
}
