package guard

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// launchMismatch compares the command the guard was given with the launch
// the lock approved and describes a difference ("" if none). The lock keeps
// placeholders unexpanded (${workspaceFolder}, ${env:HOME}) while the guard
// sees what the client expanded, so an approved argument holding a
// placeholder matches any argument in its place. Only a warning: check
// reports launch-changed against the config; the guard's job is the
// manifest, which it holds whatever the command.
//
// The live launch is compared, and shown, in the form the lock records it:
// with secrets in arguments redacted (a database URL's password), so a
// secret neither makes a false difference nor reaches stderr.
func launchMismatch(l lock.Launch, command string, args []string) string {
	if l.Command == "" {
		return ""
	}
	live := pinned.Launch(config.Server{Command: command, Args: args})
	command, args = live.Command, live.Args
	match := func(want, got string) bool {
		return want == got || strings.Contains(want, "${") || strings.Contains(want, "{env:")
	}
	if !match(l.Command, command) {
		return fmt.Sprintf("command %s differs from the approved %s", quote(command), quote(l.Command))
	}
	if len(l.Args) != len(args) {
		return fmt.Sprintf("%d arguments where the approved launch has %d", len(args), len(l.Args))
	}
	for i := range args {
		if !match(l.Args[i], args[i]) {
			return fmt.Sprintf("argument %d is %s, approved %s", i+1, quote(args[i]), quote(l.Args[i]))
		}
	}
	return ""
}

// setParentDeathSignal asks the kernel to kill the server if the guard
// dies without stopping it (a client that SIGKILLs the guard): the server
// runs in its own process group, so nothing else would reach it.
func setParentDeathSignal(cmd *exec.Cmd) { setPdeathsig(cmd) }
