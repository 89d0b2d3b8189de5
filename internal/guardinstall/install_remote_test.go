package guardinstall

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestInstallRemote rewrites url entries into the bridge command: the url
// and header templates move into env (never into args, where an expanded
// token would be on every process listing), and uninstall writes the
// entries back byte for byte.
func TestInstallRemote(t *testing.T) {
	in := filepath.Join("testdata", "install", "remote.json")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	before, err := config.Parse(in, data)
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New()
	for _, s := range before {
		if s.Name != "unpinned" {
			lk.Servers[s.Name] = &lock.Server{Launch: pinned.Launch(s), Tools: map[string]*lock.Entry{}}
		}
	}
	out, changes, err := Install(in, data, Options{Lock: lk, LockPath: "/repo/mcp-lock.json", Executable: "/usr/local/bin/mcp-lockcheck", Flags: []string{"--sandbox", "basic", "--mode", "sanitize"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"linear": "guarded (remote)", "legacy": "guarded (remote)", "windsurf-style": "guarded (remote)", "unpinned": "not pinned"}
	for _, c := range changes {
		if want[c.Server] != c.Action || c.Warning != "" {
			t.Errorf("%s: %s %q, want %s", c.Server, c.Action, c.Warning, want[c.Server])
		}
	}
	checkGolden(t, filepath.Join("testdata", "install", "remote.json.guarded"), out)
	after, err := config.Parse(in, out)
	if err != nil {
		t.Fatalf("rewritten config does not parse: %v", err)
	}
	for _, s := range after {
		if s.Name == "unpinned" {
			continue
		}
		if s.Type != config.TypeStdio || strings.Contains(strings.Join(s.Args, " "), "$") {
			t.Errorf("%s: %s %q: a placeholder in args would be expanded onto the command line", s.Name, s.Type, s.Args)
		}
		if slices.Contains(s.Args, "--sandbox") || !slices.Contains(s.Args, "sanitize") {
			t.Errorf("%s: %q: --sandbox does not apply to a remote server; --mode does", s.Name, s.Args)
		}
		if s.Env[config.GuardEnvURL] == "" {
			t.Errorf("%s: no %s in env: %v", s.Name, config.GuardEnvURL, s.Env)
		}
	}
	if again, _, _ := Install(in, out, Options{Lock: lk, LockPath: "/repo/mcp-lock.json", Executable: "/usr/local/bin/mcp-lockcheck", Flags: []string{"--sandbox", "basic"}}); string(again) != string(out) {
		t.Error("a second install changed the file")
	}
	back, _, err := Uninstall(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != string(data) {
		t.Errorf("uninstall did not give back the original bytes:\n%s", back)
	}
	restored, err := config.Parse(in, back)
	if err != nil {
		t.Fatalf("uninstalled config does not parse: %v\n%s", err, back)
	}
	for i, s := range restored {
		b := before[i]
		if s.Name != b.Name || s.Type != b.Type || s.URL != b.URL || !maps.Equal(s.Headers, b.Headers) || !maps.Equal(s.Env, b.Env) {
			t.Errorf("uninstall: %+v, want %+v", s, b)
		}
	}
}

// TestInstallRemoteNotBridged: url entries install cannot bridge are left
// byte for byte as they were, with the server named and the reason said,
// and the rest of the file is still guarded.
func TestInstallRemoteNotBridged(t *testing.T) {
	for _, tt := range []struct{ name, file, data, why string }{
		{"opencode", "opencode.json", `{"mcp": {"r": {"type": "remote", "url": "https://x.invalid/mcp"}, "a": {"type": "local", "command": ["srv"]}}}`, "JSON configs"},
		{"Zed", ".zed/settings.json", `{"context_servers": {"r": {"url": "https://x.invalid/mcp"}, "a": {"command": "srv"}}}`, "JSON configs"},
		{"Codex TOML", ".codex/config.toml", "[mcp_servers.r]\nurl = \"https://x.invalid/mcp\"\n[mcp_servers.a]\ncommand = \"srv\"\n", "JSON configs"},
		{"Continue YAML", ".continue/mcpServers/s.yaml", "mcpServers:\n  - name: r\n    type: sse\n    url: https://x.invalid/sse\n  - name: a\n    command: srv\n", "JSON configs"},
		{"headersHelper", ".mcp.json", `{"mcpServers": {"r": {"type": "http", "url": "https://x.invalid/mcp", "headersHelper": "./get-token.sh"}, "a": {"command": "srv"}}}`, `"headersHelper"`},
		{"header name of spaces", ".mcp.json", `{"mcpServers": {"r": {"url": "https://x.invalid/mcp", "headers": {" ": ""}}, "a": {"command": "srv"}}}`, "cannot be carried"},
		{"header name with a colon", ".mcp.json", `{"mcpServers": {"r": {"url": "https://x.invalid/mcp", "headers": {"X-A:B": "v"}}, "a": {"command": "srv"}}}`, "cannot be carried"},
		{"header value with a trailing space", ".mcp.json", `{"mcpServers": {"r": {"url": "https://x.invalid/mcp", "headers": {"X-Key": "v "}}, "a": {"command": "srv"}}}`, "cannot be carried"},
		{"our env name taken", ".mcp.json", `{"mcpServers": {"r": {"url": "https://x.invalid/mcp", "env": {"MCP_LOCKCHECK_URL": "https://evil.invalid"}}, "a": {"command": "srv"}}}`, "MCP_LOCKCHECK_URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orig, err := config.Parse(tt.file, []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			lk := lock.New()
			for _, s := range orig {
				lk.Servers[s.Name] = &lock.Server{Launch: pinned.Launch(s)}
			}
			out, changes, err := Install(tt.file, []byte(tt.data), Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck"})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				switch c.Server {
				case "r":
					if c.Action != "not bridged" || !strings.Contains(c.Warning, tt.why) {
						t.Errorf("r: %s %q, want not bridged naming %s", c.Action, c.Warning, tt.why)
					}
				case "a":
					if c.Action != "guarded" {
						t.Errorf("a: %s", c.Action)
					}
				}
			}
			back, _, err := Uninstall(tt.file, out)
			if err != nil || string(back) != tt.data {
				t.Errorf("round trip: %v\n%s", err, back)
			}
		})
	}
}

// TestUninstallRemoteWithoutOriginal: an entry that runs the bridge but
// does not carry the bytes install kept (written by hand, or tampered
// with) is left alone and said, never guessed back into a url entry.
func TestUninstallRemoteWithoutOriginal(t *testing.T) {
	bridge := `"command": "mcp-lockcheck", "args": ["guard", "--server", "r", "--remote-env", "--transport", "http"]`
	for _, env := range []string{
		`{"MCP_LOCKCHECK_URL": "https://x.invalid/mcp"}`,
		`{"MCP_LOCKCHECK_URL": "https://x.invalid/mcp", "MCP_LOCKCHECK_ORIGINAL": "not base64!"}`,
		`{"MCP_LOCKCHECK_URL": "https://x.invalid/mcp", "MCP_LOCKCHECK_ORIGINAL": "WyJub3QgYW4gb2JqZWN0Il0="}`,
		`{"MCP_LOCKCHECK_URL": "https://x.invalid/mcp", "MCP_LOCKCHECK_ORIGINAL": "eyJ1cmwiOiAieCIgLyog"}`,
	} {
		data := `{"mcpServers": {"r": {` + bridge + `, "env": ` + env + `}}}`
		out, changes, err := Uninstall(".mcp.json", []byte(data))
		if err != nil || string(out) != data || len(changes) != 1 || changes[0].Action != "not guarded" || !strings.Contains(changes[0].Warning, "MCP_LOCKCHECK_ORIGINAL") {
			t.Errorf("%s: %v %+v\n%s", env, err, changes, out)
		}
	}
}
