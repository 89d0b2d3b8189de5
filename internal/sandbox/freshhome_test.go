//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFreshHomeCaches: on a fresh account (no ~/.npm, ~/.cache or ~/go
// yet) a basic server can still install into the package caches: New
// creates them, owned by the user, before the write rules that grant
// only directories that exist. Before, every npx server on a new runner
// or a new laptop account failed with EACCES creating ~/.npm.
func TestFreshHomeCaches(t *testing.T) {
	if landlockABI() < 1 {
		t.Skip("no landlock: basic does not restrict writes here, so any cache is writable")
	}
	home := t.TempDir()
	getenv := func(k string) (string, bool) {
		switch k {
		case "HOME":
			return home, true
		case "PATH":
			return os.Getenv("PATH"), true
		}
		return "", false
	}
	r := newRun(t, Basic, Options{Getenv: getenv})
	for _, c := range []string{".npm", ".cache/uv", "go/pkg/mod", ".cache/go-build"} {
		dir := filepath.Join(home, c)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a directory only its user reads", dir, fi, err)
		}
	}
	for _, s := range starts {
		t.Run(s.name, func(t *testing.T) {
			p := filepath.Join(home, ".npm", "_cacache-"+s.name)
			if out, err := launchWith(t, r, s.start, "write", p); err != nil {
				t.Errorf("basic could not write its npm cache on a fresh HOME: %q %v", out, err)
			}
			// Only the caches: the rest of HOME stays unwritable.
			if out, err := launchWith(t, r, s.start, "write", filepath.Join(home, ".bashrc-"+s.name)); err == nil {
				t.Errorf("basic wrote beside the caches in HOME: %q", out)
			}
		})
	}
}
