package policy

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/synth"
)

// A pull request's policy file is the pull request author's: if the check
// of that pull request ran with it, the author could lower the bar the
// check holds them to (no warm-up calls, one launch, tool-shadowing off,
// the sandbox off, a secret in pass-env). Under review the base branch's
// policy is in force and the pull request's can only tighten it; every
// setting it lowers is a policy-weakened finding, and takes effect once
// merged, when the base is the branch that policy is on.

// Run is what a server gets where no policy sets a value: the caller's
// values for the run (its flags) and the built-in defaults. Comparing
// "unset" with a number needs it.
type Run struct {
	WarmupCalls, Launches int
	Sandbox               sandbox.Level
	// Timeout is the run's server time-out, 0 when it follows each
	// server's plan (the CLI's default).
	Timeout, RequestTimeout, CallTimeout time.Duration
	// Profile is the run's own profile ("" is quick); DeepWarmupCalls and
	// DeepLaunches are the counts a server the policy makes deep gets
	// where no policy sets one (0: the run's counts).
	Profile                       string
	DeepWarmupCalls, DeepLaunches int
}

// counts is what a server of profile prof gets where no policy sets the
// warm-up calls or launches.
func (r Run) counts(prof string) (warmup, launches int) {
	warmup, launches = r.WarmupCalls, r.Launches
	if prof == ProfileDeep && r.Profile != ProfileDeep {
		if r.DeepWarmupCalls > 0 {
			warmup = r.DeepWarmupCalls
		}
		if r.DeepLaunches > 0 {
			launches = r.DeepLaunches
		}
	}
	return warmup, launches
}

// profileOr is p, else the run's profile, else quick.
func (r Run) profileOr(p string) string {
	switch {
	case p != "":
		return p
	case r.Profile != "":
		return r.Profile
	}
	return ProfileQuick
}

// deeper is the deeper of two profiles.
func deeper(a, b string) string {
	if ProfileRank(b) > ProfileRank(a) {
		return b
	}
	return a
}

// Combined is the policy in force when a pull request's policy (PR) is
// checked against its base branch's (Base). Either may be nil: no file.
type Combined struct {
	Base, PR *Policy
	Run      Run
}

// SandboxRank orders levels from weakest (off) to strictest (strict);
// an unknown level ranks as strict, so nothing fails open.
func SandboxRank(l sandbox.Level) int {
	switch l {
	case sandbox.Off:
		return 0
	case sandbox.Basic:
		return 1
	}
	return 2
}

// ruleRank orders rule levels: off below note below warning below error.
func ruleRank(l RuleLevel) int {
	if l.Off {
		return -1
	}
	return int(l.Severity)
}

// level is the rule's level in st, or its default when st does not set it.
func level(st Settings, id finding.RuleID) (RuleLevel, bool) {
	if l, ok := st.Rules[id]; ok {
		return l, true
	}
	return RuleLevel{Severity: finding.DefaultSeverity(id)}, false
}

func intOr(p *int, d int) int {
	if p != nil {
		return *p
	}
	return d
}

