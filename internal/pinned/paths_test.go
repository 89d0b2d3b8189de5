package pinned

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
)

// TestLaunchPaths: the directories of a launch as the server sees them, its
// cwd through a symlink included; an unset TMPDIR adds nothing (a bare /tmp
// is ordinary text).
func TestLaunchPaths(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real", "project")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "real"), link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	cmd := exec.Command("true")
	cmd.Dir = filepath.Join(link, "project")
	cmd.Env = []string{"HOME=" + filepath.Join(root, "home"), "PATH=/usr/bin", "XDG_RUNTIME_DIR=relative/run"}
	r := (*redact.Redactor)(nil).WithPaths(LaunchPaths(cmd))
	realResolved, _ := filepath.EvalSymlinks(real)
	for in, want := range map[string]string{
		cmd.Dir + "/out.png":                     "${PWD}/out.png",
		realResolved + "/out.png":                "${PWD}/out.png",
		filepath.Join(root, "home") + "/.config": "${HOME}/.config",
		"/tmp/x":                                 "/tmp/x",
		"relative/run":                           "relative/run",
	} {
		if got := r.String(in); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
	// No Dir: the process's own working directory.
	wd, _ := os.Getwd()
	if got := (*redact.Redactor)(nil).WithPaths(LaunchPaths(exec.Command("true"))).String(wd + "/x"); got != "${PWD}/x" {
		t.Errorf("cwd of the process: %q", got)
	}
}
