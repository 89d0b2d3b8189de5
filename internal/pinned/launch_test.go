package pinned

import (
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
)

// TestLaunchKeepsSecretsOut: nothing that looks like a credential in a
// config's args or URL reaches the committed lock.
func TestLaunchKeepsSecretsOut(t *testing.T) {
	secrets := []string{"SECRETARG123", "sk-ak-SECRETPATH1234567890", "smk123secret", "tok999", "ghp_abcdefghijklmnopqrstuvwxyz0123", "hunter2"}
	s := config.Server{
		Name: "x", Command: "npx",
		Args: []string{"-y", "pkg@1.0.0", "--api-key", "SECRETARG123", "--token=tok999", "ghp_abcdefghijklmnopqrstuvwxyz0123", "PASSWORD=hunter2", "--dir", "/work", "--key", "${API_KEY}"},
		Env:  map[string]string{"TOKEN": "hunter2"},
	}
	l := Launch(s)
	r := config.Server{Name: "r", Type: "http", URL: "https://user:pw@example.com/mcp/sk-ak-SECRETPATH1234567890/sse?smithery_key=smk123secret&profile=x#token=tok999"}
	u := Launch(r)
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
	if Launch(s).Equal(l) {
		t.Error("a changed --api-key value left the launch identity unchanged")
	}
}

// TestLaunchURLPassword: a URL password in a stdio server's arguments
// (a database DSN) is redacted in the lock's launch args, user and host
// kept, in whatever argument form it comes; a changed password is a
// changed launch; a ${PLACEHOLDER} password is kept.
func TestLaunchURLPassword(t *testing.T) {
	args := []string{"postgres://app:hunter2-db-pass@127.0.0.1:5432/app", "--db=mysql://root:s3cretpw@127.0.0.1/x", "--url", "redis://:r3dispass@127.0.0.1/0", "postgres://u:${PGPASSWORD}@127.0.0.1/db"}
	l := Launch(config.Server{Name: "db", Command: "node", Args: args})
	all := strings.Join(l.Args, " ")
	for _, sec := range []string{"hunter2-db-pass", "s3cretpw", "r3dispass"} {
		if strings.Contains(all, sec) {
			t.Errorf("password %q reached the launch identity: %s", sec, all)
		}
	}
	for _, keep := range []string{"postgres://app:", "@127.0.0.1:5432/app", "--db=mysql://root:", "${PGPASSWORD}"} {
		if !strings.Contains(all, keep) {
			t.Errorf("%q was lost: %s", keep, all)
		}
	}
	if want := "postgres://app:" + redact.Value("hunter2-db-pass") + "@127.0.0.1:5432/app"; l.Args[0] != want {
		t.Errorf("got %q, want %q", l.Args[0], want)
	}
	args[0] = "postgres://app:other-db-pass@127.0.0.1:5432/app"
	if Launch(config.Server{Name: "db", Command: "node", Args: args}).Equal(l) {
		t.Error("a changed password left the launch identity unchanged")
	}
}

func TestLaunchRemote(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp"},
		{"https://user:pw@mcp.example.com/mcp", "https://mcp.example.com/mcp"},
		{"https://mcp.example.com/mcp?token=abc123&lang=en", "https://mcp.example.com/mcp?token=REDACTED&lang=en"},
		{"https://mcp.example.com/mcp?api_key=s3cr3t", "https://mcp.example.com/mcp?api_key=REDACTED"},
		{"https://mcp.example.com/mcp?tavilyApiKey=tvly-1", "https://mcp.example.com/mcp?tavilyApiKey=REDACTED"},
		{"https://mcp.example.com/mcp?key=${KEY}", "https://mcp.example.com/mcp?key=${KEY}"},
		{"https://mcp.example.com/mcp?key=pre${KEY}", "https://mcp.example.com/mcp?key=REDACTED"},
		{"https://mcp.example.com/mcp?region=eu&version=2", "https://mcp.example.com/mcp?region=eu&version=2"},
		{"https://u:p@${HOST}/mcp", "https://${HOST}/mcp"},
		{"https://${HOST}/mcp?access_token=x1", "https://${HOST}/mcp?access_token=REDACTED"},
	} {
		got := Launch(config.Server{Type: config.TypeHTTP, URL: tc.url}).URL
		if got != tc.want {
			t.Errorf("Launch(%q).URL = %q, want %q", tc.url, got, tc.want)
		}
	}
}
