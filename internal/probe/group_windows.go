package probe

import (
	"os"
	"syscall"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
)

// setGroup: a console process group of its own, so the checker's Ctrl-C
// is not also the server's.
func setGroup(a *syscall.SysProcAttr) { a.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP }

// signalGroup: Windows cannot signal a group. Every signal terminates the
// tree (the server's descendants first, by their parent chain, then the
// server); under the sandbox helper its kill-on-close job ends the rest.
func signalGroup(p *os.Process, sig syscall.Signal) {
	_ = sig
	for _, pid := range procgroup.Descendants(p.Pid) {
		_ = procgroup.Terminate(pid)
	}
	_ = p.Kill()
}
