package check

import (
	"os"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
)

func TestMain(m *testing.M) {
	sandbox.HelperMain()
	fakeserver.MaybeRun()
	// Launch servers from a process that is not dumpable, as the checker
	// (cli.Main) is: strict once failed for every user but root for that
	// alone, and only outside the tests.
	if err := sandbox.ProtectSelf(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
