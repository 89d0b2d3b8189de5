package synth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// nested wraps inner in n levels of {"<kw>": ...}.
func nested(kw string, n int, inner string) string {
	return strings.Repeat(`{"`+kw+`":`, n) + inner + strings.Repeat("}", n)
}

// doublingSchema nests oneOf [x, not x] depth times: every level accepts
// everything, and validating one value visits 2^depth subschemas, since
// the validator follows every branch of a oneOf and remembers nothing.
func doublingSchema(depth int) string {
	defs := `"l0":{"type":"string"}`
	for i := 1; i <= depth; i++ {
		ref := fmt.Sprintf(`{"$ref":"#/$defs/l%d"}`, i-1)
		defs += fmt.Sprintf(`,"l%d":{"oneOf":[%s,{"not":%s}]}`, i, ref, ref)
	}
	return `{"$defs":{` + defs + `},"type":"object","properties":{"a":{"$ref":"#/$defs/l` + fmt.Sprint(depth) + `"}},"required":["a"]}`
}

// TestArgumentsHostile: each shape a server can send to make compiling or
// validating its schema run away ends in an error that names the limit,
// before the work starts. Without the limits these cases run for minutes
// (nesting), allocate without bound (numbers) or never end (oneOf).
func TestArgumentsHostile(t *testing.T) {
	t.Parallel()
	var bigEnum strings.Builder
	bigEnum.WriteString(`{"type":"object","properties":{"a":{"enum":[`)
	for i := range 20_000 {
		if i > 0 {
			bigEnum.WriteString(",")
		}
		fmt.Fprintf(&bigEnum, `"v%d"`, i)
	}
	bigEnum.WriteString(`]}},"required":["a"]}`)
	var manyProps strings.Builder
	manyProps.WriteString(`{"type":"object","properties":{`)
	for i := range 2100 {
		if i > 0 {
			manyProps.WriteString(",")
		}
		fmt.Fprintf(&manyProps, `"p%d":{}`, i)
	}
	manyProps.WriteString(`}}`)
	tests := []struct {
		name, schema, wantErr string
	}{
		{"deep not", nested("not", 5000, "{}"), "nests deeper than 64"},
		{"deep properties", `{"type":"object","properties":{"a":` + nested("items", 100, `{"type":"string"}`) + `}}`, "nests deeper than 64"},
		{"deep allOf arrays", strings.Repeat(`{"allOf":[`, 40) + "{}" + strings.Repeat("]}", 40), "nests deeper than 64"},
		{"huge enum", bigEnum.String(), "more than 8192 values"},
		{"many subschemas", manyProps.String(), "more than 2048 objects and arrays"},
		{"huge exponent in enum", `{"type":"object","properties":{"a":{"enum":[1e999999999]}}}`, "too large"},
		{"huge exponent in const", `{"type":"object","properties":{"a":{"const":1e-999999999}},"required":["a"]}`, "too large"},
		{"long number", `{"type":"object","properties":{"a":{"minimum":` + strings.Repeat("9", 5000) + `}}}`, "too large"},
		{"doubling oneOf", doublingSchema(40), "budget"},
		{"doubling oneOf, default", strings.Replace(doublingSchema(40), `"required":["a"]`, `"default":{"a":""}`, 1), "budget"},
		{"doubling oneOf, optional", strings.Replace(doublingSchema(40), `,"required":["a"]`, ``, 1), ""},
		{"in-place $ref cycle", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"required":["x"]}`, "deeper"},
		{"self $ref under allOf", `{"type":"object","allOf":[{"$ref":"#"}]}`, "deeper"},
		{"unsatisfiable recursion", `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}},"required":["next"]}},"$ref":"#/$defs/n"}`, "deeper"},
		{"look-behind pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"(?<=a)b"}},"required":["a"]}`, "pattern"},
		{"back-reference pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"^(a+)\\1$"}},"required":["a"]}`, "pattern"},
		{"huge repetition pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"((a{1000}){1000}){1000}"}},"required":["a"]}`, "pattern"},
		{"pattern property look-ahead", `{"type":"object","patternProperties":{"^(?!x)":{}}}`, "regex"},
		{"$dynamicRef", `{"$defs":{"t":{"$dynamicAnchor":"t","type":"string"}},"type":"object","properties":{"a":{"$dynamicRef":"#t"}},"required":["a"]}`, "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Arguments(json.RawMessage(tt.schema))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Arguments: %v", err)
				}
				checkAgainstOracle(t, []byte(tt.schema), got)
				return
			}
			if err == nil {
				t.Fatalf("Arguments = %s, want an error containing %q", got, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %.300q does not contain %q", err, tt.wantErr)
			}
			if len(err.Error()) > 10_000 {
				t.Errorf("error text of %d bytes", len(err.Error()))
			}
		})
	}
}