// minSet is the shorter of two time-outs, where 0 is one not set (the
// run's server time-out follows each server's plan unless given): a side
// that sets none leaves the other's.
func minSet(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

func durOr(v, d time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return d
}

// Effective is the settings in force for one server: for each setting the
// stricter of the base's and the pull request's (more warm-up calls, more
// launches, the stricter sandbox, the shorter time-out, the higher rule
// level, more prompt answers pinned), the base's warm-up calls followed by any the pull request adds
// (with the count raised by as many, so they displace none of the base's),
// and only the pass-env names both allow. As with Policy.Effective, a
// setting the caller fixed is left unset.
func (c *Combined) Effective(name string, fixed Fixed) Settings {
	b, p := c.Base.Effective(name, Fixed{}), c.PR.Effective(name, Fixed{})
	var out Settings
	// The deeper profile, and unset counts read as that profile's: a
	// pull request that sets warmup-calls: 5 beside a base that makes the
	// server deep (50) must not bring it down to 5.
	prof := deeper(c.Run.profileOr(b.Profile), c.Run.profileOr(p.Profile))
	if b.Profile != "" || p.Profile != "" {
		out.Profile = prof
	}
	dw, dl := c.Run.counts(prof)
	if b.WarmupCalls != nil || p.WarmupCalls != nil {
		v := max(intOr(b.WarmupCalls, dw), intOr(p.WarmupCalls, dw))
		out.WarmupCalls = &v
	}
	if b.Launches != nil || p.Launches != nil {
		v := max(intOr(b.Launches, dl), intOr(p.Launches, dl))
		out.Launches = &v
	}
	if b.Sandbox != "" || p.Sandbox != "" {
		bl, pl := cmpOr(b.Sandbox, c.Run.Sandbox), cmpOr(p.Sandbox, c.Run.Sandbox)
		out.Sandbox = bl
		if SandboxRank(pl) > SandboxRank(bl) {
			out.Sandbox = pl
		}
	}
	if b.Timeout > 0 || p.Timeout > 0 {
		out.Timeout = minSet(durOr(b.Timeout, c.Run.Timeout), durOr(p.Timeout, c.Run.Timeout))
	}
	if b.RequestTimeout > 0 || p.RequestTimeout > 0 {
		out.RequestTimeout = min(durOr(b.RequestTimeout, c.Run.RequestTimeout), durOr(p.RequestTimeout, c.Run.RequestTimeout))
	}
	if b.CallTimeout > 0 || p.CallTimeout > 0 {
		out.CallTimeout = min(durOr(b.CallTimeout, c.Run.CallTimeout), durOr(p.CallTimeout, c.Run.CallTimeout))
	}
	out.Calls, out.WarmupCalls = mergeCalls(b, p, out.WarmupCalls, dw)
	out.Network = narrowerNetwork(b.Network, p.Network)
	for _, e := range p.PassEnv {
		if slices.Contains(b.PassEnv, e) {
			out.PassEnv = append(out.PassEnv, e)
		}
	}
	if br, pr := pinRank(b.PinPrompts), pinRank(p.PinPrompts); max(br, pr) != pinRank(nil) {
		v := max(br, pr) == pinRank(&yes)
		out.PinPrompts = &v
	}
	out.Rules = stricterRules(b, p)
	clearFixed(&out, fixed)
	return out
}

// yes is true, to point at.
var yes = true

// pinRank orders pin-prompts from pinning least to pinning most: false
// (none), unset (the prompts without required arguments), true (every
// prompt).
func pinRank(p *bool) int {
	switch {
	case p == nil:
		return 1
	case *p:
		return 2
	}
	return 0
}

// pinText names a pin-prompts setting for a reviewer.
func pinText(p *bool) string {
	switch pinRank(p) {
	case 0:
		return "false"
	case 2:
		return "true"
	}
	return "unset (prompts without required arguments)"
}

func cmpOr(l, d sandbox.Level) sandbox.Level {
	if l != "" {
		return l
	}
	return d
}

// clearFixed leaves unset every setting the caller fixed.
func clearFixed(out *Settings, fixed Fixed) {
	if fixed.Profile {
		out.Profile = ""
	}
	if fixed.WarmupCalls {
		out.WarmupCalls = nil
	}
	if fixed.Launches {
		out.Launches = nil
	}
	if fixed.Sandbox {
		out.Sandbox = ""
	}
	if fixed.Timeout {
		out.Timeout = 0
	}
	if fixed.RequestTimeout {
		out.RequestTimeout = 0
	}
	if fixed.CallTimeout {
		out.CallTimeout = 0
	}
}

// ruleIDs are the rules either settings name, sorted.
func ruleIDs(a, b Settings) []finding.RuleID {
	var ids []finding.RuleID
	for _, st := range []Settings{a, b} {
		for id := range st.Rules {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

func hasCall(list []probe.Call, c probe.Call) bool {
	for _, x := range list {
		if x.Tool == c.Tool && bytes.Equal(x.Arguments, c.Arguments) {
			return true
		}
	}
	return false
}

// Weakenings lists every setting the pull request's policy lowers, as
// policy-weakened findings (error), for the defaults and for each server
// named in servers or in either file. Each finding names the setting's
// path in the file ("servers.fs.warmup-calls", "rules.tool-shadowing"),
// the base's value (Before) and the pull request's (After), and points at
// the setting's line in the pull request's file (prFile, as the report
// names it). A setting lowered in the defaults is reported once, not for
// every server that inherits it.
func (c *Combined) Weakenings(servers []string, prFile string) []finding.Finding {
	names := []string{""} // the defaults alone: a name no section holds
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range servers {
		add(n)
	}
	for _, p := range []*Policy{c.Base, c.PR} {
		if p != nil {
			for _, s := range p.Servers {
				add(s.Name)
			}
		}
	}
	slices.Sort(names[1:])

	var out []finding.Finding
	seen := map[string]bool{}
	for _, name := range names {
		// Findings about the defaults belong to no one server.
		for _, w := range c.weakenings(name) {
			// A setting the server inherits from the defaults was
			// compared, and reported, for the defaults alone.
			if name != "" && !strings.HasPrefix(w.path, "servers.") {
				continue
			}
			if seen[w.path] {
				continue
			}
			seen[w.path] = true
			f := finding.New(finding.PolicyWeakened, name)
			f.Field, f.Before, f.After = w.path, w.before, w.after
			f.Message = w.msg + ": this check ran with the base branch's value; the pull request's takes effect once merged"
			f.File = prFile
			if pos := c.PR.Pos(w.path); pos.Line > 0 {
				f.Line = pos.Line
			} else if pos := c.PR.Pos(sectionOf(w.path)); pos.Line > 0 {
				f.Line = pos.Line
			}
			out = append(out, f)
		}
	}
	return out
}

// sectionOf is the section a setting path is in ("servers.fs" for
// "servers.fs.rules.x", "defaults" for "defaults.launches").
func sectionOf(path string) string {
	if rest, ok := strings.CutPrefix(path, "servers."); ok {
		// Server names may hold dots; the setting keys do not, but a rule
		// path has two more parts.
		rest = strings.TrimSuffix(rest, "."+lastPart(rest))
		rest = strings.TrimSuffix(rest, ".rules")
		return "servers." + rest
	}
	first, _, _ := strings.Cut(path, ".")
	return first
}

func lastPart(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

type weakening struct{ path, before, after, msg string }

// writeCallAdded reports a call the pull request adds to a tool whose name
// reads as a write (synth.ClassifyName) that the base's policy does not
// call. The policy's calls are the only way to make a warm-up call a
// write; under review only the base branch's policy may name one, since a
// pull request's would run with the credentials the base gives the server
// (a token header, a pass-env variable) before anyone reviewed it.
func writeCallAdded(base Settings, call probe.Call) bool {
	if synth.ClassifyName(call.Tool) != synth.Write {
		return false
	}
	for _, c := range base.Calls {
		if c.Tool == call.Tool {
			return false
		}
	}
	return true
}

// weakenings compares one server's settings (name "" is the defaults).
func (c *Combined) weakenings(name string) []weakening {
	b, p := c.Base.Effective(name, Fixed{}), c.PR.Effective(name, Fixed{})
	var bs, ps *Server
	if name != "" {
		bs, ps = c.Base.Server(name), c.PR.Server(name)
	}
	// where is the path a setting is reported under: the server's own
	// section when either file sets it there, else the defaults.
	where := func(key string, set func(*Server) bool) string {
		if (bs != nil && set(bs)) || (ps != nil && set(ps)) {
			return "servers." + name + "." + key
		}
		return "defaults." + key
	}
	who := "every server"
	if name != "" {
		who = fmt.Sprintf("server %q", name)
	}
	var out []weakening
	count := func(key string, bv, pv *int, d int, set func(*Server) bool) {
		if b, p := intOr(bv, d), intOr(pv, d); p < b {
			out = append(out, weakening{where(key, set), fmt.Sprint(b), fmt.Sprint(p),
				fmt.Sprintf("this pull request lowers %s for %s from %d to %d", key, who, b, p)})
		}
	}
	bp, pp := c.Run.profileOr(b.Profile), c.Run.profileOr(p.Profile)
	if ProfileRank(pp) < ProfileRank(bp) {
		out = append(out, weakening{where("profile", func(s *Server) bool { return s.Profile != "" }), bp, pp,
			fmt.Sprintf("this pull request lowers the probe profile for %s from %s to %s", who, bp, pp)})
	}
	// Counts neither side sets read as the deeper profile's, on both
	// sides: a lowered profile is reported once, as the profile.
	dw, dl := c.Run.counts(deeper(bp, pp))
	count("warmup-calls", b.WarmupCalls, p.WarmupCalls, dw, func(s *Server) bool { return s.WarmupCalls != nil })
	count("launches", b.Launches, p.Launches, dl, func(s *Server) bool { return s.Launches != nil })

	if bl, pl := cmpOr(b.Sandbox, c.Run.Sandbox), cmpOr(p.Sandbox, c.Run.Sandbox); SandboxRank(pl) < SandboxRank(bl) {
		out = append(out, weakening{where("sandbox", func(s *Server) bool { return s.Sandbox != "" }), string(bl), string(pl),
			fmt.Sprintf("this pull request weakens the sandbox for %s from %s to %s", who, bl, pl)})
	}

	if pinRank(p.PinPrompts) < pinRank(b.PinPrompts) {
		out = append(out, weakening{where("pin-prompts", func(s *Server) bool { return s.PinPrompts != nil }), pinText(b.PinPrompts), pinText(p.PinPrompts),
			fmt.Sprintf("this pull request pins fewer prompts/get answers for %s (pin-prompts %s, was %s): check would no longer compare them with the lock, nor the guard hold a session's first answer to it", who, pinText(p.PinPrompts), pinText(b.PinPrompts))})
	}

	out = append(out, passEnvWeakenings(b, p, ps, name, who)...)
	out = append(out, networkWeakenings(b, p, name, who)...)
	out = append(out, callWeakenings(b, p, name, who)...)
	out = append(out, ruleWeakenings(b, p, bs, ps, name, who)...)
	if name == "" {
		out = append(out, c.ackWeakenings()...)
	}
	return out
}

// ackWeakenings reports each acknowledgement the PR's policy adds: it
// silences a repository finding from the merge on, so the base's code
// owners decide it.
func (c *Combined) ackWeakenings() []weakening {
	if c.PR == nil {
		return nil
	}
	var out []weakening
	for _, a := range c.PR.Acks {
		if _, ok := c.Base.Acknowledged(ackFinding(a)); ok {
			continue
		}
		out = append(out, weakening{a.path(), "-", a.Reason,
			fmt.Sprintf("this pull request acknowledges %s on %s (%q), which the base branch does not", a.Rule, a.Subject, a.Reason)})
	}
	return out
}

// mergeCalls is the calls in force: the base's, then those the pull
// request adds (but a write call, which waits for the merge), with the
// warm-up count (warmup, or the profile's dw) raised by as many.
func mergeCalls(b, p Settings, warmup *int, dw int) ([]probe.Call, *int) {
	calls := slices.Clone(b.Calls)
	added := 0
	for _, call := range p.Calls {
		if writeCallAdded(b, call) {
			// The pull request's own write call waits for the merge:
			// the checker would make it with the credentials the
			// server is given (a policy-weakened finding says so).
			continue
		}
		if !hasCall(calls, call) {
			calls = append(calls, call)
			added++
		}
	}
	if added > 0 {
		// Listed calls are made first: calls the pull request adds would
		// take the places of the calls the base makes (a harmless tool
		// called over and over, so the one that triggers the change is
		// never reached). The count grows by as many.
		v := min(intOr(warmup, dw)+added, MaxWarmupCalls)
		warmup = &v
	}
	return calls, warmup
}

// stricterRules is each rule either policy sets at the higher of its two
// levels (nil when neither sets one).
func stricterRules(b, p Settings) map[finding.RuleID]RuleLevel {
	var out map[finding.RuleID]RuleLevel
	for _, id := range ruleIDs(b, p) {
		bl, _ := level(b, id)
		pl, _ := level(p, id)
		if out == nil {
			out = map[finding.RuleID]RuleLevel{}
		}
		out[id] = bl
		if ruleRank(pl) > ruleRank(bl) {
			out[id] = pl
		}
	}
	return out
}

// passEnvWeakenings reports the names the PR's settings p pass to the
// server (ps: its own section, if any) that the base's b does not.
func passEnvWeakenings(b, p Settings, ps *Server, name, who string) []weakening {
	var out []weakening
	var added []string
	for _, e := range p.PassEnv {
		if !slices.Contains(b.PassEnv, e) {
			added = append(added, e)
		}
	}
	if len(added) > 0 {
		// pass-env adds up: a name the pull request adds is in its
		// server section or in its defaults.
		key := "defaults.pass-env"
		if ps != nil && hasAny(ps.PassEnv, added) {
			key = "servers." + name + ".pass-env"
		}
		out = append(out, weakening{key, listText(b.PassEnv), listText(p.PassEnv),
			fmt.Sprintf("this pull request passes %s to %s, which the base branch does not allow: the server would receive the checker's value", strings.Join(added, ", "), who)})
	}
	return out
}

// narrowerNetwork is the allowance both policies allow: each destination
// of either that the other covers (a wildcard of one covers a name of the
// other). A destination the pull request adds is not reached until the
// merge.
func narrowerNetwork(b, p sandbox.Allowance) sandbox.Allowance {
	var out sandbox.Allowance
	for _, d := range p {
		if b.Covers(d) {
			out = append(out, d)
		}
	}
	for _, d := range b {
		if p.Covers(d) {
			out = append(out, d)
		}
	}
	return sandbox.NormalAllowance(out)
}

// networkWeakenings reports the destinations the PR's allowance lets the
// server reach that the base's does not: a new host, a new port, a
// wildcard over a name. What the server may reach is reviewed as its tools
// are.
func networkWeakenings(b, p Settings, name, who string) []weakening {
	var added []string
	for _, d := range p.Network {
		if !b.Network.Covers(d) {
			added = append(added, d.String())
		}
	}
	if len(added) == 0 {
		return nil
	}
	return []weakening{{"servers." + name + ".network", listText(b.Network.Strings()), listText(p.Network.Strings()),
		fmt.Sprintf("this pull request lets %s reach %s under strict, which the base branch does not allow", who, strings.Join(added, ", "))}}
}

// callWeakenings reports warm-up calls the PR removes, and those it adds
// to tools whose names read as writes.
func callWeakenings(b, p Settings, name, who string) []weakening {
	var out []weakening
	var removed []string
	for _, call := range b.Calls {
		if !hasCall(p.Calls, call) {
			removed = append(removed, callText(call))
		}
	}
	if len(removed) > 0 {
		out = append(out, weakening{"servers." + name + ".calls", strings.Join(callTexts(b.Calls), "\n"), strings.Join(callTexts(p.Calls), "\n"),
			fmt.Sprintf("this pull request removes warm-up calls of %s: %s", who, strings.Join(removed, ", "))})
	}

	var writes []string
	for _, call := range p.Calls {
		if writeCallAdded(b, call) && !slices.Contains(writes, callText(call)) {
			writes = append(writes, callText(call))
		}
	}
	if len(writes) > 0 {
		out = append(out, weakening{"servers." + name + ".calls", strings.Join(callTexts(b.Calls), "\n"), strings.Join(callTexts(p.Calls), "\n"),
			fmt.Sprintf("this pull request adds warm-up calls of %s to tools whose names read as writes (%s), which the checker would make with the credentials the server is given", who, strings.Join(writes, ", "))})
	}
	return out
}

// ruleWeakenings reports each rule whose level the PR lowers, under the
// server's section when either file sets it there.
func ruleWeakenings(b, p Settings, bs, ps *Server, name, who string) []weakening {
	var out []weakening
	for _, id := range ruleIDs(b, p) {
		bl, _ := level(b, id)
		pl, _ := level(p, id)
		if ruleRank(pl) >= ruleRank(bl) {
			continue
		}
		path := "rules." + string(id)
		if name != "" && ((bs != nil && hasRule(bs, id)) || (ps != nil && hasRule(ps, id))) {
			path = "servers." + name + ".rules." + string(id)
		}
		out = append(out, weakening{path, bl.String(), pl.String(),
			fmt.Sprintf("this pull request lowers rule %s for %s from %s to %s", id, who, bl, pl)})
	}
	return out
}

func hasRule(s *Server, id finding.RuleID) bool {
	_, ok := s.Rules[id]
	return ok
}

func hasAny(list, names []string) bool {
	for _, n := range names {
		if slices.Contains(list, n) {
			return true
		}
	}
	return false
}

func listText(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	return "[" + strings.Join(l, ", ") + "]"
}

func callText(c probe.Call) string {
	if len(c.Arguments) == 0 {
		return c.Tool
	}
	return c.Tool + " " + string(c.Arguments)
}

func callTexts(cs []probe.Call) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = callText(c)
	}
	return out
}

// ackFinding is the repository finding an acknowledgement would silence.
func ackFinding(a Ack) finding.Finding {
	f := finding.New(a.Rule, "")
	if a.Rule == finding.PolicyWeakened {
		f.Field = a.Subject
	} else {
		f.Subject = a.Subject
	}
	return f
}
