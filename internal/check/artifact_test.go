package check

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmreg"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// The docker CLI's real `image inspect` output shapes (trimmed to the
// fields read; docker 27 and podman 5).
const (
	inspectPulled = `[
    {
        "Id": "sha256:91ef0af61f39ece4d6710e465df5ed6ca12112358344fd51ae6a3b886634148b",
        "RepoTags": ["alpine:3.19"],
        "RepoDigests": ["alpine@sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b"],
        "Parent": "",
        "Architecture": "amd64"
    }
]`
	inspectTwoRepos = `[{"Id":"sha256:1111111111111111111111111111111111111111111111111111111111111111","RepoTags":["ghcr.io/acme/mcp:1","mirror.example/acme/mcp:1"],"RepoDigests":["mirror.example/acme/mcp@sha256:2222222222222222222222222222222222222222222222222222222222222222","ghcr.io/acme/mcp@sha256:3333333333333333333333333333333333333333333333333333333333333333"]}]`
	inspectLocal    = `[{"Id":"sha256:4444444444444444444444444444444444444444444444444444444444444444","RepoTags":["mcp-local:dev"],"RepoDigests":[]}]`
	inspectPodman   = `[{"Id":"5555555555555555555555555555555555555555555555555555555555555555","Digest":"sha256:6666666666666666666666666666666666666666666666666666666666666666","RepoTags":["quay.io/acme/mcp:latest"],"RepoDigests":[]}]`
)

