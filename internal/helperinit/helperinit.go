// Package helperinit turns the process into the sandbox helper before the
// rest of the program is initialized. The sandbox re-executes this binary
// for every launch; as a helper it only sets limits and execs the server,
// yet main runs after every package's init, and some of those are costly
// (the JSON Schema library compiles its metaschemas at init: about 11 ms
// and 21,000 allocations, paid again on every launch).
//
// Go initializes packages in import-path order among those whose imports
// are ready, so this package (which imports only the sandbox, itself
// standard library, x/sys and go-landlock) runs its init before the
// heavier dependencies sorted after it, and as a helper never returns.
// main imports it for that side effect and still calls HelperMain first
// thing, which covers a build where the order differs.
package helperinit

import "github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"

func init() { sandbox.HelperMain() }
