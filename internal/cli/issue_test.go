package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
)

// TestIssueMarker: the lock path in the marker cannot end the HTML
// comment or carry markup, whatever the path.
func TestIssueMarker(t *testing.T) {
	for _, p := range []string{"mcp-lock.json", "a-->b<script>.json", "x--->y", "sub dir/@me/lock.json", "ü\n.json"} {
		m := issueMarker(p)
		inner := strings.TrimSuffix(strings.TrimPrefix(m, "<!-- mcp-lockcheck:deep-drift lock="), " -->")
		if strings.Contains(inner, "--") || strings.ContainsAny(inner, "<>@ \n") || inner == "" {
			t.Errorf("issueMarker(%q) = %q", p, m)
		}
	}
	if got := issueMarker("sub/mcp-lock.json"); got != "<!-- mcp-lockcheck:deep-drift lock=sub/mcp-lock.json -->" {
		t.Errorf("a plain path changed: %q", got)
	}
}

// TestIssueCommand: a report that is not a valid JSON report is exit 2 and
// touches nothing; a missing one (the check could not run) with no open
// issue opens nothing; a report of held servers opens nothing either.
func TestIssueCommand(t *testing.T) {
	api := githubtest.New("o", "r", nil)
	t.Cleanup(api.Close)
	dir := t.TempDir()
	env := map[string]string{"GITHUB_TOKEN": "t", "GITHUB_API_URL": api.APIURL(), "GITHUB_REPOSITORY": "o/r"}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bad.json", `{"lockfileVersion": 1, "servers": [{"name": "x", "status": "pwned", "findings": []}]}`)
	if code, _, stderr := runCLI(t, dir, env, "issue", "--from", "bad.json"); code != ExitUsage || !strings.Contains(stderr, "unknown status") {
		t.Errorf("invalid report: exit %d\n%s", code, stderr)
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("an invalid report reached the API: %v", api.Requests())
	}
	code, _, stderr := runCLI(t, dir, env, "issue", "--from", "missing.json")
	if code != ExitOK || !strings.Contains(stderr, "could not run") || !strings.Contains(stderr, "no open drift issue") {
		t.Errorf("missing report: exit %d\n%s", code, stderr)
	}
	write("held.json", `{"lockfileVersion": 1, "servers": [{"name": "x", "status": "held", "reason": "crashed", "phases": [], "findings": [{"rule": "server-unavailable", "severity": "error", "server": "x", "message": "crashed"}]}], "summary": {}}`)
	if code, _, stderr := runCLI(t, dir, env, "issue", "--from", "held.json"); code != ExitOK || !strings.Contains(stderr, "no open drift issue") {
		t.Errorf("held report: exit %d\n%s", code, stderr)
	}
	for _, r := range api.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("wrote %s", r)
		}
	}
	if len(api.Issues()) != 0 {
		t.Errorf("issues %+v", api.Issues())
	}
	if code, _, _ := runCLI(t, dir, map[string]string{"GITHUB_REPOSITORY": "o/r"}, "issue", "--from", "held.json"); code != ExitUsage {
		t.Errorf("no token: exit %d", code)
	}
	if code, _, _ := runCLI(t, dir, env, "issue"); code != ExitUsage {
		t.Errorf("no --from: exit %d", code)
	}
}
