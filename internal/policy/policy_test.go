package policy

import (
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

func intp(v int) *int { return &v }

func TestParseFull(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("full.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Policy{
		File: "full.yaml",
		Defaults: Settings{
			WarmupCalls: intp(5), Launches: intp(2), Sandbox: sandbox.Basic,
			Timeout: 2 * time.Minute, RequestTimeout: 30 * time.Second, CallTimeout: 3 * time.Second,
			PassEnv: []string{"HTTPS_PROXY"},
			Rules: map[finding.RuleID]RuleLevel{
				"model-instruction": {Severity: finding.Warning},
				"sensitive-path":    {Off: true},
			},
		},
		Servers: []Server{
			{Name: "fs", Line: 15, Column: 3, Settings: Settings{
				WarmupCalls: intp(3),
				Calls: []probe.Call{
					{Tool: "read_text_file", Arguments: []byte(`{"path":"/tmp/x"}`)},
					{Tool: "list_allowed_directories"},
				},
				Launches: intp(1), PassEnv: []string{"FS_TOKEN"}, Sandbox: sandbox.Strict,
				Timeout: 90 * time.Second,
				Rules:   map[finding.RuleID]RuleLevel{"tool-removed": {Severity: finding.Error}},
			}},
			{Name: "github", Line: 27, Column: 3, Settings: Settings{
				RequestTimeout: 10 * time.Second, CallTimeout: 20 * time.Second,
				Calls: []probe.Call{
					{Tool: "search_repositories", Arguments: []byte(`{"query":"org:example","perPage":5,"filters":["open","not archived"]}`)},
				},
			}},
		},
	}
	if got := p.Pos("servers.fs.warmup-calls"); got != (Position{16, 5}) {
		t.Errorf("Pos(servers.fs.warmup-calls) = %v", got)
	}
	p.pos = nil // compared on its own above
	if !reflect.DeepEqual(p, want) {
		t.Errorf("Parse:\n got %s\nwant %s", dump(p), dump(want))
	}
}

func dump(p *Policy) string {
	var b strings.Builder
	b.WriteString("defaults " + dumpSettings(p.Defaults))
	for _, s := range p.Servers {
		b.WriteString("; " + s.Name + " " + dumpSettings(s.Settings))
	}
	return b.String()
}

func dumpSettings(s Settings) string {
	var b strings.Builder
	if s.Profile != "" {
		b.WriteString("profile=" + s.Profile + " ")
	}
	if s.WarmupCalls != nil {
		b.WriteString("warmup=" + strconv.Itoa(*s.WarmupCalls) + " ")
	}
	if s.Launches != nil {
		b.WriteString("launches=" + strconv.Itoa(*s.Launches) + " ")
	}
	for _, c := range s.Calls {
		b.WriteString("call=" + c.Tool + string(c.Arguments) + " ")
	}
	b.WriteString("env=" + strings.Join(s.PassEnv, ",") + " sandbox=" + string(s.Sandbox) + " timeout=" + s.Timeout.String() + " rt=" + s.RequestTimeout.String() + " ct=" + s.CallTimeout.String())
	for k, v := range s.Rules {
		b.WriteString(" " + string(k) + "=" + v.String())
	}
	return b.String()
}

func TestParseValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		check    func(t *testing.T, p *Policy)
	}{
		{"minimal", "version: 1\n", func(t *testing.T, p *Policy) {
			if len(p.Servers) != 0 || !reflect.DeepEqual(p.Defaults, Settings{}) {
				t.Errorf("got %+v", p)
			}
		}},
		{"server with no settings", "version: 1\nservers:\n  fs:\n", func(t *testing.T, p *Policy) {
			if s := p.Server("fs"); s == nil || s.Line != 3 || s.Column != 3 {
				t.Errorf("server fs = %+v", s)
			}
		}},
		{"flow style", `{"version": 1, "servers": {"a": {"launches": 2, "calls": [{"tool": "t", "arguments": {"k": [1, 2.5, true, null]}}]}}}`, func(t *testing.T, p *Policy) {
			s := p.Server("a")
			if s == nil || *s.Launches != 2 || string(s.Calls[0].Arguments) != `{"k":[1,2.5,true,null]}` {
				t.Errorf("server a = %+v", s)
			}
		}},
		{"off and levels any case, quoted or not", "version: 1\nrules:\n  tool-removed: Error\n  sensitive-path: 'off'\n  confusable-name: note\n", func(t *testing.T, p *Policy) {
			want := map[finding.RuleID]RuleLevel{"tool-removed": {Severity: finding.Error}, "sensitive-path": {Off: true}, "confusable-name": {Severity: finding.Note}}
			if !reflect.DeepEqual(p.Defaults.Rules, want) {
				t.Errorf("rules = %v", p.Defaults.Rules)
			}
		}},
		{"arguments keep order, non-ASCII and HTML as written", "version: 1\nservers:\n  s:\n    calls:\n      - tool: t\n        arguments:\n          z: \"<b>&é\"\n          a: |\n            two\n            lines\n", func(t *testing.T, p *Policy) {
			if got := string(p.Servers[0].Calls[0].Arguments); got != `{"z":"<b>&é","a":"two\nlines\n"}` {
				t.Errorf("arguments = %s", got)
			}
		}},
		{"anchors are allowed, they only name a value", "version: 1\ndefaults: &d\n  launches: 3\n", func(t *testing.T, p *Policy) {
			if p.Defaults.Launches == nil || *p.Defaults.Launches != 3 {
				t.Errorf("launches = %v", p.Defaults.Launches)
			}
		}},
		{"zero warm-up calls", "version: 1\ndefaults: {warmup-calls: 0}\n", func(t *testing.T, p *Policy) {
			if p.Defaults.WarmupCalls == nil || *p.Defaults.WarmupCalls != 0 {
				t.Errorf("warmup = %v", p.Defaults.WarmupCalls)
			}
		}},
		{"pass-env deduplicated", "version: 1\ndefaults:\n  pass-env:\n    - A\n    - A\n    - B_2\n", func(t *testing.T, p *Policy) {
			if !reflect.DeepEqual(p.Defaults.PassEnv, []string{"A", "B_2"}) {
				t.Errorf("pass-env = %v", p.Defaults.PassEnv)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("p.yaml", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p)
		})
	}
}

