package launchid

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestResolveRegistryOwnSession: npm view runs in a session of its own,
// so that where the kernel shares CPU time by session (autogroup) the
// question asked while a server starts does not take the server's share.
// The fake npm answers with its session id as the version.
func TestResolveRegistryOwnSession(t *testing.T) {
	npm := filepath.Join(t.TempDir(), "npm")
	script := "#!/bin/sh\nset -- $(cat /proc/$$/stat)\n" +
		`printf '{"version":"%s","dist.integrity":"%s","dist.tarball":"t"}\n' "$6" "$1"` + "\n"
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ans, err := ResolveRegistry(context.Background(), npm, "pkg@1.0.0", []string{"PATH=" + os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's closing parenthesis: state, ppid,
	// pgrp, session.
	_, rest, _ := strings.Cut(string(stat), ") ")
	ours := strings.Fields(rest)[3]
	if ans.Version == ours {
		t.Errorf("npm view ran in the checker's session %s", ours)
	}
	if ans.Version != ans.Integrity {
		t.Errorf("npm view's session is %s, not its own (its pid is %s)", ans.Version, ans.Integrity)
	}
	if _, err := strconv.Atoi(ans.Version); err != nil {
		t.Errorf("unreadable session id %q", ans.Version)
	}
}
