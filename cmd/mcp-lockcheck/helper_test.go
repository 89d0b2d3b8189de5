package main

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestHelperSkipsCostlyInits: the sandbox helper (this binary re-executed
// for every launch) becomes the helper before the JSON Schema library and
// the rest of the CLI are initialized. The test binary links the same
// packages as the command, so it is re-executed here as the helper in
// self-test mode with GODEBUG=inittrace=1, and no package after the
// sandbox may have run its init.
func TestHelperSkipsCostlyInits(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the helper is exec'd by argv[0], which Windows does not carry")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Args = []string{"mcp-lockcheck-sandbox-helper"}
	cmd.Env = []string{`MCP_LOCKCHECK_SANDBOX_POLICY={"SelfTest":true}`, "GODEBUG=inittrace=1"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "mcp-lockcheck-sandbox-helper-ok") {
		t.Fatalf("helper self-test: %v\n%s", err, out)
	}
	// A few tiny inits of packages ready earlier may run first; these
	// are the costly ones (the schema library compiles its metaschemas).
	for _, heavy := range []string{"santhosh-tekuri/jsonschema/v6", "mcp-lockcheck/mcp-lockcheck/cli", "modelcontextprotocol/go-sdk/mcp", "yuin/goldmark"} {
		if strings.Contains(string(out), "init github.com/"+heavy+" @") {
			t.Errorf("the helper initialized %s before becoming the helper:\n%s", heavy, out)
		}
	}
}