// TestParseErrors pins each kind of mistake to its message and position:
// the position is what a user jumps to.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     string // the whole error text
	}{
		{"empty", "", `p.yaml:1:1: invalid policy: the policy is empty: it needs at least "version: 1"`},
		{"no version", "servers:\n  a:\n", `p.yaml:1:1: invalid policy: the policy has no "version: 1"`},
		{"wrong version", "version: 2\n", `p.yaml:1:10: invalid policy: version "2" is not supported: this build reads version 1`},
		{"not a mapping", "- a\n", `p.yaml:1:1: invalid policy: the policy must be a mapping (key: value lines), not a list`},
		{"yaml syntax", "version: 1\nservers: [\n", `p.yaml:2:10: invalid policy: sequence end token ']' not found`},
		{"duplicate key", "version: 1\nversion: 1\n", `p.yaml:2:1: invalid policy: mapping key "version" already defined at [1:1]`},
		{"second document", "version: 1\n---\nversion: 1\n", `p.yaml:3:1: invalid policy: a policy is one YAML document; this is a second one`},
		{"unknown top key", "version: 1\nserver:\n  a: {}\n", `p.yaml:2:1: invalid policy: unknown key "server"; known: version, defaults, rules, servers, acknowledge`},
		{"unknown server key", "version: 1\nservers:\n  fs:\n    warmup-cals: 3\n", `p.yaml:4:5: invalid policy: unknown key "warmup-cals" in server "fs"; known: profile, warmup-calls, launches, sandbox, timeout, request-timeout, call-timeout, pass-env, pin-prompts, calls, rules, network`},
		{"pin-prompts not a bool", "version: 1\nservers:\n  fs:\n    pin-prompts: yes\n", `p.yaml:4:18: invalid policy: pin-prompts: want true or false, got "yes"`},
		{"calls in defaults", "version: 1\ndefaults:\n  calls: []\n", `p.yaml:3:3: invalid policy: unknown key "calls" in defaults (calls name a server's tools: put them under servers.NAME.calls); known: profile, warmup-calls, launches, sandbox, timeout, request-timeout, call-timeout, pass-env, pin-prompts`},
		{"negative warm-up", "version: 1\ndefaults:\n  warmup-calls: -1\n", `p.yaml:3:17: invalid policy: warmup-calls: -1 is out of range: want 0 to 1000`},
		{"zero launches", "version: 1\nservers:\n  a:\n    launches: 0\n", `p.yaml:4:15: invalid policy: launches: 0 is out of range: want 1 to 100`},
		{"count as string", "version: 1\ndefaults:\n  launches: \"2\"\n", `p.yaml:3:13: invalid policy: launches: want a whole number from 1 to 100, got "2"`},
		{"count as float", "version: 1\ndefaults:\n  launches: 1.5\n", `p.yaml:3:13: invalid policy: launches: want a whole number from 1 to 100, got "1.5"`},
		{"huge count", "version: 1\ndefaults:\n  warmup-calls: 99999999999999999999999\n", `p.yaml:3:17: invalid policy: warmup-calls: want a whole number from 0 to 1000, got "99999999999999999999999"`},
		{"unknown profile", "version: 1\nservers:\n  a:\n    profile: slow\n", `p.yaml:4:14: invalid policy: profile: unknown profile "slow"; want quick or deep`},
		{"profile not a word", "version: 1\ndefaults:\n  profile: [deep]\n", `p.yaml:3:12: invalid policy: profile: want a value, got a list`},
		{"unknown sandbox level", "version: 1\nservers:\n  a:\n    sandbox: tight\n", `p.yaml:4:14: invalid policy: sandbox: unknown sandbox level "tight" (want off, basic or strict)`},
		{"duration without unit", "version: 1\nservers:\n  a:\n    timeout: 90\n", `p.yaml:4:14: invalid policy: timeout: "90" is not a duration (write e.g. 90s, 2m or 1m30s)`},
		{"bad duration", "version: 1\ndefaults:\n  request-timeout: soon\n", `p.yaml:3:20: invalid policy: request-timeout: "soon" is not a duration (write e.g. 90s, 2m or 1m30s)`},
		{"zero duration", "version: 1\ndefaults:\n  timeout: 0s\n", `p.yaml:3:12: invalid policy: timeout: 0s: want a duration above zero`},
		{"empty value", "version: 1\ndefaults:\n  sandbox:\n", `p.yaml:3:3: invalid policy: sandbox: want a value, got nothing`},
		{"pass-env not a list", "version: 1\ndefaults:\n  pass-env: HTTPS_PROXY\n", `p.yaml:3:13: invalid policy: pass-env must be a list (- item lines or [a, b]), not a string`},
		{"pass-env bad name", "version: 1\ndefaults:\n  pass-env: [\"A=B\"]\n", `p.yaml:3:14: invalid policy: pass-env: "A=B" is not an environment variable name`},
		{"call without tool", "version: 1\nservers:\n  fs:\n    calls:\n      - arguments: {path: /tmp}\n", `p.yaml:5:7: invalid policy: call 1 of server "fs" has no tool: name the tool to call with "tool: NAME"`},
		{"empty call", "version: 1\nservers:\n  fs:\n    calls:\n      - tool: a\n      -\n", `p.yaml:6:7: invalid policy: call 2 of server "fs" is empty: it needs a tool`},
		{"call is a string", "version: 1\nservers:\n  fs:\n    calls:\n      - read_file\n", `p.yaml:5:9: invalid policy: call 1 of server "fs" must be a mapping (key: value lines), not a string`},
		{"calls not a list", "version: 1\nservers:\n  fs:\n    calls: {tool: a}\n", `p.yaml:4:12: invalid policy: servers.fs.calls must be a list (- item lines or [a, b]), not a mapping`},
		{"unknown call key", "version: 1\nservers:\n  fs:\n    calls:\n      - tool: a\n        args: {}\n", `p.yaml:6:9: invalid policy: unknown key "args" in call 1 of server "fs"; known: tool, arguments`},
		{"arguments a list", "version: 1\nservers:\n  fs:\n    calls:\n      - tool: a\n        arguments: [1, 2]\n", `p.yaml:6:20: invalid policy: arguments must be a mapping (name: value), not a list`},
		{"arguments a string", "version: 1\nservers:\n  fs:\n    calls:\n      - tool: a\n        arguments: '{\"path\": \"/\"}'\n", `p.yaml:6:20: invalid policy: arguments must be a mapping (name: value), not a string`},
		{"arguments infinity", "version: 1\nservers:\n  fs:\n    calls:\n      - tool: a\n        arguments: {n: .inf}\n", `p.yaml:6:24: invalid policy: arguments: .inf is not a number JSON can carry`},
		{"alias", "version: 1\nservers:\n  a: &x {launches: 2}\n  b: *x\n", `p.yaml:4:6: invalid policy: aliases (*name) are not supported in a policy: write the value out`},
		{"tag", "version: 1\ndefaults:\n  launches: !!str 2\n", `p.yaml:3:13: invalid policy: tags (!!str) are not supported in a policy`},
		{"unknown rule", "version: 1\nrules:\n  model-instructions: off\n", `p.yaml:3:3: invalid policy: unknown rule "model-instructions" in rules (did you mean "model-instruction"?)`},
		{"unknown rule far off", "version: 1\nservers:\n  a:\n    rules:\n      everything: off\n", `p.yaml:5:7: invalid policy: unknown rule "everything" in servers.a.rules (the rule ids are listed in the README)`},
		{"bad rule level", "version: 1\nrules:\n  tool-removed: fatal\n", `p.yaml:3:17: invalid policy: tool-removed: "fatal" is not a rule level: want off, note, warning or error`},
		{"never is not a rule level", "version: 1\nrules:\n  tool-removed: never\n", `p.yaml:3:17: invalid policy: tool-removed: "never" is not a rule level: want off, note, warning or error`},
		{"server-unavailable", "version: 1\nrules:\n  server-unavailable: off\n", `p.yaml:3:3: invalid policy: server-unavailable cannot be turned off or re-levelled: a server that could not be probed is always held (exit 3)`},
		{"control characters stay inert", "version: 1\nservers:\n  \"a\\e[31m\\u202e\":\n    rules:\n      x: off\n", `p.yaml:5:7: invalid policy: unknown rule "x" in servers.a\u{001B}[31m\u{202E}.rules (the rule ids are listed in the README)`},
		{"tags, separators and variation selectors stay inert", "version: 1\nservers:\n  \"a\\U000E0041\\u2028\\uFE0F\":\n    rules:\n      x: off\n", `p.yaml:5:7: invalid policy: unknown rule "x" in servers.a\u{E0041}\u{2028}\u{FE0F}.rules (the rule ids are listed in the README)`},
		{"a spelled escape reads apart from a real one", "version: 1\nservers:\n  'a\\u{202E}':\n    rules:\n      x: off\n", `p.yaml:5:7: invalid policy: unknown rule "x" in servers.a\\u{202E}.rules (the rule ids are listed in the README)`},
		{"rules not a mapping", "version: 1\nrules: [tool-removed]\n", `p.yaml:2:8: invalid policy: rules must be a mapping (key: value lines), not a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("p.yaml", []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse = %+v, want error %s", p, tt.want)
			}
			if p != nil {
				t.Errorf("Parse returned a policy with its error")
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

func TestParseTooBig(t *testing.T) {
	t.Parallel()
	_, err := Parse("p.yaml", []byte("version: 1\n"+strings.Repeat("# padding\n", MaxFileBytes/10+1)))
	if err == nil || !strings.Contains(err.Error(), "a policy may have at most") {
		t.Errorf("err = %v", err)
	}
}

// TestEffective pins the precedence: fixed by the caller > server >
// defaults > built-in, pass-env adding up, rules overlaying.
func TestEffective(t *testing.T) {
	t.Parallel()
	p, err := Parse("p.yaml", []byte(`version: 1
defaults:
  warmup-calls: 5
  launches: 2
  sandbox: basic
  timeout: 2m
  pass-env: [HTTPS_PROXY]
rules:
  model-instruction: note
  sensitive-path: off
servers:
  fs:
    warmup-calls: 3
    sandbox: strict
    request-timeout: 10s
    call-timeout: 20s
    pass-env: [FS_TOKEN, HTTPS_PROXY]
    calls:
      - tool: read
    rules:
      sensitive-path: warning
      tool-removed: error
  risky:
    profile: deep
    launches: 3
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		server string
		fixed  Fixed
		want   Settings
	}{
		{"server over defaults", "fs", Fixed{}, Settings{
			WarmupCalls: intp(3), Launches: intp(2), Sandbox: sandbox.Strict, Timeout: 2 * time.Minute, RequestTimeout: 10 * time.Second, CallTimeout: 20 * time.Second,
			PassEnv: []string{"HTTPS_PROXY", "FS_TOKEN"}, Calls: []probe.Call{{Tool: "read"}},
			Rules: map[finding.RuleID]RuleLevel{"model-instruction": {Severity: finding.Note}, "sensitive-path": {Severity: finding.Warning}, "tool-removed": {Severity: finding.Error}},
		}},
		{"fixed over server and defaults", "fs", Fixed{WarmupCalls: true, Sandbox: true, Launches: true, Timeout: true, RequestTimeout: true, CallTimeout: true}, Settings{
			PassEnv: []string{"HTTPS_PROXY", "FS_TOKEN"}, Calls: []probe.Call{{Tool: "read"}},
			Rules: map[finding.RuleID]RuleLevel{"model-instruction": {Severity: finding.Note}, "sensitive-path": {Severity: finding.Warning}, "tool-removed": {Severity: finding.Error}},
		}},
		{"one fixed", "fs", Fixed{Sandbox: true}, Settings{
			WarmupCalls: intp(3), Launches: intp(2), Timeout: 2 * time.Minute, RequestTimeout: 10 * time.Second, CallTimeout: 20 * time.Second,
			PassEnv: []string{"HTTPS_PROXY", "FS_TOKEN"}, Calls: []probe.Call{{Tool: "read"}},
			Rules: map[finding.RuleID]RuleLevel{"model-instruction": {Severity: finding.Note}, "sensitive-path": {Severity: finding.Warning}, "tool-removed": {Severity: finding.Error}},
		}},
		// A profile in the server's section: the defaults' counts do
		// not reach it (deep's apply), its own launches do.
		{"a server's profile over the defaults' counts", "risky", Fixed{}, Settings{
			Profile: ProfileDeep, Launches: intp(3), Sandbox: sandbox.Basic, Timeout: 2 * time.Minute,
			PassEnv: []string{"HTTPS_PROXY"},
			Rules:   map[finding.RuleID]RuleLevel{"model-instruction": {Severity: finding.Note}, "sensitive-path": {Off: true}},
		}},
		{"a fixed profile over the server's", "risky", Fixed{Profile: true}, Settings{
			Launches: intp(3), Sandbox: sandbox.Basic, Timeout: 2 * time.Minute,
			PassEnv: []string{"HTTPS_PROXY"},
			Rules:   map[finding.RuleID]RuleLevel{"model-instruction": {Severity: finding.Note}, "sensitive-path": {Off: true}},
		}},
		{"defaults for a server the policy does not name", "other", Fixed{}, Settings{
			WarmupCalls: intp(5), Launches: intp(2), Sandbox: sandbox.Basic, Timeout: 2 * time.Minute,
			PassEnv: []string{"HTTPS_PROXY"},
			Rules:   map[finding.RuleID]RuleLevel{"model-instruction": {Severity: finding.Note}, "sensitive-path": {Off: true}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Effective(tt.server, tt.fixed)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Effective(%q)\n got %s\nwant %s", tt.server, dumpSettings(got), dumpSettings(tt.want))
			}
		})
	}
	// The policy's own values are not changed by resolving.
	if *p.Defaults.WarmupCalls != 5 || len(p.Defaults.PassEnv) != 1 || p.Defaults.Rules["sensitive-path"] != (RuleLevel{Off: true}) {
		t.Errorf("Effective changed the policy: %s", dumpSettings(p.Defaults))
	}
	var nilPolicy *Policy
	if got := nilPolicy.Effective("fs", Fixed{}); !reflect.DeepEqual(got, Settings{}) {
		t.Errorf("nil policy: %s", dumpSettings(got))
	}
}

