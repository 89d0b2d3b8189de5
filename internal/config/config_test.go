package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// samples are realistic configs of every client shape, with the client each
// must be detected as.
var samples = []struct {
	path   string
	client string
}{
	{"testdata/clients/claude-code/.mcp.json", ClientClaudeCode},
	{"testdata/clients/claude-desktop/claude_desktop_config.json", ClientClaudeDesktop},
	{"testdata/clients/codex/.codex/config.toml", ClientCodex},
	{"testdata/clients/cursor/.cursor/mcp.json", ClientCursor},
	{"testdata/clients/gemini-cli/.gemini/settings.json", ClientGeminiCLI},
	{"testdata/clients/vscode/.vscode/mcp.json", ClientVSCode},
	{"testdata/clients/windsurf/.codeium/windsurf/mcp_config.json", ClientWindsurf},
	{"testdata/clients/zed/.zed/settings.json", ClientZed},
	{"testdata/clients/roo-code/.roo/mcp.json", ClientRooCode},
	{"testdata/clients/kiro/.kiro/settings/mcp.json", ClientKiro},
	{"testdata/clients/amazon-q/.amazonq/mcp.json", ClientAmazonQ},
	{"testdata/clients/junie/.junie/mcp/mcp.json", ClientJunie},
	{"testdata/clients/continue/.continue/mcpServers/playwright.yaml", ClientContinue},
	{"testdata/clients/opencode/opencode.jsonc", ClientOpenCode},
}

func TestLoadClients(t *testing.T) {
	t.Parallel()
	for _, tc := range samples {
		t.Run(tc.client, func(t *testing.T) {
			servers, err := Load(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if len(servers) == 0 {
				t.Fatal("no servers")
			}
			for _, s := range servers {
				if s.Client != tc.client {
					t.Errorf("%s: Client = %q, want %q", s.Name, s.Client, tc.client)
				}
				if s.File != tc.path {
					t.Errorf("%s: File = %q, want %q", s.Name, s.File, tc.path)
				}
			}
			if !slices.IsSortedFunc(servers, func(a, b Server) int { return strings.Compare(a.Name, b.Name) }) {
				t.Error("servers not sorted by name")
			}
			got, err := json.MarshalIndent(servers, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "clients", tc.client+".golden.json"), append(got, '\n'))
		})
	}
}

