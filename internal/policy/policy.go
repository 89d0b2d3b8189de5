// Package policy reads the policy file (.mcp-lockcheck.yaml): what the
// client configs cannot say about a server. Per server: the warm-up calls
// to make (tool and JSON arguments) and how many, launches, extra
// environment to pass from the checker, the sandbox level and time-outs;
// globally and per server: rules turned off or given another severity.
//
// The file is committed beside the lock and read strictly: an unknown key,
// a bad value or a rule id that does not exist is an error naming the
// file, line and column (1-based), never a silent default. A setting a
// reviewer believes is in force but is not would be a quiet hole in the
// check.
//
// Precedence, highest first: a setting the caller fixed (the CLI: a flag
// given on the command line), the server's own setting, the file's
// defaults, the built-in default. The one exception is pass-env, which
// adds up (the caller's, the defaults' and the server's list): each name
// is a grant some server needs, and the caller passing one more variable
// must not take away another server's. The package speaks only of policy
// keys; which flag fixes which setting is the caller's business.
package policy

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// DefaultFile is the policy file looked for in the working directory (the
// repository root) when the caller names no other.
const DefaultFile = ".mcp-lockcheck.yaml"

// Version is the only policy format version this build reads.
const Version = 1

// Limits on counts: a policy asking for a million launches is a typo,
// and the server time-out would hold the server long before it finished.
const (
	MaxWarmupCalls = 1000
	MaxLaunches    = 100
	// MaxTimeout and MaxRequestTimeout cap what a policy may set: the
	// file comes with pull requests, and a time-out of days would hold the
	// job until the runner's own limit.
	MaxTimeout        = 10 * time.Minute
	MaxRequestTimeout = 2 * time.Minute
	// MaxFileBytes bounds what Parse reads: a policy is a short hand-written file.
	MaxFileBytes = 1 << 20
)

// Fixed names the settings the caller has fixed for every server (the
// CLI: by a flag given on the command line), by the policy key each
// stands for. Effective leaves a fixed setting unset, so the caller's own
// value stands over the policy's. pass-env is never fixed: it adds up.
type Fixed struct {
	Profile        bool // profile
	WarmupCalls    bool // warmup-calls
	Launches       bool // launches
	Sandbox        bool // sandbox
	Timeout        bool // timeout
	RequestTimeout bool // request-timeout
	CallTimeout    bool // call-timeout
}

// Probe profiles a policy may name (docs/profiles.md has what each sets).
const (
	ProfileQuick = "quick"
	ProfileDeep  = "deep"
)

// ProfileRank orders profiles from lightest (quick) to deepest (deep), -1
// for a name that is none of them.
func ProfileRank(p string) int {
	switch p {
	case ProfileQuick:
		return 0
	case ProfileDeep:
		return 1
	}
	return -1
}

// ErrInvalid is wrapped by every error Parse returns.
var ErrInvalid = errors.New("invalid policy")

// Error is a problem in the policy file at a position. Line and Column are
// 1-based; 0 means the YAML parser gave no position.
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v: %s", e.File, ErrInvalid, inert.Text(e.Msg))
	}
	return fmt.Sprintf("%s:%d:%d: %v: %s", e.File, e.Line, e.Column, ErrInvalid, inert.Text(e.Msg))
}

// Messages quote keys and values from the file (and the YAML parser quotes
// the input), and the file comes with pull requests: Error escapes the
// message with inert.Text (the parts quoted from the file are raw, so a key
// spelling a literal "\u{202E}" reads apart from a real one), and it writes
// no escape sequence or bidi control to a terminal or a CI log.

// Unwrap lets callers test errors.Is(err, ErrInvalid).
func (e *Error) Unwrap() error { return ErrInvalid }

// RuleLevel is what the policy does with a rule's findings: drop them
// (Off) or report them at Severity instead of the rule's default.
type RuleLevel struct {
	Off      bool
	Severity finding.Severity
}

func (l RuleLevel) String() string {
	if l.Off {
		return "off"
	}
	return l.Severity.String()
}

