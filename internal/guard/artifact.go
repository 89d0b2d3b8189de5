package guard

import (
	"context"
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
// lock's identity (version, integrity, file hash): the rule id and why on
// a mismatch, "" when it matches or the lock records nothing to hold it
// to. Before the start (prefetch true) an npm package not installed yet is
// installed without running its code, so that the comparison is made
// before any of it runs. A file the project's repository tracks
// (lock.Tracked) differs only with a warning: its change is reviewed in
// the pull request, as check treats it.
func artifactMismatch(ctx context.Context, o Options, l lock.Launch, prefetch bool, logf func(string, ...any)) (finding.RuleID, string) {
	if l.Resolved == "" && l.Integrity == "" && l.FileSHA256 == "" {
		return "", ""
	}
	cwd := o.Dir
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cache := npmCache(o)
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
