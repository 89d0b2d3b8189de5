package cli

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver/remote"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

func TestMain(m *testing.M) {
	sandbox.HelperMain()
	fakeserver.MaybeRun()
	// A script moves mcp-lockcheck's clock with LOCKCHECK_TEST_CLOCK (a
	// Go duration), as libfaketime would a program that reads the time
	// through libc (a Go binary does not).
	if d, err := time.ParseDuration(os.Getenv("LOCKCHECK_TEST_CLOCK")); err == nil {
		clock = func() time.Time { return time.Now().Add(d) }
	}
	testscript.Main(m, map[string]func(){
		"mcp-lockcheck":    func() { os.Exit(Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		fakeserver.Command: func() { os.Exit(fakeserver.Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each is a
// small, readable session with the tool (docs/development.md says what
// the scripts' own commands, remotemcp and exitcode, do).
func TestScripts(t *testing.T) {
	// Every script runs mcp-lockcheck as a process of its own, so the
	// scripts run beside the other parallel tests (testproc).
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("GORACE", testproc.RaceOptions())
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"remotemcp": remoteMCP, "exitcode": exitCodeCmd, "waitfor": waitFor},
	})
}

// waitFor is the script command "waitfor GLOB": it waits until a path
// matching GLOB exists, for a background command to reach a point that
// leaves a file behind (a check's run directory in $TMPDIR), instead of
// sleeping for a guess of how long that takes. It fails after a minute.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfor GLOB")
	}
	pattern := ts.MkAbs(args[0])
	if _, err := filepath.Match(pattern, ""); err != nil {
		ts.Fatalf("waitfor: %v", err)
	}
	found := func() bool { m, _ := filepath.Glob(pattern); return len(m) > 0 }
	if !testproc.Poll(time.Minute, found) {
		ts.Fatalf("waitfor: nothing matches %s after a minute", args[0])
	}
}

// remoteMCP is the script command "remotemcp SCENARIO [sse]": it serves
// remote.Handler on 127.0.0.1 for the rest of the script, requiring the
// bearer token in $REMOTE_TOKEN, and sets $REMOTE_URL and $REMOTE_PORT.
func remoteMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: remotemcp SCENARIO [sse]")
	}
	hs := httptest.NewServer(remote.Handler(args[0], ts.Getenv("REMOTE_TOKEN"), len(args) == 2 && args[1] == "sse"))
	ts.Defer(hs.Close)
	ts.Setenv("REMOTE_URL", hs.URL)
	ts.Setenv("REMOTE_PORT", hs.URL[strings.LastIndexByte(hs.URL, ':')+1:])
}

// exitCodeCmd is the script command "exitcode N COMMAND ARGS...": it runs
// COMMAND as exec does, keeping its stdout and stderr for the commands
// that follow, and fails unless COMMAND exited with exactly N. exec and
// ! exec tell only zero from non-zero; the exit codes are a contract
// (0 ok, 1 drift, 2 usage, 3 held), so a script that means one says it.
func exitCodeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want < 0 || want > 255 {
		ts.Fatalf("exitcode: %q is not an exit code (0 to 255)", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() < 0 {
			ts.Fatalf("exitcode: %s did not exit: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exitcode: %s exited %d, want %d", args[1], got, want)
	}
}

// TestExitCodeCommand checks the exitcode script command itself: it
// passes only on the exact code, keeps the command's output for the
// assertions after it, and refuses negation and a code that is not one.
func TestExitCodeCommand(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		wantFail     string // "" passes; else in the log
	}{
		{"zero", "exitcode 0 mcp-lockcheck version\nstdout '^mcp-lockcheck '\n", ""},
		{"usage", "exitcode 2 mcp-lockcheck nosuchcommand\nstderr 'unknown command'\n! stdout .\n", ""},
		{"other code", "exitcode 1 mcp-lockcheck nosuchcommand\n", "exited 2, want 1"},
		{"non-zero wanted", "exitcode 2 mcp-lockcheck version\n", "exited 0, want 2"},
		{"negated", "! exitcode 2 mcp-lockcheck nosuchcommand\n", "usage: exitcode N COMMAND"},
		{"no command", "exitcode 2\n", "usage: exitcode N COMMAND"},
		{"not a code", "exitcode two mcp-lockcheck version\n", `"two" is not an exit code`},
		{"out of range", "exitcode 256 mcp-lockcheck version\n", `"256" is not an exit code`},
		{"not found", "exitcode 0 no-such-program-lockcheck\n", "did not exit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s.txtar"), []byte(tc.script), 0o644); err != nil {
				t.Fatal(err)
			}
			rt := &recordingT{}
			func() {
				defer rt.recoverAbort()
				testscript.RunT(rt, testscript.Params{Dir: dir, RequireExplicitExec: true, Cmds: map[string]func(*testscript.TestScript, bool, []string){"exitcode": exitCodeCmd}})
			}()
			log := rt.log.String()
			switch {
			case tc.wantFail == "" && rt.failed:
				t.Errorf("failed:\n%s", log)
			case tc.wantFail != "" && !rt.failed:
				t.Errorf("passed, want a failure with %q:\n%s", tc.wantFail, log)
			case tc.wantFail != "" && !strings.Contains(log, tc.wantFail):
				t.Errorf("log lacks %q:\n%s", tc.wantFail, log)
			}
		})
	}
}

// recordingT is a testscript.T that records a script's failure instead
// of failing the test running it.
type recordingT struct {
	log    strings.Builder
	failed bool
}

// errAbortScript stops a script run by recordingT, as FailNow stops a test.
var errAbortScript = errors.New("script aborted")

func (r *recordingT) recoverAbort() {
	if v := recover(); v != nil && v != errAbortScript {
		panic(v)
	}
}

func (r *recordingT) Skip(args ...any) { r.Log(args...); panic(errAbortScript) }
func (r *recordingT) Fatal(args ...any) {
	r.Log(args...)
	r.FailNow()
}
func (r *recordingT) Parallel()       {}
func (r *recordingT) Log(args ...any) { fmt.Fprintln(&r.log, args...) }
func (r *recordingT) FailNow()        { r.failed = true; panic(errAbortScript) }
func (r *recordingT) Verbose() bool   { return false }
func (r *recordingT) Run(_ string, f func(testscript.T)) {
	defer r.recoverAbort()
	f(r)
}
