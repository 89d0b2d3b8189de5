// Package helperinit turns the process into the sandbox helper before the
// rest of the program is initialized, and in a CLI process about to probe
// servers, starts the first launch's helper (the zygote) at that point.
//
// The sandbox re-executes this binary for every launch; as a helper it
// only sets limits and execs the server, yet main runs after every
// package's init, and some of those are costly (the JSON Schema library
// compiles its metaschemas at init: about 11 ms and 21,000 allocations,
// paid again on every launch). The zygote started here spends its own
// start beside the checker's remaining inits and flag parsing, instead of
// after them (sandbox.Prestart).
//
// Go initializes packages in import-path order among those whose imports
// are ready, so this package (which imports only the sandbox, itself
// standard library, x/sys and go-landlock) runs its init before the
// heavier dependencies sorted after it, and as a helper never returns.
// main imports it for that side effect and still calls HelperMain first
// thing, which covers a build where the order differs.
package helperinit

import (
	"os"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

func init() {
	sandbox.HelperMain()
	if Probes(os.Args) {
		// A zygote that cannot start only costs the time saved: the
		// launch then starts its own helper.
		_ = sandbox.Prestart()
	}
}

// Probes reports whether args (os.Args) run a command whose first work is
// launching servers in the basic sandbox: check, diff or pin, without a
// help flag and without --sandbox off or strict. It reads the command line
// only (a policy file may still make a server strict; the zygote is then
// discarded unused).
func Probes(args []string) bool {
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case "check", "diff", "pin":
	default:
		return false
	}
	for i, a := range args[2:] {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		switch name {
		case "h", "help":
			return false
		case "sandbox":
			if !hasValue {
				if i+3 >= len(args) {
					return false
				}
				value = args[i+3]
			}
			if value != "basic" {
				return false
			}
		}
	}
	return true
}
