package guard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmreg"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/pyindex"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
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
		lk, r := check.Pin(context.Background(), opts, approval.Approver{By: "t@example.com", At: time.Unix(0, 0)})
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

// The stand-in container CLI's answers, in the real CLI's shapes:
// `docker image inspect` (docker 27; trimmed to what is read, as in
// internal/check's fixtures) and `docker pull`. It keeps its image store
// in a directory: digest is what the local tag resolves to (absent: no
// such image), registry what a pull brings (absent: the pull is denied),
// next what the tag resolves to after the first inspect (a tag moved
// while the server starts), inspect raw output to print instead. calls
// lists the inspects and pulls it answered. Its run execs the test
// binary as the fake server, after saying on stderr how it was run.
const standInDocker = `#!/bin/sh
state=@STATE@
case "$1 $2" in
"image inspect")
	echo "image inspect $3" >>"$state/calls"
	if [ -f "$state/inspect" ]; then cat "$state/inspect"; exit 0; fi
	if [ ! -f "$state/digest" ]; then
		echo "Error response from daemon: No such image: $3" >&2
		exit 1
	fi
	d=$(cat "$state/digest")
	if [ -f "$state/next" ]; then mv "$state/next" "$state/digest"; fi
	cat <<EOF
[
    {
        "Id": "sha256:91ef0af61f39ece4d6710e465df5ed6ca12112358344fd51ae6a3b886634148b",
        "RepoTags": ["ghcr.io/acme/mcp:1"],
        "RepoDigests": ["ghcr.io/acme/mcp@$d"],
        "Parent": "",
        "Architecture": "amd64"
    }
]
EOF
	exit 0
	;;
esac
case "$1" in
pull)
	shift
	echo "pull $*" >>"$state/calls"
	if [ ! -f "$state/registry" ]; then
		echo "Error response from daemon: pull access denied for ghcr.io/acme/mcp, repository does not exist or may require 'docker login': denied: requested access to the resource is denied" >&2
		exit 1
	fi
	d=$(cat "$state/registry")
	echo "1: Pulling from acme/mcp"
	echo "c6a83fedfae6: Pull complete"
	echo "Digest: $d"
	echo "Status: Downloaded newer image for ghcr.io/acme/mcp:1"
	echo "ghcr.io/acme/mcp:1"
	cp "$state/registry" "$state/digest"
	exit 0
	;;
run)
	echo "stand-in docker: $*" >&2
	exec @SELF@
	;;
esac
echo "stand-in docker: unexpected $*" >&2
exit 125
`

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestGuardHoldsImageDigest: a docker run launch is held to the lock's
// image digest before anything of it runs, through a stand-in docker on
// the launch's PATH (no engine runs here): the digest the tag resolves to
// locally is read with the launch's CLI, an image not present is pulled
// first, and a different or unreadable digest refuses the session with
// artifact-changed naming the launch. A session held to a digest runs
// with --pull=never, so docker cannot fetch other bytes between the
// check and the run. A tag moved after the check is caught again before
// the client's first message reaches the server: the client gets -32001
// with the rule, and nothing of the server. Under basic and strict: the
// digest is read outside the sandbox, and the launch runs inside.
func TestGuardHoldsImageDigest(t *testing.T) {
	const ref = "ghcr.io/acme/mcp:1"
	locked := "sha256:" + strings.Repeat("a1", 32)
	moved := "sha256:" + strings.Repeat("b2", 32)
	base := pinFake(t, "img", "honest")
	atLevels(t, func(t *testing.T, lvl sandbox.Level) {
		for _, tc := range []struct {
			name string
			// lock is the lock's digest ("": none recorded); local the
			// digest the tag resolves to locally ("": not present);
			// registry what a pull brings ("": the pull fails); next
			// the local digest after the first inspect; inspect raw
			// inspect output; image the launch's image ("": ref), opts
			// run options before it besides -i --rm.
			lock, local, registry, next, inspect, image string
			opts                                        []string
			// refused is what the session is refused with, before the
			// start ("": it runs); late: at the client's first message
			// instead, the server started.
			refused string
			late    bool
			// calls are the inspects and pulls the stand-in answered.
			calls []string
		}{
			{name: "matching digest", lock: locked, local: locked,
				calls: []string{"image inspect " + ref, "image inspect " + ref}},
			{name: "tag moved to other bytes", lock: locked, local: moved,
				refused: "docker run " + ref + " resolves to " + moved + "; the lock pins " + locked,
				calls:   []string{"image inspect " + ref}},
			{name: "absent, pulled", lock: locked, registry: locked,
				calls: []string{"image inspect " + ref, "pull " + ref, "image inspect " + ref, "image inspect " + ref}},
			{name: "absent, pulled for the run's platform", lock: locked, registry: locked, opts: []string{"--platform", "linux/arm64"},
				calls: []string{"image inspect " + ref, "pull --platform linux/arm64 " + ref, "image inspect " + ref, "image inspect " + ref}},
			{name: "absent, the pull brings other bytes", lock: locked, registry: moved,
				refused: "docker run " + ref + " resolves to " + moved,
				calls:   []string{"image inspect " + ref, "pull " + ref, "image inspect " + ref}},
			{name: "absent, the pull fails", lock: locked,
				refused: "docker run " + ref + ": the image is not present and could not be pulled to verify it before starting: docker pull " + ref + ": exit status 1: Error response from daemon: pull access denied",
				calls:   []string{"image inspect " + ref, "pull " + ref}},
			{name: "unreadable digest", lock: locked, inspect: `[{"Id":"not-a-digest","RepoDigests":[]}]`,
				refused: "docker run " + ref + ": the image's digest cannot be read to hold it to the lock's " + locked + ": image inspect names no sha256 digest",
				calls:   []string{"image inspect " + ref}},
			{name: "placeholder image", lock: locked, local: locked, image: "${IMAGE}",
				refused: "docker run ${IMAGE}: the image comes from a placeholder"},
			{name: "no digest in the lock", local: moved},
			{name: "tag moved after the start", lock: locked, local: locked, next: moved,
				refused: "docker run " + ref + " resolves to " + moved, late: true,
				calls: []string{"image inspect " + ref, "image inspect " + ref}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				bin, state := t.TempDir(), t.TempDir()
				script := strings.NewReplacer("@STATE@", shellQuote(state), "@SELF@", shellQuote(self(t))).Replace(standInDocker)
				if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				for f, v := range map[string]string{"digest": tc.local, "registry": tc.registry, "next": tc.next, "inspect": tc.inspect} {
					if v == "" {
						continue
					}
					if err := os.WriteFile(filepath.Join(state, f), []byte(v+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				image := ref
				if tc.image != "" {
					image = tc.image
				}
				args := append(append([]string{"run", "-i", "--rm"}, tc.opts...), image)
				lk := withLaunch(base, "img", func(l *lock.Launch) {
					l.Command, l.Args, l.Package, l.Digest = "docker", args, image, tc.lock
					l.File, l.FileSHA256 = "", ""
				})
				c := startGuard(t, guardSpec{lock: lk, server: "img", command: "docker", args: args,
					env: map[string]string{"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"), "FAKE_SCENARIO": "honest"},
					// The stand-in execs the test binary, which strict
					// grants only as a launch's own command.
					sandbox: sandbox.Options{Level: lvl, ReadOnly: []string{self(t)}}})
				switch {
				case tc.refused != "" && !tc.late:
					refusedBeforeStart(t, c, finding.ArtifactChanged, tc.refused)
				case tc.late:
					we := c.refused(0, "initialize", map[string]any{
						"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
						"clientInfo": map[string]any{"name": "claude-code", "version": "2.0.0"},
					})
					if !strings.Contains(we.Message, string(finding.ArtifactChanged)+": "+tc.refused) {
						t.Fatalf("refusal %q", we.Message)
					}
					if code := c.exit(); code != ExitRefused {
						t.Fatalf("exit %d, want %d\n%s", code, ExitRefused, c.stderr.String())
					}
					if s := c.stderr.String(); !strings.Contains(s, string(finding.ArtifactChanged)+": "+tc.refused) || !strings.Contains(s, "refusing the session") {
						t.Fatalf("stderr:\n%s", s)
					}
					// The refusal is all the client got: nothing of the
					// server was forwarded.
					if msgs := c.drain(); len(msgs) != 0 {
						t.Fatalf("after the refusal the client got %d more messages: %q", len(msgs), c.raw.String())
					}
				default:
					c.initialize()
					if code := c.close(); code != ExitOK {
						t.Fatalf("exit %d\n%s", code, c.stderr.String())
					}
					// Held to a digest, docker runs the verified image
					// and never fetches one; with nothing to hold, the
					// launch is the client's.
					run := strings.Join(args, " ")
					if tc.lock != "" {
						run = strings.Join(args[:len(args)-1], " ") + " --pull=never " + image
					}
					run = "stand-in docker: " + run
					if s := c.stderr.String(); !strings.Contains(s, run+"\n") {
						t.Fatalf("stderr lacks %q:\n%s", run, s)
					}
				}
				// A pull's progress is the CLI's, never the client's.
				if strings.Contains(c.raw.String(), "Pulling from") {
					t.Fatalf("the pull's output reached the client: %q", c.raw.String())
				}
				var calls []string
				if b, err := os.ReadFile(filepath.Join(state, "calls")); err == nil {
					calls = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
				}
				if !reflect.DeepEqual(calls, tc.calls) {
					t.Fatalf("the stand-in answered %q, want %q\n%s", calls, tc.calls, c.stderr.String())
				}
			})
		}
	})
}

// TestArtifactNeverPull: --pull=never goes right before the image, after
// every option the config gives (the last --pull wins in docker's and
// podman's flag parsing), and only into a run held to a digest.
func TestArtifactNeverPull(t *testing.T) {
	digest := lock.Launch{Digest: "sha256:" + strings.Repeat("c", 64)}
	for _, tc := range []struct {
		command string
		args    []string
		l       lock.Launch
		want    []string
	}{
		{"docker", []string{"run", "-i", "--rm", "mcp/fetch:1"}, digest, []string{"run", "-i", "--rm", "--pull=never", "mcp/fetch:1"}},
		{"docker", []string{"run", "--pull", "always", "-e", "TOKEN", "ghcr.io/o/s:1", "--port", "1"}, digest,
			[]string{"run", "--pull", "always", "-e", "TOKEN", "--pull=never", "ghcr.io/o/s:1", "--port", "1"}},
		{"/usr/bin/podman", []string{"container", "run", "--platform=linux/arm64", "-i", "quay.io/o/s"}, digest,
			[]string{"container", "run", "--platform=linux/arm64", "-i", "--pull=never", "quay.io/o/s"}},
		{"cmd", []string{"/c", "docker", "run", "-i", "mcp/fetch"}, digest, []string{"/c", "docker", "run", "-i", "--pull=never", "mcp/fetch"}},
		{"docker", []string{"run", "-i", "mcp/fetch"}, lock.Launch{}, []string{"run", "-i", "mcp/fetch"}},
		{"docker", []string{"compose", "up"}, digest, []string{"compose", "up"}},
		{"npx", []string{"-y", "pkg"}, digest, []string{"-y", "pkg"}},
	} {
		o := Options{Command: tc.command, Args: append([]string(nil), tc.args...)}
		neverPull(&o, tc.l)
		if !reflect.DeepEqual(o.Args, tc.want) {
			t.Errorf("%s %q: %q, want %q", tc.command, tc.args, o.Args, tc.want)
		}
	}
}

// TestGuardHoldsPythonRelease: a uvx launch (a stand-in under uvx's name
// that is the mail server itself: uv is not on a fresh machine, and the
// guard's question goes to the index, not to uv) is held to the release
// the lock pins, under basic and strict: the pinned release runs; a new
// release, the same wheel with other bytes and a wheel added to the
// pinned release each refuse the session before the server starts, as
// does an index that cannot be read.
func TestGuardHoldsPythonRelease(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	atLevels(t, func(t *testing.T, lvl sandbox.Level) {
		idx := pyindex.New(t)
		idx.Publish("fixture-mail-mcp", "1.0.0", "fixture_mail_mcp-1.0.0.tar.gz", []byte("sdist 1.0.0"))
		uvx := filepath.Join(t.TempDir(), "uvx")
		body := npmreg.MailExecutable(node, "")
		if err := os.WriteFile(uvx, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"UV_INDEX_URL": idx.URL}
		srv := config.Server{Name: "mail", Type: "stdio", Command: uvx, Args: []string{"fixture-mail-mcp"},
			Env: env, File: ".mcp.json", Line: 1, Client: "claude-code"}
		opts := check.Options{
			Servers: []config.Server{srv}, All: true, LockPath: "mcp-lock.json",
			Probe:         probe.Options{Launches: 1, RequestTimeout: 30 * time.Second},
			ServerTimeout: 2 * time.Minute, Sandbox: sandbox.Options{Level: lvl},
			FailOn: finding.Error, Jobs: 1,
		}
		lk, r := check.Pin(context.Background(), opts, approval.Approver{By: "t@example.com", At: time.Unix(0, 0)})
		if lk == nil || lk.Servers["mail"].Launch.Distribution != "fixture_mail_mcp-1.0.0.tar.gz" {
			t.Fatalf("pin: %+v", r.Findings())
		}
		session := func(env map[string]string) *client {
			return startGuard(t, guardSpec{lock: lk, server: "mail", command: uvx, args: []string{"fixture-mail-mcp"}, env: env,
				sandbox: sandbox.Options{Level: lvl}})
		}
		c := session(env)
		c.initialize()
		if code := c.close(); code != ExitOK {
			t.Fatalf("pinned: exit %d\n%s", code, c.stderr.String())
		}
		for _, tc := range []struct {
			name    string
			publish func()
			env     map[string]string
			rule    finding.RuleID
			also    string
		}{
			{"index unreadable", func() {}, map[string]string{"UV_INDEX_URL": "http://127.0.0.1:1/simple/"}, finding.PackageChanged, "the index could not be read"},
			{"extra index", func() {}, map[string]string{"UV_INDEX_URL": idx.URL, "UV_EXTRA_INDEX_URL": "http://extra.invalid/"}, finding.PackageChanged, "another source"},
			{"wheel added to the release", func() {
				idx.Publish("fixture-mail-mcp", "1.0.0", "fixture_mail_mcp-1.0.0-py3-none-any.whl", []byte("wheel 1.0.0"))
			}, env, finding.ArtifactChanged, "fixture_mail_mcp-1.0.0-py3-none-any.whl"},
			{"same file, other bytes", func() {
				idx.Publish("fixture-mail-mcp", "1.0.0", "fixture_mail_mcp-1.0.0-py3-none-any.whl", []byte("wheel 1.0.0"))
				lk.Servers["mail"].Launch.Distribution = "fixture_mail_mcp-1.0.0-py3-none-any.whl"
				idx.Publish("fixture-mail-mcp", "1.0.0", "fixture_mail_mcp-1.0.0-py3-none-any.whl", []byte("wheel 1.0.0, and a bcc"))
			}, env, finding.ArtifactChanged, "should never happen"},
			{"new release", func() {
				idx.Publish("fixture-mail-mcp", "1.0.1", "fixture_mail_mcp-1.0.1-py3-none-any.whl", []byte("wheel 1.0.1"))
			}, env, finding.PackageChanged, "would install version 1.0.1"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.publish()
				refusedBeforeStart(t, session(tc.env), tc.rule, tc.also)
			})
		}
	})
}
