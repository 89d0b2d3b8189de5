package config

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestUserConfigPaths pins where each client's user-level config is looked
// for on each platform: spaces (Application Support) and drive letters
// stay intact.
func TestUserConfigPaths(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want []string
		lock string
	}{
		{"darwin", map[string]string{"HOME": "/Users/Ann Lee"}, []string{
			"/Users/Ann Lee/Library/Application Support/Claude/claude_desktop_config.json",
			"/Users/Ann Lee/.claude.json",
			"/Users/Ann Lee/.cursor/mcp.json",
			"/Users/Ann Lee/.codeium/windsurf/mcp_config.json",
			"/Users/Ann Lee/Library/Application Support/Code/User/mcp.json",
			"/Users/Ann Lee/.gemini/settings.json",
			"/Users/Ann Lee/.codex/config.toml",
			"/Users/Ann Lee/.config/zed/settings.json",
		}, "/Users/Ann Lee/Library/Application Support/mcp-lockcheck/mcp-lock.json"},
		{"windows", map[string]string{"USERPROFILE": `D:\Users\Ann Lee`, "APPDATA": `D:\Users\Ann Lee\AppData\Roaming`, "HOME": "/ignored"}, []string{
			`D:\Users\Ann Lee\AppData\Roaming\Claude\claude_desktop_config.json`,
			`D:\Users\Ann Lee\.claude.json`,
			`D:\Users\Ann Lee\.cursor\mcp.json`,
			`D:\Users\Ann Lee\.codeium\windsurf\mcp_config.json`,
			`D:\Users\Ann Lee\AppData\Roaming\Code\User\mcp.json`,
			`D:\Users\Ann Lee\.gemini\settings.json`,
			`D:\Users\Ann Lee\.codex\config.toml`,
			`D:\Users\Ann Lee\AppData\Roaming\Zed\settings.json`,
		}, `D:\Users\Ann Lee\AppData\Roaming\mcp-lockcheck\mcp-lock.json`},
		{"linux", map[string]string{"HOME": "/home/ann", "XDG_CONFIG_HOME": "/home/ann/cfg", "CODEX_HOME": "/home/ann/codex"}, []string{
			"/home/ann/cfg/Claude/claude_desktop_config.json",
			"/home/ann/.claude.json",
			"/home/ann/.cursor/mcp.json",
			"/home/ann/.codeium/windsurf/mcp_config.json",
			"/home/ann/cfg/Code/User/mcp.json",
			"/home/ann/.gemini/settings.json",
			"/home/ann/codex/config.toml",
			"/home/ann/cfg/zed/settings.json",
		}, "/home/ann/cfg/mcp-lockcheck/mcp-lock.json"},
	} {
		if got := userConfigs(tc.goos, env(tc.env)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: userConfigs =\n%q\nwant\n%q", tc.goos, got, tc.want)
		}
		if got := UserLockPath(tc.goos, env(tc.env)); got != tc.lock {
			t.Errorf("%s: UserLockPath = %q, want %q", tc.goos, got, tc.lock)
		}
	}
	// No home at all: nothing is looked for relative to the working
	// directory.
	if got := userConfigs("linux", env(nil)); len(got) != 0 {
		t.Errorf("no HOME: userConfigs = %q, want none", got)
	}
}

// TestUserConfigsExisting: only existing regular files are returned, and
// the client is recognised from the path.
func TestUserConfigsExisting(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home with space")
	vars := map[string]string{"HOME": home, "USERPROFILE": home}
	for _, p := range []string{".cursor/mcp.json", ".gemini/settings.json"} {
		f := filepath.Join(home, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(`{"mcpServers":{}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude.json"), 0o755); err != nil { // a directory, not a config
		t.Fatal(err)
	}
	got := UserConfigs(runtime.GOOS, func(k string) string { return vars[k] })
	want := []string{filepath.Join(home, ".cursor", "mcp.json"), filepath.Join(home, ".gemini", "settings.json")}
	if !slices.Equal(got, want) {
		t.Fatalf("UserConfigs = %q, want %q", got, want)
	}
	if c := detectClient(got[0]); c != ClientCursor {
		t.Errorf("client of %s = %s, want cursor", got[0], c)
	}
}
