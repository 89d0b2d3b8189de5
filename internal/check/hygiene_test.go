package check

import (
	"crypto/sha512"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

func TestPackageOf(t *testing.T) {
	digest := "@sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		launch string // command and args, space-separated
		ok     bool   // a package launch at all
		spec   string
		pinned bool
	}{
		{"npx -y some-server", true, "some-server", false},
		{"npx --yes @modelcontextprotocol/server-filesystem@2026.8.31 /tmp", true, "@modelcontextprotocol/server-filesystem@2026.8.31", true},
		{"npx -y @scope/pkg /tmp", true, "@scope/pkg", false},
		{"npx -y pkg@latest", true, "pkg@latest", false},
		{"npx -y pkg@^1", true, "pkg@^1", false},
		{"npx -y pkg@1.2.3", true, "pkg@1.2.3", true},
		{"npx -y pkg@1.2.3-beta.1", true, "pkg@1.2.3-beta.1", true},
		{"npx -p pkg@2.0.0 pkg-bin --flag", true, "pkg@2.0.0", true},
		{"npx --package=pkg@2 pkg-bin", true, "pkg@2", false},
		{"npx -y ${PKG}", true, "${PKG}", false},
		{"npx -y github:owner/repo", true, "github:owner/repo", false},
		{"npx -y github:owner/repo#" + strings.Repeat("a", 40), true, "github:owner/repo#" + strings.Repeat("a", 40), true},
		{"npx ./local-server", false, "", false},
		{"npm exec -y -- pkg@1.0.0", true, "pkg@1.0.0", true},
		{"npm x pkg", true, "pkg", false},
		{"npm run start", false, "", false},
		{"pnpm dlx pkg@3.1.4", true, "pkg@3.1.4", true},
		{"pnpx pkg", true, "pkg", false},
		{"bunx pkg@1.0.0", true, "pkg@1.0.0", true},
		{"bun x pkg", true, "pkg", false},
		{"uvx mcp-server-fetch", true, "mcp-server-fetch", false},
		{"uvx mcp-server-fetch==2025.4.7", true, "mcp-server-fetch==2025.4.7", true},
		{"uvx mcp-server-fetch@2025.4.7", true, "mcp-server-fetch@2025.4.7", true},
		{"uvx mcp-server-fetch@latest", true, "mcp-server-fetch@latest", false},
		{"uvx mcp-server-fetch>=1.0", true, "mcp-server-fetch>=1.0", false},
		{"uvx --from mcp-server-git==0.6.2 mcp-server-git --repo .", true, "mcp-server-git==0.6.2", true},
		{"uvx --python 3.12 mcp-server-time", true, "mcp-server-time", false},
		{"uv tool run pkg[extra]==1.0", true, "pkg[extra]==1.0", true},
		{"pipx run pkg==1.0.0", true, "pkg==1.0.0", true},
		{"pipx run --spec pkg==1.0 pkg-cli", true, "pkg==1.0", true},
		{"pipx run pkg", true, "pkg", false},
		{"docker run -i --rm mcp/fetch", true, "mcp/fetch", false},
		{"docker run -i --rm mcp/fetch:latest", true, "mcp/fetch:latest", false},
		{"docker run -i --rm -e TOKEN ghcr.io/o/server:v1.2.3", true, "ghcr.io/o/server:v1.2.3", false},
		{"docker run -i --rm -v /a:/b --name=x ghcr.io/o/server" + digest, true, "ghcr.io/o/server" + digest, true},
		{"docker run -it localhost:5000/img", true, "localhost:5000/img", false},
		{"podman run --rm img:tag" + digest, true, "img:tag" + digest, true},
		{"docker compose up", false, "", false},
		{"cmd /c npx -y pkg@1.0.0", true, "pkg@1.0.0", true},
		{"/usr/local/bin/npx -y pkg", true, "pkg", false},
		{"node server.js", false, "", false},
		{"go run ./server", false, "", false},
	}
	for _, tt := range tests {
		f := strings.Fields(tt.launch)
		p, ok := launchid.PackageOf(f[0], f[1:])
		if ok != tt.ok || p.Spec != tt.spec || p.Pinned != tt.pinned {
			t.Errorf("PackageOf(%q) = %+v, %v; want spec %q pinned %v ok %v", tt.launch, p, ok, tt.spec, tt.pinned, tt.ok)
		}
		if ok && !p.Pinned && p.Why == "" {
			t.Errorf("PackageOf(%q): unpinned without a reason", tt.launch)
		}
	}
}

