package check

import (
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/config"
)

// TestLaunchOfKeepsSecretsOut: nothing that looks like a credential in a
// config's args or URL reaches the committed lock.
func TestLaunchOfKeepsSecretsOut(t *testing.T) {
	secrets := []string{"SECRETARG123", "sk-ak-SECRETPATH1234567890", "smk123secret", "tok999", "ghp_abcdefghijklmnopqrstuvwxyz0123", "hunter2"}
	s := config.Server{
		Name: "x", Command: "npx",
		Args: []string{"-y", "pkg@1.0.0", "--api-key", "SECRETARG123", "--token=tok999", "ghp_abcdefghijklmnopqrstuvwxyz0123", "PASSWORD=hunter2", "--dir", "/work", "--key", "${API_KEY}"},
		Env:  map[string]string{"TOKEN": "hunter2"},
	}
	l := LaunchOf(s)
	r := config.Server{Name: "r", Type: "http", URL: "https://user:pw@example.com/mcp/sk-ak-SECRETPATH1234567890/sse?smithery_key=smk123secret&profile=x#token=tok999"}
	u := LaunchOf(r)
	all := strings.Join(append(append([]string{u.URL}, l.Args...), l.Env...), " ")
	for _, sec := range secrets {
		if strings.Contains(all, sec) {
			t.Errorf("secret %q reached the launch identity: %s", sec, all)
		}
	}
	for _, keep := range []string{"pkg@1.0.0", "/work", "${API_KEY}", "profile=x", "example.com/mcp/"} {
		if !strings.Contains(all, keep) {
			t.Errorf("%q was redacted too: %s", keep, all)
		}
	}
	// A changed secret is still a changed launch.
	s.Args[3] = "OTHERSECRET"
	if LaunchOf(s).Equal(l) {
		t.Error("a changed --api-key value left the launch identity unchanged")
	}
}
