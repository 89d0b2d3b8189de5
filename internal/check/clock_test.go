package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

func timebomb(t *testing.T) config.Server {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	script, _ := filepath.Abs("../../testdata/servers/timebomb.mjs")
	return config.Server{Name: "weather", Type: "stdio", Command: node, Args: []string{script}, File: ".mcp.json", Line: 2, Client: "claude-code"}
}

func clockOptions(s config.Server) Options {
	return Options{
		Servers: []config.Server{s}, All: true, LockPath: "mcp-lock.json",
		Probe:   probe.Options{Launches: 1, WarmupCalls: 1, RequestTimeout: 20 * time.Second},
		Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1,
	}
}

// TestClockOffset: a server that changes after a date passes a normal
// check and is caught by the launch with the clock moved forward.
func TestClockOffset(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	s := timebomb(t)
	if sandbox.FakeTimeLib("") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("libfaketime is not installed (apt-get install faketime)")
		}
		t.Skip("libfaketime is not installed")
	}
	opts := clockOptions(s)
	lk, data := pinReal(t, opts)
	opts.Lock, opts.LockData = lk, data
	if r := Compare(context.Background(), opts); r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("without a clock offset: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
	}
	opts.ClockOffsets = []time.Duration{10 * 365 * 24 * time.Hour}
	r := Compare(context.Background(), opts)
	if r.Summary.ExitCode != report.ExitDrift {
		t.Fatalf("with a clock offset: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
	}
	caught := false
	for _, f := range r.Findings() {
		if f.Rule == finding.ToolChanged && f.Phase == "launch-2/initial" && f.Subject == "weather" {
			caught = true
		}
	}
	if !caught || !strings.Contains(strings.Join(r.Servers[0].Notes, "\n"), "clock moved forward") {
		t.Errorf("clock launch not reported:\n%s\nnotes: %v", dumpFindings(r), r.Servers[0].Notes)
	}
}

// TestClockOffsetUnavailable: without libfaketime the report says the
// clock could not be moved instead of silently passing.
func TestClockOffsetUnavailable(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	opts := clockOptions(timebomb(t))
	opts.ClockOffsets = []time.Duration{time.Hour}
	opts.FakeTimeLib = "/nonexistent/libfaketime.so.1"
	opts.Probe.WarmupCalls = 0
	r := Compare(context.Background(), opts)
	if !strings.Contains(strings.Join(r.Servers[0].Notes, "\n"), "could not be moved") {
		t.Errorf("notes = %v", r.Servers[0].Notes)
	}
	if len(r.Servers[0].Phases) != 1 {
		t.Errorf("phases = %v", r.Servers[0].Phases)
	}
}

// TestDeepClockOffsets: a server that goes bad three days from now passes
// the quick check (no clock shift) and a one-day shift, and is caught by
// the deep profile's +7d launch, named in the finding's phase.
func TestDeepClockOffsets(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	s := timebomb(t)
	if sandbox.FakeTimeLib("") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("libfaketime is not installed (apt-get install faketime)")
		}
		t.Skip("libfaketime is not installed")
	}
	s.Env = map[string]string{"TIMEBOMB_AT": time.Now().Add(3 * 24 * time.Hour).UTC().Format(time.RFC3339)}
	opts := clockOptions(s)
	lk, data := pinReal(t, opts)
	opts.Lock, opts.LockData = lk, data
	if r := Compare(context.Background(), opts); r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("quick: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
	}
	opts.ClockOffsets = []time.Duration{24 * time.Hour}
	if r := Compare(context.Background(), opts); r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("+1d: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
	}
	opts.ClockOffsets = []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}
	r := Compare(context.Background(), opts)
	if r.Summary.ExitCode != report.ExitDrift {
		t.Fatalf("deep: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
	}
	caught := false
	for _, f := range r.Findings() {
		// launch-2 is +1d (clean), launch-3 +7d: the first to see the bomb.
		if f.Rule == finding.ToolChanged && f.Phase == "launch-3/initial" && f.Subject == "weather" {
			caught = true
		}
	}
	if !caught {
		t.Errorf("the +7d launch did not catch it:\n%s", dumpFindings(r))
	}
	if c := r.Servers[0].Coverage; c == nil || c.ClockShifts != 3 || c.Launches != 4 {
		t.Errorf("coverage = %+v, want 3 clock shifts over 4 launches", c)
	}
}
