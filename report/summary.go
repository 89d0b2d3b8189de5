package report

import "github.com/mcp-lockcheck/mcp-lockcheck/finding"

// Exit codes (docs/design.md#exit-codes), defined here once: the exit code
// is part of a run's result, beside its summary, so every command that
// makes or reads a report (check, pin, approve, diff, merge, comment,
// issue, repin) reaches the same verdict through Summarize. Precedence:
// Usage > Drift > Held.
const (
	// ExitOK: every server matches its lock and no finding reaches the
	// run's fail-on threshold.
	ExitOK = 0
	// ExitDrift: drift, or a finding at or above the threshold.
	ExitDrift = 1
	// ExitUsage: the tool could not run as asked (bad flags, an
	// unreadable or invalid config, lock or report).
	ExitUsage = 2
	// ExitHeld: no drift, but a server could not be probed. Never 0.
	ExitHeld = 3
	// ExitInterrupted: the run was stopped by Ctrl-C, SIGTERM or SIGHUP
	// (128 + SIGINT, as shells report it): no verdict, nothing written.
	// No report carries it; it is declared here with the others so the
	// codes have one home (docs/usage.md lists them).
	ExitInterrupted = 130
)

// Fails reports whether a finding can fail a run whose threshold is
// failOn: unacknowledged, at or above it, and not the held marker
// (server-unavailable is exit 3, not 1).
func Fails(f finding.Finding, failOn finding.Severity) bool {
	return !f.Acknowledged && f.Severity >= failOn && f.Rule != finding.ServerUnavailable
}

// StatusOf is a server's status from its settled findings: held when it
// has a reason it could not be probed, drift when a finding fails at
// error level or at failOn if lower, ok otherwise.
func StatusOf(s Server, failOn finding.Severity) Status {
	if s.Reason != "" {
		return StatusHeld
	}
	// An error-level finding is drift whatever --fail-on says: --fail-on
	// decides the exit code, not whether a server matches its lock.
	threshold := min(failOn, finding.Error)
	for _, f := range s.Findings {
		if Fails(f, threshold) {
			return StatusDrift
		}
	}
	return StatusOK
}

// Summarize fills the report's summary and exit code from its servers'
// statuses and every finding: 1 when any finding reaches failOn, else 3
// when any server is held, else 0. A held server is never reported as
// passing.
//
// refused is the run's own refusal, which no finding expresses: pin would
// not write a server whose phases disagreed, approve would not approve
// from a server it could not probe completely. It fails the run (1)
// whatever the findings and failOn say.
func Summarize(r *Report, failOn finding.Severity, refused bool) {
	sum := Summary{ByRule: map[finding.RuleID]int{}, FailOn: failOn.String()}
	drift, held := refused, false
	for _, s := range r.Servers {
		sum.Servers++
		switch s.Status {
		case StatusOK:
			sum.OK++
		case StatusDrift:
			sum.Drift++
		case StatusHeld:
			sum.Held++
			held = true
		}
		for _, f := range s.Findings {
			sum.Findings++
			sum.ByRule[f.Rule]++
			if Fails(f, failOn) {
				drift = true
			}
		}
	}
	for _, f := range r.Repository {
		sum.Findings++
		sum.ByRule[f.Rule]++
		if Fails(f, failOn) {
			drift = true
		}
	}
	switch {
	case drift:
		sum.ExitCode = ExitDrift
	case held:
		sum.ExitCode = ExitHeld
	}
	r.Summary = sum
}