// golden compares got with the file, or rewrites the file under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/config -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestServerLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path  string
		lines map[string]int
	}{
		{"testdata/clients/claude-code/.mcp.json", map[string]int{"filesystem": 3, "github": 7, "playwright": 14}},
		{"testdata/clients/vscode/.vscode/mcp.json", map[string]int{"github": 13, "playwright": 20, "filesystem": 26}},
		{"testdata/clients/codex/.codex/config.toml", map[string]int{"filesystem": 4, "github": 9, "playwright": 13}},
		{"testdata/clients/zed/.zed/settings.json", map[string]int{"github": 5, "filesystem": 12}},
	}
	for _, tc := range tests {
		servers, err := Load(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range servers {
			if want := tc.lines[s.Name]; s.Line != want {
				t.Errorf("%s: %s: Line = %d, want %d", tc.path, s.Name, s.Line, want)
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, in, want string
	}{
		{"syntax: missing comma", "x.json",
			"{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\" \"args\": []}\n  }\n}",
			`x.json:3:29: invalid JSON: invalid character '"' after object key:value pair`},
		{"syntax: unexpected end", "x.json",
			"{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"npx\"}\n  }\n\n",
			`x.json:4:4: invalid JSON: unexpected end of JSON input`},
		{"syntax: empty file", "x.json", "", `x.json:1:1: invalid JSON: unexpected end of JSON input`},
		{"opencode: command is a list", "opencode.json", "{\"mcp\": {\n \"a\": {\"type\": \"local\", \"command\": \"npx x\"}}}",
			`opencode.json:2:36: server "a": "command" must be an array of strings, not a string`},
		{"opencode: no type", "opencode.json", `{"mcp": {"a": {"command": ["x"]}}}`, `opencode.json:1:10: server "a" has no "type" (opencode wants "local" or "remote")`},
		{"opencode: twice", "opencode.json", "{\"mcp\": {\"a\": {\"type\": \"remote\", \"url\": \"u\"},\n\"a\": {}}}", `opencode.json:2:1: server "a" is defined twice (first on line 1)`},
		{"continue: alias", ".continue/mcpServers/x.yaml", "base: &b {command: x}\nmcpServers:\n  - name: a\n    <<: *b\n", `.continue/mcpServers/x.yaml:1:7: anchors, aliases, tags and merge keys are not supported in an MCP config: write the value out`},
		{"continue: no name", ".continue/mcpServers/x.yaml", "mcpServers:\n  - command: x\n", `.continue/mcpServers/x.yaml:2:5: a server in "mcpServers" has no "name"`},
		{"continue: twice", ".continue/mcpServers/x.yaml", "mcpServers:\n  - name: a\n    command: x\n  - name: a\n    command: y\n", `.continue/mcpServers/x.yaml:4:5: server "a" is defined twice (first on line 2)`},
		{"continue: not a list", ".continue/mcpServers/x.yaml", "mcpServers:\n  a:\n    command: x\n", `.continue/mcpServers/x.yaml:1:1: no MCP servers: expected an "mcpServers" list of servers`},
		{"continue: duplicate key", ".continue/mcpServers/x.yaml", "mcpServers:\n  - name: a\n    command: x\n    command: y\n", `.continue/mcpServers/x.yaml:4:5: invalid YAML: mapping key "command" already defined at [3:5]`},
		{"syntax: after a comment", "x.json",
			"{ // c\n  /* é */ \"mcpServers\": x }",
			`x.json:2:26: invalid JSON: invalid character 'x' looking for beginning of value`},
		// After a comment hujson finds the error; the words stay encoding/json's.
		{"syntax: bad literal after a comment", "x.json", "{ // c\n \"mcpServers\": tru }",
			`x.json:2:19: invalid JSON: invalid character ' ' in literal true (expecting 'e')`},
		{"syntax: no colon after a comment", "x.json", "{ // c\n \"mcpServers\": {\"a\" 1}}",
			`x.json:2:21: invalid JSON: invalid character '1' after object key`},
		{"syntax: end after a comment", "x.json", "{ // c\n \"mcpServers\": {}\n",
			`x.json:2:18: invalid JSON: unexpected end of JSON input`},
		{"syntax: newline in a string after a comment", "x.json", "{ // c\n \"a\": \"x\ny\"}",
			`x.json:2:9: invalid JSON: invalid character '\n' in string literal`},
		// hujson is stricter than the old stripper about what a comment holds.
		{"syntax: invalid UTF-8 in a comment", "x.json", "{\"mcpServers\": {} /* \xff */}",
			`x.json:1:19: invalid JSON: invalid UTF-8 in comment`},
		{"syntax: line separator in a // comment", "x.json", "{\"mcpServers\": {} // a\u2028b\n}",
			`x.json:1:23: invalid JSON: invalid character '\u2028' in line comment`},
		{"syntax: trailing data", "x.json", "{\"mcpServers\": {}}\n{}",
			`x.json:2:1: invalid JSON: invalid character '{' after top-level value`},
		{"syntax: empty element stays an error", "x.json", `{"mcpServers": {"a": {"command": "x", "args": [,]}}}`,
			`x.json:1:48: invalid JSON: invalid character ',' looking for beginning of value`},
		{"unterminated comment", "x.json", "{\n /* oops\n}", `x.json:2:2: unterminated /* comment`},
		{"top level array", "x.json", "\n [1]", `x.json:2:2: top level must be an object, not an array`},
		{"no known keys", "x.json", "{\"servers_typo\": {}}",
			`x.json:1:1: no MCP servers: expected a top-level "mcpServers", "servers" or "context_servers" object`},
		{"container not object", "x.json", `{"mcpServers": []}`,
			`x.json:1:16: "mcpServers" must be an object mapping server names to servers, not an array`},
		{"args is a string", "x.json", "{\"mcpServers\": {\n  \"fs\": {\"command\": \"npx\", \"args\": \"-y server\"}}}",
			`x.json:2:36: server "fs": "args" must be an array of strings, not a string`},
		{"args element is a number", "x.json", `{"mcpServers": {"fs": {"command": "npx", "args": ["a", 2]}}}`,
			`x.json:1:56: server "fs": "args" must be an array of strings, but element 1 is a number`},
		{"env value is a number", "x.json", `{"mcpServers": {"fs": {"command": "npx", "env": {"PORT": 3000}}}}`,
			`x.json:1:58: server "fs": "env" must be an object of strings, but "PORT" is a number`},
		{"command is a number", "x.json", `{"mcpServers": {"fs": {"command": 1}}}`,
			`x.json:1:35: server "fs": "command" must be a string, not a number`},
		{"server is a string", "x.json", `{"mcpServers": {"fs": "npx"}}`,
			`x.json:1:23: server "fs" must be an object, not a string`},
		{"neither command nor url", "x.json", "{\"mcpServers\": {\n\n   \"fs\": {\"args\": []}}}",
			`x.json:3:4: server "fs" has neither "command" nor "url"`},
		{"zed extension server", "settings.json", `{"context_servers": {"pg": {"source": "extension", "settings": {}}}}`,
			`settings.json:1:22: server "pg" has neither "command" nor "url": servers provided by Zed extensions cannot be checked; configure its command instead`},
		{"duplicate server", "x.json", "{\"mcpServers\": {\n\"fs\": {\"command\": \"a\"},\n\"fs\": {\"command\": \"b\"}}}",
			`x.json:3:1: server "fs" is defined twice (first on line 2)`},
		{"duplicate server across containers", "x.json", "{\"mcpServers\": {\"fs\": {\"command\": \"a\"}},\n\"servers\": {\"fs\": {\"command\": \"a\"}}}",
			`x.json:2:13: server "fs" is defined twice (first on line 1)`},
		{"duplicate field", "x.json", `{"mcpServers": {"fs": {"command": "a", "command": "b"}}}`,
			`x.json:1:40: server "fs": "command" is given twice (first on line 1)`},
		{"duplicate env name", "x.json", "{\"mcpServers\": {\"fs\": {\"command\": \"a\", \"env\": {\n\"TOKEN\": \"ghp_secret1\",\n\"TOKEN\": \"ghp_secret2\"}}}}",
			`x.json:3:1: server "fs": "env" sets "TOKEN" twice (first on line 2)`},
		{"duplicate container", "x.json", "{\"mcpServers\": {},\n\"mcpServers\": {}}",
			`x.json:2:1: "mcpServers" is given twice (first on line 1)`},
		{"unknown type", "x.json", `{"mcpServers": {"fs": {"type": "ws", "url": "ws://x"}}}`,
			`x.json:1:32: server "fs": unknown "type" "ws" (want "stdio", "http", "streamable-http" or "sse")`},
		{"http without url", "x.json", `{"mcpServers": {"fs": {"type": "http", "command": "x"}}}`,
			`x.json:1:17: server "fs": type "http" needs a "url"`},
		{"two urls", "x.json", `{"mcpServers": {"fs": {"url": "http://a", "httpUrl": "http://b"}}}`,
			`x.json:1:43: server "fs": give only one of "url" and "httpUrl"`},
		{"zed args twice", "settings.json", `{"context_servers": {"fs": {"command": {"path": "x", "args": []}, "args": []}}}`,
			`settings.json:1:67: server "fs": "args" is given both inside "command" and beside it`},
		{"zed nested type error", "settings.json", `{"context_servers": {"fs": {"command": {"path": ["x"]}}}}`,
			`settings.json:1:49: server "fs": "command.path" must be a string, not an array`},
		{"empty name", "x.json", `{"mcpServers": {"": {"command": "x"}}}`,
			`x.json:1:17: server name must not be empty`},
		{"toml syntax", "config.toml", "[mcp_servers.fs]\ncommand = \n",
			`config.toml:2:11: invalid TOML: expected value but found '\n' instead`},
		{"toml args is a string", "config.toml", "[mcp_servers.fs]\ncommand = \"npx\"\nargs = \"-y\"\n",
			`config.toml:3: server "fs": "args" must be an array of strings, not a string`},
		{"toml env value", "config.toml", "[mcp_servers.fs]\ncommand = \"npx\"\nenv = { PORT = 1 }\n",
			`config.toml:3: server "fs": "env" must be a table of strings, but "PORT" is a number`},
		{"toml neither", "config.toml", "\n[mcp_servers.fs]\nargs = []\n",
			`config.toml:2: server "fs" has neither "command" nor "url"`},
		{"toml servers not a table", "config.toml", "mcp_servers = 3\n",
			`config.toml:1: mcp_servers must be a table of servers ([mcp_servers.NAME])`},
		{"toml server not a table", "config.toml", "[mcp_servers]\nfs = \"npx\"\n",
			`config.toml:2: server "fs" must be a table`},
		{"toml dotted keys", "config.toml", "[mcp_servers]\nfs.args = []\n\nfs.env = {}\n",
			`config.toml:2: server "fs" has neither "command" nor "url"`},
		{"toml no servers", "mcp.toml", "model = \"x\"\n",
			`mcp.toml: no MCP servers: expected [mcp_servers.NAME] tables`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file, []byte(tc.in))
			if err == nil {
				t.Fatalf("no error, want %s", tc.want)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is %T, not *Error", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "ghp_secret") {
				t.Errorf("error leaks a secret value: %s", err)
			}
		})
	}
}

