//go:build unix

package launchid

import (
	"os/exec"
	"syscall"
)

// ownSession starts cmd in a session of its own (setsid). See
// ResolveRegistry for why.
func ownSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
