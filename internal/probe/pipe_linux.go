package probe

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeBuffered is how many bytes the pipe f holds unread (FIONREAD, which
// x/sys spells TIOCINQ on Linux).
func pipeBuffered(f *os.File) (int, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	n, ierr := 0, error(nil)
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ierr != nil {
		return 0, false
	}
	return n, true
}
