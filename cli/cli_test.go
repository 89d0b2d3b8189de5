package cli

import (
	"net/http/httptest"
	"os"
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
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"remotemcp": remoteMCP},
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
