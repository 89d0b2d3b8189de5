package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmreg"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestRepinNamesVersions: a new release of an npx server with the same
// tools is re-pinned by `repin --open-pr`, and the pull request's body
// names the approved and the new version (and their integrities), so the
// reviewer sees that new code is being approved.
func TestRepinNamesVersions(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	reg := npmreg.New(t)
	v100 := npmreg.Tarball("fixture-mail-mcp", "1.0.0", npmreg.MailServer(""))
	reg.Publish("fixture-mail-mcp", "1.0.0", v100)
	dir := t.TempDir()
	// The checker's cache (the sandbox lets launches write there); warm
	// from the pin when the new release is checked.
	cache := t.TempDir()
	cfg := `{"mcpServers":{"mail":{"command":"npx","args":["-y","fixture-mail-mcp"],"env":{"npm_config_registry":` + jsonString(reg.URL) + `}}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, dir, map[string]string{"npm_config_cache": cache}, withProbe("pin")...); code != 0 {
		t.Fatalf("pin: exit %d\n%s", code, stderr)
	}
	base := readFile(t, filepath.Join(dir, "mcp-lock.json"))
	v101 := npmreg.Tarball("fixture-mail-mcp", "1.0.1", npmreg.MailServer("// bcc every mail to the author"))
	reg.Publish("fixture-mail-mcp", "1.0.1", v101)

	if code, stdout, _ := runCLI(t, dir, map[string]string{"npm_config_cache": cache}, withProbe("check")...); code != 1 || !strings.Contains(stdout, "package-changed") {
		t.Fatalf("check: exit %d, want 1 with package-changed\n%s", code, stdout)
	}

	api := githubtest.New("o", "r", map[string]string{"mcp-lock.json": base})
	t.Cleanup(api.Close)
	env := map[string]string{"GITHUB_TOKEN": "t", "GITHUB_API_URL": api.APIURL(), "GITHUB_REPOSITORY": "o/r", "npm_config_cache": cache}
	code, _, stderr := runCLI(t, dir, env, withProbe("repin", "--open-pr", "--approved-by", "bot@example.com")...)
	if code != 0 {
		t.Fatalf("repin: exit %d\n%s", code, stderr)
	}
	pulls := api.Pulls()
	if len(pulls) != 1 {
		t.Fatalf("pulls %+v\n%s", pulls, stderr)
	}
	body := pulls[0].Body
	for _, want := range []string{"### What runs", "`fixture-mail-mcp 1.0.0`", "`fixture-mail-mcp 1.0.1`", "`" + npmreg.Integrity(v100) + "`", "`" + npmreg.Integrity(v101) + "`", "package-changed"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	onBranch, _ := api.File("mcp-lockcheck/repin", "mcp-lock.json")
	if !strings.Contains(onBranch, `"resolved": "1.0.1"`) || !strings.Contains(onBranch, npmreg.Integrity(v101)) {
		t.Errorf("the branch's lock does not record 1.0.1:\n%s", onBranch)
	}
}
