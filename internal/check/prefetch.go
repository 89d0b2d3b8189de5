package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// prefetchTimeout bounds one prefetch: a registry that hangs must not hold
// the whole run.
const prefetchTimeout = 3 * time.Minute

// prefetch warms the npm cache a strict sandbox will use, outside the
// sandbox and before any launch, for a server launched by npx or npm exec.
//
// Strict has no network, and npm cannot run from a read-only cache, so an
// npx server in strict needs a cache the checker owns that already holds
// the package and its dependencies. `npm exec --ignore-scripts --package=SPEC -- true`
// installs it there without running a line of the package's code (install
// scripts are what a hostile package would use): the checker has the
// network, the package's code does not. npx inside the sandbox then finds
// the package installed and its metadata cached, and runs it offline. A
// package whose own install scripts must run (a native build) fails there
// and is held with the reason.
//
// It returns a note for the report, or "" when there was nothing to do. A
// failed prefetch is not fatal here: the launch that follows fails and the
// server is held with npm's reason.
func prefetch(ctx context.Context, command string, args []string, env map[string]string, opts *Options) string {
	if opts.Sandbox.Level != sandbox.Strict || opts.Sandbox.CacheDir == "" {
		return ""
	}
	pkg, ok := PackageOf(command, args)
	if !ok || (pkg.Manager != "npx" && pkg.Manager != "npm exec") || pkg.Spec == "" ||
		strings.Contains(pkg.Spec, "${") || strings.HasPrefix(pkg.Spec, "-") {
		return ""
	}
	cache := npmCacheDir(opts, env)
	npm, err := exec.LookPath("npm")
	if err != nil || cache == "" {
		return ""
	}
	if resolvedVersion(command, args, cache) != "" {
		return "" // installed by an earlier run: npx finds it offline
	}
	tmp, err := os.MkdirTemp("", "prefetch.")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, prefetchTimeout)
	defer cancel()
	// npm exec resolves and installs exactly as the sandboxed npx will
	// (same cache entries, same _npx directory), and with
	// --ignore-scripts it runs nothing of the package: the command it
	// runs afterwards is `true`.
	cmd := exec.CommandContext(ctx, npm, "exec", "--yes", "--ignore-scripts", "--no-audit", "--no-fund",
		"--prefer-offline", "--loglevel=error", "--package="+pkg.Spec, "--", "true")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_cache="+cache, "npm_config_update_notifier=false")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 400 {
			msg = msg[len(msg)-400:]
		}
		return fmt.Sprintf("strict: could not prefetch %s into %s for the offline sandbox: %v: %s", pkg.Spec, filepath.Dir(cache), err, msg)
	}
	return fmt.Sprintf("strict: %s was fetched into the checker's npm cache without running its install scripts (%s); the sandbox ran it offline", pkg.Spec, time.Since(start).Round(100*time.Millisecond))
}
