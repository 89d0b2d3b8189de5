package check

import (
	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// launchHygiene reports launches that can run different code tomorrow
// under the same config (unpinned-package) and resolved package versions
// that differ from the lock's (package-changed).
func launchHygiene(_ *serverRun, _ *lock.Server) []finding.Finding {
	return nil
}
