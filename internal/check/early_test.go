package check

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// exactMail is the mail fixture launched at an exact version, twice: two
// servers of one config naming one spec.
func exactMail(m *mailFixture) []config.Server {
	a := m.srv
	a.Args = []string{"-y", "fixture-mail-mcp@1.0.0"}
	b := a
	b.Name, b.Line = "mail2", 9
	return []config.Server{a, b}
}

// TestNpxStartsWhileRegistryAnswers: with a warm cache holding the exact
// version a config names, the server starts while the registry is asked
// (the registry here answers only once a server has started), the
// registry is asked once for the two servers that name the spec, and the
// check passes with the identity recorded as before. Under basic and
// strict.
func TestNpxStartsWhileRegistryAnswers(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	for _, lvl := range []sandbox.Level{sandbox.Basic, sandbox.Strict} {
		t.Run(string(lvl), func(t *testing.T) {
			m := newMailFixture(t)
			servers := exactMail(m)
			opts := artifactOptions(t, lvl, t.TempDir(), servers[0])
			opts.Servers, opts.Jobs = servers, 2
			// A cold cache: the pin asks and fetches first.
			lk, data := pinWith(t, opts)
			for _, name := range []string{"mail", "mail2"} {
				if l := lk.Servers[name].Launch; l.Resolved != "1.0.0" || !strings.HasPrefix(l.Integrity, "sha512-") {
					t.Fatalf("%s pinned %+v", name, l)
				}
			}

			release := m.reg.HoldPackuments()
			defer release()
			var byServer atomic.Bool
			var once sync.Once
			opts.Progress = func(server, phase string) {
				if strings.HasPrefix(phase, "launch-1") {
					once.Do(func() { byServer.Store(true); release() })
				}
			}
			// Bounded: a check that waits for the registry before it
			// launches anything gets its answer after 30 s, and fails below.
			timer := time.AfterFunc(30*time.Second, func() { once.Do(release) })
			defer timer.Stop()
			var asked atomic.Int32
			defer func(was func(context.Context, string, string, []string) (*registryAnswer, error)) {
				resolveRegistry = was
			}(resolveRegistry)
			was := resolveRegistry
			resolveRegistry = func(ctx context.Context, npm, spec string, env []string) (*registryAnswer, error) {
				asked.Add(1)
				return was(ctx, npm, spec, env)
			}
			r := checkWith(opts, lk, data)
			if r.Summary.ExitCode != report.ExitOK {
				t.Fatalf("exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
			}
			if !byServer.Load() {
				t.Errorf("no server started before the registry answered")
			}
			if n := asked.Load(); n != 1 {
				t.Errorf("the registry was asked %d times for one spec in one run, want 1", n)
			}
			for _, s := range r.Servers {
				if notes := strings.Join(s.Notes, "\n"); !strings.Contains(notes, "started from it while the registry was asked") {
					t.Errorf("%s: notes %q", s.Name, notes)
				}
			}

			// A new release does not move an exact version: still ok. The
			// same version re-served with other bytes does: the cache's
			// probe is dropped, the package fetched, the server probed
			// again, and the check fails.
			m.publish("1.0.1", bcc)
			if r := checkWith(opts, lk, data); r.Summary.ExitCode != report.ExitOK {
				t.Fatalf("a new release moved an exact spec: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
			}
			m.publish("1.0.0", bcc)
			r = checkWith(opts, lk, data)
			if r.Summary.ExitCode == report.ExitOK {
				t.Fatalf("same version, other bytes, warm cache: exit 0\n%s", dumpFindings(r))
			}
			for _, s := range r.Servers {
				notes := strings.Join(s.Notes, "\n")
				if !strings.Contains(notes, "the server probed again") {
					t.Errorf("%s: no note says the server was probed again: %q", s.Name, notes)
				}
				if s.Status == report.StatusOK {
					t.Errorf("%s passed on other bytes", s.Name)
				}
			}
			if findingOf(r, finding.ArtifactChanged) == nil && r.Summary.ExitCode != report.ExitHeld {
				t.Errorf("neither artifact-changed nor held:\n%s", dumpFindings(r))
			}
		})
	}
}
