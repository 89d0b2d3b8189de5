package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestUnknownKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, data string
		want             []string // "LINE server key suggest"
	}{
		{"arg for args", ".mcp.json", "{\"mcpServers\": {\n  \"fs\": {\n    \"command\": \"npx\",\n    \"arg\": [\"x\"]\n  }\n}}\n",
			[]string{"4 fs arg args"}},
		{"several typos", ".mcp.json", `{"mcpServers": {"a": {"cmd": "x", "env_vars": {}, "environment": {}, "header": {}, "URL": "u", "agrs": [], "comand": "x"}}}`,
			[]string{"1 a cmd command", "1 a env_vars env", "1 a environment env", "1 a header headers", "1 a URL url", "1 a agrs args", "1 a comand command"}},
		{"no suggestion for a far key", ".mcp.json", `{"mcpServers": {"a": {"command": "x", "colour": "red"}}}`,
			[]string{"1 a colour "}},
		{"every client's own keys pass", ".mcp.json", `{"mcpServers": {"a": {"type": "stdio", "command": "x", "args": [], "env": {}, "cwd": "/", "disabled": false, "alwaysAllow": [], "autoApprove": [], "timeout": 60, "envFile": ".env", "trust": true, "includeTools": [], "excludeTools": [], "disabledTools": [], "watchPaths": [], "description": "d", "transportType": "stdio"},
			"r": {"url": "https://x.invalid", "headers": {}, "headersHelper": "h", "oauth": {}}, "w": {"serverUrl": "https://x.invalid"}, "g": {"httpUrl": "https://x.invalid"}}}`, nil},
		{"Cursor's envFile", ".cursor/mcp.json", `{"mcpServers": {"a": {"command": "x", "envFile": ".env"}}}`, nil},
		{"VS Code", ".vscode/mcp.json", "// c\n{\"servers\": {\"a\": {\"type\": \"stdio\", \"command\": \"x\", \"envFile\": \"e\", \"dev\": {}, \"sandboxEnabled\": true,}, \"b\": {\"command\": \"x\", \"alwaysAllow\": []}}, \"inputs\": []}",
			[]string{"2 b alwaysAllow "}},
		{"Zed nested command", ".zed/settings.json", `{"context_servers": {"z": {"source": "custom", "enabled": true, "settings": {}, "command": {"path": "x", "arg": []}}}}`,
			[]string{"1 z arg args"}},
		{"opencode", "opencode.json", `{"mcp": {"o": {"type": "local", "command": ["x"], "environment": {}, "enabled": true, "timeout": 5, "env": {}}}}`,
			[]string{"1 o env environment"}},
		{"opencode 2.x", "opencode.jsonc", `{"mcp": {"servers": {"o": {"type": "local", "command": ["x"], "disabled": true, "cwd": ".", "args": []}}}}`,
			[]string{"1 o args "}},
		{"Codex", ".codex/config.toml", "[mcp_servers.c]\ncommand = \"x\"\nenv_vars = [\"HOME\"]\nstartup_timeout_sec = 20\narg = [\"y\"]\nenvironment = {}\n",
			[]string{"5 c arg args", "6 c environment env"}},
		{"Continue", ".continue/mcpServers/s.yaml", "name: block\nmcpServers:\n  - name: s\n    command: x\n    connectionTimeout: 5\n    arg: [y]\n",
			[]string{"6 s arg args"}},
		{"a homoglyph of args", ".mcp.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"arg\u0455\": [\"y\"], \"Args\": []}}}",
			[]string{"1 a arg\u0455 args", "1 a Args args"}},
		{"broken file gives nothing", ".mcp.json", `{"mcpServers": {`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, w := range UnknownKeys(tt.file, []byte(tt.data)) {
				got = append(got, fmt.Sprintf("%d %s %s %s", w.Line, w.Server, w.Key, w.Suggest))
				if w.File != tt.file {
					t.Errorf("file %q", w.File)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestKeyWarningMessage(t *testing.T) {
	t.Parallel()
	w := KeyWarning{Server: "fs", Key: "arg", Suggest: "args", Format: mcpServersKeys.format}
	if got := w.Message(); !strings.Contains(got, `unknown key "arg"`) || !strings.Contains(got, `did you mean "args"?`) {
		t.Errorf("message %q", got)
	}
	w.Key = "arg\u0455"
	if got := w.Message(); !strings.Contains(got, `unknown key "arg\u0455"`) {
		t.Errorf("a homoglyph key is not shown escaped: %q", got)
	}
}
