package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestArguments covers each construct: the exact minimal arguments where
// the choice is the package's to make, and in every case validation by the
// oracle.
func TestArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		want   string // exact result; empty: only validated
	}{
		// Where values come from.
		{"empty object", `{"type":"object"}`, `{}`},
		{"no type at root", `{"properties":{"a":{"type":"string"}}}`, `{}`},
		{"optional properties left out", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`, `{"b":0}`},
		{"default first", `{"type":"object","properties":{"a":{"type":"string","default":"d","enum":["e","d"],"examples":["x"]}},"required":["a"]}`, `{"a":"d"}`},
		{"invalid default skipped", `{"type":"object","properties":{"a":{"type":"integer","default":"ten","minimum":3}},"required":["a"]}`, `{"a":3}`},
		{"const", `{"type":"object","properties":{"a":{"const":"fixed"}},"required":["a"]}`, `{"a":"fixed"}`},
		{"first enum", `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]}},"required":["a"]}`, `{"a":"x"}`},
		{"first valid enum", `{"type":"object","properties":{"a":{"type":"string","minLength":2,"enum":["x","yy"]}},"required":["a"]}`, `{"a":"yy"}`},
		{"examples[0]", `{"type":"object","properties":{"a":{"type":"string","examples":["ex","other"]}},"required":["a"]}`, `{"a":"ex"}`},
		{"unconstrained property", `{"type":"object","properties":{"a":{}},"required":["a"]}`, `{"a":""}`},
		{"required without properties", `{"type":"object","required":["a"]}`, `{"a":""}`},

		// Scalars.
		{"boolean", `{"type":"object","properties":{"a":{"type":"boolean"}},"required":["a"]}`, `{"a":false}`},
		{"null", `{"type":"object","properties":{"a":{"type":"null"}},"required":["a"]}`, `{"a":null}`},
		{"type array prefers non-null", `{"type":"object","properties":{"a":{"type":["null","integer"]}},"required":["a"]}`, `{"a":0}`},
		{"type array in order", `{"type":"object","properties":{"a":{"type":["string","integer"]}},"required":["a"]}`, `{"a":""}`},
		{"string minLength", `{"type":"object","properties":{"a":{"type":"string","minLength":3,"maxLength":5}},"required":["a"]}`, `{"a":"aaa"}`},
		{"string length in code points", `{"type":"object","properties":{"a":{"type":"string","pattern":"^é+$","minLength":2,"maxLength":2}},"required":["a"]}`, `{"a":"éé"}`},
		{"pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^[A-Z]{2}-\\d{3}$"}},"required":["a"]}`, `{"a":"AA-000"}`},
		{"pattern unanchored", `{"type":"object","properties":{"a":{"type":"string","pattern":"x|y"}},"required":["a"]}`, `{"a":"x"}`},
		{"pattern with minLength", `{"type":"object","properties":{"a":{"type":"string","pattern":"^a[0-9]+$","minLength":5}},"required":["a"]}`, `{"a":"a0000"}`},
		{"pattern alternation", `{"type":"object","properties":{"a":{"type":"string","pattern":"^(foo|bar)baz$"}},"required":["a"]}`, `{"a":"foobaz"}`},
		{"two patterns", `{"type":"object","properties":{"a":{"allOf":[{"type":"string","pattern":"^a"},{"pattern":"b$"}]}},"required":["a"]}`, ``},
		{"format date-time", `{"type":"object","properties":{"a":{"type":"string","format":"date-time"}},"required":["a"]}`, `{"a":"1970-01-01T00:00:00Z"}`},
		{"format date", `{"type":"object","properties":{"a":{"type":"string","format":"date"}},"required":["a"]}`, `{"a":"1970-01-01"}`},
		{"format time", `{"type":"object","properties":{"a":{"type":"string","format":"time"}},"required":["a"]}`, `{"a":"00:00:00Z"}`},
		{"format email", `{"type":"object","properties":{"a":{"type":"string","format":"email"}},"required":["a"]}`, `{"a":"a@example.invalid"}`},
		{"format uri", `{"type":"object","properties":{"a":{"type":"string","format":"uri"}},"required":["a"]}`, `{"a":"https://example.invalid/"}`},
		{"format url", `{"type":"object","properties":{"a":{"type":"string","format":"url"}},"required":["a"]}`, `{"a":"https://example.invalid/"}`},
		{"format uuid", `{"type":"object","properties":{"a":{"type":"string","format":"uuid"}},"required":["a"]}`, `{"a":"00000000-0000-0000-0000-000000000000"}`},
		{"format ipv4", `{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}},"required":["a"]}`, `{"a":"127.0.0.1"}`},
		{"format ipv6", `{"type":"object","properties":{"a":{"type":"string","format":"ipv6"}},"required":["a"]}`, `{"a":"::1"}`},
		{"format hostname", `{"type":"object","properties":{"a":{"type":"string","format":"hostname"}},"required":["a"]}`, `{"a":"example.invalid"}`},
		{"format uri with minLength", `{"type":"object","properties":{"a":{"type":"string","format":"uri","minLength":25}},"required":["a"]}`, `{"a":"https://example.invalid/a"}`},
		{"format with invalid default", `{"type":"object","properties":{"a":{"type":"string","format":"uuid","default":""}},"required":["a"]}`, `{"a":"00000000-0000-0000-0000-000000000000"}`},
		{"format idn-email checked as email", `{"type":"object","properties":{"a":{"type":"string","format":"idn-email","default":"nobody"}},"required":["a"]}`, `{"a":"a@example.invalid"}`},
		{"format idn-hostname checked as hostname", `{"type":"object","properties":{"a":{"type":"string","format":"idn-hostname","default":"-x-"}},"required":["a"]}`, `{"a":"example.invalid"}`},
		{"format url checked as uri", `{"type":"object","properties":{"a":{"type":"string","format":"url","default":"/relative"}},"required":["a"]}`, `{"a":"https://example.invalid/"}`},
		{"unknown format ignored", `{"type":"object","properties":{"a":{"type":"string","format":"x-custom"}},"required":["a"]}`, `{"a":""}`},
		{"integer minimum", `{"type":"object","properties":{"a":{"type":"integer","minimum":7}},"required":["a"]}`, `{"a":7}`},
		{"integer negative range", `{"type":"object","properties":{"a":{"type":"integer","minimum":-9,"maximum":-4}},"required":["a"]}`, `{"a":-4}`},
		{"integer exclusive", `{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":2}},"required":["a"]}`, `{"a":1}`},
		{"integer multipleOf", `{"type":"object","properties":{"a":{"type":"integer","minimum":10,"multipleOf":4}},"required":["a"]}`, `{"a":12}`},
		{"integer fractional multipleOf", `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"multipleOf":1.5}},"required":["a"]}`, `{"a":3}`},
		{"number exclusive fraction", `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0,"maximum":0.5}},"required":["a"]}`, `{"a":0.25}`},
		{"number open interval", `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.5}},"required":["a"]}`, `{"a":0.25}`},
		{"number multipleOf 0.01", `{"type":"object","properties":{"a":{"type":"number","minimum":0.015,"multipleOf":0.01}},"required":["a"]}`, `{"a":0.02}`},
		{"number big bound", `{"type":"object","properties":{"a":{"type":"integer","minimum":1e30}},"required":["a"]}`, `{"a":1000000000000000000000000000000}`},
		{"draft-04 exclusive", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"integer","minimum":5,"exclusiveMinimum":true}},"required":["a"]}`, `{"a":6}`},

		// Arrays.
		{"array empty", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}},"required":["a"]}`, `{"a":[]}`},
		{"array minItems", `{"type":"object","properties":{"a":{"type":"array","minItems":2,"items":{"type":"integer","minimum":1}}},"required":["a"]}`, `{"a":[1,1]}`},
		{"array uniqueItems", `{"type":"object","properties":{"a":{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"integer"}}},"required":["a"]}`, `{"a":[0,1,2]}`},
		{"array unique enum", `{"type":"object","properties":{"a":{"type":"array","minItems":2,"uniqueItems":true,"items":{"enum":["p","q","r"]}}},"required":["a"]}`, `{"a":["p","q"]}`},
		{"prefixItems", `{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"},{"type":"boolean"}],"minItems":2}},"required":["a"]}`, `{"a":["",false]}`},
		{"tuple items draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"integer","minimum":3},{"type":"string"}],"additionalItems":false,"minItems":2}},"required":["a"]}`, `{"a":[3,""]}`},
		{"contains", `{"type":"object","properties":{"a":{"type":"array","contains":{"const":"needle"}}},"required":["a"]}`, `{"a":["needle"]}`},
		{"array of objects", `{"type":"object","properties":{"a":{"type":"array","minItems":1,"items":{"type":"object","properties":{"k":{"type":"string","minLength":1}},"required":["k"]}}},"required":["a"]}`, `{"a":[{"k":"a"}]}`},

		// Objects.
		{"nested object", `{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"integer"}},"required":["q"]}},"required":["p"]}},"required":["o"]}`, `{"o":{"p":{"q":0}}}`},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"integer","minimum":2},"required":["x"]}`, `{"x":2}`},
		{"additionalProperties false", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"required":["a"]}`, `{"a":""}`},
		{"patternProperties", `{"type":"object","patternProperties":{"^n_":{"type":"number","minimum":1}},"required":["n_1"]}`, `{"n_1":1}`},
		{"minProperties", `{"type":"object","properties":{"b":{"type":"boolean"},"a":{"type":"string"}},"minProperties":1}`, `{"a":""}`},
		{"minProperties beyond properties", `{"type":"object","minProperties":2,"additionalProperties":{"type":"boolean"}}`, `{"a":false,"b":false}`},
		{"dependentRequired", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"],"dependentRequired":{"a":["b"]}}`, `{"a":"","b":0}`},
		{"property names a pointer must escape", `{"type":"object","properties":{"a/b":{"type":"string","minLength":1},"c~d":{"type":"string","minLength":2},"e f%25":{"type":"string","minLength":3},"é#?":{"type":"string","minLength":4}},"required":["a/b","c~d","e f%25","é#?"]}`, `{"a/b":"a","c~d":"aa","e f%25":"aaa","é#?":"aaaa"}`},
		{"propertyNames", `{"type":"object","propertyNames":{"maxLength":3},"required":["abc"]}`, `{"abc":""}`},

		// References.
		{"$ref $defs", `{"$defs":{"id":{"type":"string","format":"uuid"}},"type":"object","properties":{"a":{"$ref":"#/$defs/id"}},"required":["a"]}`, `{"a":"00000000-0000-0000-0000-000000000000"}`},
		{"$ref definitions", `{"definitions":{"n":{"type":"integer","minimum":4}},"type":"object","properties":{"a":{"$ref":"#/definitions/n"}},"required":["a"]}`, `{"a":4}`},
		{"$ref with siblings 2020", `{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/s","minLength":2}},"required":["a"]}`, `{"a":"aa"}`},
		{"$ref siblings ignored draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/definitions/s","minLength":2}},"required":["a"]}`, `{"a":""}`},
		{"$ref escaped pointer", `{"$defs":{"a/b":{"const":1},"c~d":{"const":2}},"type":"object","properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c~0d"}},"required":["x","y"]}`, `{"x":1,"y":2}`},
		{"recursive optional", `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}},"required":["v"]}},"$ref":"#/$defs/node"}`, `{"v":0}`},
		{"recursive required through array", `{"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}},"required":["kids"]}},"$ref":"#/$defs/t"}`, `{"kids":[]}`},

		// Combinators.
		{"anyOf first satisfiable", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string","minLength":3,"maxLength":2},{"type":"integer","minimum":5}]}},"required":["a"]}`, `{"a":5}`},
		{"oneOf exactly one", `{"type":"object","properties":{"a":{"oneOf":[{"type":"integer"},{"type":"number","minimum":0}]}},"required":["a"]}`, ``},
		{"oneOf of objects", `{"type":"object","properties":{"p":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]}]}},"required":["p"]}`, `{"p":{"kind":"a"}}`},
		{"allOf merge", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer","minimum":1}},"required":["b"]}]}`, `{"a":"","b":1}`},
		{"allOf numeric merge", `{"type":"object","properties":{"a":{"allOf":[{"type":"number","minimum":2},{"type":"integer","maximum":9},{"multipleOf":3}]}},"required":["a"]}`, `{"a":3}`},
		{"allOf type intersection", `{"type":"object","properties":{"a":{"allOf":[{"type":["string","integer"]},{"type":["integer","boolean"]}]}},"required":["a"]}`, `{"a":0}`},
		{"anyOf inside allOf", `{"type":"object","allOf":[{"anyOf":[{"required":["x"],"properties":{"x":{"type":"boolean"}}},{"required":["y"]}]}]}`, `{"x":false}`},
		{"not steers to the next candidate", `{"type":"object","properties":{"a":{"type":"string","not":{"const":""}}},"required":["a"]}`, `{"a":"a"}`},
		{"if/then", `{"type":"object","properties":{"a":{"type":"integer","if":{"maximum":0},"then":{"minimum":1}}},"required":["a"]}`, `{"a":1}`},
		{"boolean true schema", `true`, `{}`},
		{"root type array", `{"type":["object","null"]}`, `{}`},
		{"zod nullable optional", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`, `{"a":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Arguments(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("Arguments: %v", err)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Errorf("Arguments = %s, want %s", got, tt.want)
			}
			checkAgainstOracle(t, []byte(tt.schema), got)
		})
	}
}

// TestArgumentsErrors checks that unsatisfiable and unsupported schemas get
// an error that says why, rather than arguments the server would reject.
func TestArgumentsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, wantErr string
	}{
		{"false", `false`, "admits no value"},
		{"not an object type", `{"type":"string"}`, "exclude each other"},
		{"required but forbidden", `{"type":"object","required":["x"],"additionalProperties":false}`, `property "x"`},
		{"minLength over maxLength", `{"type":"object","properties":{"a":{"type":"string","minLength":3,"maxLength":2}},"required":["a"]}`, "maxLength"},
		{"empty integer range", `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":1.5,"multipleOf":2}},"required":["a"]}`, "no number"},
		{"const against type", `{"type":"object","properties":{"a":{"type":"integer","const":"x"}},"required":["a"]}`, "const or enum"},
		{"remote ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}},"required":["a"]}`, "only local references"},
		{"missing ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}},"required":["a"]}`, `"#/$defs/nope" not found`},
		{"look-ahead pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?=a)a$"}},"required":["a"]}`, "unsupported"},
		{"self ref", `{"$ref":"#"}`, "deeper"},
		{"required recursion", `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"required":["next"]}},"$ref":"#/$defs/n"}`, "deeper"},
		{"huge minLength", `{"type":"object","properties":{"a":{"type":"string","minLength":1e9}},"required":["a"]}`, "limit"},
		{"huge exponent", `{"type":"object","properties":{"a":{"type":"integer","minimum":1e999999999}},"required":["a"]}`, "number"},
		{"uniqueItems impossible", `{"type":"object","properties":{"a":{"type":"array","minItems":3,"uniqueItems":true,"items":{"type":"boolean"}}},"required":["a"]}`, "uniqueItems"},
		{"oneOf overlap", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"string","maxLength":5}]}},"required":["a"]}`, "oneOf"},
		{"not a schema", `{"type":"object","properties":{"a":42},"required":["a"]}`, "not valid against metaschema"},
		{"not JSON", `{"type":`, "inputSchema"},
		{"trailing data", `{} {}`, "trailing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Arguments(json.RawMessage(tt.schema))
			if err == nil {
				t.Fatalf("Arguments = %s, want an error containing %q", got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestArgumentsEmptySchema(t *testing.T) {
	t.Parallel()
	for _, s := range []string{``, `null`, "  \n"} {
		got, err := Arguments(json.RawMessage(s))
		if err != nil || string(got) != `{}` {
			t.Errorf("Arguments(%q) = %s, %v; want {}", s, got, err)
		}
	}
}

// TestArgumentsBudget checks that a schema built to explode (nested anyOf
// whose every leaf fails) ends in an error, quickly.
func TestArgumentsBudget(t *testing.T) {
	t.Parallel()
	defs := `"l0":{"type":"string","minLength":2,"maxLength":1}`
	for i := 1; i <= 20; i++ {
		ref := fmt.Sprintf(`{"$ref":"#/$defs/l%d"}`, i-1)
		defs += fmt.Sprintf(`,"l%d":{"anyOf":[%s]}`, i, strings.Repeat(ref+",", 7)+ref)
	}
	schema := `{"$defs":{` + defs + `},"type":"object","properties":{"a":{"$ref":"#/$defs/l20"}},"required":["a"]}`
	_, err := Arguments(json.RawMessage(schema))
	if err == nil {
		t.Fatal("no error for an unsatisfiable exponential schema")
	}
	// The work budget is what bounds the time (8^20 branches otherwise):
	// it, not a clock, must be what stopped the search.
	if !errors.Is(err, errBudget) {
		t.Errorf("stopped by %v, want the work budget", err)
	}
	if len(err.Error()) > 10_000 {
		t.Errorf("error text of %d bytes", len(err.Error()))
	}
}
