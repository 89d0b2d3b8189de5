package guard

import (
	"os/exec"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
)

// setPdeathsig: Windows has no parent-death signal. The guard joins a
// kill-on-close Job Object instead (once, before its first server starts),
// so when the guard ends, however it ends, the kernel terminates the
// server and everything it started.
func setPdeathsig(*exec.Cmd) { _ = procgroup.EnableSubreaper() }
