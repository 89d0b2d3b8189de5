package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// lint is its own command rather than check --offline: check's flags are
// about launching and baiting servers (sandbox, launches, warm-up calls,
// profiles, time-outs, --base), none of which mean anything without a
// server, and a check that passes says the servers still show what the
// lock approved, which a run that starts none cannot say. lint reads no
// client config either: the lock (and the policy) is all it needs, so it
// runs where no server could (a pre-commit hook, a laptop without the
// servers' runtimes) and takes milliseconds.

// lintFlags are lint's flags: the lock and the policy it is judged
// with, which of its servers, and check's report outputs and threshold.
type lintFlags struct {
	common
	outputs
	verbose bool
}

func (c *lintFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.lockPath, "lock", lock.DefaultPath, "lockfile `FILE` whose recorded text is judged")
	fs.Var(&c.servers, "server", "only this server `NAME` of the lock (repeatable; default: all)")
	fs.StringVar(&c.policyPath, "policy", "", "policy `FILE` whose rules re-level or drop findings (default: "+policy.DefaultFile+" in the working directory, if it exists)")
	c.outputs.register(fs)
	fs.BoolVar(&c.verbose, "verbose", false, "also list acknowledged findings")
	c.flags = fs
}

// runLint judges the text recorded in a lock with this build's rules,
// starting no server (check.Lint), and reports it as check does: the same
// renderers, files and exit codes.
func runLint(_ context.Context, args []string, env Env) (int, error) {
	var c lintFlags
	fs := newFlagSet("lint", env)
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	f, err := c.stdoutFormat()
	if err != nil {
		return ExitUsage, err
	}
	threshold, err := finding.ParseSeverity(c.failOn)
	if err != nil {
		return ExitUsage, asUsage(fmt.Errorf("--fail-on: %w", err))
	}
	// Read here rather than with lock.Read, so that an error names the
	// file as it was given.
	data, err := os.ReadFile(c.path(env, c.lockPath))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ExitUsage, usageErr("lockfile %s does not exist: lint judges what a lock records; run `mcp-lockcheck pin` first", c.lockPath)
	case err != nil:
		return ExitUsage, usageErr("lockfile %s: %v", c.lockPath, err)
	}
	lk, err := lock.Parse(c.lockPath, data)
	if err != nil {
		return ExitUsage, asUsage(err)
	}
	var only []string
	for _, n := range c.servers {
		if lk.Servers[n] == nil {
			return ExitUsage, usageErr("--server %q: %s holds no server of that name (it holds: %s)", n, c.lockPath, lockNames(lk))
		}
		if !slices.Contains(only, n) {
			only = append(only, n)
		}
	}
	pol, err := c.loadPolicy(env)
	if err != nil {
		return ExitUsage, err
	}
	opts := check.Options{Lock: lk, LockPath: c.lockPath, LockData: data, FailOn: threshold, Redactor: env.red}
	if pol != nil {
		opts.Policy = pol
	}
	r := check.Lint(opts, only)
	ropts := report.Options{LockPath: c.lockPath, ToolVersion: toolVersion(), AutomationID: c.automation, Redactor: env.red, Approve: approveCommand(fs, args), Pin: pinCommand(fs, args)}
	if err := writeReport(env, &c.common, &c.outputs, c.verbose, f, r, ropts); err != nil {
		return ExitUsage, err
	}
	return r.Summary.ExitCode, nil
}

// lockNames lists a lock's servers for an error, sorted.
func lockNames(lk *lock.File) string {
	names := slices.Sorted(maps.Keys(lk.Servers))
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
