package check_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
)

// A server whose tool tells the model to read the user's SSH key and pass
// it on fails the check from its first pin: testdata/example configures
// the time-bomb server of testdata/servers already gone off, pinned so.
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
	fmt.Println("exit code", r.Summary.ExitCode)
	for _, s := range r.Servers {
		fmt.Println(s.Name, s.Status)
		for _, f := range s.Findings {
			fmt.Println(" ", f.Severity, f.Rule, f.Kind, f.Subject)
		}
	}
	// Output:
	// exit code 1
	// weather drift
	//   error model-instruction tool weather
	//   warning sensitive-path tool weather
}

// TestRunUsage: a run that cannot start is an error wrapping ErrUsage that
// says why, never a report.
func TestRunUsage(t *testing.T) {
	r, err := check.Run(context.Background(), check.Options{Dir: t.TempDir(), Configs: []string{"missing.json"}})
	if !errors.Is(err, check.ErrUsage) || r != nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("%v, %v", r, err)
	}
	if _, err := check.Run(context.Background(), check.Options{Dir: "../testdata/example", Sandbox: "tight"}); !errors.Is(err, check.ErrUsage) || !strings.Contains(err.Error(), "tight") {
		t.Fatalf("bad sandbox: %v", err)
	}
}
