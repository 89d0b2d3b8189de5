package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
)

// TestFakeServerSkipsCostlyInits: a fake server (this test binary again,
// several hundred times a run) becomes the server before the JSON Schema
// library, the markdown parser and the CLI are initialized, whether it is
// started by a config (FAKE_SCENARIO) or as the scripts' fakemcp command.
// Without it every launch a test probes pays about 23 ms of CPU in package
// inits, several times that under -race (fakeserver's takeover.go).
func TestFakeServerSkipsCostlyInits(t *testing.T) {
	for _, tc := range []struct {
		name string
		arg0 string
		env  string
	}{
		{"config", os.Args[0], fakeserver.EnvScenario + "=honest"},
		{"script-command", fakeserver.Command, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Args = []string{tc.arg0}
			cmd.Env = []string{"GODEBUG=inittrace=1", "PATH=" + os.Getenv("PATH")}
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			// initialize, then EOF: the fake answers and ends.
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), `"serverInfo":{"name":"fake"`) {
				t.Fatalf("the fake server did not answer initialize: %v\n%s\n%s", err, stdout.String(), stderr.String())
			}
			for _, heavy := range []string{"santhosh-tekuri/jsonschema/v6", "yuin/goldmark", "modelcontextprotocol/go-sdk/mcp", "mcp-lockcheck/mcp-lockcheck/internal/cli", "google/go-github"} {
				if strings.Contains(stderr.String(), "init github.com/"+heavy) {
					t.Errorf("the fake server initialized %s before taking over", heavy)
				}
			}
		})
	}
}
