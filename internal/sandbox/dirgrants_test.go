//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDirGrants: a project root is granted without its .git, and without
// the temp directory when that lies inside the project (a testscript's
// $WORK/.tmp, a CI job's TMPDIR under its workspace): the rest of the
// project, down to the kept directory's siblings, is granted.
func TestDirGrants(t *testing.T) {
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git", "srv", "build/.tmp", "build/out", "docs"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".mcp.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(proj, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(proj, ".git"), filepath.Join(proj, "link-git")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(proj, "build", ".tmp"))
	r := newRun(t, Basic, Options{})
	got := r.dirGrants(proj)
	slices.Sort(got)
	want := []string{
		filepath.Join(proj, ".mcp.json"),
		filepath.Join(proj, "build", "out"),
		filepath.Join(proj, "docs"),
		filepath.Join(proj, "srv"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("dirGrants(%s) =\n%q\nwant\n%q", proj, got, want)
	}
	// The run directory itself, HOME and the temp directory are never
	// granted as a working directory.
	for _, d := range []string{r.Dir(), os.TempDir()} {
		if g := r.dirGrants(d); len(g) != 0 {
			t.Errorf("dirGrants(%s) = %q, want nothing", d, g)
		}
	}
}
