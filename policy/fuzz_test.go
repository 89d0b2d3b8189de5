package policy

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/sandbox"
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
			check("effective "+s.Name, p.Effective(s.Name, nil))
		}
	})
}
