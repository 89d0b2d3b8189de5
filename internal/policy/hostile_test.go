package policy

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/parser"
)

// laughs is the "billion laughs" bomb: each level's list holds the
// previous level nine times, so expanding level n costs 9^n.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("version: 1\nservers:\n  s:\n    calls:\n      - tool: t\n        arguments:\n          l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= levels; i++ {
		b.WriteString("          l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [")
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + strconv.Itoa(i-1))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// TestParseHostile: what a pull request could put in the policy file to
// make the strict decoder do something a reader would not expect (expand,
// merge, convert, silently skip a section), or to make reading the file
// hang. Each is refused with its position. Without the nesting bound the
// deep cases reach the parser, whose time grows with the square of the
// depth (BenchmarkParseNested), and fail with another message.
func TestParseHostile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     string
	}{
		{"billion laughs", laughs(12), `p.yaml:8:20: invalid policy: aliases (*name) are not supported in a policy: write the value out`},
		{"alias of a whole section", "version: 1\ndefaults: &d {launches: 2}\nservers:\n  a: *d\n", `p.yaml:4:6: invalid policy: aliases (*name) are not supported in a policy: write the value out`},
		{"alias as a key", "version: 1\ndefaults:\n  &k launches: 2\n  *k : 3\n", `p.yaml:4:3: invalid policy: aliases (*name) are not supported in a policy: write the value out`},
		{"merge key", "version: 1\nservers:\n  a:\n    <<: {sandbox: off}\n    launches: 2\n", `p.yaml:4:5: invalid policy: merge keys (<<) are not supported in a policy`},
		{"merge key in arguments", "version: 1\nservers:\n  a:\n    calls:\n      - tool: t\n        arguments: {<<: {a: 1}}\n", `p.yaml:6:21: invalid policy: merge keys (<<) are not supported in a policy`},
		{"binary tag", "version: 1\ndefaults:\n  sandbox: !!binary b2Zm\n", `p.yaml:3:12: invalid policy: tags (!!binary) are not supported in a policy`},
		{"local tag", "version: 1\nservers:\n  a:\n    calls:\n      - tool: t\n        arguments: !x {a: 1}\n", `p.yaml:6:20: invalid policy: tags (!x) are not supported in a policy`},
		{"tag on a key", "version: 1\n!!str defaults: {}\n", `p.yaml:2:1: invalid policy: tags (!!str) are not supported in a policy`},
		{"duplicate key", "version: 1\ndefaults:\n  launches: 2\n  launches: 3\n", `p.yaml:4:3: invalid policy: mapping key "launches" already defined at [3:3]`},
		{"duplicate key in flow", "version: 1\ndefaults: {sandbox: strict, sandbox: off}\n", `p.yaml:2:29: invalid policy: mapping key "sandbox" already defined at [2:12]`},
		{"duplicate explicit key", "version: 1\n? defaults\n: {}\n? defaults\n: {}\n", `p.yaml:4:1: invalid policy: mapping key "?" already defined at [2:1]`},
		{"duplicate server", "version: 1\nservers:\n  a: {}\n  a: {sandbox: off}\n", `p.yaml:4:3: invalid policy: mapping key "a" already defined at [3:3]`},
		{"duplicate rule", "version: 1\nrules: {tool-removed: error, tool-removed: off}\n", `p.yaml:2:30: invalid policy: mapping key "tool-removed" already defined at [2:9]`},
		{"duplicate argument", "version: 1\nservers:\n  a:\n    calls:\n      - tool: t\n        arguments: {p: /a, p: /b}\n", `p.yaml:6:28: invalid policy: mapping key "p" already defined at [6:21]`},
		{"number as a key", "version: 1\n1: 2\n", `p.yaml:2:1: invalid policy: unknown key "1"; known: version, defaults, rules, servers, acknowledge`},
		{"boolean as a key in a server", "version: 1\nservers:\n  a:\n    launches: 2\n    true: 1\n", `p.yaml:5:5: invalid policy: unknown key "true" in server "a"; known: profile, warmup-calls, launches, sandbox, timeout, request-timeout, call-timeout, pass-env, pin-prompts, calls, rules, network`},
		{"null as a key", "version: 1\n~: 2\n", `p.yaml:2:1: invalid policy: a key in the policy must be a plain name, not nothing`},
		{"list as a key", "version: 1\n? [a, b]\n: 2\n", `p.yaml:3:1: invalid policy: found an invalid key for this map`},
		{"mapping as a key", "version: 1\ndefaults:\n  ? {a: b}\n  : 2\n", `p.yaml:4:3: invalid policy: found an invalid key for this map`},
		{"huge hex count", "version: 1\ndefaults:\n  launches: 0xffffffffffffffffff\n", `p.yaml:3:13: invalid policy: launches: want a whole number from 1 to 100, got "0xffffffffffffffffff"`},
		{"deep flow nesting", "version: 1\nx: " + strings.Repeat("[", 20000), `p.yaml:2:104: invalid policy: the file nests lists and mappings more than 100 levels deep`},
		{"deep flow mappings", "version: 1\nx: " + strings.Repeat("{a: ", 10000), `p.yaml:2:404: invalid policy: the file nests lists and mappings more than 100 levels deep`},
		{"deep compact lists", "version: 1\nx:\n  " + strings.Repeat("- ", 10000) + "a\n", `p.yaml:3:203: invalid policy: the file nests lists and mappings more than 100 levels deep`},
		{"nesting hidden behind closed brackets", "version: 1\nx: " + strings.Repeat("[a, [b], ", 5000), `p.yaml:2:899: invalid policy: the file nests lists and mappings more than 100 levels deep`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("p.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse = %+v, want error %s", p, tt.want)
			}
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v is %T, want *Error wrapping ErrInvalid", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestParseNumbersOutOfRange pins what happens to a number YAML cannot
// hold: the parser reads it as the string written, and so the argument
// is sent as that string, never as a rounded or wrapped number. A count
// out of range is refused (TestParseErrors, "huge count").
func TestParseNumbersOutOfRange(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"99999999999999999999999", "-9223372036854775809", "1e999"} {
		in := "version: 1\nservers:\n  a:\n    calls:\n      - tool: t\n        arguments: {n: " + n + "}\n"
		p, err := Parse("p.yaml", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if got, want := string(p.Servers[0].Calls[0].Arguments), `{"n":"`+n+`"}`; got != want {
			t.Errorf("%s: arguments %s, want %s", n, got, want)
		}
	}
}

// TestParseNestingLimit: the nesting bound refuses nothing the format
// allows. Arguments nested maxDepth deep below a policy written wholly in
// flow style read; one level more is refused by the arguments' own limit.
func TestParseNestingLimit(t *testing.T) {
	t.Parallel()
	args := func(depth int) string {
		return `{"version": 1, "servers": {"a": {"calls": [{"tool": "t", "arguments": {"k": ` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}]}}}`
	}
	if _, err := Parse("p.yaml", []byte(args(maxDepth))); err != nil {
		t.Errorf("arguments %d deep: %v", maxDepth, err)
	}
	_, err := Parse("p.yaml", []byte(args(maxDepth+1)))
	if err == nil || !strings.Contains(err.Error(), "arguments are nested more than 64 levels deep") {
		t.Errorf("arguments %d deep: %v", maxDepth+1, err)
	}
}

// BenchmarkParseNested measures why the nesting bound exists: the YAML
// parser alone on n unclosed "[" (its time grows with n²), against Parse,
// which refuses the file before the parser runs.
func BenchmarkParseNested(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		in := []byte("version: 1\nx: " + strings.Repeat("[", n))
		b.Run("parser/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				_, _ = parser.ParseBytes(in, 0)
			}
		})
		b.Run("Parse/"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				_, _ = Parse("p.yaml", in)
			}
		})
	}
}

// TestSchemaApplied: every key the schema accepts is read into the
// policy, so a key added to a struct without its check is caught here,
// not by a reviewer trusting a setting that does nothing.
func TestSchemaApplied(t *testing.T) {
	t.Parallel()
	values := map[string]string{
		"profile": "deep", "warmup-calls": "7", "launches": "3", "sandbox": "strict",
		"timeout": "1m", "request-timeout": "9s", "call-timeout": "8s", "pass-env": "[A]",
		"pin-prompts": "true", "calls": "[{tool: t}]", "rules": "{tool-removed: error}", "network": "[a.example.com:443]",
	}
	for _, key := range schemaKeys(&serverDoc{}) {
		v, ok := values[key]
		if !ok {
			t.Errorf("no test value for schema key %q", key)
			continue
		}
		p, err := Parse("p.yaml", []byte("version: 1\nservers:\n  a:\n    "+key+": "+v+"\n"))
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if reflect.DeepEqual(p.Servers[0].Settings, Settings{}) {
			t.Errorf("%s: %s was accepted but set nothing", key, v)
		}
	}
	if got, want := schemaKeys(&fileDoc{}), []string{"version", "defaults", "rules", "servers", "acknowledge"}; !slices.Equal(got, want) {
		t.Errorf("top-level keys %v, want %v", got, want)
	}
	if got, want := schemaKeys(&callDoc{}), []string{"tool", "arguments"}; !slices.Equal(got, want) {
		t.Errorf("call keys %v, want %v", got, want)
	}
}
