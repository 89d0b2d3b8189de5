//go:build linux

package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ProtectSelf makes this process non-dumpable (prctl PR_SET_DUMPABLE 0).
//
// A server runs as the checker's own uid. Without this, in basic mode it can
// read /proc/$PPID/environ (GITHUB_ENV, GITHUB_PATH, RUNNER_TEMP, a repin
// token, NPM_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN), and /proc/$PPID/mem,
// cmdline and fd of the checker: the kernel's ptrace access check guards all
// of them, and it refuses a same-uid reader of a non-dumpable process unless
// the reader holds CAP_SYS_PTRACE in the checker's user namespace. Strict
// adds its own PID namespace, where the checker is not even visible.
//
// Every mcp-lockcheck process calls it first thing (cli.Main); children do
// not inherit it across exec, so the servers are unaffected.
func ProtectSelf() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", err)
	}
	return nil
}
