package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// npmCache is the npm cache the guarded launch uses: the launch's own
// npm_config_cache, the sandbox's cache, the guard's environment, ~/.npm.
func npmCache(o Options) string {
	for _, k := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v := o.Env[k]; v != "" {
			return v
		}
	}
	if o.Sandbox.CacheDir != "" && o.Sandbox.Level != sandbox.Off {
		if root, err := filepath.Abs(o.Sandbox.CacheDir); err == nil {
			return filepath.Join(root, "npm")
		}
	}
	for _, k := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".npm")
	}
	return ""
}

// artifactMismatch holds the launch's artifact, as it lies on disk, to the
// lock's identity (version, integrity, image digest, file hash): the rule
// id and why on a mismatch, "" when it matches or the lock records nothing
// to hold it to. Before the start (prefetch true) an npm package not
// installed yet is installed without running its code, and an image not
// present is pulled (imageMismatch), so that the comparison is made
// before any of it runs. A file the project's repository tracks
// (lock.Tracked) differs only with a warning: its change is reviewed in
// the pull request, as check treats it.
func artifactMismatch(ctx context.Context, o Options, l lock.Launch, prefetch bool, logf func(string, ...any)) (finding.RuleID, string) {
	if run, ok := launchid.ImageLaunch(o.Command, o.Args); ok {
		return imageMismatch(ctx, o, l, run, prefetch, logf)
	}
	if pkg, ok := launchid.PackageOf(o.Command, o.Args); ok && installerManagers[pkg.Manager] {
		if !prefetch {
			return "", "" // the question was asked before the start
		}
		return releaseMismatch(ctx, o, l, pkg)
	}
	cwd := launchDir(o)
	cache := npmCache(o)
	if l.Resolved == "" && l.Integrity == "" && l.FileSHA256 == "" {
		if prefetch && o.Sandbox.Level == sandbox.Strict {
			// Nothing to hold it to, but strict has no registry: an npx
			// package is fetched into the cache the sandbox uses before
			// the launch, without running its code, as check does.
			if cur, npm, err := launchid.LaunchArtifact(o.Command, o.Args, o.Env, cwd, cache); err == nil && npm && cur.Resolved == "" {
				if err := launchid.NpmPrefetch(ctx, o.Command, o.Args, o.Env, cache); err != nil {
					logf("warning: server %q: could not fetch the package before the strict launch, which has no network: %v", o.Server, err)
				}
			}
		}
		return "", ""
	}
	cur, npm, err := launchid.LaunchArtifact(o.Command, o.Args, o.Env, cwd, cache)
	if err != nil {
		return finding.ArtifactChanged, fmt.Sprintf("the file the launch runs cannot be read to hold it to the lock: %v", err)
	}
	if npm && cur.Resolved == "" && prefetch {
		if err := launchid.NpmPrefetch(ctx, o.Command, o.Args, o.Env, cache); err != nil {
			return finding.PackageChanged, fmt.Sprintf("the package is not installed and could not be fetched to verify it before starting: %v", err)
		}
		cur, _, _ = launchid.LaunchArtifact(o.Command, o.Args, o.Env, cwd, cache)
	}
	switch {
	case npm && l.Resolved != "" && cur.Resolved != l.Resolved:
		return finding.PackageChanged, fmt.Sprintf("%s would run version %s; the lock pins %s (run mcp-lockcheck check, then approve)", l.Package, orNone(cur.Resolved), l.Resolved)
	case npm && l.Integrity != "" && cur.Integrity != l.Integrity:
		return finding.ArtifactChanged, fmt.Sprintf("%s@%s has integrity %s; the lock pins %s: the same version with other bytes should never happen", l.Package, l.Resolved, orNone(cur.Integrity), l.Integrity)
	case !npm && l.FileSHA256 != "" && cur.FileSHA256 != l.FileSHA256:
		msg := fmt.Sprintf("%s has sha256 %s; the lock pins %s", cur.File, orNone(cur.FileSHA256), l.FileSHA256)
		if l.Tracked {
			logf("warning: %s: %s (the file is tracked in the project's repository)", finding.ArtifactChanged, msg)
			return "", ""
		}
		return finding.ArtifactChanged, msg
	}
	return "", ""
}

