// Command mcp-lockcheck pins what MCP servers tell a model and checks
// that it has not changed. See the README for the commands.
package main

import (
	"os"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/cli"
	_ "github.com/mcp-lockcheck/mcp-lockcheck/internal/helperinit" // the helper, before costly inits
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

func main() {
	// The strict sandbox re-executes this binary as its helper.
	sandbox.HelperMain()
	os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
