//go:build !linux && !windows

package guard

import "os/exec"

// Without Pdeathsig a SIGKILLed guard leaves its server running; a client
// that closes stdin or sends SIGTERM still gets the orderly stop.
func setPdeathsig(*exec.Cmd) {}
