package check

import (
	"os"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.HelperMain()
	fakeserver.MaybeRun()
	os.Exit(m.Run())
}
