package report_test

import (
	"context"
	"log"
	"os"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Render a check's report as GitHub workflow annotations: one line a
// finding, at the lock entry it is about. The check is the one of
// check's example: the time-bomb server of testdata/servers, gone off.
func Example() {
	calls, launches := 0, 1
	r, err := check.Run(context.Background(), check.Options{
		Dir:         "../testdata/example",
		WarmupCalls: &calls,
		Launches:    &launches,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := report.Write(os.Stdout, report.FormatAnnotations, r, report.Options{}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ::error file=mcp-lock.json,line=26,title=mcp-lockcheck model-instruction::weather: tool weather (description): Text addressed to the model in description: tells the model to read secrets and pass them along; names a credential path and a parameter of this tool to put it in [launch-1/initial]
	// ::warning file=mcp-lock.json,line=26,title=mcp-lockcheck sensitive-path::weather: tool weather (description): Credential or config path named in description: ~/.ssh; SSH private key (id_rsa, id_ed25519, ...) [launch-1/initial]
}
