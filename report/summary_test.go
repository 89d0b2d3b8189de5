package report

import (
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// Summarize is the one place a run's exit code is made: these are the
// precedences docs/design.md#exit-codes states (drift over held, never 0
// when held), the findings that cannot fail a run, and the run's own
// refusal.
func TestSummarize(t *testing.T) {
	t.Parallel()
	f := func(rule finding.RuleID, sev finding.Severity, acked bool) finding.Finding {
		return finding.Finding{Rule: rule, Severity: sev, Server: "s", Acknowledged: acked}
	}
	changed := f(finding.ToolChanged, finding.Error, false)
	warn := f(finding.SensitivePath, finding.Warning, false)
	acked := f(finding.HiddenCharacters, finding.Error, true)
	unavailable := f(finding.ServerUnavailable, finding.Error, false)
	ok := Server{Name: "ok", Status: StatusOK}
	drift := Server{Name: "drift", Status: StatusDrift, Findings: []finding.Finding{changed}}
	held := Server{Name: "held", Status: StatusHeld, Reason: "time-out", Findings: []finding.Finding{unavailable}}
	warned := Server{Name: "warned", Status: StatusOK, Findings: []finding.Finding{warn}}
	ackedSrv := Server{Name: "acked", Status: StatusOK, Findings: []finding.Finding{acked}}
	for _, tc := range []struct {
		name    string
		servers []Server
		repo    []finding.Finding
		failOn  finding.Severity
		refused bool
		want    int
	}{
		{"no servers", nil, nil, finding.Error, false, ExitOK},
		{"clean", []Server{ok}, nil, finding.Error, false, ExitOK},
		{"drift", []Server{ok, drift}, nil, finding.Error, false, ExitDrift},
		{"held alone is never 0", []Server{ok, held}, nil, finding.Error, false, ExitHeld},
		{"drift over held", []Server{held, drift}, nil, finding.Error, false, ExitDrift},
		{"server-unavailable fails as held, not drift", []Server{held}, nil, finding.Note, false, ExitHeld},
		{"a warning under error", []Server{warned}, nil, finding.Error, false, ExitOK},
		{"a warning under warning", []Server{warned}, nil, finding.Warning, false, ExitDrift},
		{"fail-on never", []Server{drift}, nil, finding.Never, false, ExitOK},
		{"fail-on never still holds", []Server{drift, held}, nil, finding.Never, false, ExitHeld},
		{"acknowledged", []Server{ackedSrv}, nil, finding.Note, false, ExitOK},
		{"a repository finding", []Server{ok}, []finding.Finding{f(finding.PolicyWeakened, finding.Error, false)}, finding.Error, false, ExitDrift},
		{"refused whatever the findings", []Server{ok}, nil, finding.Never, true, ExitDrift},
		{"refused over held", []Server{held}, nil, finding.Error, true, ExitDrift},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{Servers: tc.servers, Repository: tc.repo}
			Summarize(r, tc.failOn, tc.refused)
			if r.Summary.ExitCode != tc.want {
				t.Errorf("exit %d, want %d", r.Summary.ExitCode, tc.want)
			}
			if r.Summary.FailOn != tc.failOn.String() || r.Summary.Servers != len(tc.servers) {
				t.Errorf("summary %+v", r.Summary)
			}
		})
	}

	r := &Report{Servers: []Server{ok, drift, held, warned}, Repository: []finding.Finding{warn}}
	Summarize(r, finding.Error, false)
	s := r.Summary
	if s.Servers != 4 || s.OK != 2 || s.Drift != 1 || s.Held != 1 || s.Findings != 4 ||
		s.ByRule[finding.SensitivePath] != 2 || s.ByRule[finding.ToolChanged] != 1 || s.ByRule[finding.ServerUnavailable] != 1 {
		t.Errorf("counts: %+v", s)
	}
}

// A server's status: held by its reason, drift from an error whatever
// fail-on says, or from a lower finding when fail-on is lower.
func TestStatusOf(t *testing.T) {
	t.Parallel()
	f := func(sev finding.Severity, acked bool) []finding.Finding {
		return []finding.Finding{{Rule: finding.ToolChanged, Severity: sev, Acknowledged: acked}}
	}
	for _, tc := range []struct {
		name   string
		srv    Server
		failOn finding.Severity
		want   Status
	}{
		{"none", Server{}, finding.Error, StatusOK},
		{"held", Server{Reason: "crashed", Findings: f(finding.Error, false)}, finding.Error, StatusHeld},
		{"error", Server{Findings: f(finding.Error, false)}, finding.Error, StatusDrift},
		{"error under never", Server{Findings: f(finding.Error, false)}, finding.Never, StatusDrift},
		{"acknowledged error", Server{Findings: f(finding.Error, true)}, finding.Error, StatusOK},
		{"warning under error", Server{Findings: f(finding.Warning, false)}, finding.Error, StatusOK},
		{"warning under warning", Server{Findings: f(finding.Warning, false)}, finding.Warning, StatusDrift},
		{"the held marker alone", Server{Findings: []finding.Finding{{Rule: finding.ServerUnavailable, Severity: finding.Error}}}, finding.Error, StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusOf(tc.srv, tc.failOn); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestParseStatus pins the closed set of statuses: the exact names parse,
// any other case or name does not (a report read back cannot invent one).
func TestParseStatus(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Status
		ok   bool
	}{
		{"ok", StatusOK, true},
		{"drift", StatusDrift, true},
		{"held", StatusHeld, true},
		{"OK", "", false},
		{"Held", "", false},
		{"", "", false},
		{"passed", "", false},
		{"ok ", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseStatus(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseStatus(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
			if Status(tc.in).Valid() != tc.ok {
				t.Errorf("Status(%q).Valid() = %v, want %v", tc.in, !tc.ok, tc.ok)
			}
		})
	}
}
