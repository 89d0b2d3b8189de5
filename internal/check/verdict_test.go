package check

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// TestOneVerdict: pin, approve's probe and check settle findings through
// one path. For servers with and without findings, under a policy that
// re-levels a rule, pin's exit code is the exit code of a check of the
// lock pin wrote, with the same options; the findings they report are the
// same (rule, subject, severity, acknowledgement); approve's probe reports
// them too, with the run's notes and the policy's note. No server with an
// unacknowledged error is ok.
func TestOneVerdict(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	poison := func(desc string) string {
		b, _ := json.Marshal([]map[string]any{{"name": "t", "description": desc, "inputSchema": map[string]any{"type": "object"}}})
		return string(b)
	}
	for _, tc := range []struct {
		name     string
		env      map[string]string
		failOn   finding.Severity
		rules    map[finding.RuleID]policy.RuleLevel
		wantExit int
	}{
		{"honest", map[string]string{"FAKE_SCENARIO": "honest"}, finding.Error, nil, report.ExitOK},
		{"hidden characters", map[string]string{"FAKE_SCENARIO": "desc-hidden"}, finding.Error, nil, report.ExitDrift},
		{"a warning under fail-on error", map[string]string{"FAKE_SCENARIO": "custom", "FAKE_TOOLS": poison("Reads ~/.aws/credentials.")}, finding.Error, nil, report.ExitOK},
		{"a warning under fail-on warning", map[string]string{"FAKE_SCENARIO": "custom", "FAKE_TOOLS": poison("Reads ~/.aws/credentials.")}, finding.Warning, nil, report.ExitDrift},
		// The policy re-levels on pin as on check (pin used to ignore it).
		{"policy raises a warning", map[string]string{"FAKE_SCENARIO": "custom", "FAKE_TOOLS": poison("Reads ~/.aws/credentials.")}, finding.Error,
			map[finding.RuleID]policy.RuleLevel{finding.SensitivePath: {Severity: finding.Error}}, report.ExitDrift},
		{"policy turns a warning off", map[string]string{"FAKE_SCENARIO": "custom", "FAKE_TOOLS": poison("Reads ~/.aws/credentials.")}, finding.Warning,
			map[finding.RuleID]policy.RuleLevel{finding.SensitivePath: {Off: true}, finding.ModelInstruction: {Off: true}}, report.ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Server{Name: "s", Type: "stdio", Command: os.Args[0], Env: tc.env, File: ".mcp.json", Line: 1, Client: "claude-code"}
			opts := Options{Servers: []config.Server{s}, All: true, LockPath: "mcp-lock.json",
				Probe:   probe.Options{Launches: 1, WarmupCalls: 0, RequestTimeout: 10 * time.Second, CallTimeout: time.Second},
				Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: tc.failOn, Jobs: 1}
			if tc.rules != nil {
				opts.Policy = settingsFunc(func(string) policy.Settings { return policy.Settings{Rules: tc.rules} })
			}
			lk, pinned := Pin(context.Background(), opts, approval.Approver{By: "me", At: time.Unix(0, 0)})
			if lk == nil {
				t.Fatalf("nothing pinned: %+v", pinned)
			}
			if pinned.Summary.ExitCode != tc.wantExit {
				t.Errorf("pin: exit %d, want %d: %+v", pinned.Summary.ExitCode, tc.wantExit, pinned.Servers[0].Findings)
			}
			data, _ := lk.Marshal()
			opts.Lock, opts.LockData = lk, data
			checked := Compare(context.Background(), opts)
			if checked.Summary.ExitCode != pinned.Summary.ExitCode {
				t.Errorf("check of the lock pin wrote: exit %d, pin %d", checked.Summary.ExitCode, pinned.Summary.ExitCode)
			}
			_, live := ProbeLive(context.Background(), opts, approval.Approver{By: "me"})
			p, c, a := verdict(pinned), verdict(checked), verdict(live)
			if !slices.Equal(p, c) || !slices.Equal(p, a) {
				t.Errorf("findings differ:\npin     %q\ncheck   %q\napprove %q", p, c, a)
			}
			for _, r := range []*report.Report{pinned, checked, live} {
				srv := r.Servers[0]
				if srv.Status == report.StatusOK && hasError(srv.Findings) {
					t.Errorf("status ok with an unacknowledged error: %+v", srv.Findings)
				}
				if tc.rules != nil && !slices.ContainsFunc(srv.Notes, func(n string) bool { return len(n) > 13 && n[:13] == "policy rules:" }) {
					t.Errorf("no policy note: %q", srv.Notes)
				}
			}
		})
	}
}

// verdict is what a report says of its one server, for comparing runs.
func verdict(r *report.Report) []string {
	var out []string
	for _, f := range r.Servers[0].Findings {
		out = append(out, string(f.Rule)+" "+string(f.Kind)+"/"+f.Subject+" "+f.Field+" "+f.Severity.String()+" acked="+boolWord(f.Acknowledged))
	}
	return append(out, "status "+string(r.Servers[0].Status))
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func hasError(fs []finding.Finding) bool {
	for _, f := range fs {
		if !f.Acknowledged && f.Severity >= finding.Error {
			return true
		}
	}
	return false
}
