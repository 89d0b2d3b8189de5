package check

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestDaemonizingGrandchildDoesNotSurvive: a server whose grandchild calls
// setsid (leaving the process group) and ignores SIGTERM leaves nothing
// running after the check.
func TestDaemonizingGrandchildDoesNotSurvive(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	if runtime.GOOS != "linux" {
		// Reads /proc, and needs the subreaper: on macOS a setsid'd orphan
		// goes to launchd, out of the sweep's reach (docs/platforms.md);
		// on Windows the checker's job ends it when the checker exits.
		t.Skip("needs Linux: /proc and PR_SET_CHILD_SUBREAPER")
	}
	mark := "daemon-" + time.Now().Format("150405.000000000")
	checkFake(t, map[string]string{"FAKE_SCENARIO": "daemon", "FAKE_DAEMON_MARK": mark})
	if left := testproc.Marked("FAKE_DAEMON_MARK=" + mark); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
}

// TestRunDirGoneWhenCheckReturns: Check returns only once every run
// directory is removed, and the removal comes after the sweep, so a
// daemonized grandchild writing into its run directory leaves nothing.
func TestRunDirGoneWhenCheckReturns(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux: the subreaper's sweep")
	}
	// This process is the test's own (testproc): its TMPDIR holds the
	// run directories and nothing else.
	tmp := t.TempDir()
	os.Setenv("TMPDIR", tmp)
	checkFake(t, map[string]string{"FAKE_SCENARIO": "daemon-writer"})
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR after the check: %v", left)
	}
}

// checkFake checks one fake server with env in the basic sandbox, two
// launches and no call, and fails the test if it was held.
func checkFake(t *testing.T, env map[string]string) {
	t.Helper()
	s := config.Server{Name: "fake", Type: "stdio", Command: os.Args[0], Env: env, File: ".mcp.json", Line: 1, Client: "claude-code"}
	opts := Options{Servers: []config.Server{s}, All: true, LockPath: "mcp-lock.json",
		Probe:   probe.Options{Launches: 2, WarmupCalls: 0, RequestTimeout: 10 * time.Second},
		Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1}
	if r := Compare(context.Background(), opts); r.Servers[0].Reason != "" {
		t.Fatalf("held: %s", r.Servers[0].Reason)
	}
}
