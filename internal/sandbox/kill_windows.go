package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
)

// KillGroup ends cmd's process and every process it started. Windows has
// no signals to send a group: every sig ends the tree at once (a console
// server gets no SIGTERM grace). In Basic the server runs under the helper,
// which holds the only handle of a kill-on-close Job Object holding the
// server's whole tree; terminating the helper closes it and the kernel ends
// the rest. For Off, and in case a process left the job, the descendants
// found by their parent chain are terminated too.
func KillGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd == nil || cmd.Process == nil {
		return errors.New("sandbox: KillGroup on a process that was not started")
	}
	_ = sig
	kids := procgroup.Descendants(cmd.Process.Pid)
	err := cmd.Process.Kill()
	for _, pid := range kids {
		_ = procgroup.Terminate(pid)
	}
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// groupAttr: a new console process group, so a Ctrl-C meant for the
// checker's console does not also reach the server half-way through.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
