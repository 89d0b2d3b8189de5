package config

import (
	"strconv"
	"strings"
	"testing"
)

func TestHoldsServers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		want       string // "key@line: names", "" for none
	}{
		{"x.json", `{"mcpServers": {"a": {"command": "x"}, "b": {"url": "u"}}}`, "mcpServers@1: a,b"},
		{"x.jsonc", "{\n // c\n \"servers\": {\"a\": {\"command\": \"x\"}}}", "servers@3: a"},
		{"settings.json", `{"editor.x": 1, "mcp": {"servers": {"a": {"command": "x"}}}}`, "mcp.servers@1: a"},
		{"opencode.json", `{"mcp": {"a": {"type": "local", "command": ["x"]}}}`, "mcp@1: a"},
		{"zed.json", `{"context_servers": {"a": {"command": {"path": "x"}}}}`, "context_servers@1: a"},
		{"claude.json", `{"projects": {"/w": {"mcpServers": {"a": {"command": "x"}}}}}`, "projects./w.mcpServers@1: a"},
		{"c.toml", "[mcp_servers.a]\ncommand = \"x\"\n", "mcp_servers@1: a"},
		{"b.yaml", "name: b\nmcpServers:\n  - name: a\n    command: x\n", "mcpServers@2: a"},
		{"b.yml", "mcpServers:\n  a:\n    url: u\n", "mcpServers@1: a"},
		// Not server maps.
		{"openapi.json", `{"servers": [{"url": "https://x.invalid"}]}`, ""},
		{"package.json", `{"name": "x", "scripts": {"mcp": "node s.js"}}`, ""},
		{"empty.json", `{"mcpServers": {}}`, ""},
		{"lock.json", `{"lockfileVersion": 1, "servers": {"a": {"launch": {"command": "x"}}}}`, ""},
		{"bad.json", `{"mcpServers": {"a": {"command": "x"}`, ""},
		// Too deep to be a client's.
		{"deep.json", `{"a": {"b": {"c": {"mcpServers": {"a": {"command": "x"}}}}}}`, ""},
		// YAML with aliases is not decoded, but not passed over either.
		{"alias.yaml", "x: &a {command: y}\nmcpServers:\n  - *a\n", "mcpServers@2: "},
	}
	for _, tt := range tests {
		h, ok := HoldsServers(tt.name, []byte(tt.data))
		got := ""
		if ok {
			got = h.Key + "@" + strconv.Itoa(h.Line) + ": " + strings.Join(h.Servers, ",")
		}
		if got != tt.want {
			t.Errorf("HoldsServers(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
