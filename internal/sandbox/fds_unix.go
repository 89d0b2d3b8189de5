//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeOnExecAbove3 marks every descriptor above stderr close-on-exec, so
// the server starts with stdin, stdout and stderr only (and the helper's
// gate, still open until the exec, is never the server's). Go opens its
// own files close-on-exec, but one the checker inherited without the flag
// from whatever started it (a make jobserver's pipe, a CI runner's socket)
// would otherwise pass through the helper to the server.
func closeOnExecAbove3() error {
	if err := closeRangeOnExec(); err == nil {
		return nil
	}
	dir := "/dev/fd"
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		dir = "/proc/self/fd"
	}
	fds, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("listing open files: %w", err)
	}
	for _, e := range fds {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		// The listing's own descriptor is closed by now: EBADF is fine.
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("marking fd %d close-on-exec: %w", fd, err)
		}
	}
	return nil
}
