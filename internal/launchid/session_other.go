//go:build !unix

package launchid

import "os/exec"

// ownSession does nothing where there are no sessions to group CPU time by.
func ownSession(*exec.Cmd) {}
