package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// registryAnswer is launchid.RegistryAnswer: what the registry resolved
// a spec to before the launch.
type registryAnswer = launchid.RegistryAnswer

var resolveRegistry = launchid.ResolveRegistry

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
// npm registry resolves its spec to today (launchid.ResolveRelease): the
// release a client on a fresh machine runs, which the lock then pins
// (readArtifact). Nothing is installed and no package code runs. It
// fills a's Py / PyErr or Registry / RegistryErr, and returns a note for
// the report. env is the config's, launchEnv the whole environment the
// launch gets.
func resolveElsewhere(ctx context.Context, command string, args []string, env, launchEnv map[string]string, opts *Options, a *artifact) string {
	pkg, ok := PackageOf(command, args)
	if !ok {
		return ""
	}
	start := time.Now()
	rel, err := launchid.ResolveRelease(ctx, command, args, env, launchEnv, npmCacheDir(opts, env))
	switch {
	case errors.Is(err, launchid.ErrNotInstaller):
		return ""
	case err != nil && (pkg.Manager == "uvx" || pkg.Manager == "pipx run"):
		a.PyErr = err.Error()
	case err != nil:
		a.RegistryErr = err.Error()
	case rel.Py != nil:
		a.Py = rel.Py
		return fmt.Sprintf("%s was resolved by the index (%s) to %s, distribution %s sha256 %s (%s)",
			pkg.Spec, rel.Py.Page, rel.Py.Version, rel.Py.File, rel.Py.SHA256, time.Since(start).Round(time.Millisecond))
	default:
		a.Registry = rel.Registry
		return fmt.Sprintf("%s was resolved by the registry (%s) to %s; %s installs from the registry itself", pkg.Spec, rel.Registry.Tarball, rel.Registry.Version, strings.Fields(pkg.Manager)[0])
	}
	return ""
}