func TestUnused(t *testing.T) {
	t.Parallel()
	p, err := Parse("p.yaml", []byte("version: 1\nservers:\n  fs: {}\n  gihtub: {}\n  memory: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := p.Unused([]string{"fs", "github", "memory"})
	if len(got) != 1 || got[0].Name != "gihtub" || got[0].Line != 4 || got[0].Column != 3 {
		t.Errorf("Unused = %+v", got)
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	fs := []finding.Finding{
		finding.New(finding.ModelInstruction, "a"),
		finding.New(finding.SensitivePath, "a"),
		finding.New(finding.ToolRemoved, "a"),
		finding.New(finding.ToolChanged, "a"),
	}
	got, note := Apply(fs, map[finding.RuleID]RuleLevel{
		finding.SensitivePath:    {Off: true},
		finding.ToolRemoved:      {Severity: finding.Error},
		finding.ToolChanged:      {Severity: finding.Note},
		finding.ModelInstruction: {Severity: finding.Warning},
	})
	if want := "policy rules: sensitive-path off (1 dropped), tool-changed set to note (1), tool-removed set to error (1)"; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
	if _, note := Apply(nil, nil); note != "" {
		t.Errorf("no rules: note %q", note)
	}
	want := []struct {
		rule finding.RuleID
		sev  finding.Severity
	}{
		{finding.ModelInstruction, finding.Warning},
		{finding.ToolRemoved, finding.Error},
		{finding.ToolChanged, finding.Note},
	}
	if len(got) != len(want) {
		t.Fatalf("Apply kept %d findings, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Rule != w.rule || got[i].Severity != w.sev {
			t.Errorf("finding %d = %s/%s, want %s/%s", i, got[i].Rule, got[i].Severity, w.rule, w.sev)
		}
	}
}

// TestDocsExample parses the example in docs/policy.md, the policy file's
// page (it was the README's "Policy file" section), so the documented
// example is always one the parser accepts.
func TestDocsExample(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "# Policy file\n")
	if !ok {
		t.Fatal(`docs/policy.md has no "# Policy file" heading`)
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("the Policy file section has no yaml example")
	}
	block, _, _ = strings.Cut(block, "```")
	p, err := Parse("docs/policy.md", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	fs := p.Server("fs")
	if fs == nil || len(fs.Calls) != 2 || string(fs.Calls[0].Arguments) != `{"path":"/tmp/x"}` || p.Server("github") == nil {
		t.Errorf("docs/policy.md example parsed as %s", dump(p))
	}
}

// TestPinPrompts: pin-prompts is read per server and from the defaults, the
// server's own setting winning.
func TestPinPrompts(t *testing.T) {
	t.Parallel()
	p, err := Parse("p.yaml", []byte("version: 1\ndefaults:\n  pin-prompts: true\nservers:\n  a:\n    pin-prompts: false\n  b: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"a": false, "b": true, "c": true} {
		if got := p.Effective(name, Fixed{}).PinPrompts; got == nil || *got != want {
			t.Errorf("%s: PinPrompts %v, want %v", name, got, want)
		}
	}
}

// TestCanaryRulesAgree: the registry, the docs and the policy say the same
// about the sandbox's canaries. canary-leak and canary-used are errors a
// policy cannot lower; canary-returned (a read the checker asked for
// returned planted secrets) is a note a policy may turn off or raise.
func TestCanaryRulesAgree(t *testing.T) {
	t.Parallel()
	for _, id := range []finding.RuleID{finding.CanaryLeak, finding.CanaryUsed} {
		if finding.DefaultSeverity(id) != finding.Error {
			t.Errorf("%s is %s in the registry, want error", id, finding.DefaultSeverity(id))
		}
		for _, level := range []string{"warning", "note", "off"} {
			if _, err := Parse("p.yaml", []byte("version: 1\nrules:\n  "+string(id)+": "+level+"\n")); err == nil || !strings.Contains(err.Error(), "cannot be turned off or lowered below error") {
				t.Errorf("%s: %s: err = %v", id, level, err)
			}
		}
	}
	if finding.DefaultSeverity(finding.CanaryReturned) != finding.Note {
		t.Errorf("canary-returned is %s, want note", finding.DefaultSeverity(finding.CanaryReturned))
	}
	for _, level := range []string{"off", "warning", "error"} {
		if _, err := Parse("p.yaml", []byte("version: 1\nrules:\n  canary-returned: "+level+"\n")); err != nil {
			t.Errorf("canary-returned: %s: %v", level, err)
		}
	}
}

// TestAcknowledge: the acknowledge section names repository findings the
// team lives with, per rule and subject, each with a reason; anything else
// is an error at its line.
func TestAcknowledge(t *testing.T) {
	t.Parallel()
	p, err := Parse("p.yaml", []byte("version: 1\nacknowledge:\n  unchecked-config:\n    docs/.mcp.json: a sample for the docs\n  policy-weakened:\n    servers.fs.pass-env: fs needs GH_HOST\n"))
	if err != nil {
		t.Fatal(err)
	}
	unchecked := finding.New(finding.UncheckedConfig, "")
	unchecked.Subject = "docs/.mcp.json"
	weak := finding.New(finding.PolicyWeakened, "fs")
	weak.Field = "servers.fs.pass-env"
	other := finding.New(finding.UncheckedConfig, "")
	other.Subject = "other/.mcp.json"
	for _, c := range []struct {
		f      finding.Finding
		reason string
		ok     bool
	}{{unchecked, "a sample for the docs", true}, {weak, "fs needs GH_HOST", true}, {other, "", false}} {
		if r, ok := p.Acknowledged(c.f); r != c.reason || ok != c.ok {
			t.Errorf("%s %s: %q %v, want %q %v", c.f.Rule, AckSubject(c.f), r, ok, c.reason, c.ok)
		}
	}
	if pos := p.Pos("acknowledge.unchecked-config.docs/.mcp.json"); pos.Line != 4 {
		t.Errorf("position %+v", pos)
	}
	for _, c := range []struct{ name, in, want string }{
		{"a server's rule", "version: 1\nacknowledge:\n  tool-changed:\n    x: y\n", `p.yaml:3:3: invalid policy: acknowledge: "tool-changed" is not a rule of the repository (policy-weakened, unchecked-config); a server's findings are acknowledged in the lock with approve --ack`},
		{"no reason", "version: 1\nacknowledge:\n  unchecked-config:\n    docs/.mcp.json:\n", `p.yaml:4:5: invalid policy: acknowledge.unchecked-config.docs/.mcp.json: want a value, got nothing`},
		{"no subject", "version: 1\nacknowledge:\n  unchecked-config: {}\n", `p.yaml:3:3: invalid policy: acknowledge.unchecked-config names no subject`},
		{"a list", "version: 1\nacknowledge:\n  - unchecked-config\n", `p.yaml:3:3: invalid policy: acknowledge must be a mapping (key: value lines), not a list`},
	} {
		_, err := Parse("p.yaml", []byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
}
