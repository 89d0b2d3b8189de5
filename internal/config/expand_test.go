package config

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"HOME": "/home/u", "TOKEN": "t0k", "EMPTY": "", "PORT": "8080"})
	tests := []struct {
		in, want, err string
	}{
		{in: "", want: ""},
		{in: "plain", want: "plain"},
		{in: "${HOME}", want: "/home/u"},
		{in: "${env:HOME}", want: "/home/u"},
		{in: "Bearer ${TOKEN}", want: "Bearer t0k"},
		{in: "${HOME}/.cache/${PORT}x", want: "/home/u/.cache/8080x"},
		{in: "${HOME}${PORT}", want: "/home/u8080"},
		{in: "${EMPTY}", want: ""},
		{in: "${MISSING:-fallback}", want: "fallback"},
		{in: "${EMPTY:-fallback}", want: "fallback"},
		{in: "${PORT:-1}", want: "8080"},
		{in: "${MISSING:-}", want: ""},
		{in: "${env:MISSING:-d}", want: "d"},
		{in: "${MISSING:-${HOME}/x}", want: "/home/u/x"},
		{in: "${MISSING:-a:b-c}", want: "a:b-c"},
		{in: "$HOME", want: "$HOME"},
		{in: "a$b$$c$", want: "a$b$$c$"},
		{in: "$${HOME}", want: "${HOME}"},
		{in: "cost: $5 {x}", want: "cost: $5 {x}"},
		{in: "${MISSING}", err: "environment variable MISSING is not set"},
		{in: "pre ${env:MISSING} post", err: "environment variable MISSING is not set"},
		{in: "${MISSING:-${ALSO_MISSING}}", err: "environment variable ALSO_MISSING is not set"},
		{in: "${HOME", err: `"${" at byte 0 has no closing "}"`},
		{in: "x ${A:-${B}", err: `"${" at byte 2 has no closing "}"`},
		{in: "${}", err: `invalid variable name in the "${...}" at byte 0`},
		{in: "${1X}", err: `invalid variable name in the "${...}" at byte 0`},
		{in: "${my secret}", err: `invalid variable name in the "${...}" at byte 0`},
		{in: "${input:github-pat}", err: "${input:github-pat}: VS Code input variables are prompted for interactively and are not supported non-interactively"},
		{in: "${input:pat}", err: "${input:pat}: VS Code input variables"},
		{in: "${config:editor.fontSize}", err: "${config:...} variables are not supported"},
		{in: "${command:pick}", err: "${command:...} variables are not supported"},
		{in: "${input:a b}", err: "${input:...}: VS Code input variables"},
	}
	for _, tc := range tests {
		got, err := Expand(tc.in, env)
		switch {
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("Expand(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"HOME": "/home/u", "GITHUB_TOKEN": "ghp_x", "CONTEXT7_API_KEY": "k"})

	servers, err := Load("testdata/clients/vscode/.vscode/mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Server{}
	for _, s := range servers {
		byName[s.Name] = s
	}

	fs := byName["filesystem"]
	cmd, args, senv, err := fs.Resolve(env)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("testdata/clients/vscode")
	if cmd != "npx" || !slices.Equal(args, []string{"-y", "@modelcontextprotocol/server-filesystem", root + "/docs"}) || senv != nil {
		t.Errorf("filesystem: Resolve = %q, %q, %v", cmd, args, senv)
	}
	if dir, err := fs.ResolveDir(env); err != nil || dir != root {
		t.Errorf("filesystem: ResolveDir = %q, %v; want %q", dir, err, root)
	}

	_, _, err = byName["github"].ResolveRemote(env)
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 13 || !strings.Contains(err.Error(), `server "github": header Authorization: ${input:github-pat}: VS Code input variables are prompted for interactively and are not supported non-interactively`) {
		t.Errorf("github: ResolveRemote error = %v", err)
	}

	s := Server{Name: "gh", File: "a/.mcp.json", Line: 4, Client: ClientClaudeCode, Command: "docker",
		Args: []string{"run", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
		Env:  map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}", "LITERAL": "hunter2"}}
	_, args, senv, err = s.Resolve(env)
	if err != nil || !slices.Equal(args, s.Args) || !maps.Equal(senv, map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x", "LITERAL": "hunter2"}) {
		t.Errorf("gh: Resolve = %q, %v, %v", args, senv, err)
	}
	// workspaceFolder means nothing to Claude Code: it is an environment variable there.
	s.Args = []string{"${workspaceFolder}"}
	if _, _, _, err := s.Resolve(env); err == nil || err.Error() != `a/.mcp.json:4: server "gh": args[0]: environment variable workspaceFolder is not set` {
		t.Errorf("gh: Resolve error = %v", err)
	}
	s.Args = nil
	s.Env = map[string]string{"TOKEN": "ghp_${MISSING"}
	if _, _, _, err := s.Resolve(env); err == nil || strings.Contains(err.Error(), "ghp_") || !strings.Contains(err.Error(), "env TOKEN") {
		t.Errorf("gh: Resolve error = %v; want it to name TOKEN without its value", err)
	}
	gem := Server{Name: "g", Client: ClientGeminiCLI, Command: "x", Args: []string{"$HOME/a", "${TOKEN}", "$$", "a$", "$1"}}
	if _, args, _, err := gem.Resolve(envOf(map[string]string{"HOME": "/h", "TOKEN": "t"})); err != nil || !slices.Equal(args, []string{"/h/a", "t", "$$", "a$", "$1"}) {
		t.Errorf("gemini: Resolve = %q, %v", args, err)
	}
	s.Env = nil
	s.Cwd = "${NOPE}"
	if _, _, _, err := s.Resolve(env); err == nil || !strings.Contains(err.Error(), "cwd: environment variable NOPE is not set") {
		t.Errorf("gh: Resolve of cwd error = %v", err)
	}
}
