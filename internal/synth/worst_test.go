package synth

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// explodingSchema is the worst case the budget exists for: depth levels of
// anyOf with width branches each, every leaf unsatisfiable, so a naive
// search visits width^depth leaves before giving up.
func explodingSchema(depth, width int) json.RawMessage {
	defs := `"l0":{"type":"string","minLength":2,"maxLength":1}`
	for i := 1; i <= depth; i++ {
		ref := fmt.Sprintf(`{"$ref":"#/$defs/l%d"}`, i-1)
		defs += fmt.Sprintf(`,"l%d":{"anyOf":[%s]}`, i, strings.Repeat(ref+",", width-1)+ref)
	}
	return json.RawMessage(`{"$defs":{` + defs + `},"type":"object","properties":{"a":{"$ref":"#/$defs/l` + fmt.Sprint(depth) + `"}},"required":["a"]}`)
}

// wideSchema is a satisfiable schema of n properties, each an allOf of
// string constraints: the size the work budget must scale with.
func wideSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d":{"allOf":[{"type":"string"},{"minLength":3},{"pattern":"^[a-z]+$"}]}`, i)
	}
	b.WriteString(`},"required":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d"`, i)
	}
	b.WriteString("]}")
	return json.RawMessage(b.String())
}

// BenchmarkWorstCaseArguments: the exponential anyOf schema must cost the
// same fixed budget at depth 20 as at depth 200 (10x the schema); the
// oneOf nest whose validation doubles per level must pass at depth 12
// (2^12 visits per validation) and stop at the budget at depth 40 (2^40)
// before any validation runs: the bound is computed with memoization. A
// wide satisfiable schema costs somewhat more than linearly in its
// properties, since the library compiles in time quadratic in the
// subschemas; 400 properties of 5 objects and arrays each is near
// maxContainers.
func BenchmarkWorstCaseArguments(b *testing.B) {
	cases := []struct {
		name   string
		schema json.RawMessage
		ok     bool
	}{
		{"anyOf-depth=20", explodingSchema(20, 8), false},
		{"anyOf-depth=200", explodingSchema(200, 8), false},
		{"oneOf-doubling=12", json.RawMessage(doublingSchema(12)), true},
		{"oneOf-doubling=40", json.RawMessage(doublingSchema(40)), false},
		{"allOf-props=100", wideSchema(100), true},
		{"allOf-props=400", wideSchema(400), true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.schema)))
			for b.Loop() {
				if _, err := Arguments(c.schema); (err == nil) != c.ok {
					b.Fatalf("err = %v", err)
				}
			}
		})
	}
}

// BenchmarkWorstCaseCompile: the largest documents the limits let through
// to the compiler, each shaped for a cost the library has: subschemas
// (compilation is quadratic in them), a draft-04 enum (its metaschema
// checks uniqueness pairwise), and nesting (about cubic). Each must stay
// well under a second.
func BenchmarkWorstCaseCompile(b *testing.B) {
	empties := `{"type":"object","allOf":[` + strings.TrimSuffix(strings.Repeat("{},", maxContainers-2), ",") + `]}`
	var enum strings.Builder
	for i := range maxValues - 10 {
		if i > 0 {
			enum.WriteString(",")
		}
		fmt.Fprintf(&enum, `"v%d"`, i)
	}
	draft4 := `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"enum":[` + enum.String() + `]}},"required":["a"]}`
	deep := `{"type":"object","properties":{"a":` + strings.Repeat(`{"not":`, maxNesting-3) + "false" + strings.Repeat("}", maxNesting-3) + `}}`
	cases := []struct{ name, schema string }{
		{"subschemas", empties},
		{"draft-04-enum", draft4},
		{"nesting", deep},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.schema)))
			for b.Loop() {
				if _, err := Arguments(json.RawMessage(c.schema)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
