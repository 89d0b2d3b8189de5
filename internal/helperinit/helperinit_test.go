package helperinit

import (
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

func TestProbes(t *testing.T) {
	for _, tc := range []struct {
		args string
		want sandbox.Level // "": no zygote
	}{
		{"mcp-lockcheck check", sandbox.Basic},
		{"mcp-lockcheck diff --json out.json", sandbox.Basic},
		{"mcp-lockcheck pin --config .mcp.json", sandbox.Basic},
		{"mcp-lockcheck check --sandbox basic", sandbox.Basic},
		{"mcp-lockcheck check --sandbox=basic", sandbox.Basic},
		{"mcp-lockcheck check -- --sandbox strict", sandbox.Basic},
		{"mcp-lockcheck check --sandbox strict", sandbox.Strict},
		{"mcp-lockcheck pin --sandbox=STRICT --jobs 2", sandbox.Strict},
		{"mcp-lockcheck check --sandbox off", ""},
		{"mcp-lockcheck check --sandbox bogus", ""},
		{"mcp-lockcheck check -sandbox=off", ""},
		{"mcp-lockcheck check --sandbox", ""},
		{"mcp-lockcheck check -h", ""},
		{"mcp-lockcheck check --help", ""},
		{"mcp-lockcheck approve", ""},
		{"mcp-lockcheck guard -- node server.js", ""},
		{"mcp-lockcheck version", ""},
		{"mcp-lockcheck", ""},
		{"mcp-lockcheck.test -test.v", ""},
	} {
		got, ok := Probes(strings.Fields(tc.args))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Probes(%q) = %q, %v; want %q", tc.args, got, ok, tc.want)
		}
	}
}