func TestParseNoServers(t *testing.T) {
	t.Parallel()
	// General settings files need not configure any server.
	for _, name := range []string{".gemini/settings.json", ".zed/settings.json", "config.toml", ".claude.json"} {
		in := `{"theme": "dark"}`
		if strings.HasSuffix(name, ".toml") {
			in = `model = "o3"`
		}
		servers, err := Parse(name, []byte(in))
		if err != nil || len(servers) != 0 {
			t.Errorf("%s: got %v, %v; want no servers and no error", name, servers, err)
		}
	}
}

func TestParseShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, in string
		want           Server
	}{
		{"gemini url is sse", ".gemini/settings.json", `{"mcpServers": {"a": {"url": "http://h/sse"}}}`,
			Server{Name: "a", Type: TypeSSE, URL: "http://h/sse", Client: ClientGeminiCLI}},
		{"gemini httpUrl is http", ".gemini/settings.json", `{"mcpServers": {"a": {"httpUrl": "http://h/mcp"}}}`,
			Server{Name: "a", Type: TypeHTTP, URL: "http://h/mcp", Client: ClientGeminiCLI}},
		{"explicit type wins", ".gemini/settings.json", `{"mcpServers": {"a": {"type": "http", "url": "http://h/mcp"}}}`,
			Server{Name: "a", Type: TypeHTTP, URL: "http://h/mcp", Client: ClientGeminiCLI}},
		{"url defaults to http", ".mcp.json", `{"mcpServers": {"a": {"url": "http://h/mcp"}}}`,
			Server{Name: "a", Type: TypeHTTP, URL: "http://h/mcp", Client: ClientClaudeCode}},
		{"streamable-http", ".mcp.json", `{"mcpServers": {"a": {"type": "streamable-http", "url": "u"}}}`,
			Server{Name: "a", Type: TypeHTTP, URL: "u", Client: ClientClaudeCode}},
		{"null fields are absent", ".mcp.json", `{"mcpServers": {"a": {"command": "x", "args": null, "env": null}}}`,
			Server{Name: "a", Type: TypeStdio, Command: "x", Client: ClientClaudeCode}},
		{"servers key means vscode", "/home/u/.config/Code/User/mcp.json", `{"servers": {"a": {"command": "x"}}}`,
			Server{Name: "a", Type: TypeStdio, Command: "x", Client: ClientVSCode}},
		{"context_servers means zed", "zed.json", `{"context_servers": {"a": {"command": "x"}}}`,
			Server{Name: "a", Type: TypeStdio, Command: "x", Client: ClientZed}},
		{"plain mcp.json is unknown", "mcp.json", `{"mcpServers": {"a": {"command": "x"}}}`,
			Server{Name: "a", Type: TypeStdio, Command: "x", Client: ClientUnknown}},
		{"BOM", "claude_desktop_config.json", "\ufeff{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}",
			Server{Name: "a", Type: TypeStdio, Command: "x", Client: ClientClaudeDesktop}},
		{"opencode 2.x mcp.servers", "opencode.json", `{"mcp": {"servers": {"a": {"type": "local", "command": ["node", "s.js"], "disabled": true}}}}`,
			Server{Name: "a", Type: TypeStdio, Command: "node", Args: []string{"s.js"}, Client: ClientOpenCode}},
		{"opencode 1.x server named servers", ".opencode/opencode.jsonc", `{"mcp": {"servers": {"type": "remote", "url": "u"}}}`,
			Server{Name: "servers", Type: TypeHTTP, URL: "u", Client: ClientOpenCode}},
		{"continue JSON block is mcpServers", ".continue/mcpServers/x.json", `{"mcpServers": {"a": {"command": "x"}}}`,
			Server{Name: "a", Type: TypeStdio, Command: "x", Client: ClientContinue}},
		{"continue sse", ".continue/mcpServers/x.yml", "mcpServers:\n  - name: a\n    type: sse\n    url: u\n",
			Server{Name: "a", Type: TypeSSE, URL: "u", Client: ClientContinue}},
		{"kiro", ".kiro/settings/mcp.json", `{"mcpServers": {"a": {"url": "u"}}}`,
			Server{Name: "a", Type: TypeHTTP, URL: "u", Client: ClientKiro}},
		{"amazon q agent config", ".amazonq/default.json", `{"name": "default", "mcpServers": {"a": {"command": "x"}}, "tools": ["*"]}`,
			Server{Name: "a", Type: TypeStdio, Command: "x", Client: ClientAmazonQ}},
		{"codex env headers", ".codex/config.toml", "[mcp_servers.a]\nurl = \"u\"\nhttp_headers = { X-Org = \"acme\" }\nenv_http_headers = { X-Key = \"KEY\" }\n",
			Server{Name: "a", Type: TypeHTTP, URL: "u", Client: ClientCodex, Headers: map[string]string{"X-Org": "acme", "X-Key": "${KEY}"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.file, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("got %d servers, want 1", len(got))
			}
			g := got[0]
			g.File, g.Line = "", 0
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(tc.want)
			if !bytes.Equal(gj, wj) {
				t.Errorf("got  %s\nwant %s", gj, wj)
			}
		})
	}
}

func TestLoadAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, content string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write(".mcp.json", "{\"mcpServers\": {\n  \"fs\": {\"command\": \"npx\", \"args\": [\"a\"], \"env\": {\"T\": \"secret-one\"}},\n  \"mem\": {\"command\": \"npx\"}\n}}")
	b := write(".vscode/mcp.json", "{\"servers\": {\n  \"mem\": {\"type\": \"stdio\", \"command\": \"npx\"},\n  \"web\": {\"type\": \"http\", \"url\": \"https://x\"}\n}}")
	c := write(".cursor/mcp.json", "{\"mcpServers\": {\n\n  \"fs\": {\"command\": \"npx\", \"args\": [\"a\"], \"env\": {\"T\": \"secret-two\"}}\n}}")

	servers, err := LoadAll([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range servers {
		names = append(names, s.Name+"@"+s.Client)
	}
	if want := []string{"fs@claude-code", "mem@claude-code", "web@vscode"}; !slices.Equal(names, want) {
		t.Errorf("names = %v, want %v (first file wins on identical launches)", names, want)
	}

	_, err = LoadAll([]string{a, b, c})
	want := c + `:3: server "fs" is also defined at ` + a + `:2 with a different env; rename one of them or make them identical`
	if err == nil || err.Error() != want {
		t.Errorf("conflict error\n got: %v\nwant: %s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "secret") {
		t.Errorf("error leaks env values: %v", err)
	}

	_, err = LoadAll([]string{a, filepath.Join(dir, "missing.json")})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want an error wrapping os.ErrNotExist", err)
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, rel := range []string{"mcp.json", ".vscode/mcp.json", ".mcp.json", ".gemini/settings.json", "claude_desktop_config.json", ".cursor/mcp.json", "other.json",
		".roo/mcp.json", ".kiro/settings/mcp.json", ".amazonq/mcp.json", ".junie/mcp/mcp.json", ".continue/mcpServers/a.yaml", ".continue/mcpServers/b.json", ".continue/mcpServers/notes.md", "opencode.jsonc", ".windsurf/mcp_config.json"} {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A directory where a file is expected is not a config.
	if err := os.MkdirAll(filepath.Join(dir, ".vscode", "mcp.json.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := Discover(dir)
	var rel []string
	for _, p := range got {
		r, _ := filepath.Rel(dir, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{".amazonq/mcp.json", ".continue/mcpServers/a.yaml", ".continue/mcpServers/b.json", ".cursor/mcp.json", ".gemini/settings.json", ".junie/mcp/mcp.json", ".kiro/settings/mcp.json", ".mcp.json", ".roo/mcp.json", ".vscode/mcp.json", ".windsurf/mcp_config.json", "claude_desktop_config.json", "mcp.json", "opencode.jsonc"}
	if !slices.Equal(rel, want) {
		t.Errorf("Discover = %v, want %v", rel, want)
	}

	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, ".mcp.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Discover(empty); len(got) != 0 {
		t.Errorf("Discover(empty) = %v, want none", got)
	}
}

func TestEnvNames(t *testing.T) {
	t.Parallel()
	s := Server{Env: map[string]string{"B": "secret", "A": "${X}", "C": ""}}
	if got, want := s.EnvNames(), []string{"A", "B", "C"}; !slices.Equal(got, want) {
		t.Errorf("EnvNames = %v, want %v", got, want)
	}
	if got := (Server{}).EnvNames(); len(got) != 0 {
		t.Errorf("EnvNames of no env = %v", got)
	}
}

func TestClientInfo(t *testing.T) {
	t.Parallel()
	clients := []string{ClientClaudeCode, ClientClaudeDesktop, ClientCursor, ClientVSCode, ClientWindsurf, ClientGeminiCLI, ClientCodex, ClientZed, ClientUnknown, ""}
	for _, c := range clients {
		name, version := ClientInfo(c)
		if name == "" || version == "" {
			t.Errorf("ClientInfo(%q) = %q, %q", c, name, version)
		}
		for _, bad := range []string{"check", "lock"} {
			if strings.Contains(strings.ToLower(name), bad) {
				t.Errorf("ClientInfo(%q) name %q gives the checker away", c, name)
			}
		}
	}
	for c, want := range map[string][2]string{
		ClientClaudeCode:    {"claude-code", "2.0.14"},
		ClientVSCode:        {"Visual Studio Code", "1.105.1"},
		ClientCursor:        {"cursor-vscode", "1.0.0"},
		ClientClaudeDesktop: {"claude-ai", "0.1.0"},
		ClientUnknown:       {"claude-code", "2.0.14"},
	} {
		if n, v := ClientInfo(c); n != want[0] || v != want[1] {
			t.Errorf("ClientInfo(%q) = %q, %q; want %q, %q", c, n, v, want[0], want[1])
		}
	}
}
