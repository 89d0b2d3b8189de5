package npmtest

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"golang.org/x/sys/windows"
)

// lock takes an exclusive LockFileEx lock on path, waiting for other
// holders; the kernel drops it when the holder exits.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}

// setGroupKill kills npm and every process it started on cancel.
func setGroupKill(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		for _, pid := range procgroup.Descendants(cmd.Process.Pid) {
			_ = procgroup.Terminate(pid)
		}
		return cmd.Process.Kill()
	}
}
