package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// TestDeepProfileClockWeek: a server that goes bad three days from now
// (testdata/servers/timebomb.mjs, node: libfaketime moves its clock)
// passes the quick check and is caught by --profile deep at its +7d clock
// launch; the drift issue names that launch with its clock.
func TestDeepProfileClockWeek(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"); err != nil {
		if _, err2 := os.Stat("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"); err2 != nil {
			if os.Getenv("CI") != "" && os.Getenv("RUNNER_OS") == "Linux" {
				t.Fatal("libfaketime is not installed (apt-get install faketime)")
			}
			t.Skip("libfaketime is not installed")
		}
	}
	script, _ := filepath.Abs("../../testdata/servers/timebomb.mjs")
	dir := t.TempDir()
	at := time.Now().Add(3 * 24 * time.Hour).UTC().Format(time.RFC3339)
	cfg := `{"mcpServers":{"weather":{"command":` + jsonString(node) + `,"args":[` + jsonString(script) + `],"env":{"TIMEBOMB_AT":` + jsonString(at) + `}}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, dir, nil, "pin", "--quiet"); code != 0 {
		t.Fatalf("pin: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := runCLI(t, dir, nil, "check", "--quiet"); code != 0 {
		t.Fatalf("quick: exit %d, want 0: the quick check moves no clock\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCLI(t, dir, nil, "check", "--quiet", "--profile", "deep", "--call-gap", "0", "--client-identity", "cursor-vscode/1.0.0", "--format", "json")
	if code != 1 {
		t.Fatalf("deep: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	// Five launches, one extra identity, then the clock launches: +1d
	// (launch-7, clean), +7d (launch-8, the first to see the bomb), +30d.
	first := ""
	for _, f := range r.Findings() {
		if f.Rule == "tool-changed" && first == "" {
			first = f.Phase
		}
	}
	if first != "launch-8/initial" {
		t.Errorf("first tool-changed at %q, want launch-8/initial (the +7d launch)\n%s", first, stdout)
	}
	if c := r.Servers[0].Coverage; c == nil || c.ClockShifts != 3 || c.Launches != 9 {
		t.Errorf("coverage %+v, want 3 clock shifts over 9 launches", c)
	}
	var body strings.Builder
	if err := report.WriteIssue(&body, &r, report.IssueOptions{Marker: issueMarker("mcp-lock.json"), Status: "status"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body.String(), "`launch-8/initial` (clock +7d)") {
		t.Errorf("the issue does not name the +7d launch:\n%s", body.String())
	}
}
