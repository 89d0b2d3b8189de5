package fakeserver

import (
	"os"
	"path/filepath"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// Command is the name the end-to-end scripts run the fake server by (a
// testscript command: the test binary again, under that name).
const Command = "fakemcp"

// init makes a test binary started as a fake server into one before the
// rest of the binary is initialized. The tests start a fake server for
// every launch they probe, several hundred per run of internal/cli, and a
// test binary's package inits (the JSON Schema library's metaschemas, the
// markdown parser's tables, the engine's phrase sets) cost about 23 ms of
// CPU each time, several times that under -race: more than the fake's
// whole session. Go initializes packages in import-path order among those
// whose imports are ready, and this package imports only the standard
// library and the sandbox, so its init runs before those.
//
// A sandbox helper, which carries the server's environment and so the
// scenario, becomes the helper first and execs the fake in its sandbox.
// TestMain still calls MaybeRun (and the scripts' command map names
// Main), which covers a binary where the order differs.
func init() {
	if len(os.Args) == 0 {
		return
	}
	sandbox.HelperMain()
	if filepath.Base(os.Args[0]) == Command {
		os.Exit(Main())
	}
	MaybeRun()
}