// installerManagers are the launchers whose installs the guard does not
// read from disk: what their index or registry resolves the spec to is
// what the lock pins (launchid.ResolveRelease), as check records it.
var installerManagers = map[string]bool{"uvx": true, "pipx run": true, "pnpm dlx": true, "bunx": true}

// releaseMismatch holds a uvx / pipx run / pnpm dlx / bunx launch to the
// lock before it starts: the release its index or registry resolves the
// spec to now (the version, the distribution and its hash) must be the
// one pinned. A question that cannot be answered refuses the session, as
// an npm package that cannot be fetched does: nothing else says what
// would run. The installer itself then checks the download against the
// same hash; a cache of its own holding another release is not read.
func releaseMismatch(ctx context.Context, o Options, l lock.Launch, pkg launchid.Package) (finding.RuleID, string) {
	if l.Resolved == "" && l.Integrity == "" {
		return "", ""
	}
	rel, err := launchid.ResolveRelease(ctx, o.Command, o.Args, o.Env, installEnv(o), npmCache(o))
	if err != nil {
		return finding.PackageChanged, fmt.Sprintf("%s %s: %v, so what it would run cannot be held to the lock before starting", pkg.Manager, pkg.Spec, err)
	}
	switch {
	case l.Resolved != "" && rel.Version() != l.Resolved:
		return finding.PackageChanged, fmt.Sprintf("%s %s would install version %s; the lock pins %s (run mcp-lockcheck check, then approve)", pkg.Manager, pkg.Spec, rel.Version(), l.Resolved)
	case l.Distribution != "" && rel.Distribution() != l.Distribution:
		return finding.ArtifactChanged, fmt.Sprintf("%s %s would install %s; the lock pins %s of the same version (a file added to the release)", pkg.Manager, pkg.Spec, rel.Distribution(), l.Distribution)
	case l.Integrity != "" && rel.Integrity() != l.Integrity:
		return finding.ArtifactChanged, fmt.Sprintf("%s %s %s has integrity %s; the lock pins %s: the same version with other bytes should never happen", pkg.Manager, pkg.Spec, l.Resolved, rel.Integrity(), l.Integrity)
	}
	return "", ""
}