// Settings are what the policy sets for a server. A nil pointer, "" level,
// zero duration or empty list means "not set here": the next lower level
// of precedence decides.
type Settings struct {
	// Profile is the probe profile the server gets ("quick" or "deep"):
	// its counts, clock shifts, identities, call gap and varied arguments,
	// under the counts set here. A profile in a server's own section also
	// stops the defaults' warmup-calls and launches from reaching that
	// server: the server's own setting wins over the defaults.
	Profile     string
	WarmupCalls *int
	Launches    *int
	// Calls are explicit warm-up calls, made before any the checker
	// synthesizes; per server only (tool names are a server's own).
	Calls []probe.Call
	// Network is the server's network allowance under strict: the
	// host:port destinations it may reach (sandbox.Options.Network); per
	// server only. Empty: none, as strict has always been.
	Network        sandbox.Allowance
	PassEnv        []string
	Sandbox        sandbox.Level
	Timeout        time.Duration
	RequestTimeout time.Duration
	// PinPrompts says which prompts/get answers pin records in the lock,
	// so that check compares them and the guard holds even a session's
	// first answer to them. Unset (nil), the default, pins the answers of
	// prompts that take no required argument: the answer a client gets
	// when it sends none. true pins every prompt's answer, for the
	// arguments pin sends (required ones filled with "example"); false
	// pins none, for a server whose prompt expansions legitimately vary
	// in more than the time of the request.
	PinPrompts *bool
	// CallTimeout bounds one warm-up tools/call: a server whose tools are
	// slow to answer (a backend to reach) can be given more.
	CallTimeout time.Duration
	// Rules map a rule id to its level; the top-level rules apply to every
	// server, a server's own rules override them.
	Rules map[finding.RuleID]RuleLevel
}

// Server is one server's section of the policy.
type Server struct {
	Name string
	// Line and Column locate the server's name in the file (1-based).
	Line, Column int
	Settings
}

// Policy is a parsed policy file.
type Policy struct {
	// File is the path as given to Parse, for messages.
	File string
	// Defaults hold the defaults section and the top-level rules.
	Defaults Settings
	// Servers are the per-server sections in file order.
	Servers []Server
	// Acks are the acknowledge section's entries, in file order.
	Acks []Ack
	// pos locates each setting's key by dotted path
	// ("servers.fs.warmup-calls", "rules.sensitive-path").
	pos map[string]Position
}

// Position is a 1-based line and column in the policy file.
type Position struct{ Line, Column int }

// Pos returns where the setting at a dotted path is written ("defaults.launches",
// "servers.fs.rules.tool-removed"), or the zero Position.
func (p *Policy) Pos(path string) Position {
	if p == nil {
		return Position{}
	}
	return p.pos[path]
}

// Server returns the named server's section, or nil.
func (p *Policy) Server(name string) *Server {
	if p == nil {
		return nil
	}
	for i := range p.Servers {
		if p.Servers[i].Name == name {
			return &p.Servers[i]
		}
	}
	return nil
}