func TestParseImageInspect(t *testing.T) {
	for _, tc := range []struct {
		name, out, image, want, err string
	}{
		{"docker hub short name", inspectPulled, "alpine", "sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b", ""},
		{"docker hub long name", inspectPulled, "docker.io/library/alpine", "sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b", ""},
		{"the launch's repository wins", inspectTwoRepos, "ghcr.io/acme/mcp", "sha256:3333333333333333333333333333333333333333333333333333333333333333", ""},
		{"built locally: the image id", inspectLocal, "mcp-local", "sha256:4444444444444444444444444444444444444444444444444444444444444444", ""},
		{"podman Digest", inspectPodman, "quay.io/acme/mcp", "sha256:6666666666666666666666666666666666666666666666666666666666666666", ""},
		{"no image", `[]`, "x", "", "0 images"},
		{"not json", "Error: No such image: x", "x", "", "not the JSON"},
		{"no digest", `[{"Id":"abc","RepoDigests":["x@sha1:00"]}]`, "x", "", "no sha256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := launchid.ParseImageInspect([]byte(tc.out), tc.image)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestImageDigestStandIn reads the digest through a stand-in docker on
// PATH that prints the real CLI's output (no engine runs here), and
// reports its failure with docker's own message.
func TestImageDigestStandIn(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1 $2 $3\" = \"image inspect alpine:3.19\" ]; then cat <<'EOF'\n" + inspectPulled + "\nEOF\nexit 0; fi\necho \"Error response from daemon: No such image: $3\" >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cli := filepath.Join(dir, "docker")
	d, err := launchid.ImageDigest(context.Background(), cli, "alpine:3.19", "alpine")
	if err != nil || d != "sha256:c5b1261d6d3e43071626931fc004f70149baeba2c8ec672bd4f27761f8e1ad6b" {
		t.Fatalf("digest %q, %v", d, err)
	}
	if _, err := launchid.ImageDigest(context.Background(), cli, "nope:1", "nope"); err == nil || !strings.Contains(err.Error(), "No such image: nope:1") {
		t.Fatalf("err = %v", err)
	}
}

func TestLaunchFile(t *testing.T) {
	for _, tc := range []struct {
		command string
		args    []string
		idx     int
		ok      bool
	}{
		{"/opt/x/server", nil, -1, true},
		{"./scripts/server.sh", []string{"--stdio"}, -1, true},
		{"mcp-server-git", nil, -1, true},
		{"node", []string{"/opt/x/server.mjs"}, 0, true},
		{"node", []string{"--enable-source-maps", "dist/index.js", "--port", "1"}, 1, true},
		{"python3", []string{"server.py"}, 0, true},
		{"python3.12", []string{"-u", "server.py"}, 1, true},
		{"python", []string{"-m", "mcp_server"}, 0, false},
		{"node", []string{"-e", "require('x')"}, 0, false},
		{"deno", []string{"run", "-A", "main.ts"}, 2, true},
		{"bash", []string{"./run.sh"}, 0, true},
		{"go", []string{"run", "./server"}, 0, false},
		{"env", []string{"FAKE=1", "fakemcp"}, 1, true},
		{"env", []string{"-i", "A=b", "node", "s.js"}, 3, true},
		{"env", []string{"A=b"}, 0, false},
		{"C:\\tools\\node.exe", []string{"server.js"}, 0, true},
	} {
		idx, ok := launchid.LaunchFile(tc.command, tc.args)
		if ok != tc.ok || ok && idx != tc.idx {
			t.Errorf("launchFile(%q, %q) = %d, %v; want %d, %v", tc.command, tc.args, idx, ok, tc.idx, tc.ok)
		}
	}
}

func TestReviewLinks(t *testing.T) {
	for _, tc := range []struct {
		repo string
		reg  *registryAnswer
		want []string
	}{
		{"", nil, []string{"https://www.npmjs.com/package/pm/v/1.0.15", "https://www.npmjs.com/package/pm/v/1.0.16"}},
		{"https://github.com/o/r", &registryAnswer{Tarball: "https://registry.npmjs.org/pm/-/pm-1.0.16.tgz"}, []string{"https://github.com/o/r/compare/v1.0.15...v1.0.16", "https://www.npmjs.com/package/pm/v/1.0.16"}},
		{"", &registryAnswer{Tarball: "http://127.0.0.1:1/pm/-/pm-1.0.16.tgz"}, []string{"http://127.0.0.1:1/pm/-/pm-1.0.16.tgz"}},
	} {
		got := reviewLinks("pm", "1.0.15", "1.0.16", tc.repo, tc.reg)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("links %q lack %q", got, w)
			}
		}
	}
}

func TestGithubRepo(t *testing.T) {
	for in, want := range map[string]string{
		`"https://github.com/o/r"`:                              "https://github.com/o/r",
		`{"type":"git","url":"git+https://github.com/o/r.git"}`: "https://github.com/o/r",
		`"github:o/r"`:                      "https://github.com/o/r",
		`"https://evil.example/o/r"`:        "",
		`"https://github.com/o/r\u001b[2J"`: "",
		`"javascript:alert(1)"`:             "",
	} {
		if got := launchid.GithubRepo([]byte(in)); got != want {
			t.Errorf("githubRepo(%s) = %q, want %q", in, got, want)
		}
	}
}

// mailFixture is a local npm registry serving fixture-mail-mcp and a
// config that launches it as a client would: `npx -y fixture-mail-mcp`,
// the registry set in the config's env.
type mailFixture struct {
	reg *npmreg.Registry
	srv config.Server
}

func newMailFixture(t *testing.T) *mailFixture {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	reg := npmreg.New(t)
	reg.Publish("fixture-mail-mcp", "1.0.0", npmreg.Tarball("fixture-mail-mcp", "1.0.0", npmreg.MailServer("")))
	return &mailFixture{reg: reg, srv: config.Server{
		Name: "mail", Type: "stdio", Command: "npx", Args: []string{"-y", "fixture-mail-mcp"},
		Env:  map[string]string{"npm_config_registry": reg.URL},
		File: ".mcp.json", Line: 3, Client: "claude-code",
	}}
}

// bcc is the one line of new code of the postmark-mcp case.
const bcc = "// every mail is copied to the author from now on"

func (m *mailFixture) publish(version, extra string) {
	m.reg.Publish("fixture-mail-mcp", version, npmreg.Tarball("fixture-mail-mcp", version, npmreg.MailServer(extra)))
}

func artifactOptions(t *testing.T, lvl sandbox.Level, cache string, s config.Server) Options {
	t.Helper()
	if lvl == sandbox.Strict {
		if err := sandbox.Available(sandbox.Strict); err != nil {
			testproc.NoPrivilege(t, "strict sandbox unavailable here: %v", err)
		}
	}
	return Options{
		Servers: []config.Server{s}, All: true, LockPath: "mcp-lock.json",
		Probe:         probe.Options{Launches: 1, RequestTimeout: 30 * time.Second},
		ServerTimeout: 2 * time.Minute,
		Sandbox:       sandbox.Options{Level: lvl, CacheDir: cache},
		FailOn:        finding.Error,
		Jobs:          1,
	}
}

func pinWith(t *testing.T, opts Options) (*lock.File, []byte) {
	t.Helper()
	lk, r := Pin(context.Background(), opts, approval.Approver{By: "test@example.com", At: time.Unix(0, 0)})
	if lk == nil || r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("pin: exit %d:\n%s", r.Summary.ExitCode, dumpFindings(r))
	}
	data, err := lk.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return lk, data
}

