package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockArg(t *testing.T) {
	root := t.TempDir()
	lockAbs := filepath.Join(root, "mcp-lock.json")
	tests := []struct {
		config string
		user   bool
		want   string
		note   bool
	}{
		{filepath.Join(root, ".mcp.json"), false, "mcp-lock.json", false},
		// relative to the project, not to .vscode/: clients start servers there
		{filepath.Join(root, ".vscode", "mcp.json"), false, "mcp-lock.json", false},
		{filepath.Join(root, ".kiro", "settings", "mcp.json"), false, "mcp-lock.json", false},
		{filepath.Join(root, "sub", ".mcp.json"), false, lockAbs, true},
		{filepath.Join(root, ".cursor", "mcp.json"), true, lockAbs, false},
	}
	for _, tt := range tests {
		got, note := lockArg(lockAbs, tt.config, tt.user)
		if got != tt.want || (note != "") != tt.note {
			t.Errorf("%s (user %v): %q, note %q; want %q", tt.config, tt.user, got, note, tt.want)
		}
	}
}

// TestLookPath: only absolute PATH entries count, so a repository cannot
// supply the guard through "" or "." in PATH.
func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "mcp-lockcheck")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExec := t.TempDir()
	if err := os.WriteFile(filepath.Join(notExec, "mcp-lockcheck"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.ListSeparator)
	if got := lookPath(strings.Join([]string{notExec, dir}, sep), "mcp-lockcheck"); got != exe {
		t.Errorf("found %q, want %q", got, exe)
	}
	t.Chdir(dir)
	if got := lookPath(strings.Join([]string{"", ".", "rel"}, sep), "mcp-lockcheck"); got != "" {
		t.Errorf("found %q through a relative PATH entry", got)
	}
}

// TestFindLockUp: a relative --lock is looked for from the working
// directory up; an absolute one is used as given.
func TestFindLockUp(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "mcp-lock.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	env := Env{Dir: deep}
	if got := findLockUp(env, "mcp-lock.json"); got != filepath.Join(root, "mcp-lock.json") {
		t.Errorf("got %q", got)
	}
	if got := findLockUp(env, "missing.json"); got != "missing.json" {
		t.Errorf("missing: got %q", got)
	}
	if got := findLockUp(env, "/abs/lock.json"); got != "/abs/lock.json" {
		t.Errorf("absolute: got %q", got)
	}
}
