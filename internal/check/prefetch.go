package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

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
