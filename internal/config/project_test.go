package config

import (
	"path/filepath"
	"testing"
)

func TestProjectRoot(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"/p/.mcp.json":                         "/p",
		"/p/.vscode/mcp.json":                  "/p",
		"/p/.cursor/mcp.json":                  "/p",
		"/p/.roo/mcp.json":                     "/p",
		"/p/.amazonq/mcp.json":                 "/p",
		"/p/.kiro/settings/mcp.json":           "/p",
		"/p/.junie/mcp/mcp.json":               "/p",
		"/p/.continue/mcpServers/x.yaml":       "/p",
		"/p/opencode.json":                     "/p",
		"/home/u/.config/proj/.mcp.json":       "/home/u/.config/proj",
		"/p/settings/mcp.json":                 "/p/settings",
		"examples/demo/.mcp.json":              "examples/demo",
		"/p/.codeium/windsurf/mcp_config.json": "/p",
	} {
		if got := ProjectRoot(filepath.FromSlash(file)); got != filepath.FromSlash(want) {
			t.Errorf("ProjectRoot(%s) = %s, want %s", file, got, want)
		}
	}
}

// TestWorkflowYAMLIsNoServerMap: a GitHub workflow or action file with a
// `servers` input and the `&&` and `*` every workflow has is not a config
// holding servers; YAML with a real anchor is still reported unread.
func TestWorkflowYAMLIsNoServerMap(t *testing.T) {
	t.Parallel()
	action := "inputs:\n  servers:\n    description: Only these servers. Default - all.\n    default: ''\nruns:\n  steps:\n    - if: always() && inputs.x == 'true'\n      run: ls *.json\n"
	if h, ok := HoldsServers("action.yml", []byte(action)); ok {
		t.Errorf("action.yml read as holding servers: %+v", h)
	}
	anchored := "base: &b {command: evil}\nmcpServers:\n  x: *b\n"
	if _, ok := HoldsServers("x.yaml", []byte(anchored)); !ok {
		t.Error("YAML with anchors and a server map was passed over")
	}
}
