// Package testproc runs one test in a process of its own, so that tests
// which end with the checker's end-of-run sweep can run in parallel.
//
// The sweep (check's probeAll, procgroup.KillDescendants) kills every
// descendant of the process it runs in, orphans reparented to it as
// subreaper included: nothing a server started may outlive the run. In
// production one process is one run, so every descendant is the run's. A
// test binary that ran two checks at once would have each sweep kill the
// other's servers, and the sweep cannot be narrowed to "this run's
// processes" without weakening it: a daemonized grandchild has left its
// process group and its parent chain, and nothing it cannot forge says
// which run it came from. So the tests keep the production sweep and
// get production's shape instead: the test binary runs itself again,
// asked to run only this test, and that child is the process the sweep
// clears, as an mcp-lockcheck process would be.
package testproc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// EnvName holds, in a child, the full name of the test it was started to
// run: that test runs its body there instead of starting another child.
const EnvName = "MCP_LOCKCHECK_TESTPROC"

// Parallel marks t parallel and runs its body in a child process: the
// test binary, run with -test.run matching t alone. In the parent it
// reports the child's outcome (its output on failure, its skip) and
// returns true, and the caller returns at once; in the child it returns
// false, and the caller runs the body:
//
//	if testproc.Parallel(t) {
//		return
//	}
//
// The body must not depend on the parent's state beyond what the test
// itself sets up before the call (the child runs the enclosing tests'
// code up to t again), and t's name must be the same in both.
func Parallel(t *testing.T) bool {
	t.Helper()
	if os.Getenv(EnvName) == t.Name() {
		return false
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("testproc: %v", err)
	}
	args := []string{"-test.run=" + runPattern(t.Name()), "-test.v", "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if d, ok := t.Deadline(); ok {
		// The child times out, with its goroutine dump, a little before
		// the parent would: the dump says where it hung.
		if left := time.Until(d) - 5*time.Second; left > 0 {
			args = append(args, "-test.timeout="+left.String())
		}
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), EnvName+"="+t.Name(), "GORACE="+RaceOptions())
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	switch outcome(out.String(), t.Name()) {
	case "PASS":
		if err == nil {
			if testing.Verbose() {
				t.Logf("in its own process (pid %d):\n%s", cmd.Process.Pid, out.String())
			}
			return true
		}
	case "SKIP":
		if err == nil {
			t.Skipf("skipped in its own process:\n%s", out.String())
		}
	}
	t.Fatalf("in its own process: %v\n%s", err, out.String())
	return true
}

// runPattern is the -test.run pattern that matches name and none of its
// siblings: each element (the test, then each subtest) anchored and
// quoted. Subtest names are matched element by element, split at '/'.
func runPattern(name string) string {
	elems := strings.Split(name, "/")
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return strings.Join(elems, "/")
}

// outcome is PASS, FAIL or SKIP as the child's verbose output reports name,
// or "" when the output never reports it (the pattern matched nothing).
func outcome(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		for _, o := range []string{"PASS", "FAIL", "SKIP"} {
			if strings.HasPrefix(strings.TrimLeft(line, " "), fmt.Sprintf("--- %s: %s (", o, name)) {
				return o
			}
		}
	}
	return ""
}

// RaceOptions is the GORACE value for a process a test starts and waits
// for: this process's own options, after atexit_sleep_ms=0. Under -race a
// process that exits with status 0 first sleeps atexit_sleep_ms (a second
// by default) so that other threads can finish their reports, and a test
// that waits for the process waits that second out: about 200 times over
// in the cli scripts alone. A race is still reported when it is seen, and
// still makes the process exit 66.
func RaceOptions() string {
	return strings.TrimSpace("atexit_sleep_ms=0 " + os.Getenv("GORACE"))
}
