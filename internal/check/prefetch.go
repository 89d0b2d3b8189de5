package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// registryAnswer is what the registry resolved a spec to before the
// launch: the version a client's `npx -y SPEC` runs today.
type registryAnswer struct {
	Version   string `json:"version"`
	Integrity string `json:"dist.integrity"`
	Tarball   string `json:"dist.tarball"`
}

// resolveRegistry asks the registry the launch would use which version
// and tarball the spec names today, outside the sandbox and running no
// package code (`npm view --prefer-online`: it revalidates the cached
// packument instead of trusting it). This is what a client's `npx -y
// SPEC` runs; a warm cache (a laptop, a runner that restores its cache)
// would otherwise rerun an older release under prefer-offline.
func resolveRegistry(ctx context.Context, npm, spec string, env []string) (*registryAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, prefetchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "view", "--json", "--prefer-online", "--loglevel=error", spec, "version", "dist.integrity", "dist.tarball")
	cmd.Env = env
	cmd.Dir = os.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("npm view %s: %v: %s", spec, err, oneLine(truncate(stderr.String()+string(out), 300)))
	}
	return parseView(out, spec)
}

// parseView reads `npm view --json SPEC version dist.integrity
// dist.tarball`: one object, or an array of them when a range matches
// several versions (ascending; npx runs the highest, the last).
func parseView(out []byte, spec string) (*registryAnswer, error) {
	out = bytes.TrimSpace(out)
	var a registryAnswer
	if len(out) > 0 && out[0] == '[' {
		var all []registryAnswer
		if err := json.Unmarshal(out, &all); err != nil || len(all) == 0 {
			return nil, fmt.Errorf("npm view %s: unreadable answer", spec)
		}
		a = all[len(all)-1]
	} else if err := json.Unmarshal(out, &a); err != nil {
		return nil, fmt.Errorf("npm view %s: unreadable answer", spec)
	}
	if a.Version == "" {
		return nil, fmt.Errorf("npm view %s: no version matches", spec)
	}
	return &a, nil
}

// prefetch resolves an npx / npm exec launch against its registry and
// makes the cache the launch will use hold exactly that version, outside
// the sandbox and before any launch. It returns the registry's answer
// (nil when the launch is not such a launch, or the registry could not be
// asked: why is in errText) and a note for the report.
//
// Installing uses `npm exec --ignore-scripts --prefer-online
// --package=SPEC -- true`: npm resolves and installs exactly as the
// sandboxed npx will (same cache entries, same _npx directory) without
// running a line of the package's code (install scripts are what a
// hostile package would use), and the command it runs afterwards is
// `true`. npx inside the sandbox then finds that version installed and
// the packument fresh, and runs it (offline in strict, which has no
// network; its own cache is the one filled here). A package whose own
// install scripts must run (a native build) fails there and is held with
// the reason.
func prefetch(ctx context.Context, command string, args []string, env map[string]string, opts *Options) (ans *registryAnswer, errText, note string) {
	if opts.Sandbox.Level == sandbox.Strict && opts.Sandbox.CacheDir == "" {
		return nil, "", ""
	}
	pkg, ok := npmLaunch(command, args)
	if !ok {
		return nil, "", ""
	}
	cache := npmCacheDir(opts, env)
	npm, err := exec.LookPath("npm")
	if err != nil || cache == "" {
		return nil, "npm is not installed where the checker runs, so the registry could not be asked", ""
	}
	nenv := npmEnv(env, cache)
	start := time.Now()
	ans, err = resolveRegistry(ctx, npm, pkg.Spec, nenv)
	if err != nil {
		return nil, err.Error(), ""
	}
	if in, ok := readNpxInstall(cache, pkg.Spec, pkg.Name); ok && in.Version == ans.Version && in.Integrity == ans.Integrity {
		return ans, "", fmt.Sprintf("%s was resolved by the registry (%s) to %s; the cache already held it", pkg.Spec, ans.Tarball, ans.Version)
	}
	tmp, err := os.MkdirTemp("", "prefetch.")
	if err != nil {
		return ans, "", ""
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, prefetchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "exec", "--yes", "--ignore-scripts", "--no-audit", "--no-fund",
		"--prefer-online", "--loglevel=error", "--package="+pkg.Spec, "--", "true")
	cmd.Dir = tmp
	cmd.Env = nenv
	out, err := cmd.CombinedOutput()
	if err != nil {
		return ans, "", fmt.Sprintf("could not prefetch %s into %s: %v: %s", pkg.Spec, filepath.Dir(cache), err, oneLine(truncate(string(out), 400)))
	}
	return ans, "", fmt.Sprintf("%s was resolved by the registry (%s) to %s and fetched into the npm cache the launch used, without running its install scripts (%s)",
		pkg.Spec, ans.Tarball, ans.Version, time.Since(start).Round(100*time.Millisecond))
}

// resolveElsewhere asks, before the launch and outside the sandbox, what
// a uvx / pipx run launch's Python index or a pnpm dlx / bunx launch's
// npm registry resolves its spec to today: the release a client on a
// fresh machine runs, which the lock then pins (readArtifact). Nothing is
// installed and no package code runs. It fills a's Py / PyErr or
// Registry / RegistryErr, and returns a note for the report. env is the
// config's, launchEnv the whole environment the launch gets.
func resolveElsewhere(ctx context.Context, command string, args []string, env, launchEnv map[string]string, opts *Options, a *artifact) string {
	pkg, ok := PackageOf(command, args)
	if !ok {
		return ""
	}
	unreadable := strings.Contains(pkg.Spec, "${") || strings.Contains(pkg.Spec, "://") || strings.HasPrefix(pkg.Spec, "git+")
	switch pkg.Manager {
	case "uvx", "pipx run":
		if unreadable {
			a.PyErr = "the spec is not an index package (a URL, a git reference or a placeholder)"
			return ""
		}
		index, more := launchid.PyIndex(pkg.Manager, args, launchEnv)
		if more != "" {
			a.PyErr = fmt.Sprintf("the launch can also install from another source (%s), and which one wins is the installer's choice", more)
			return ""
		}
		start := time.Now()
		rel, err := launchid.ResolvePy(ctx, nil, index, pkg.Spec)
		if err != nil {
			a.PyErr = "the index could not be read: " + err.Error()
			return ""
		}
		a.Py = &rel
		return fmt.Sprintf("%s was resolved by the index (%s) to %s, distribution %s sha256 %s (%s)",
			pkg.Spec, rel.Page, rel.Version, rel.File, rel.SHA256, time.Since(start).Round(time.Millisecond))
	case "pnpm dlx", "bunx":
		if unreadable || strings.Contains(pkg.Spec, ":") {
			a.RegistryErr = "the spec is not a registry package (a URL, a git reference, an alias or a placeholder)"
			return ""
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			a.RegistryErr = "npm is not installed where the checker runs"
			return ""
		}
		ans, err := resolveRegistry(ctx, npm, pkg.Spec, npmEnv(env, npmCacheDir(opts, env)))
		if err != nil {
			a.RegistryErr = err.Error()
			return ""
		}
		a.Registry = ans
		return fmt.Sprintf("%s was resolved by the registry (%s) to %s; %s installs from the registry itself", pkg.Spec, ans.Tarball, ans.Version, strings.Fields(pkg.Manager)[0])
	}
	return ""
}
