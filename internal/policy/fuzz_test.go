package policy

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// FuzzParse checks that no input panics Parse, that every error is an
// *Error (so the CLI can always name the file) whose text is inert, and that whatever Parse
// accepts is within the limits the engine relies on: counts in range, a
// known sandbox level, positive time-outs, every call naming a tool with
// a JSON object (or nothing) as arguments, and known rule ids.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, s := range []string{
		"version: 1\n",
		"version: 1\nservers:\n  fs:\n    calls:\n      - tool: a\n        arguments: {p: [1, 2.5, true, null, {q: x}]}\n",
		"version: 1\nrules: {tool-removed: error, sensitive-path: off}\n",
		"version: 1\nservers:\n  a: &x {launches: 2}\n  b: *x\n",
		"version: 1\ndefaults:\n  launches: !!str 2\n",
		"{\"version\": 1, \"servers\": {\"a\": {\"pass-env\": [\"A\"]}}}",
	} {
		f.Add([]byte(s))
	}
	// The strict decoder's hostile inputs (TestParseHostile has each
	// with its message): alias bombs, duplicate keys in every form, merge
	// keys, tags, numbers no Go integer holds, keys that are not strings,
	// and nesting the parser is slow on.
	f.Add([]byte(laughs(3)))
	for _, s := range []string{
		"version: 1\ndefaults: &d {launches: 2}\nservers:\n  a: *d\n",
		"version: 1\ndefaults:\n  &k launches: 2\n  *k : 3\n",
		"version: 1\ndefaults:\n  launches: 2\n  launches: 3\n",
		"version: 1\ndefaults: {sandbox: strict, sandbox: off}\n",
		"version: 1\n? defaults\n: {}\n? defaults\n: {}\n",
		"version: 1\nrules: {tool-removed: error, tool-removed: off}\n",
		"version: 1\nservers:\n  a:\n    <<: {sandbox: off}\n    launches: 2\n",
		"version: 1\nservers:\n  a:\n    calls:\n      - tool: t\n        arguments: {<<: {a: 1}, p: !!binary aGk=}\n",
		"version: 1\ndefaults:\n  sandbox: !!binary b2Zm\n",
		"version: 1\n!!str defaults: {}\n",
		"version: 1\nservers:\n  a:\n    calls:\n      - tool: t\n        arguments: {n: 99999999999999999999999, m: -9223372036854775809, f: 1e999}\n",
		"version: 1\ndefaults:\n  warmup-calls: 0xffffffffffffffffff\n",
		"version: 1\n1: 2\n",
		"version: 1\nservers:\n  a:\n    launches: 2\n    true: 1\n",
		"version: 1\n~: 2\n",
		"version: 1\n? [a, b]\n: 2\n",
		"version: 1\nx: " + strings.Repeat("[", 200),
		"version: 1\nx:\n  " + strings.Repeat("- ", 200) + "a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("p.yaml", data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is %T, not *Error", err, err)
			}
			if p != nil {
				t.Fatalf("policy returned with error %v", err)
			}
			if !inert.Safe(err.Error()) {
				t.Fatalf("error message carries control or format characters: %q", err.Error())
			}
			return
		}
		check := func(where string, s Settings) {
			if s.WarmupCalls != nil && (*s.WarmupCalls < 0 || *s.WarmupCalls > MaxWarmupCalls) {
				t.Fatalf("%s: warmup-calls %d", where, *s.WarmupCalls)
			}
			if s.Launches != nil && (*s.Launches < 1 || *s.Launches > MaxLaunches) {
				t.Fatalf("%s: launches %d", where, *s.Launches)
			}
			if s.Sandbox != "" {
				if _, err := sandbox.ParseLevel(string(s.Sandbox)); err != nil {
					t.Fatalf("%s: sandbox %q", where, s.Sandbox)
				}
			}
			if s.Timeout < 0 || s.RequestTimeout < 0 || s.CallTimeout < 0 {
				t.Fatalf("%s: negative time-out", where)
			}
			for _, c := range s.Calls {
				if c.Tool == "" {
					t.Fatalf("%s: call without a tool", where)
				}
				if len(c.Arguments) > 0 {
					var m map[string]any
					if err := json.Unmarshal(c.Arguments, &m); err != nil || m == nil {
						t.Fatalf("%s: arguments %s are not a JSON object: %v", where, c.Arguments, err)
					}
				}
			}
			for id := range s.Rules {
				if _, ok := finding.Lookup(id); !ok || id == finding.ServerUnavailable {
					t.Fatalf("%s: rule %q", where, id)
				}
			}
		}
		check("defaults", p.Defaults)
		if len(p.Defaults.Calls) > 0 {
			t.Fatalf("defaults hold calls")
		}
		for _, s := range p.Servers {
			check("server "+s.Name, s.Settings)
			check("effective "+s.Name, p.Effective(s.Name, Fixed{}))
		}
	})
}
