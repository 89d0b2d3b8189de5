package cli

import (
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.HelperMain()
	fakeserver.MaybeRun()
	testscript.Main(m, map[string]func(){
		"mcp-lockcheck": func() { os.Exit(Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		"fakemcp":       func() { os.Exit(fakeserver.Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each is a
// small, readable session with the tool (see testdata/README.md).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"remotemcp": remoteMCP, "exitcode": exitCode},
	})
}

// remoteMCP is the script command "remotemcp SCENARIO [sse]": it serves
// fakeserver.Remote on 127.0.0.1 for the rest of the script, requiring the
// bearer token in $REMOTE_TOKEN, and sets $REMOTE_URL.
func remoteMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: remotemcp SCENARIO [sse]")
	}
	hs := httptest.NewServer(fakeserver.Remote(args[0], ts.Getenv("REMOTE_TOKEN"), len(args) == 2 && args[1] == "sse"))
	ts.Defer(hs.Close)
	ts.Setenv("REMOTE_URL", hs.URL)
}

// exitCode is the script command "exitcode N COMMAND ARGS...": it runs
// COMMAND as exec does, keeping its stdout and stderr for the commands
// that follow, and fails unless COMMAND exited with exactly N. exec and
// ! exec tell only zero from non-zero; the exit codes are a contract
// (0 ok, 1 drift, 2 usage, 3 held), so a script that means one says it.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
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
