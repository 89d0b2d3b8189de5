package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestEnvRefs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    Server
		want []string // "field VAR [whenSet | whenUnset]"
	}{
		{"none", Server{Command: "node", Args: []string{"server.js", "$HOME", "$${CI}"}}, nil},
		{"CI default in args", Server{Command: "node", Args: []string{"${CI:-src}/server.js"}},
			[]string{"args[0] CI [${CI}/server.js | src/server.js]"}},
		// The env block sets the server's environment, not the client's
		// that expands the args.
		{"env block", Server{Command: "node", Args: []string{"${ROOT}/s.js"}, Env: map[string]string{"ROOT": "/x"}}, []string{"args[0] ROOT"}},
		{"every launch field", Server{Command: "${NODE}", Args: []string{"a", "${env:GITHUB_WORKSPACE}/s.js"}, Cwd: "${RUNNER_TEMP:-/tmp}", URL: "https://x.invalid/${PATH_PART}", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
			[]string{"command NODE", "args[1] GITHUB_WORKSPACE", "cwd RUNNER_TEMP [${RUNNER_TEMP} | /tmp]", "url PATH_PART", "header Authorization TOKEN"}},
		{"nested default", Server{Command: "node", Args: []string{"${A:-${B:-x}}"}},
			[]string{"args[0] A [${A} | ${B:-x}]", "args[0] B"}},
		{"VS Code's own variables", Server{Client: ClientVSCode, Command: "node", Args: []string{"${workspaceFolder}/s.js", "${userHome}", "${env:workspaceFolder}"}},
			[]string{"args[2] workspaceFolder"}},
		{"Gemini's $NAME", Server{Client: ClientGeminiCLI, Command: "node", Args: []string{"$GITHUB_SHA"}},
			[]string{"args[0] GITHUB_SHA"}},
		{"env values are not launch fields", Server{Command: "node", Env: map[string]string{"K": "${SECRET}"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range tt.s.EnvRefs() {
				g := r.Field + " " + r.Var
				if r.HasDefault {
					g += fmt.Sprintf(" [%s | %s]", r.WhenSet, r.WhenUnset)
				}
				got = append(got, g)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("EnvRefs:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	for name, want := range map[string]bool{"CI": true, "GITHUB_SHA": true, "RUNNER_OS": true, "HOME": false, "CIRCLE": false} {
		if CISets(name) != want {
			t.Errorf("CISets(%q) = %v", name, !want)
		}
	}
}

func TestOpenCodePlaceholders(t *testing.T) {
	t.Parallel()
	s := Server{Client: ClientOpenCode, Type: TypeHTTP, URL: "https://x.invalid/{env:REGION}/mcp", Headers: map[string]string{"Authorization": "Bearer {env:TOKEN}", "X": "${NOT_OPENCODE}"}}
	env := map[string]string{"REGION": "eu", "TOKEN": "t0k"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	url, headers, err := s.ResolveRemote(lookup)
	if err != nil || url != "https://x.invalid/eu/mcp" || headers["Authorization"] != "Bearer t0k" || headers["X"] != "${NOT_OPENCODE}" {
		t.Errorf("ResolveRemote = %q %v %v", url, headers, err)
	}
	delete(env, "TOKEN")
	if _, _, err := s.ResolveRemote(lookup); err == nil || !strings.Contains(err.Error(), "TOKEN is not set") {
		t.Errorf("unset: %v", err)
	}
	if _, err := expandOpenCode("{file:~/.secret}", lookup); err == nil {
		t.Error("{file:} accepted")
	}
	var got []string
	for _, r := range s.EnvRefs() {
		got = append(got, r.Field+" "+r.Var)
	}
	if strings.Join(got, ",") != "url REGION,header Authorization TOKEN" {
		t.Errorf("EnvRefs = %q", got)
	}
}