// Unused returns the servers the policy names that are not in configured,
// in file order: a policy for a server no config names is most likely a
// misspelt name, which the caller reports as a warning.
func (p *Policy) Unused(configured []string) []Server {
	if p == nil {
		return nil
	}
	var out []Server
	for _, s := range p.Servers {
		if !slices.Contains(configured, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Effective is what the policy sets for one server after precedence: the
// server's settings over the defaults, with every setting the caller fixed
// left unset so the caller's value stands. pass-env is the union of the
// defaults' and the server's names (the caller adds its own). Rules are
// the top-level rules overlaid with the server's. A nil policy, or a name
// it does not hold, yields the defaults alone.
func (p *Policy) Effective(name string, fixed Fixed) Settings {
	var out Settings
	if p == nil {
		return out
	}
	d := p.Defaults
	out = Settings{
		WarmupCalls: d.WarmupCalls, Launches: d.Launches, Sandbox: d.Sandbox,
		Timeout: d.Timeout, RequestTimeout: d.RequestTimeout, CallTimeout: d.CallTimeout,
		PassEnv: slices.Clone(d.PassEnv), PinPrompts: d.PinPrompts, Profile: d.Profile,
	}
	if len(d.Rules) > 0 {
		out.Rules = make(map[finding.RuleID]RuleLevel, len(d.Rules))
		for k, v := range d.Rules {
			out.Rules[k] = v
		}
	}
	if s := p.Server(name); s != nil {
		out.override(s)
	}
	clearFixed(&out, fixed)
	return out
}

// override lays server section s over the defaults in st: a profile there
// drops the defaults' counts, pass-env adds up, rules merge.
func (st *Settings) override(s *Server) {
	if s.Profile != "" {
		st.Profile = s.Profile
		st.WarmupCalls, st.Launches = nil, nil
	}
	if s.WarmupCalls != nil {
		st.WarmupCalls = s.WarmupCalls
	}
	if s.Launches != nil {
		st.Launches = s.Launches
	}
	if s.Sandbox != "" {
		st.Sandbox = s.Sandbox
	}
	if s.Timeout != 0 {
		st.Timeout = s.Timeout
	}
	if s.RequestTimeout != 0 {
		st.RequestTimeout = s.RequestTimeout
	}
	if s.PinPrompts != nil {
		st.PinPrompts = s.PinPrompts
	}
	if s.CallTimeout != 0 {
		st.CallTimeout = s.CallTimeout
	}
	st.Calls = slices.Clone(s.Calls)
	st.Network = slices.Clone(s.Network)
	for _, e := range s.PassEnv {
		if !slices.Contains(st.PassEnv, e) {
			st.PassEnv = append(st.PassEnv, e)
		}
	}
	for k, v := range s.Rules {
		if st.Rules == nil {
			st.Rules = map[finding.RuleID]RuleLevel{}
		}
		st.Rules[k] = v
	}
}

// Apply applies rule levels to findings: an off rule's findings are
// dropped, a re-levelled one's carry the new severity. The slice is
// changed in place and returned shortened. note says what the policy did
// ("" if nothing), for the server's notes: a finding a reviewer does not
// see, or sees at another severity, should not be a mystery.
func Apply(fs []finding.Finding, rules map[finding.RuleID]RuleLevel) (out []finding.Finding, note string) {
	if len(rules) == 0 {
		return fs, ""
	}
	dropped := map[finding.RuleID]int{}
	changed := map[finding.RuleID]int{}
	out = fs[:0]
	for _, f := range fs {
		l, ok := rules[f.Rule]
		switch {
		case !ok:
		case l.Off:
			dropped[f.Rule]++
			continue
		case f.Severity != l.Severity:
			changed[f.Rule]++
			f.Severity = l.Severity
		}
		out = append(out, f)
	}
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(dropped)) {
		parts = append(parts, fmt.Sprintf("%s off (%d dropped)", id, dropped[id]))
	}
	for _, id := range slices.Sorted(maps.Keys(changed)) {
		parts = append(parts, fmt.Sprintf("%s set to %s (%d)", id, rules[id].Severity, changed[id]))
	}
	if len(parts) > 0 {
		note = "policy rules: " + strings.Join(parts, ", ")
	}
	return out, note
}

// Ack is one acknowledgement of a repository finding: the rule, what it is
// about (unchecked-config: the file; policy-weakened: the setting's path),
// and the reason the team gave. The repository's findings are about no
// server, so the lock, whose acknowledgements are a server's and bound to
// its content's hash, has no place for them; the policy, which the base
// branch's code owners review and which a pull request can only tighten,
// does.
type Ack struct {
	Rule    finding.RuleID
	Subject string
	Reason  string
	// Line and Column locate the subject in the file (1-based).
	Line, Column int
}

func (a Ack) path() string { return "acknowledge." + string(a.Rule) + "." + a.Subject }

// RepositoryRule reports whether findings of rule id are about the
// repository rather than a server: the ones the acknowledge section takes.
func RepositoryRule(id finding.RuleID) bool {
	return id == finding.UncheckedConfig || id == finding.PolicyWeakened
}

func repositoryRuleNames() []string {
	return []string{string(finding.PolicyWeakened), string(finding.UncheckedConfig)}
}

// AckSubject is what an acknowledgement of f names: the file of an
// unchecked-config, the setting path of a policy-weakened.
func AckSubject(f finding.Finding) string {
	if f.Rule == finding.PolicyWeakened {
		return f.Field
	}
	return f.Subject
}

// Acknowledged returns the reason the policy gives for living with the
// repository finding f, and whether it gives one.
func (p *Policy) Acknowledged(f finding.Finding) (string, bool) {
	if p == nil || !RepositoryRule(f.Rule) {
		return "", false
	}
	subject := AckSubject(f)
	for _, a := range p.Acks {
		if a.Rule == f.Rule && a.Subject == subject {
			return a.Reason, true
		}
	}
	return "", false
}
