package fakeserver

import "syscall"

// daemonAttr: the nearest Windows has to leaving the session is a
// detached process in a new process group.
func daemonAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | 0x00000008 /* DETACHED_PROCESS */}
}
