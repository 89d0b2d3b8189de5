//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// gateSockets is a held launch's gate (HeldCommand): a connected pair of
// stream sockets, both close-on-exec, r for the helper (passed as gateFD)
// and w for the checker. Not a pipe: a pipe can be opened again through
// /proc/PID/fd by any process allowed to read the helper's /proc entry,
// and written to let the server start early; a socket cannot be opened
// that way at all.
func gateSockets() (r, w *os.File, err error) {
	// Under ForkLock, as the standard library does where SOCK_CLOEXEC is
	// missing (macOS): no fork of another goroutine sees the pair before
	// it is close-on-exec.
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: gate: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "gate"), os.NewFile(uintptr(fds[1]), "gate"), nil
}
