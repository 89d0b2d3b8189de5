package report_test

import (
	"context"
	"log"
	"os"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Render a check's report as GitHub workflow annotations: one line a
// finding, at the line it is about. The check is the one of check's
// example: a server whose tool asks the model for the user's SSH key, not
// pinned yet (exampleDir, main_test.go).
func Example() {
	r, err := check.Run(context.Background(), check.Config{
		Dir:         exampleDir,
		WarmupCalls: check.NoCalls,
		Launches:    1,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := report.Write(os.Stdout, report.FormatAnnotations, r, report.Options{}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ::error file=.mcp.json,line=3,title=mcp-lockcheck model-instruction::weather: tool weather (description): Text addressed to the model in description: tells the model to read secrets and pass them along; names a credential path and a parameter of this tool to put it in [launch-1/initial]
	// ::error file=.mcp.json,line=3,title=mcp-lockcheck server-not-pinned::weather: server weather: server "weather" is configured in .mcp.json but has no entry in the lock
	// ::warning file=.mcp.json,line=3,title=mcp-lockcheck sensitive-path::weather: tool weather (description): Credential or config path named in description: ~/.ssh; SSH private key (id_rsa, id_ed25519, ...) [launch-1/initial]
}