// npxCache lays out what npm 7+ leaves in its cache after `npx -y spec`.
func npxCache(t *testing.T, spec, name, version string) string {
	t.Helper()
	cache := t.TempDir()
	sum := sha512.Sum512([]byte(spec))
	dir := filepath.Join(cache, "_npx", hex.EncodeToString(sum[:])[:16], "node_modules", filepath.FromSlash(name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"`+name+`","version":"`+version+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return cache
}

func TestResolvedVersion(t *testing.T) {
	cache := npxCache(t, "@scope/server", "@scope/server", "2.19.0")
	if got := resolvedVersion("npx", []string{"-y", "@scope/server", "/tmp"}, cache); got != "2.19.0" {
		t.Errorf("resolved = %q, want 2.19.0", got)
	}
	// A different spec is a different npx directory: unknown, not guessed.
	if got := resolvedVersion("npx", []string{"-y", "@scope/server@latest"}, cache); got != "" {
		t.Errorf("resolved for another spec = %q, want empty", got)
	}
	if got := resolvedVersion("uvx", []string{"pkg"}, cache); got != "" {
		t.Errorf("resolved for uvx = %q, want empty", got)
	}
}

func TestLaunchHygieneFindings(t *testing.T) {
	run := &serverRun{cfg: config.Server{Name: "fs", Command: "npx", Args: []string{"-y", "@scope/server"}}, res: &probe.Result{}, art: artifact{Version: "2.19.0"}}
	ls := &lock.Server{Launch: lock.Launch{Type: "stdio", Command: "npx", Args: []string{"-y", "@scope/server"}, Package: "@scope/server", Resolved: "2.12.0"}}
	fs := launchHygiene(run, ls)
	rules := map[finding.RuleID]finding.Finding{}
	for _, f := range fs {
		rules[f.Rule] = f
	}
	if _, ok := rules[finding.UnpinnedPackage]; !ok {
		t.Errorf("no unpinned-package in %+v", fs)
	}
	pc, ok := rules[finding.PackageChanged]
	if !ok || pc.Before != "2.12.0" || pc.After != "2.19.0" {
		t.Errorf("package-changed = %+v", pc)
	}
	// The resolved version is recorded but is not launch identity.
	rec := launchRecord(run)
	if rec.Resolved != "2.19.0" || rec.Package != "@scope/server" {
		t.Errorf("launchRecord = %+v", rec)
	}
	if !pinned.Launch(run.cfg).Equal(ls.Launch) {
		t.Error("a resolved-version difference makes the launches unequal (launch-changed too)")
	}
	// Pinned and unchanged: nothing.
	run.cfg.Args = []string{"-y", "@scope/server@2.12.0"}
	run.art.Version = "2.12.0"
	if fs := launchHygiene(run, ls); len(fs) != 0 {
		t.Errorf("pinned, same version: %+v", fs)
	}
}

// TestLaunchHygieneFile: a file the lock names with other bytes is
// artifact-changed; a launch that names another file (the new release's
// script) is launch-changed alone, not a program replaced.
func TestLaunchHygieneFile(t *testing.T) {
	for _, tc := range []struct {
		was, now string
		want     bool
	}{
		{"/srv/pkgs/memory@0.6.2/dist/index.js", "/srv/pkgs/memory@0.6.2/dist/index.js", true},
		{"/srv/pkgs/memory@0.6.2/dist/index.js", "/srv/pkgs/memory@2026.8.31/dist/index.js", false},
	} {
		run := &serverRun{cfg: config.Server{Name: "memory", Command: "node", Args: []string{tc.now}}, res: &probe.Result{}, art: artifact{File: tc.now, FileSHA256: strings.Repeat("b", 64)}}
		ls := &lock.Server{Launch: lock.Launch{Type: "stdio", Command: "node", Args: []string{tc.was}, File: tc.was, FileSHA256: strings.Repeat("a", 64)}}
		got := false
		for _, f := range launchHygiene(run, ls) {
			got = got || f.Rule == finding.ArtifactChanged
		}
		if got != tc.want {
			t.Errorf("%s -> %s: artifact-changed %v, want %v", tc.was, tc.now, got, tc.want)
		}
	}
}
