package config

import (
	"slices"
	"strings"
	"testing"
)

func TestUnwrapGuard(t *testing.T) {
	self := func(p string) bool { return p == "/opt/bin/mcp-lockcheck" }
	inner := []string{"--", "npx", "-y", "pkg@1.0.0"}
	guard := func(flags ...string) []string { return append(append([]string{"guard"}, flags...), inner...) }
	tests := []struct {
		name    string
		command string
		args    []string
		// wantCmd is the launch compared with the lock: "npx" when the
		// wrapper was recognised, the wrapper's own command when not.
		wantCmd string
	}{
		{"install's form", "mcp-lockcheck", guard("--lock", "mcp-lock.json", "--server", "s"), "npx"},
		{"with mode and sandbox", "mcp-lockcheck", guard("--lock", "l", "--server", "s", "--mode", "warn", "--sandbox=basic"), "npx"},
		{"absolute path that is this program", "/opt/bin/mcp-lockcheck", guard("--server", "s"), "npx"},
		// Attacks: a wrapper that is not ours must not hide the program it runs.
		{"another program", "./evil", guard("--server", "s"), "./evil"},
		{"another program named like ours, relative", "bin/mcp-lockcheck", guard("--server", "s"), "bin/mcp-lockcheck"},
		{"absolute path that is not this program", "/tmp/x/mcp-lockcheck", guard("--server", "s"), "/tmp/x/mcp-lockcheck"},
		{"through /proc, the client's cwd", "/proc/self/cwd/mcp-lockcheck", guard("--server", "s"), "/proc/self/cwd/mcp-lockcheck"},
		{"placeholder", "${workspaceFolder}/mcp-lockcheck", guard("--server", "s"), "${workspaceFolder}/mcp-lockcheck"},
		{"another entry's name", "mcp-lockcheck", guard("--server", "other"), "mcp-lockcheck"},
		{"two --server", "mcp-lockcheck", guard("--server", "s", "--server", "other"), "mcp-lockcheck"},
		{"no --server", "mcp-lockcheck", guard("--lock", "l"), "mcp-lockcheck"},
		{"unknown flag", "mcp-lockcheck", guard("--server", "s", "--exec", "sh"), "mcp-lockcheck"},
		{"positional before --", "mcp-lockcheck", []string{"guard", "--server", "s", "npx", "--", "x"}, "mcp-lockcheck"},
		{"nothing after --", "mcp-lockcheck", []string{"guard", "--server", "s", "--"}, "mcp-lockcheck"},
		{"not the guard subcommand", "mcp-lockcheck", append([]string{"check", "--server", "s"}, inner...), "mcp-lockcheck"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := []Server{{Name: "s", Type: TypeStdio, Command: tt.command, Args: slices.Clone(tt.args)}}
			UnwrapGuard(ss, self)
			if ss[0].Command != tt.wantCmd {
				t.Fatalf("command %q, want %q", ss[0].Command, tt.wantCmd)
			}
			if tt.wantCmd == "npx" {
				if !slices.Equal(ss[0].Args, []string{"-y", "pkg@1.0.0"}) || ss[0].Guard == nil {
					t.Errorf("inner launch %q, guard %+v", ss[0].Args, ss[0].Guard)
				}
				if !strings.Contains(ss[0].Guard.Note(), "behind mcp-lockcheck guard") {
					t.Errorf("note %q", ss[0].Guard.Note())
				}
			} else if ss[0].Guard != nil || !slices.Equal(ss[0].Args, tt.args) {
				t.Errorf("unwrapped a wrapper that is not ours: %q %+v", ss[0].Args, ss[0].Guard)
			}
		})
	}
}
