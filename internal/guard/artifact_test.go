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
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// atLevels runs body once under each sandbox level the guard can start a
// server in besides off: what the guard holds is read outside the
// sandbox, and the session it then allows must start inside either. A
// strict sandbox this user cannot have is a skip on a developer's machine
// and a failure in CI (testproc.NoPrivilege).
func atLevels(t *testing.T, body func(t *testing.T, lvl sandbox.Level)) {
	for _, lvl := range []sandbox.Level{sandbox.Basic, sandbox.Strict} {
		t.Run(string(lvl), func(t *testing.T) {
			if lvl == sandbox.Strict {
				if err := sandbox.Available(sandbox.Strict); err != nil {
					testproc.NoPrivilege(t, "strict sandbox unavailable here: %v", err)
				}
			}
			body(t, lvl)
		})
	}
}

// withLaunch is a copy of lk whose server entry has its launch changed by
// mutate; lk is left as it was.
func withLaunch(lk *lock.File, server string, mutate func(*lock.Launch)) *lock.File {
	c := *lk
	c.Servers = make(map[string]*lock.Server, len(lk.Servers))
	for k, v := range lk.Servers {
		c.Servers[k] = v
	}
	s := *lk.Servers[server]
	mutate(&s.Launch)
	c.Servers[server] = &s
	return &c
}

// refusedBeforeStart wants the session refused with rule before the
// server was started: exit 1, the rule and "refusing to start" on stderr,
// no process started and nothing written to the client.
func refusedBeforeStart(t *testing.T, c *client, rule finding.RuleID, also ...string) {
	t.Helper()
	if code := c.exit(); code != ExitRefused {
		t.Fatalf("exit %d, want %d\n%s", code, ExitRefused, c.stderr.String())
	}
	s := c.stderr.String()
	for _, w := range append([]string{string(rule), "refusing to start"}, also...) {
		if !strings.Contains(s, w) {
			t.Fatalf("stderr lacks %q:\n%s", w, s)
		}
	}
	select {
	case pid := <-c.pid:
		t.Fatalf("the server was started (pid %d)", pid)
	default:
	}
	if msgs := c.drain(); len(msgs) != 0 || c.raw.String() != "" {
		t.Fatalf("the client got %d messages: %q", len(msgs), c.raw.String())
	}
}

// TestGuardHoldsFileHash: the guard hashes the file it is about to start
// and refuses the session, before starting anything, when the lock pins
// other bytes; a file the project tracks is only warned about. Under basic
// and strict: the hash is read outside the sandbox.
func TestGuardHoldsFileHash(t *testing.T) {
	lk := pinFake(t, "fake", "honest")
	if len(lk.Servers["fake"].Launch.FileSHA256) != 64 {
		t.Fatalf("pin recorded no file hash: %+v", lk.Servers["fake"].Launch)
	}
	atLevels(t, func(t *testing.T, lvl sandbox.Level) {
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
				c := startGuard(t, guardSpec{lock: withLaunch(lk, "fake", tc.mutate), server: "fake", scenario: "honest",
					sandbox: sandbox.Options{Level: lvl}})
				if tc.refused {
					refusedBeforeStart(t, c, finding.ArtifactChanged)
					return
				}
				c.initialize()
				if code := c.close(); code != ExitOK {
					t.Fatalf("exit %d\n%s", code, c.stderr.String())
				}
			})
		}
	})
}

// TestGuardHoldsNpmIntegrity: an npx server held to the lock's version
// and integrity against a local registry, the guard's sandbox caching in a
// directory of its own as check's does. The lock's own artifact starts; a
// registry serving the pinned version with other bytes (a fresh cache
// installs those) is refused with artifact-changed, and a new release
// with package-changed, before any of its code runs. Under basic and
// strict: the guard installs and reads the package outside the sandbox,
// and strict's server, which has no network, runs that install.
func TestGuardHoldsNpmIntegrity(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	atLevels(t, func(t *testing.T, lvl sandbox.Level) {
		// A registry of its own per level: the cases below republish.
		reg := npmreg.New(t)
		reg.Publish("fixture-mail-mcp", "1.0.0", npmreg.Tarball("fixture-mail-mcp", "1.0.0", npmreg.MailServer("")))
		env := map[string]string{"npm_config_registry": reg.URL}
		srv := config.Server{Name: "mail", Type: "stdio", Command: "npx", Args: []string{"-y", "fixture-mail-mcp"},
			Env: env, File: ".mcp.json", Line: 1, Client: "claude-code"}
		opts := check.Options{
			Servers: []config.Server{srv}, All: true, LockPath: "mcp-lock.json",
			Probe:         probe.Options{Launches: 1, RequestTimeout: 30 * time.Second},
			ServerTimeout: 2 * time.Minute, Sandbox: sandbox.Options{Level: sandbox.Basic, CacheDir: t.TempDir()},
			FailOn: finding.Error, Jobs: 1,
		}
		lk, r := check.Pin(context.Background(), opts, check.Approval{By: "t@example.com", At: time.Unix(0, 0)})
		if lk == nil || lk.Servers["mail"].Launch.Integrity == "" {
			t.Fatalf("pin: %+v", r.Findings())
		}
		// A fresh cache each session: what the registry serves now is
		// what gets installed and held.
		session := func() *client {
			return startGuard(t, guardSpec{lock: lk, server: "mail", command: "npx", args: []string{"-y", "fixture-mail-mcp"}, env: env,
				sandbox: sandbox.Options{Level: lvl, CacheDir: t.TempDir()}})
		}

		// The pinned artifact: the session runs.
		c := session()
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
				refusedBeforeStart(t, session(), tc.rule)
			})
		}
	})
}