func checkWith(opts Options, lk *lock.File, data []byte) *report.Report {
	opts.Lock, opts.LockData = lk, data
	return Compare(context.Background(), opts)
}

func findingOf(r *report.Report, rule finding.RuleID) *finding.Finding {
	for _, f := range r.Findings() {
		if f.Rule == rule {
			return &f
		}
	}
	return nil
}

// TestNpmNewReleaseSameTools is the table against a local npm
// registry, under basic and strict: a new release with the same tools and
// one new line of code fails the check with package-changed (an error,
// both versions, a link), even from a warm cache that still holds the
// pinned version; the same version re-served with other bytes is
// artifact-changed; the control passes.
func TestNpmNewReleaseSameTools(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	for _, lvl := range []sandbox.Level{sandbox.Basic, sandbox.Strict} {
		t.Run(string(lvl), func(t *testing.T) {
			m := newMailFixture(t)
			warm := t.TempDir()
			opts := artifactOptions(t, lvl, warm, m.srv)
			lk, data := pinWith(t, opts)
			l := lk.Servers["mail"].Launch
			if l.Resolved != "1.0.0" || !strings.HasPrefix(l.Integrity, "sha512-") || l.Package != "fixture-mail-mcp" {
				t.Fatalf("pinned launch %+v", l)
			}
			if r := checkWith(opts, lk, data); r.Summary.ExitCode != report.ExitOK {
				t.Fatalf("control on 1.0.0: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
			}

			// 1.0.1 is published; the cache from the pin (warm) still
			// holds 1.0.0.
			m.publish("1.0.1", bcc)
			r := checkWith(opts, lk, data)
			if r.Summary.ExitCode != report.ExitDrift {
				t.Fatalf("new release, warm cache: exit %d, want 1\n%s", r.Summary.ExitCode, dumpFindings(r))
			}
			f := findingOf(r, finding.PackageChanged)
			if f == nil || f.Severity != finding.Error || f.Before != "1.0.0" || f.After != "1.0.1" || !strings.Contains(f.Detail, "fixture-mail-mcp-1.0.1.tgz") {
				t.Fatalf("package-changed = %+v\n%s", f, dumpFindings(r))
			}
			if !strings.Contains(strings.Join(r.Servers[0].Notes, "\n"), "resolved by the registry") {
				t.Errorf("no note says where the version was resolved: %q", r.Servers[0].Notes)
			}
			// A fresh runner too.
			if r := checkWith(artifactOptions(t, lvl, t.TempDir(), m.srv), lk, data); findingOf(r, finding.PackageChanged) == nil || r.Summary.ExitCode != report.ExitDrift {
				t.Fatalf("new release, fresh cache: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
			}

			// The control: pin on 1.0.1, check on 1.0.1.
			lk, data = pinWith(t, opts)
			if got := lk.Servers["mail"].Launch.Resolved; got != "1.0.1" {
				t.Fatalf("re-pinned %q", got)
			}
			if r := checkWith(opts, lk, data); r.Summary.ExitCode != report.ExitOK {
				t.Fatalf("control on 1.0.1: exit %d\n%s", r.Summary.ExitCode, dumpFindings(r))
			}

			// 1.0.1 is served with other bytes (a compromised mirror).
			m.publish("1.0.1", bcc+"\n// and the attachments")
			r = checkWith(artifactOptions(t, lvl, t.TempDir(), m.srv), lk, data)
			if r.Summary.ExitCode != report.ExitDrift {
				t.Fatalf("same version, other bytes: exit %d, want 1\n%s", r.Summary.ExitCode, dumpFindings(r))
			}
			f = findingOf(r, finding.ArtifactChanged)
			if f == nil || f.Severity != finding.Error || f.Field != "launch/integrity" || !strings.Contains(f.Message, "never lets a published version be republished") {
				t.Fatalf("artifact-changed = %+v\n%s", f, dumpFindings(r))
			}
			if findingOf(r, finding.PackageChanged) != nil {
				t.Errorf("same version reported as package-changed")
			}
		})
	}
}

// TestPackageChangedPolicyWarning: a policy lowers package-changed to a
// warning for one server, and the check passes on that account.
func TestPackageChangedPolicyWarning(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	m := newMailFixture(t)
	opts := artifactOptions(t, sandbox.Basic, t.TempDir(), m.srv)
	lk, data := pinWith(t, opts)
	m.publish("1.0.1", bcc)
	opts.Policy = settingsFunc(func(string) policy.Settings {
		return policy.Settings{Rules: map[finding.RuleID]policy.RuleLevel{finding.PackageChanged: {Severity: finding.Warning}}}
	})
	r := checkWith(opts, lk, data)
	if f := findingOf(r, finding.PackageChanged); f == nil || f.Severity != finding.Warning || r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("exit %d, package-changed %+v\n%s", r.Summary.ExitCode, f, dumpFindings(r))
	}
}

// TestOldLockWithoutIdentity: a lock written before identities were
// recorded still checks; the report says what is missing and that pin
// adds it, and does not fail for that.
func TestOldLockWithoutIdentity(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	m := newMailFixture(t)
	opts := artifactOptions(t, sandbox.Basic, t.TempDir(), m.srv)
	lk, _ := pinWith(t, opts)
	lk.Servers["mail"].Launch.Integrity = ""
	data, _ := lk.Marshal()
	if strings.Contains(string(data), "integrity") {
		t.Fatal("the old lock still has integrity")
	}
	old, err := lock.Parse("mcp-lock.json", data)
	if err != nil {
		t.Fatal(err)
	}
	r := checkWith(opts, old, data)
	notes := strings.Join(r.Servers[0].Notes, "\n")
	if r.Summary.ExitCode != report.ExitOK || !strings.Contains(notes, "does not record the tarball integrity") || !strings.Contains(notes, "pin") {
		t.Fatalf("exit %d, notes %q\n%s", r.Summary.ExitCode, notes, dumpFindings(r))
	}
}

// TestLocalFileSwapped: a server run from a file (an executable, or a
// script given to node) replaced by other code with the same tools fails
// the check with artifact-changed; the same file tracked in the
// project's git repository is a note, and the check passes on that
// account.
func TestLocalFileSwapped(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	for _, tc := range []struct {
		name    string
		tracked bool
		exec    bool // the file is the command, not node's argument
	}{
		{"script outside the project", false, false},
		{"executable outside the project", false, true},
		{"script tracked in the project", true, false},
	} {
		for _, lvl := range []sandbox.Level{sandbox.Basic, sandbox.Strict} {
			t.Run(tc.name+"/"+string(lvl), func(t *testing.T) {
				dir := t.TempDir()
				project := t.TempDir()
				if tc.tracked {
					dir = project
					git(t, project, "init", "-q")
				}
				file := filepath.Join(dir, "server.js")
				write := func(extra string) {
					body := npmreg.MailServer(extra)
					if tc.exec {
						body = npmreg.MailExecutable(node, extra)
					}
					if err := os.WriteFile(file, []byte(body), 0o755); err != nil {
						t.Fatal(err)
					}
					if tc.tracked {
						git(t, project, "add", "server.js")
						git(t, project, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "server")
					}
				}
				write("")
				s := config.Server{Name: "mail", Type: "stdio", Command: node, Args: []string{file}, File: ".mcp.json", Line: 3, Client: "claude-code"}
				if tc.exec {
					s.Command, s.Args = file, nil
				}
				opts := artifactOptions(t, lvl, "", s)
				opts.BaseDir = project
				lk, data := pinWith(t, opts)
				l := lk.Servers["mail"].Launch
				if len(l.FileSHA256) != 64 || l.File != file || l.Tracked != tc.tracked {
					t.Fatalf("pinned launch %+v", l)
				}
				write(bcc)
				r := checkWith(opts, lk, data)
				f := findingOf(r, finding.ArtifactChanged)
				if f == nil || f.Field != "launch/fileSha256" {
					t.Fatalf("no artifact-changed\n%s", dumpFindings(r))
				}
				want, sev := report.ExitDrift, finding.Error
				if tc.tracked {
					want, sev = report.ExitOK, finding.Note
				}
				if r.Summary.ExitCode != want || f.Severity != sev {
					t.Fatalf("exit %d (want %d), severity %s (want %s)\n%s", r.Summary.ExitCode, want, f.Severity, sev, dumpFindings(r))
				}
			})
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}

// TestUnidentifiedLaunchWarns: a launch whose artifact cannot be read
// says so as a warning naming the launch and why, without failing.
func TestUnidentifiedLaunchWarns(t *testing.T) {
	closed := "http://127.0.0.1:1/simple/" // nothing listens on port 1
	for _, tc := range []struct {
		command string
		args    []string
		env     map[string]string
		want    string
	}{
		{"uvx", []string{"mcp-server-fetch"}, map[string]string{"UV_EXTRA_INDEX_URL": "http://extra.invalid/"}, "uvx mcp-server-fetch: the launch can also install from another source (UV_EXTRA_INDEX_URL)"},
		{"uvx", []string{"--find-links", "/opt/wheels", "mcp-server-fetch"}, nil, "another source (--find-links)"},
		{"pipx", []string{"run", "mcp-server-fetch==1.0"}, map[string]string{"PIP_INDEX_URL": closed}, "pipx run mcp-server-fetch==1.0: the index could not be read"},
		{"uvx", []string{"${PKG}"}, nil, "not an index package"},
		{"uvx", []string{"--from", "git+https://github.com/o/r", "srv"}, nil, "not an index package"},
		{"pnpm", []string{"dlx", "github:o/r"}, nil, "pnpm dlx github:o/r: the registry could not be asked (the spec is not a registry package"},
		{"bunx", []string{"fixture-absent-mcp"}, map[string]string{"npm_config_registry": closed, "npm_config_fetch_retries": "0"}, "bunx fixture-absent-mcp: the registry could not be asked (npm view"},
		{"npx", []string{"-y", "github:o/r"}, nil, "not a registry package"},
		{"npx", []string{"-y", "https://example.com/x.tgz"}, nil, "not a registry package"},
	} {
		run := &serverRun{cfg: config.Server{Name: "s", Type: "stdio", Command: tc.command, Args: tc.args, Env: tc.env}}
		opts := &Options{Sandbox: sandbox.Options{CacheDir: t.TempDir()}}
		tgt := &stdioTarget{s: run.cfg, opts: opts, command: tc.command, args: tc.args, env: tc.env}
		resolveElsewhere(context.Background(), tc.command, tc.args, tc.env, tc.env, opts, &run.art)
		readArtifact(context.Background(), tgt, &run.art)
		var got *finding.Finding
		for _, f := range launchHygiene(run, nil) {
			if f.Rule == finding.ArtifactUnidentified {
				got = &f
			}
		}
		if got == nil || got.Severity != finding.Warning || !strings.Contains(got.Message, tc.want) {
			t.Errorf("%s %v: %+v", tc.command, tc.args, got)
		}
	}
}

// TestRegistryLaunchersIdentified: pnpm dlx and bunx install from the npm
// registry themselves; the identity pinned is what the registry the
// launch names resolves the spec to (the checker's own npm asks it).
func TestRegistryLaunchersIdentified(t *testing.T) {
	m := newMailFixture(t)
	tarball := npmreg.Tarball("fixture-mail-mcp", "1.0.0", npmreg.MailServer(""))
	for _, tc := range []struct {
		command string
		args    []string
	}{
		{"pnpm", []string{"dlx", "fixture-mail-mcp"}},
		{"pnpm", []string{"dlx", "fixture-mail-mcp@1.0.0"}},
		{"bunx", []string{"fixture-mail-mcp"}},
		{"bun", []string{"x", "fixture-mail-mcp"}},
	} {
		env := m.srv.Env
		run := &serverRun{cfg: config.Server{Name: "s", Type: "stdio", Command: tc.command, Args: tc.args, Env: env}}
		opts := &Options{Sandbox: sandbox.Options{Level: sandbox.Basic, CacheDir: t.TempDir()}}
		tgt := &stdioTarget{s: run.cfg, opts: opts, command: tc.command, args: tc.args, env: env}
		note := resolveElsewhere(context.Background(), tc.command, tc.args, env, env, opts, &run.art)
		readArtifact(context.Background(), tgt, &run.art)
		if run.art.Version != "1.0.0" || run.art.Integrity != npmreg.Integrity(tarball) || run.art.Unidentified != "" || !strings.Contains(note, "resolved by the registry") {
			t.Errorf("%s %v: %+v, note %q", tc.command, tc.args, run.art, note)
		}
	}
}

// BenchmarkReadArtifact is the cost of reading a launch's identity, per
// launch, over the real servers internal/testing/npmtest installs (the file each
// bin runs: sha256, and whether the project's git tracks it).
func BenchmarkReadArtifact(b *testing.B) {
	d := npmtest.Servers(b)
	for _, bin := range []string{"mcp-server-filesystem", "mcp-server-everything", "mcp-server-memory"} {
		b.Run(bin, func(b *testing.B) {
			run := &serverRun{cfg: config.Server{Name: bin, Type: "stdio", Command: d.Bin(bin)}}
			tgt := &stdioTarget{s: run.cfg, opts: &Options{BaseDir: "."}, command: d.Bin(bin)}
			for b.Loop() {
				run.art = artifact{}
				readArtifact(context.Background(), tgt, &run.art)
				if run.art.FileSHA256 == "" {
					b.Fatalf("no identity: %+v", run.art)
				}
			}
		})
	}
}

// BenchmarkRegistryQuestion is the other part of reading a package
// launch's identity: the question check asks the registry before each
// npx launch (`npm view SPEC --prefer-online`, which revalidates the
// packument), per real server of bench/servers and testdata/npm, at the
// versions they pin. It needs the public registry, so it skips without
// one; it is the figure issue 39 asks for, not a test.
func BenchmarkRegistryQuestion(b *testing.B) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		b.Skip("npm is not installed")
	}
	var specs []string
	for _, file := range []string{"../../bench/servers/package.json", "../../testdata/npm/package.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		var p struct{ Dependencies map[string]string }
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatalf("%s: %v", file, err)
		}
		for name, v := range p.Dependencies {
			if alias, ok := strings.CutPrefix(v, "npm:"); ok {
				name, v, _ = strings.Cut(alias[1:], "@")
				name = alias[:1] + name
			}
			if strings.Contains(name, "sarif") || name == "@modelcontextprotocol/sdk" {
				continue // test data, not servers
			}
			specs = append(specs, name+"@"+v)
		}
	}
	slices.Sort(specs)
	env := launchid.NpmEnv(nil, b.TempDir())
	if _, err := resolveRegistry(context.Background(), npm, specs[0], env); err != nil {
		b.Skipf("the registry cannot be asked here: %v", err)
	}
	for _, spec := range specs {
		b.Run(strings.ReplaceAll(spec, "/", "~"), func(b *testing.B) {
			for b.Loop() {
				if _, err := resolveRegistry(context.Background(), npm, spec, env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLockGrowth logs the lock's growth in bytes per server from the
// artifact identity, for an npx launch and a file launch.
func TestLockGrowth(t *testing.T) {
	for _, l := range []lock.Launch{
		{Type: "stdio", Command: "npx", Args: []string{"-y", "fixture-mail-mcp"}, Package: "fixture-mail-mcp", Resolved: "1.0.1", Integrity: npmreg.Integrity([]byte("x"))},
		{Type: "stdio", Command: "node", Args: []string{"/opt/x/server.mjs"}, File: "/opt/x/server.mjs", FileSHA256: strings.Repeat("a", 64)},
		{Type: "stdio", Command: "docker", Args: []string{"run", "-i", "ghcr.io/acme/mcp:1"}, Package: "ghcr.io/acme/mcp:1", Digest: "sha256:" + strings.Repeat("b", 64)},
		{Type: "stdio", Command: "uvx", Args: []string{"mcp-server-fetch"}, Package: "mcp-server-fetch", Resolved: "2025.4.7", Integrity: "sha256:" + strings.Repeat("c", 64), Distribution: "mcp_server_fetch-2025.4.7-py3-none-any.whl"},
	} {
		with := &lock.File{LockfileVersion: 1, Servers: map[string]*lock.Server{"s": {Launch: l, Tools: map[string]*lock.Entry{}}}}
		without := &lock.File{LockfileVersion: 1, Servers: map[string]*lock.Server{"s": {Launch: l.WithoutArtifact(), Tools: map[string]*lock.Entry{}}}}
		without.Servers["s"].Launch.Resolved = l.Resolved
		a, _ := with.Marshal()
		b, _ := without.Marshal()
		t.Logf("%s: +%d bytes per server", l.Command, len(a)-len(b))
	}
}

// TestArtifactSwappedFile: other bytes under the same file name are a
// swap; another file named (an upgrade that points the launch at the new
// release's script) is a launch change, approved as usual.
func TestArtifactSwappedFile(t *testing.T) {
	srv := func(file, sum string) *lock.Server {
		return &lock.Server{Launch: lock.Launch{Type: "stdio", Command: "node", Args: []string{file}, File: file, FileSHA256: sum}}
	}
	for _, tc := range []struct {
		prev, next *lock.Server
		swapped    bool
	}{
		{srv("server.mjs", "aa"), srv("server.mjs", "bb"), true},
		{srv("server.mjs", "aa"), srv("server.mjs", "aa"), false},
		{srv("/srv/pkgs/memory@0.6.2/dist/index.js", "aa"), srv("/srv/pkgs/memory@2026.8.31/dist/index.js", "bb"), false},
	} {
		if got := ArtifactSwapped(tc.prev, tc.next); (got != "") != tc.swapped {
			t.Errorf("ArtifactSwapped(%s, %s) = %q; want swapped %v", tc.prev.Launch.File, tc.next.Launch.File, got, tc.swapped)
		}
	}
}
