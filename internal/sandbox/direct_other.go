//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// directSupported: only Linux starts a Basic server without the helper
// (direct_linux.go).
func directSupported() bool { return false }

func startDirect(*exec.Cmd, policy) error {
	return errors.New("sandbox: a direct start is Linux only")
}

func hasParentDeathSignal(*exec.Cmd) bool { return false }