// TestArgumentsPathologicalPatterns: patterns that make a backtracking
// engine take exponential time run in linear time under Go's RE2, both in
// the generator and in the library's validation of a long default.
func TestArgumentsPathologicalPatterns(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 1000) + "!"
	for _, p := range []string{`^(a+)+$`, `^(a|a)*$`, `^(a|aa)+$`, `^(.*a){20}$`} {
		pj, _ := json.Marshal(p)
		schema := fmt.Sprintf(`{"type":"object","properties":{"a":{"type":"string","pattern":%s,"default":%q},"b":{"type":"object","propertyNames":{"pattern":%s},"default":{%q:1}}},"required":["a","b"]}`, pj, long, pj, long)
		got, err := Arguments(json.RawMessage(schema))
		if err != nil {
			t.Errorf("pattern %s: %v", p, err)
			continue
		}
		if strings.Contains(string(got), "!") {
			t.Errorf("pattern %s: the default that fails it was kept: %s", p, got)
		}
		checkAgainstOracle(t, []byte(schema), got)
	}
}

// TestArgumentsFetchNothing: a schema that points anywhere outside itself,
// by $ref, by an $id that moves the base, or by a $schema where no keyword
// leads (so that it is not forgotten, see forgetUnknownDrafts), fails to
// compile, and nothing is fetched: not a loopback HTTP server, not a local
// file that would make the schema satisfiable.
func TestArgumentsFetchNothing(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(file)
	dirURL := "file://" + filepath.ToSlash(filepath.Dir(file))
	tests := []struct{ name, schema string }{
		{"http $ref", `{"type":"object","properties":{"a":{"$ref":"` + srv.URL + `/s.json"}},"required":["a"]}`},
		{"file $ref", `{"type":"object","properties":{"a":{"$ref":"` + fileURL + `"}},"required":["a"]}`},
		{"file $ref, optional", `{"type":"object","properties":{"a":{"$ref":"` + fileURL + `"}}}`},
		{"relative $ref under an http $id", `{"$id":"` + srv.URL + `/root.json","type":"object","properties":{"a":{"$ref":"s.json"}},"required":["a"]}`},
		{"relative $ref under a file $id", `{"$id":"` + dirURL + `/root.json","type":"object","properties":{"a":{"$ref":"s.json"}},"required":["a"]}`},
		{"relative $ref", `{"type":"object","properties":{"a":{"$ref":"s.json"}},"required":["a"]}`},
		{"nested $schema under a vendor keyword", `{"type":"object","properties":{"a":{"$ref":"#/x-vendor/s"}},"x-vendor":{"s":{"$schema":"` + srv.URL + `/meta","type":"string"}},"required":["a"]}`},
		{"nested $schema with $id under a vendor keyword", `{"type":"object","properties":{"a":{"$ref":"#/x-vendor/s"}},"x-vendor":{"s":{"$id":"urn:x:s","$schema":"` + fileURL + `","type":"string"}},"required":["a"]}`},
		{"remote $dynamicRef", `{"type":"object","properties":{"a":{"$dynamicRef":"` + srv.URL + `/s.json#x"}},"required":["a"]}`},
		{"draft-07 remote $ref", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"` + srv.URL + `/s.json"}},"required":["a"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Arguments(json.RawMessage(tt.schema))
			if err == nil {
				t.Fatalf("Arguments = %s, want an error", got)
			}
			if !strings.Contains(err.Error(), "refusing to load") {
				t.Errorf("error %q does not say it refused to load", err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the schema server was asked %d times", n)
	}
	// The error names the tool the schema belongs to.
	_, _, err := toolArguments(tool{name: "get_page", schema: json.RawMessage(tests[0].schema)})
	if err == nil || !strings.HasPrefix(err.Error(), `tool "get_page": `) {
		t.Errorf("error %v does not name the tool", err)
	}
	calls, skips := Select([]json.RawMessage{mkTool("get_page", "", `{"readOnlyHint":true}`, tests[1].schema)})
	if len(calls) != 0 || len(skips) != 1 || skips[0].Reason != SkipNoArguments {
		t.Errorf("Select = %v, %v; want get_page skipped for no arguments", calls, skips)
	}
}

// TestArgumentsDrafts: $schema picks the draft within the library's set;
// any other value, which the library would try to load, reads as 2020-12.
func TestArgumentsDrafts(t *testing.T) {
	t.Parallel()
	// Under 2020-12 "$ref" has siblings; under draft-07 they are ignored.
	schema := func(draft string) string {
		return `{"$schema":"` + draft + `","definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/definitions/s","minLength":2}},"required":["a"]}`
	}
	for _, tc := range []struct{ draft, want string }{
		{"http://json-schema.org/draft-07/schema#", `{"a":""}`},
		{"https://json-schema.org/draft-07/schema", `{"a":""}`},
		{"http://json-schema.org/draft-06/schema#", `{"a":""}`},
		{"http://json-schema.org/draft-04/schema#", `{"a":""}`},
		{"https://json-schema.org/draft/2019-09/schema", `{"a":"aa"}`},
		{"https://json-schema.org/draft/2020-12/schema", `{"a":"aa"}`},
		{"http://json-schema.org/schema#", `{"a":"aa"}`},
		{"http://json-schema.org/draft-03/schema#", `{"a":"aa"}`},
		{"https://example.invalid/vendor-schema", `{"a":"aa"}`},
		{"file:///etc/passwd", `{"a":"aa"}`},
		{"not a url at all", `{"a":"aa"}`},
	} {
		got, err := Arguments(json.RawMessage(schema(tc.draft)))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: Arguments = %s, %v; want %s", tc.draft, got, err, tc.want)
		}
	}
	// An unknown $schema inside a subschema is forgotten too, wherever a
	// keyword leads to it, with or without an $id; a property named
	// "$schema" and a default holding one are values, and stay.
	for _, tc := range []struct{ name, schema, want string }{
		{"under properties", `{"type":"object","properties":{"a":{"$schema":"https://example.invalid/meta","type":"string","minLength":1}},"required":["a"]}`, `{"a":"a"}`},
		{"with $id under $defs", `{"$defs":{"s":{"$id":"urn:x:s","$schema":"file:///etc/passwd","type":"integer","minimum":3}},"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"required":["a"]}`, `{"a":3}`},
		{"under items and anyOf", `{"type":"object","properties":{"a":{"type":"array","minItems":1,"items":{"anyOf":[{"$schema":"https://example.invalid/m","const":"x"}]}}},"required":["a"]}`, `{"a":["x"]}`},
		{"a property named $schema", `{"type":"object","properties":{"$schema":{"type":"string","const":"https://example.invalid/meta"}},"required":["$schema"]}`, `{"$schema":"https://example.invalid/meta"}`},
		{"a default holding $schema", `{"type":"object","properties":{"a":{"type":"object","default":{"$schema":"https://example.invalid/meta"}}},"required":["a"]}`, `{"a":{"$schema":"https://example.invalid/meta"}}`},
	} {
		got, err := Arguments(json.RawMessage(tc.schema))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: Arguments = %s, %v; want %s", tc.name, got, err, tc.want)
		}
		checkAgainstOracle(t, []byte(tc.schema), got)
	}
}
