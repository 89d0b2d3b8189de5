package cli

import (
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
	})
}
