package check_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// A server whose tool tells the model to read the user's SSH key and pass
// it on fails the check before it is ever pinned. exampleDir's .mcp.json
// configures it (main_test.go).
func Example() {
	r, err := check.Run(context.Background(), check.Config{
		Dir:         exampleDir,
		WarmupCalls: check.NoCalls,
		Launches:    1,
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
	//   error server-not-pinned server weather
	//   warning sensitive-path tool weather
}

// Main comes first in main: in the process the sandbox starts as its
// helper it applies the limits and runs the server, and never returns; in
// any other it returns at once.
func ExampleMain() {
	check.Main()
	// ... then the program's own work, check.Run among it.
}

// TestRunUsage: a run that cannot start is an error wrapping ErrUsage that
// says why, never a report.
func TestRunUsage(t *testing.T) {
	r, err := check.Run(context.Background(), check.Config{Dir: t.TempDir(), Configs: []string{"missing.json"}})
	if !errors.Is(err, check.ErrUsage) || r != nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("%v, %v", r, err)
	}
	if _, err := check.Run(context.Background(), check.Config{Dir: exampleDir, Sandbox: "tight"}); !errors.Is(err, check.ErrUsage) || !strings.Contains(err.Error(), "tight") {
		t.Fatalf("bad sandbox: %v", err)
	}
	if _, err := check.Run(context.Background(), check.Config{Dir: exampleDir, FailOn: "sometimes"}); !errors.Is(err, check.ErrUsage) || !strings.Contains(err.Error(), "sometimes") {
		t.Fatalf("bad FailOn: %v", err)
	}
}

// TestRunHeld: a server that cannot be probed is held in the report, and
// Run's error is a *HeldError that names it.
func TestRunHeld(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers":{"gone":{"command":"`+filepath.ToSlash(filepath.Join(dir, "no-such-server"))+`"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := check.Run(context.Background(), check.Config{Dir: dir, WarmupCalls: check.NoCalls, Launches: 1})
	var held *check.HeldError
	if !errors.Is(err, check.ErrHeld) || !errors.As(err, &held) || len(held.Servers) != 1 || held.Servers[0] != "gone" {
		t.Fatalf("err %v", err)
	}
	if r == nil || r.Summary.Held != 1 || r.Servers[0].Status != report.StatusHeld {
		t.Fatalf("report %+v", r)
	}
}

// TestRunCancelled: a run whose context ends before the verdict has no
// report, and its error wraps the context's.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := check.Run(ctx, check.Config{Dir: exampleDir, WarmupCalls: check.NoCalls, Launches: 1})
	if r != nil || !errors.Is(err, context.Canceled) || errors.Is(err, check.ErrUsage) {
		t.Fatalf("%v, %v", r, err)
	}
}
