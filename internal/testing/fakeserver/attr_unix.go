//go:build unix

package fakeserver

import "syscall"

// daemonAttr leaves the process group and the session, as a daemon does.
func daemonAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
