//go:build unix

package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
)

// KillGroup sends sig to the process group of cmd's process. Every cmd from
// [Run.Command] has Setpgid, so the group id is the process id and the
// group holds the server and everything it forked: a measured fact
// (docs/design.md#measured-facts) is that the SDK's CommandTransport
// "leaves grandchildren (`sh` -> server, `npx` -> node) running". A group
// that no longer exists is not an error.
func KillGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd == nil || cmd.Process == nil {
		return errors.New("sandbox: KillGroup on a process that was not started")
	}
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		// Without its own group, -pid could name someone else's group.
		return errors.New("sandbox: KillGroup on a cmd without Setpgid")
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// groupAttr puts the child in a new process group of its own, so
// [KillGroup] reaches everything it forks.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
