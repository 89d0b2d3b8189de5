//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// canPrestart: the zygote runs where the helper execs the server in place.
const canPrestart = true

// gateSockets is a connected pair of stream sockets, both close-on-exec:
// r for the zygote (passed as gateFD), w for the checker.
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
		return nil, nil, fmt.Errorf("sandbox: zygote gate: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "gate"), os.NewFile(uintptr(fds[1]), "gate"), nil
}