// installEnv is the whole environment the guarded launch gets, as far as
// it decides where an installer installs from: unsandboxed, the guard's
// own with the launch's on top; sandboxed, only what the sandbox passes
// (the config's env and the PassEnv variables; see sandbox.Run.Environ).
func installEnv(o Options) map[string]string {
	env := make(map[string]string, len(o.Env))
	if o.Sandbox.Level == sandbox.Off {
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	for _, k := range o.Sandbox.PassEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range o.Env {
		env[k] = v
	}
	return env
}

// imageMismatch holds a docker / podman run launch to the lock's image
// digest: the digest its image reference resolves to in the local image
// store, read with the launch's own CLI (found on the launch's PATH, run in
// the launch's environment, so that the engine asked is the one the
// launch will use). Before the start (pull true) an image that cannot be
// inspected is pulled first and read again: a pull fetches the manifest
// and the layers and checks them against their digests, and runs nothing
// of the image. With a digest in the lock, a digest that cannot be read
// (a placeholder the client left unexpanded, no engine, a pull that
// failed) refuses the session: nothing else says what would run. A lock
// without a digest holds nothing here.
func imageMismatch(ctx context.Context, o Options, l lock.Launch, run launchid.ImageRun, pull bool, logf func(string, ...any)) (finding.RuleID, string) {
	if l.Digest == "" {
		return "", ""
	}
	what := filepath.Base(run.CLI) + " run " + run.Ref
	if strings.Contains(run.Ref, "${") {
		return finding.ArtifactChanged, fmt.Sprintf("%s: the image comes from a placeholder the client left unexpanded, so what it names cannot be held to the lock's digest %s", what, l.Digest)
	}
	unreadable := func(err error) (finding.RuleID, string) {
		return finding.ArtifactChanged, fmt.Sprintf("%s: the image's digest cannot be read to hold it to the lock's %s: %v", what, l.Digest, err)
	}
	cli, err := launchid.LookPathIn(run.CLI, o.Env, launchDir(o))
	if err != nil {
		return unreadable(err)
	}
	env := launchEnv(o.Env)
	d, err := launchid.ImageDigestEnv(ctx, cli, run.Ref, run.Name, env)
	if err != nil && pull && errors.Is(err, launchid.ErrInspect) {
		logf("server %q: %s cannot be inspected (%v): pulling it, which runs none of its code, to hold it to the lock before starting", o.Server, run.Ref, err)
		if perr := launchid.ImagePull(ctx, cli, run.Ref, run.Platform, env); perr != nil {
			return finding.ArtifactChanged, fmt.Sprintf("%s: the image is not present and could not be pulled to verify it before starting: %v", what, perr)
		}
		d, err = launchid.ImageDigestEnv(ctx, cli, run.Ref, run.Name, env)
	}
	if err != nil {
		return unreadable(err)
	}
	if d != l.Digest {
		return finding.ArtifactChanged, fmt.Sprintf("%s resolves to %s; the lock pins %s: other bytes than those approved (a tag moved by a push, or a compromised registry; run mcp-lockcheck check, review the image, then approve)", what, d, l.Digest)
	}
	return "", ""
}

// launchDir is the launch's working directory: the config's, else the
// guard's.
func launchDir(o Options) string {
	if o.Dir != "" {
		return o.Dir
	}
	cwd, _ := os.Getwd()
	return cwd
}

// launchEnv is the environment the launch's container CLI is asked in:
// the guard's own with the launch's env on top, as an unsandboxed launch
// has it (DOCKER_HOST, DOCKER_CONTEXT, CONTAINER_HOST choose the engine).
func launchEnv(env map[string]string) []string {
	e := os.Environ()
	for k, v := range env {
		e = append(e, k+"="+v)
	}
	return e
}

// neverPull makes a docker / podman run held to a digest run the image the
// guard verified in the local store: --pull=never, inserted right before
// the image reference, so that it is the last --pull given and wins over
// the config's own (--pull=always would fetch whatever the tag names by
// then). An image gone by the start fails the launch instead of being
// fetched unverified. The reference itself is left as the client gave it:
// the lock's digest may be a registry digest recorded under another name,
// or a local image id, and neither is a reference every engine runs.
func neverPull(o *Options, l lock.Launch) {
	if l.Digest == "" {
		return
	}
	run, ok := launchid.ImageLaunch(o.Command, o.Args)
	if !ok {
		return
	}
	args := make([]string, 0, len(o.Args)+1)
	args = append(args, o.Args[:run.Index]...)
	args = append(args, "--pull=never")
	o.Args = append(args, o.Args[run.Index:]...)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// preferInstalled makes an npx launch run the install the guard verified:
// with prefer-offline, npx takes the cached packument and the installed
// version instead of asking the registry for a newer one at start.
func preferInstalled(o *Options) {
	if _, ok := launchid.PackageOf(o.Command, o.Args); !ok {
		return
	}
	env := make(map[string]string, len(o.Env)+1)
	for k, v := range o.Env {
		env[k] = v
	}
	if _, set := env["npm_config_prefer_offline"]; !set && !strings.Contains(strings.Join(o.Args, " "), "prefer-online") {
		env["npm_config_prefer_offline"] = "true"
	}
	o.Env = env
}
