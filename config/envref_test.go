package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestEnvRefs(t *testing.T) {
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
