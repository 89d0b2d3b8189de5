// Package approval owns what an approval is and how it is applied: the
// unit of approval (a Change between a lock entry and a live server), who
// approves it (Approver), how a user names it (Selector), how it is
// written into a lock (ApplyChanges, Record) and what an acknowledgement
// records (ackFor, addAck). It also decides what an approve run takes in:
// which configured servers it probes, which live servers it must refuse,
// which of their changes it proposes. The engine (internal/check) only
// probes and hands back a Live per server; the command line shows the
// proposal, asks the user where it asks, and writes the lock; the base
// review (internal/review) reads the approvals a pull request adds.
//
// It prints nothing and asks nothing.
//
// Approval is the one way drift enters a lock, so every decision here
// fails towards approving less: a server whose probe was incomplete,
// unstable or leaked a planted secret approves nothing, and a saved report
// approves only what it showed, byte for byte.
package approval

import (
	"fmt"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Request is what approve was asked for, its flags already checked
// against each other: entries by selector, everything (All), what a saved
// report showed (Saved), or one acknowledgement (Ack with Reason, on the
// single selector).
type Request struct {
	Selectors []Selector
	All       bool
	// Saved is the report of --from: only what it showed is approved,
	// and only as it showed it.
	Saved  *report.Report
	Ack    finding.RuleID // a rule id; "" approves changes instead
	Reason string
}

// Servers picks the configured servers the request probes: every one for
// All, those its selectors name, else those a saved report names.
// Acknowledging a finding about one server beside the others (shadowing,
// a confusable name) probes every configured server, since only then is
// the finding raised as a check raises it.
func (r Request) Servers(configured []config.Server) ([]config.Server, error) {
	if r.Ack == finding.ToolShadowing || r.Ack == finding.ConfusableName {
		if _, err := r.named(configured); err != nil {
			return nil, err
		}
		return configured, nil
	}
	return r.named(configured)
}

func (r Request) named(configured []config.Server) ([]config.Server, error) {
	if r.All {
		return configured, nil
	}
	byName := map[string]config.Server{}
	for _, s := range configured {
		byName[s.Name] = s
	}
	seen := map[string]bool{}
	var out []config.Server
	add := func(name, where string) error {
		s, ok := byName[name]
		if !ok {
			return fmt.Errorf("%s: no configured server is named %q (configured: %s)", where, name, config.Names(configured))
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, s)
		}
		return nil
	}
	for _, sel := range r.Selectors {
		if err := add(sel.Server, sel.String()); err != nil {
			return nil, err
		}
	}
	if r.Saved != nil && len(r.Selectors) == 0 {
		for _, s := range r.Saved.Servers {
			if _, ok := byName[s.Name]; !ok {
				continue // an orphaned entry: nothing to probe
			}
			if err := add(s.Name, "the report"); err != nil {
				return nil, err
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("the report names none of the configured servers")
		}
	}
	return out, nil
}

// Refusal is a live server nothing may be taken from, and why.
type Refusal struct {
	Server, Why string
}

// Refusals are the live servers that stop the whole run before anything
// is shown as approvable: approval is all or nothing. A server whose
// probe was held or unstable is refused; one that sent back a planted
// secret is refused its changes, though the leak itself may be
// acknowledged. An acknowledgement needs only its own server's probe.
func (r Request) Refusals(lives []*Live) []Refusal {
	var out []Refusal
	for _, l := range lives {
		why := l.Refused
		if r.Ack == "" && why == "" {
			why = l.Leaked
		}
		if r.Ack != "" && l.Name != r.Selectors[0].Server {
			why = ""
		}
		if why != "" {
			out = append(out, Refusal{Server: l.Name, Why: why})
		}
	}
	return out
}

// Acknowledge records the requested acknowledgement in lk, bound to the
// hash of the content the live probe raised the finding on, and returns
// what it recorded. lockPath names lk in errors. The server must already
// be in the lock: an acknowledgement qualifies an approval, never
// replaces one.
func (r Request) Acknowledge(lk *lock.File, lockPath string, lives []*Live, who Approver) ([]lock.Ack, error) {
	sel := r.Selectors[0]
	var live *Live
	for _, l := range lives {
		if l.Name == sel.Server {
			live = l
			break
		}
	}
	if live == nil {
		return nil, fmt.Errorf("%s: server %q was not probed", sel, sel.Server)
	}
	ls := lk.Servers[live.Name]
	if ls == nil {
		return nil, fmt.Errorf("%s: server %q is not in %s: approve it before acknowledging its findings", sel, live.Name, lockPath)
	}
	acks, err := ackFor(live, r.Ack, sel, r.Reason, who)
	if err != nil {
		return nil, err
	}
	for _, a := range acks {
		addAck(ls, a)
	}
	return acks, nil
}

// Proposal is what one live server's approval proposes, in the order
// the command line shows it.
type Proposal struct {
	Server string
	// Unchanged are the selectors that name an entry of this server that
	// did not change: nothing to approve for them.
	Unchanged []Selector
	// Unknown is a selector naming an entry the server neither lists
	// nor pins: the caller's mistake, and the run stops at it.
	Unknown error
	// Mismatch is a proposed change that differs from what the saved
	// report showed: the run stops at it, writing nothing.
	Mismatch error
	// Proposed are the changes asked for; Left the others, which a
	// following check still reports.
	Proposed, Left []Change
}

// Plan proposes, per live server and in their order, the changes against
// lk the request asks for. A server the lock does not hold comes with its
// own fields whenever any of its entries is approved: it cannot exist in
// the lock without them. Plan changes nothing: Record does.
func (r Request) Plan(lk *lock.File, lives []*Live) []Proposal {
	var out []Proposal
	for _, l := range lives {
		out = append(out, r.propose(lk.Servers[l.Name], l))
	}
	return out
}

func (r Request) propose(prev *lock.Server, l *Live) Proposal {
	p := Proposal{Server: l.Name}
	changes := Changes(l.Name, prev, l.Server)
	var shown []finding.Finding
	if r.Saved != nil {
		shown = reportFindings(r.Saved, l.Name)
	}
	want := func(ch Change) bool { return r.wants(ch, shown) }
	if !r.checkSelectors(&p, prev, l, changes) {
		return p
	}
	entryWanted := false
	for _, ch := range changes {
		entryWanted = entryWanted || (ch.Kind != KindServer && want(ch))
	}
	for _, ch := range changes {
		if want(ch) || (prev == nil && ch.Kind == KindServer && entryWanted) {
			p.Proposed = append(p.Proposed, ch)
		} else {
			p.Left = append(p.Left, ch)
		}
	}
	if r.Saved != nil {
		p.Mismatch = verifyProposed(p.Proposed, prev, shown)
	}
	return p
}

// wants reports whether the request approves ch: all changes, those a
// selector names, or else those the saved report shows.
func (r Request) wants(ch Change, shown []finding.Finding) bool {
	switch {
	case r.All:
		return true
	case len(r.Selectors) > 0:
		for _, s := range r.Selectors {
			if s.matches(ch) {
				return true
			}
		}
		return false
	}
	return r.Saved != nil && ReportShows(shown, ch)
}

// checkSelectors notes in p the selectors of server l that match no
// change, and reports false, with p.Unknown set, for one naming what the
// server neither lists nor pins.
func (r Request) checkSelectors(p *Proposal, prev *lock.Server, l *Live, changes []Change) bool {
	for _, s := range r.Selectors {
		if s.Server != l.Name {
			continue
		}
		if !s.known(prev, l.Server) {
			p.Unknown = fmt.Errorf("%s: server %q neither lists nor pins a %s named %q", s, s.Server, s.Kind, s.Name)
			return false
		}
		matched := false
		for _, ch := range changes {
			matched = matched || s.matches(ch)
		}
		if !matched {
			p.Unchanged = append(p.Unchanged, s)
		}
	}
	return true
}

// verifyProposed checks each proposed change against the saved report's
// findings shown, and returns the first mismatch.
func verifyProposed(proposed []Change, prev *lock.Server, shown []finding.Finding) error {
	for _, ch := range proposed {
		if prev == nil && ch.Kind == KindServer && !ReportShows(shown, ch) {
			continue // comes with a new server; server-not-pinned in the report
		}
		if err := VerifyAgainstReport(shown, ch); err != nil {
			return err
		}
	}
	return nil
}

// reportFindings are a saved report's findings for one server.
func reportFindings(r *report.Report, server string) []finding.Finding {
	for _, s := range r.Servers {
		if s.Name == server {
			return s.Findings
		}
	}
	return nil
}

// Record writes the chosen changes into lk, each live server's as one
// approval by who.
func Record(lk *lock.File, lives []*Live, chosen []Change, who Approver) {
	for _, l := range lives {
		var mine []Change
		for _, ch := range chosen {
			if ch.Server == l.Name {
				mine = append(mine, ch)
			}
		}
		if len(mine) > 0 {
			ApplyChanges(lk, l.Name, l.Server, mine, who)
		}
	}
}
