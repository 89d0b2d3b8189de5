package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/report"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testproc"
)

// TestREADMEDemo runs the README's first command, as written, on the
// bundled demo: its committed lock must catch the rug pull at the third
// warm-up call.
func TestREADMEDemo(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "go run ./cmd/mcp-lockcheck check --config examples/demo/.mcp.json --lock examples/demo/mcp-lock.json"
	if !strings.Contains(string(readme), "\n"+cmd+"\n") {
		t.Fatalf("README no longer shows the demo command %q", cmd)
	}
	args := append([]string{"mcp-lockcheck"}, strings.Fields(strings.TrimPrefix(cmd, "go run ./cmd/mcp-lockcheck "))...)
	args = append(args, "--format", "json", "--quiet")
	var stdout, stderr bytes.Buffer
	wd, _ := os.Getwd()
	code := Run(context.Background(), args, Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.LookupEnv, Dir: wd + "/../.."})
	if code != ExitDrift {
		t.Fatalf("exit %d, want 1\nstderr: %s\nstdout: %s", code, stderr.String(), stdout.String())
	}
	var r report.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings() {
		if f.Rule == "tool-changed" && f.Subject == "search_notes" && f.Field == "description" && f.Phase == "launch-1/after-call-3" {
			found = true
		}
	}
	if !found {
		t.Errorf("the rug pull was not caught at launch-1/after-call-3:\n%s", stdout.String())
	}
	// Its "Next:" names the instruction to pass the key on for what it
	// is, first, and offers neither to acknowledge nor to approve it.
	var text bytes.Buffer
	if err := report.WriteText(&text, &r, report.Options{Width: 80}); err != nil {
		t.Fatal(err)
	}
	_, next, _ := strings.Cut(text.String(), "\nNext:\n")
	first, _, _ := strings.Cut(next, "\n")
	if !strings.HasPrefix(first, "  # notes/tool/search_notes (model-instruction): ") || strings.Contains(next, "--ack") || strings.Contains(next, "mcp-lockcheck approve") {
		t.Errorf("the demo's Next: offers to acknowledge or approve the instruction, or does not say what it is first:\n%s", next)
	}
}
