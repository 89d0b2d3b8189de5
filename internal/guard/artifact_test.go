package guard

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/npmreg"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestGuardHoldsFileHash: the guard hashes the file it is about to start
// and refuses the session, before starting anything, when the lock pins
// other bytes; a file the project tracks is only warned about.
func TestGuardHoldsFileHash(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mutate  func(l *lock.Launch)
		refused bool
	}{
		{"matching", func(*lock.Launch) {}, false},
		{"replaced binary", func(l *lock.Launch) { l.FileSHA256 = strings.Repeat("0", 64) }, true},
		{"tracked file changed", func(l *lock.Launch) { l.FileSHA256, l.Tracked = strings.Repeat("0", 64), true }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lk := pinFake(t, "fake", "honest")
			if len(lk.Servers["fake"].Launch.FileSHA256) != 64 {
				t.Fatalf("pin recorded no file hash: %+v", lk.Servers["fake"].Launch)
			}
			tc.mutate(&lk.Servers["fake"].Launch)
			c := startGuard(t, guardSpec{lock: lk, server: "fake", scenario: "honest"})
			if tc.refused {
				if code := c.exit(); code != ExitRefused {
					t.Fatalf("exit %d, want %d\n%s", code, ExitRefused, c.stderr.String())
				}
				if s := c.stderr.String(); !strings.Contains(s, string(finding.ArtifactChanged)) || !strings.Contains(s, "refusing to start") {
					t.Fatalf("stderr:\n%s", s)
				}
				select {
				case pid := <-c.pid:
					t.Fatalf("the server was started (pid %d)", pid)
				default:
				}
				return
			}
			c.initialize()
			if code := c.close(); code != ExitOK {
				t.Fatalf("exit %d\n%s", code, c.stderr.String())
			}
		})
	}
}

// TestGuardHoldsNpmIntegrity: an npx server held to the lock's version
// and integrity against a local registry. The lock's own artifact starts;
// a registry serving the pinned version with other bytes (a fresh cache
// installs those) is refused with artifact-changed, and a new release
// with package-changed, before any of its code runs.
func TestGuardHoldsNpmIntegrity(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	reg := npmreg.New(t)
	reg.Publish("fixture-mail-mcp", "1.0.0", npmreg.Tarball("fixture-mail-mcp", "1.0.0", npmreg.MailServer("")))
	srv := config.Server{Name: "mail", Type: "stdio", Command: "npx", Args: []string{"-y", "fixture-mail-mcp"},
		Env: map[string]string{"npm_config_registry": reg.URL}, File: ".mcp.json", Line: 1, Client: "claude-code"}
	pinCache := t.TempDir()
	opts := check.Options{
		Servers: []config.Server{srv}, All: true, LockPath: "mcp-lock.json",
		Probe:         probe.Options{Launches: 1, RequestTimeout: 30 * time.Second},
		ServerTimeout: 2 * time.Minute, Sandbox: sandbox.Options{Level: sandbox.Basic, CacheDir: pinCache},
		FailOn: finding.Error, Jobs: 1,
	}
	lk, r := check.Pin(context.Background(), opts, check.Approval{By: "t@example.com", At: time.Unix(0, 0)})
	if lk == nil || lk.Servers["mail"].Launch.Integrity == "" {
		t.Fatalf("pin: %+v", r.Findings())
	}
	env := func(cache string) map[string]string {
		return map[string]string{"npm_config_registry": reg.URL, "npm_config_cache": cache}
	}
	session := func(cache string) *client {
		return startGuard(t, guardSpec{lock: lk, server: "mail", command: "npx", args: []string{"-y", "fixture-mail-mcp"}, env: env(cache)})
	}

	// The pinned artifact: the session runs.
	c := session(t.TempDir())
	c.initialize()
	if code := c.close(); code != ExitOK {
		t.Fatalf("pinned: exit %d\n%s", code, c.stderr.String())
	}

	for _, tc := range []struct {
		name, version, extra string
		rule                 finding.RuleID
	}{
		{"same version, other bytes", "1.0.0", "// other bytes", finding.ArtifactChanged},
		{"new release", "1.0.1", "// bcc", finding.PackageChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg.Publish("fixture-mail-mcp", tc.version, npmreg.Tarball("fixture-mail-mcp", tc.version, npmreg.MailServer(tc.extra)))
			c := session(t.TempDir())
			if code := c.exit(); code != ExitRefused {
				t.Fatalf("exit %d, want %d\n%s", code, ExitRefused, c.stderr.String())
			}
			if s := c.stderr.String(); !strings.Contains(s, string(tc.rule)) || !strings.Contains(s, "refusing to start") {
				t.Fatalf("stderr:\n%s", s)
			}
		})
	}
}
