// Command mcp-lockcheck pins what MCP servers tell a model and checks
// that it has not changed. See the README for the commands.
package main

import (
	"os"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/cli"
	_ "github.com/mcp-lockcheck/mcp-lockcheck/internal/helperinit" // the helper, before costly inits
)

func main() {
	// The sandbox re-executes this binary as its helper: check.Main
	// becomes it there (helperinit already did, before the costly
	// inits, where the build's init order allows), and returns at once
	// everywhere else.
	check.Main()
	os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
