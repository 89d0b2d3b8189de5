package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsLookPath: a config's "npx" is npx.cmd, a path with a drive
// letter or either separator is taken as a path, spaces are fine, and a
// file without an executable extension is not run.
func TestWindowsLookPath(t *testing.T) {
	t.Setenv("PATHEXT", ".COM;.EXE;.BAT;.CMD")
	bin := filepath.Join(t.TempDir(), "Program Files", "node")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"npx.cmd", "node.exe", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(bin, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ command, want string }{
		{"npx", filepath.Join(bin, "npx.cmd")},
		{"node", filepath.Join(bin, "node.exe")},
		{"NODE.EXE", filepath.Join(bin, "NODE.EXE")},
		{filepath.Join(bin, "node"), filepath.Join(bin, "node.exe")},
		{strings.ReplaceAll(filepath.Join(bin, "npx.cmd"), `\`, "/"), strings.ReplaceAll(filepath.Join(bin, "npx.cmd"), `\`, "/")},
	} {
		got, err := lookPath(tc.command, bin, "")
		if err != nil {
			t.Errorf("lookPath(%q): %v", tc.command, err)
			continue
		}
		if !strings.EqualFold(got, tc.want) {
			t.Errorf("lookPath(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
	for _, bad := range []string{"notes", "notes.txt", "missing"} {
		if got, err := lookPath(bad, bin, ""); err == nil {
			t.Errorf("lookPath(%q) = %q, want an error", bad, got)
		}
	}
	for _, tc := range []struct {
		s    string
		want bool
	}{{"npx", false}, {`C:npx`, true}, {`C:\node\npx`, true}, {`.\npx`, true}, {"./npx", true}, {`\\server\share\npx`, true}} {
		if got := hasDir(tc.s); got != tc.want {
			t.Errorf("hasDir(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
