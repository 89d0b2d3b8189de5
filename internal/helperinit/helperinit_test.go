package helperinit

import (
	"strings"
	"testing"
)

func TestProbes(t *testing.T) {
	for _, tc := range []struct {
		args string
		want bool
	}{
		{"mcp-lockcheck check", true},
		{"mcp-lockcheck diff --json out.json", true},
		{"mcp-lockcheck pin --config .mcp.json", true},
		{"mcp-lockcheck check --sandbox basic", true},
		{"mcp-lockcheck check --sandbox=basic", true},
		{"mcp-lockcheck check -- --sandbox strict", true},
		{"mcp-lockcheck check --sandbox strict", false},
		{"mcp-lockcheck check -sandbox=off", false},
		{"mcp-lockcheck check --sandbox", false},
		{"mcp-lockcheck check -h", false},
		{"mcp-lockcheck check --help", false},
		{"mcp-lockcheck approve", false},
		{"mcp-lockcheck guard -- node server.js", false},
		{"mcp-lockcheck version", false},
		{"mcp-lockcheck", false},
		{"mcp-lockcheck.test -test.v", false},
	} {
		if got := Probes(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("Probes(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
