package check

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// TestCheckStoppedBesideHoldsEveryServer: a failed self-test
// (Preflight) stops the run. The CLI
// reports the error and exits 2; the report Check returns holds every
// configured server with it, so a caller that forgot the error still
// does not pass.
func TestCheckStoppedBesideHoldsEveryServer(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	fake := config.Server{Name: "fake", Type: "stdio", Command: os.Args[0], Env: map[string]string{"FAKE_SCENARIO": "banner"}, File: ".mcp.json", Line: 1, Client: "claude-code"}
	gone := config.Server{Name: "gone", Type: "stdio", Command: "no-such-server-lockcheck", File: ".mcp.json", Line: 2, Client: "claude-code"}
	for _, tc := range []struct {
		name    string
		servers []config.Server
		set     func(*Options)
		want    string
	}{
		{"preflight", []config.Server{fake, gone}, func(o *Options) {
			o.preflight = func() error { return errors.New("strict cannot be applied here") }
		}, "strict cannot be applied here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Servers: tc.servers, All: true, LockPath: "mcp-lock.json",
				Probe:   probe.Options{Launches: 1, WarmupCalls: 0, RequestTimeout: 10 * time.Second},
				Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1}
			tc.set(&opts)
			r := Compare(context.Background(), opts)
			if r.Summary.ExitCode == report.ExitOK || len(r.Servers) != len(tc.servers) {
				t.Fatalf("exit %d with %d servers, want every one of %d held", r.Summary.ExitCode, len(r.Servers), len(tc.servers))
			}
			for _, s := range r.Servers {
				if s.Status != report.StatusHeld || !strings.Contains(s.Reason, tc.want) {
					t.Errorf("%s: %s %q, want held with %q", s.Name, s.Status, s.Reason, tc.want)
				}
			}
		})
	}
}
