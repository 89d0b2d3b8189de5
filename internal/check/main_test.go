package check

import (
	"os"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
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

// settingsFunc is a Policy that gives each server the settings f returns,
// whatever the caller fixed.
type settingsFunc func(server string) policy.Settings

func (f settingsFunc) Effective(server string, _ policy.Fixed) policy.Settings { return f(server) }
