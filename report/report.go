package report

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// Status is a server's result in a report: one of StatusOK, StatusDrift or
// StatusHeld. It is a contract of the JSON report
// (docs/design.md#the-json-report), and a report read back from a file
// (merge, comment) may name any string, so text becomes a Status only
// through ParseStatus or a Valid check.
type Status string

// Server statuses.
const (
	StatusOK    Status = "ok"
	StatusDrift Status = "drift"
	StatusHeld  Status = "held"
)

// Valid reports whether s is one of the statuses this build writes.
func (s Status) Valid() bool {
	switch s {
	case StatusOK, StatusDrift, StatusHeld:
		return true
	}
	return false
}

// ParseStatus reads a status name exactly as the JSON report writes it
// ("ok", "drift", "held"); any other text, in any other case, is an error.
func ParseStatus(s string) (Status, error) {
	if st := Status(s); st.Valid() {
		return st, nil
	}
	return "", fmt.Errorf("unknown status %q (want ok, drift or held)", s)
}

// Finding is one thing a check found about a server or the repository: its
// rule, severity, subject, where it is, and what changed. The type and its
// rule ids are package finding's; this name lets a program that reads
// reports speak of findings without importing it.
type Finding = finding.Finding

// Report is what one check run found, in a deterministic order.
// Its JSON form is the `--format json` contract
// (docs/design.md#the-json-report, docs/report.schema.json).
type Report struct {
	LockfileVersion int `json:"lockfileVersion"`
	// Warnings are about the run as a whole, shown first by every
	// renderer: a sandbox that does not contain a hostile server where
	// one may be running (basic in CI). They are the checker's own text,
	// never a server's, and are written unescaped.
	Warnings []string `json:"warnings,omitempty"`
	Servers  []Server `json:"servers"`
	// Repository holds findings about the repository rather than one
	// server's probe: a pull request that weakens the policy
	// (policy-weakened), a file with MCP servers the run did not read
	// (unchecked-config). They count toward the exit code like any other.
	Repository []finding.Finding `json:"repository,omitempty"`
	Summary    Summary           `json:"summary"`
}

// Server is the result for one configured (or orphaned) server.
type Server struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Config is the client config file that named the server ("" for an
	// orphaned lock entry); ConfigLine is the 1-based line of its entry.
	Config     string `json:"config,omitempty"`
	ConfigLine int    `json:"configLine,omitempty"`
	// Reason says why a held server could not be probed.
	Reason string `json:"reason,omitempty"`
	// Isolation says which sandbox was applied ("off", "basic", "strict").
	Isolation string `json:"isolation,omitempty"`
	// Notes are what a reader should know about the probe: a clock that
	// could not be moved, a list method the server does not implement, no
	// tool that could be called.
	Notes []string `json:"notes,omitempty"`
	// Phases lists the probe phases that completed, in order.
	Phases []string `json:"phases"`
	// Coverage is what the probe spent on the server, so a reader knows
	// what "clean" covered (absent for a server that was not launched).
	Coverage *Coverage         `json:"coverage,omitempty"`
	Calls    []Call            `json:"calls,omitempty"`
	Findings []finding.Finding `json:"findings"`
}

// Coverage counts the baiting one server received.
type Coverage struct {
	// Calls is the warm-up tools/call requests made, over all launches.
	Calls int `json:"calls"`
	// Launches is the launches that reached the handshake.
	Launches int `json:"launches"`
	// Identities is the distinct clientInfo identities presented.
	Identities int `json:"identities"`
	// ClockShifts is the launches run with a moved clock (libfaketime).
	ClockShifts int `json:"clockShifts"`
	// BurstCalls is the calls of the burst (deep: a thousand in the first
	// launch, without gaps), counted in Calls too.
	BurstCalls int `json:"burstCalls"`
	// Planned is what the probe's plan asked for, in the same counts (nil
	// in a report of a version that did not say). Fewer calls than planned
	// in a finished probe means the server had fewer tools to call (its
	// notes say why).
	Planned *Planned `json:"planned,omitempty"`
	// Finished says the probe carried its plan out to the end: every
	// launch, identity, clock shift and call. A probe that did not is
	// never a pass: its server is held.
	Finished bool `json:"finished"`
}

// Planned is a probe plan's share of Coverage: what it asked for.
type Planned struct {
	Calls       int `json:"calls"`
	Launches    int `json:"launches"`
	Identities  int `json:"identities"`
	ClockShifts int `json:"clockShifts"`
	BurstCalls  int `json:"burstCalls"`
}

// String is the one-line form the text and markdown reports show: what
// was done, with the plan's count beside each that fell short of it, and
// a probe cut short said to be.
func (c Coverage) String() string {
	p := c.Planned
	if p == nil {
		p = &Planned{}
	}
	of := func(done, planned int) string {
		if c.Planned != nil && done < planned {
			return fmt.Sprintf("%d of %d", done, planned)
		}
		return fmt.Sprint(done)
	}
	calls := of(c.Calls, p.Calls) + " warm-up calls"
	if c.BurstCalls > 0 || p.BurstCalls > 0 {
		calls += " (" + of(c.BurstCalls, p.BurstCalls) + " in a burst)"
	}
	s := fmt.Sprintf("%s, %s launches, %s identities, %s clock shifts", calls, of(c.Launches, p.Launches), of(c.Identities, p.Identities), of(c.ClockShifts, p.ClockShifts))
	if c.Planned != nil && !c.Finished {
		s += "; the plan was not finished"
	}
	return s
}

// Call is one warm-up tools/call the probe made.
type Call struct {
	Phase     string          `json:"phase"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Outcome is "ok", "tool-error" (isError true) or "rpc-error".
	Outcome string `json:"outcome"`
}

// Summary counts the run.
type Summary struct {
	Servers  int                    `json:"servers"`
	OK       int                    `json:"ok"`
	Drift    int                    `json:"drift"`
	Held     int                    `json:"held"`
	Findings int                    `json:"findings"`
	ByRule   map[finding.RuleID]int `json:"byRule"`
	// FailOn is the threshold the run used; ExitCode what it exits with.
	FailOn   string `json:"failOn"`
	ExitCode int    `json:"exitCode"`
}

// Findings returns every finding, in report order: the repository's
// first, then every server's.
func (r *Report) Findings() []finding.Finding {
	out := append([]finding.Finding(nil), r.Repository...)
	for _, s := range r.Servers {
		out = append(out, s.Findings...)
	}
	return out
}
