// Package helperinit turns the process into the sandbox helper before the
// rest of the program is initialized, and in a CLI process about to probe
// servers, starts the first launch's helper (the zygote) at that point, in
// the background.
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
	if level, ok := Probes(os.Args); ok {
		sandbox.Prestart(level)
	}
}

// Probes reports whether args (os.Args) run a command whose first work is
// launching servers, check, diff or pin without a help flag, and the
// sandbox level its command line gives them (basic unless --sandbox says
// otherwise; none for off). It reads the command line only: a policy file
// may still give a server another level, and a zygote no launch takes is
// discarded unused.
func Probes(args []string) (sandbox.Level, bool) {
	if len(args) < 2 {
		return "", false
	}
	switch args[1] {
	case "check", "diff", "pin":
	default:
		return "", false
	}
	level := sandbox.Basic
	for i, a := range args[2:] {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "h", "help":
			return "", false
		case "sandbox":
			if !hasValue {
				if i+3 >= len(args) {
					return "", false
				}
				value = args[i+3]
			}
			l, err := sandbox.ParseLevel(value)
			if err != nil || l == sandbox.Off {
				return "", false
			}
			level = l
		}
	}
	return level, true
}
