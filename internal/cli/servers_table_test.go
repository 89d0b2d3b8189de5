package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/termtable"
)

// TestServersTable: on a terminal, servers draws its rows as a table that
// fits the terminal, cutting the launch line, never the name or config.
func TestServersTable(t *testing.T) {
	t.Parallel()
	servers := []config.Server{
		{Name: "filesystem", File: ".mcp.json", Line: 3, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/home/user/projects/a/very/long/path"}},
		{Name: "docs", File: ".vscode/mcp.json", Line: 12, URL: "https://docs.invalid/mcp"},
	}
	rows := serverRows(servers)
	if got := strings.Join(rows[0], "\t"); !strings.HasPrefix(got, "filesystem\t.mcp.json:3\tstdio\tnpx -y @modelcontextprotocol") {
		t.Errorf("row %q", got)
	}
	var buf bytes.Buffer
	if err := termtable.Write(&buf, []string{"server", "config", "transport", "launch"}, rows, 80); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if utf8.RuneCountInString(line) > 80 {
			t.Errorf("line of %d: %q", utf8.RuneCountInString(line), line)
		}
	}
	for _, want := range []string{"filesystem", ".vscode/mcp.json:12", "https://docs.invalid/mcp", "transport"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%q cut:\n%s", want, buf.String())
		}
	}
}
