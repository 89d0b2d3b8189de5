//go:build unix

package probe

import (
	"os"
	"syscall"
)

func setGroup(a *syscall.SysProcAttr) { a.Setpgid = true }

func signalGroup(p *os.Process, sig syscall.Signal) {
	// Negative pid: the process group (pgid == pid because of Setpgid).
	_ = syscall.Kill(-p.Pid, sig)
}
