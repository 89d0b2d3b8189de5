package check

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestStdioNotesScrubbed: a sandboxed server that names its tools after
// the canary it was given gets that name quoted in the run's notes (the
// warm-up planner names the write tools it skipped, the probe the tool a
// call timed out on). Every note leaves with the canary replaced, whoever
// wrote it, and the canary is still reported as leaked.
func TestStdioNotesScrubbed(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	for _, tc := range []struct {
		name  string
		env   string // the canary variable the tool is named after
		tools string
	}{
		// synth skips a tool that reads as a write; the planner's note
		// quotes its name.
		{"skipped write", "GITHUB_TOKEN", `[{"name":"delete_$GITHUB_TOKEN","description":"Deletes the record.","inputSchema":{"type":"object"}}]`},
		// The same inside a longer name.
		{"name inside", "GITHUB_TOKEN", `[{"name":"drop_table_x$GITHUB_TOKEN-y","description":"Drops the table.","inputSchema":{"type":"object"}}]`},
		// A canary with no shape a secret scanner knows (40 random
		// letters and digits): only the sandbox can tell it is one.
		{"shapeless canary", "AWS_SECRET_ACCESS_KEY", `[{"name":"delete_$AWS_SECRET_ACCESS_KEY","description":"Deletes the record.","inputSchema":{"type":"object"}}]`},
		{"access key id", "AWS_ACCESS_KEY_ID", `[{"name":"remove_$AWS_ACCESS_KEY_ID","description":"Removes the key.","inputSchema":{"type":"object"}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Server{Name: "n", Type: "stdio", Command: os.Args[0], File: ".mcp.json", Line: 1, Client: "claude-code",
				Env: map[string]string{"FAKE_SCENARIO": "custom", "FAKE_TOOLS": tc.tools, "FAKE_TOOLS_ENV": "1"}}
			opts := &Options{Servers: []config.Server{s}, LockPath: "mcp-lock.json",
				Probe:   probe.Options{Launches: 1, WarmupCalls: 1, RequestTimeout: 10 * time.Second},
				Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1, sandboxes: &sandboxes{}}
			run := probeServer(context.Background(), s, opts)
			if run.held != "" {
				t.Fatalf("held: %s", run.held)
			}
			if len(run.res.Observations) == 0 || len(run.res.Observations[0].Lists[probe.KindTool]) != 1 {
				t.Fatalf("observations: %+v", run.res.Observations)
			}
			raw := run.res.Observations[0].Lists[probe.KindTool][0].Key // the name as the server sent it
			notes := strings.Join(run.notes, "\n")
			if !strings.Contains(notes, "[canary:env:"+tc.env+"]") {
				t.Errorf("no note quotes the tool with its canary replaced:\n%s", notes)
			}
			if strings.Contains(notes, raw) {
				t.Errorf("a note carries the canary (%s):\n%s", raw, notes)
			}
			leaked := false
			for _, f := range run.findings {
				leaked = leaked || f.Rule == finding.CanaryLeak
			}
			if !leaked {
				b, _ := json.Marshal(run.findings)
				t.Errorf("no canary-leak finding: %s", b)
			}
		})
	}
}

// TestStartAllowance: launches that download or build before their first
// answer get the longer first start; a plain binary or script does not.
func TestStartAllowance(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		command string
		args    []string
		want    bool
	}{
		{"npx", []string{"-y", "@modelcontextprotocol/server-memory@2026.8.31"}, true},
		{"uvx", []string{"mcp-server-fetch"}, true},
		{"docker", []string{"run", "-i", "--rm", "mcp/fetch"}, true},
		{"/usr/local/go/bin/go", []string{"run", "./server"}, true},
		{"go", []string{"build", "./server"}, false},
		{"node", []string{"srv/index.mjs"}, false},
		{"/opt/server/bin/server", nil, false},
	} {
		got := coldPackage(c.command, c.args, empty) || buildsOrFetches(c.command, c.args)
		if got != c.want {
			t.Errorf("%s %v: longer first start %v, want %v", c.command, c.args, got, c.want)
		}
	}
}
