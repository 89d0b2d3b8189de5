package config

import (
	"slices"
	"strings"
	"testing"
)

func TestUnwrapGuard(t *testing.T) {
	t.Parallel()
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

// TestUnwrapRemoteGuard: a bridge entry of ours reads back as the url
// launch the guard connects to (the url and headers in its env, never the
// copy of the original install keeps); anything else is compared as the
// command it is.
func TestUnwrapRemoteGuard(t *testing.T) {
	t.Parallel()
	bridge := func(flags ...string) []string {
		return append(append([]string{"guard", "--lock", "mcp-lock.json", "--server", "s"}, flags...), "--remote-env", "--transport", "http")
	}
	env := map[string]string{GuardEnvURL: "https://x.invalid/mcp", GuardEnvHeader(1): "Authorization: Bearer ${T}", "K": "v",
		// install's copy of the entry says another url: the guard never reads it, and neither does check.
		GuardEnvOriginal: "eyJ1cmwiOiAiaHR0cHM6Ly9hcHByb3ZlZC5pbnZhbGlkIn0="}
	tests := []struct {
		name    string
		command string
		args    []string
		env     map[string]string
		wantURL string // "" when the entry must stay a stdio launch
	}{
		{"install's form", "mcp-lockcheck", bridge("--mode", "warn"), env, "https://x.invalid/mcp"},
		{"sse", "mcp-lockcheck", []string{"guard", "--server", "s", "--remote-env", "--transport=sse"}, env, "https://x.invalid/mcp"},
		{"no transport", "mcp-lockcheck", []string{"guard", "--server", "s", "--remote-env"}, env, "https://x.invalid/mcp"},
		// Attacks and malformed entries.
		{"another program", "./evil", bridge(), env, ""},
		{"another entry's name", "mcp-lockcheck", []string{"guard", "--server", "other", "--remote-env"}, env, ""},
		{"a command too", "mcp-lockcheck", append(bridge(), "--", "npx", "x"), env, ""},
		{"--sandbox", "mcp-lockcheck", bridge("--sandbox", "basic"), env, ""},
		{"--pass-env", "mcp-lockcheck", bridge("--pass-env", "HOME"), env, ""},
		{"transport stdio", "mcp-lockcheck", []string{"guard", "--server", "s", "--remote-env", "--transport", "stdio"}, env, ""},
		{"remote-env with a value", "mcp-lockcheck", []string{"guard", "--server", "s", "--remote-env=false"}, env, ""},
		{"no url in env", "mcp-lockcheck", bridge(), map[string]string{"K": "v"}, ""},
		{"header not Name: value", "mcp-lockcheck", bridge(), map[string]string{GuardEnvURL: "https://x.invalid", GuardEnvHeader(1): "no colon"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := []Server{{Name: "s", Type: TypeStdio, Command: tt.command, Args: slices.Clone(tt.args), Env: tt.env}}
			UnwrapGuard(ss, nil)
			s := ss[0]
			if tt.wantURL == "" {
				if s.Guard != nil || s.Command != tt.command || s.URL != "" {
					t.Fatalf("unwrapped an entry that is not our bridge: %+v", s)
				}
				return
			}
			if s.Guard == nil || !s.Guard.Remote || s.URL != tt.wantURL || s.Command != "" || s.Args != nil {
				t.Fatalf("got %+v", s)
			}
			if s.Headers["Authorization"] != "Bearer ${T}" || len(s.Env) != 1 || s.Env["K"] != "v" {
				t.Errorf("headers %v env %v", s.Headers, s.Env)
			}
			if want := map[bool]string{true: TypeSSE, false: TypeHTTP}[strings.Contains(tt.name, "sse")]; s.Type != want {
				t.Errorf("type %s, want %s", s.Type, want)
			}
			if !strings.Contains(s.Guard.Note(), "bridges to the url") {
				t.Errorf("note %q", s.Guard.Note())
			}
		})
	}
}
