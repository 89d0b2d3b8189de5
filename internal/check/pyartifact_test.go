package check

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmreg"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/pyindex"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// standInInstaller writes an executable named like the installer (uvx,
// pipx) that runs the fixture mail server: neither uv nor pipx is on a
// fresh machine, and what the checker pins is read from the index before
// the launch, not from the installer. It returns the command to configure.
func standInInstaller(t *testing.T, name string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	// The stand-in is the server itself, a node script under the
	// installer's name: strict grants the command's own file, not what
	// a wrapper script would read.
	cmd := filepath.Join(t.TempDir(), name)
	body := npmreg.MailExecutable(node, "")
	if err := os.WriteFile(cmd, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestPythonNewReleaseSameTools is issue 39's table for uvx and pipx run
// against a local simple index (PEP 691 JSON for uvx, PEP 503 HTML for
// pipx), under basic and strict: a new release with the same tools fails
// with package-changed (an error, both versions, the index page); the
// same file re-served with other bytes is artifact-changed on its
// integrity; a wheel added to the pinned release is artifact-changed on
// the distribution; the control passes.
func TestPythonNewReleaseSameTools(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	for _, mgr := range []struct{ name, command, env string }{{"uvx", "uvx", "UV_INDEX_URL"}, {"pipx", "pipx", "PIP_INDEX_URL"}} {
		for _, lvl := range []sandbox.Level{sandbox.Basic, sandbox.Strict} {
			t.Run(mgr.name+"/"+string(lvl), func(t *testing.T) {
				idx := pyindex.New(t)
				idx.JSON = mgr.name == "uvx"
				idx.Publish("fixture-mail-mcp", "1.0.0", "fixture_mail_mcp-1.0.0.tar.gz", []byte("sdist 1.0.0"))
				args := []string{"fixture-mail-mcp"}
				if mgr.name == "pipx" {
					args = []string{"run", "fixture-mail-mcp"}
				}
				s := config.Server{Name: "mail", Type: "stdio", Command: standInInstaller(t, mgr.command), Args: args,
					Env: map[string]string{mgr.env: idx.URL}, File: ".mcp.json", Line: 3, Client: "claude-code"}
				opts := artifactOptions(t, lvl, t.TempDir(), s)
				lk, data := pinWith(t, opts)
				l := lk.Servers["mail"].Launch
				if l.Resolved != "1.0.0" || l.Integrity != "sha256:"+idx.SHA256("fixture_mail_mcp-1.0.0.tar.gz") || l.Distribution != "fixture_mail_mcp-1.0.0.tar.gz" {
					t.Fatalf("pinned launch %+v", l)
				}
				if r := checkWith(opts, lk, data); r.Summary.ExitCode != report.ExitOK || findingOf(r, finding.ArtifactUnidentified) != nil {
					t.Fatalf("control on 1.0.0: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
				}

				// The index cannot be read: nothing the lock pins is
				// compared, so the check fails rather than passes.
				down := opts
				down.Servers = []config.Server{s}
				down.Servers[0].Env = map[string]string{mgr.env: "http://127.0.0.1:1/simple/"}
				r0 := checkWith(down, lk, data)
				if f := findingOf(r0, finding.ArtifactUnidentified); r0.Summary.ExitCode != report.ExitDrift || f == nil || f.Severity != finding.Error {
					t.Fatalf("index unreadable: exit %d, artifact-unidentified %+v\n%s", r0.Summary.ExitCode, f, dumpFindings(r0))
				}

				// 1.0.1 is published, same tools.
				idx.Publish("fixture-mail-mcp", "1.0.1", "fixture_mail_mcp-1.0.1-py3-none-any.whl", []byte("wheel 1.0.1"))
				r := checkWith(opts, lk, data)
				f := findingOf(r, finding.PackageChanged)
				if r.Summary.ExitCode != report.ExitDrift || f == nil || f.Severity != finding.Error || f.Before != "1.0.0" || f.After != "1.0.1" || !strings.Contains(f.Detail, idx.URL) {
					t.Fatalf("new release: exit %d, package-changed %+v\n%s", r.Summary.ExitCode, f, dumpFindings(r))
				}
				if notes := strings.Join(r.Servers[0].Notes, "\n"); !strings.Contains(notes, "resolved by the index") || !strings.Contains(notes, "fixture_mail_mcp-1.0.1-py3-none-any.whl") {
					t.Errorf("no note says what the index resolved: %q", notes)
				}

				// The control on 1.0.1, then its wheel re-served with
				// other bytes.
				lk, data = pinWith(t, opts)
				if r := checkWith(opts, lk, data); r.Summary.ExitCode != report.ExitOK {
					t.Fatalf("control on 1.0.1: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
				}
				idx.Publish("fixture-mail-mcp", "1.0.1", "fixture_mail_mcp-1.0.1-py3-none-any.whl", []byte("wheel 1.0.1, and a bcc"))
				r = checkWith(opts, lk, data)
				f = findingOf(r, finding.ArtifactChanged)
				if r.Summary.ExitCode != report.ExitDrift || f == nil || f.Severity != finding.Error || f.Field != "launch/integrity" || !strings.Contains(f.Message, "never let a file name be uploaded twice") {
					t.Fatalf("same file, other bytes: exit %d, artifact-changed %+v\n%s", r.Summary.ExitCode, f, dumpFindings(r))
				}
				if findingOf(r, finding.PackageChanged) != nil {
					t.Errorf("same version reported as package-changed")
				}
				if next, _ := pinWith(t, opts); ArtifactSwapped(lk.Servers["mail"], next.Servers["mail"]) == "" {
					t.Errorf("approve would take other bytes under the same version without --force")
				}

				// 1.0.2 is published as an sdist and pinned; a wheel is
				// uploaded to it later, which installers then prefer.
				idx.Publish("fixture-mail-mcp", "1.0.2", "fixture_mail_mcp-1.0.2.tar.gz", []byte("sdist 1.0.2"))
				lk, data = pinWith(t, opts)
				idx.Publish("fixture-mail-mcp", "1.0.2", "fixture_mail_mcp-1.0.2-py2.py3-none-any.whl", []byte("wheel 1.0.2"))
				r = checkWith(opts, lk, data)
				f = findingOf(r, finding.ArtifactChanged)
				if r.Summary.ExitCode != report.ExitDrift || f == nil || f.Field != "launch/distribution" || f.After != "fixture_mail_mcp-1.0.2-py2.py3-none-any.whl" {
					t.Fatalf("wheel added to the release: exit %d, artifact-changed %+v\n%s", r.Summary.ExitCode, f, dumpFindings(r))
				}
				if next, _ := pinWith(t, opts); ArtifactSwapped(lk.Servers["mail"], next.Servers["mail"]) != "" {
					t.Errorf("a new file of the release needs --force to approve")
				}
			})
		}
	}
}
