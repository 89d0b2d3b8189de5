// Package check runs mcp-lockcheck's check in the calling program: it
// starts each configured MCP server in a sandbox, drives it as a client
// would (initialize, the lists, warm-up tools/call requests, a second
// launch), compares what the server tells a model with the lock, inspects
// it for hidden and model-addressed text, and returns the report, exactly
// as `mcp-lockcheck check` does. The engine, its sandbox and its defaults
// are the CLI's: Run is the command without the process around it.
//
// The sandbox starts each server through a helper that is this program
// itself, re-executed: importing check installs that helper in package
// init, which runs before main, so the re-executed program becomes the
// helper without reaching the embedding program's main. Nothing else is
// needed to embed check.
//
// Run is safe to call from one goroutine at a time: a run makes the
// process non-dumpable (so servers cannot read its environment through
// /proc) and sweeps what its servers leave behind.
package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/cli"
	_ "github.com/mcp-lockcheck/mcp-lockcheck/internal/helperinit" // the sandbox helper, before costly inits
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Options are a check's inputs. The zero value checks the servers of the
// client configs discovered in the working directory against
// mcp-lock.json there, with the CLI's defaults (the quick profile, the
// basic sandbox, failing on errors).
type Options struct {
	// Dir is the project's root: where configs are discovered and relative
	// paths resolve ("": the working directory).
	Dir string
	// Configs are client config files to read instead of discovering them.
	Configs []string
	// Lock is the lockfile ("": mcp-lock.json in Dir).
	Lock string
	// Policy is the policy file ("": .mcp-lockcheck.yaml in Dir, if any).
	Policy string
	// Servers limits the check to these servers ("": all).
	Servers []string
	// Profile is "quick" (the default) or "deep".
	Profile string
	// Sandbox is "off", "basic" (the default) or "strict".
	Sandbox string
	// Base is a git ref whose lock and policy are the base branch's: the
	// check then also reviews what this lock approves over that one, with
	// the base's policy in force.
	Base string
	// FailOn is the least severity that fails the run: "error" (the
	// default), "warning" or "note".
	FailOn string
	// WarmupCalls and Launches, when set, replace the profile's counts.
	WarmupCalls, Launches *int
	// Stderr receives the run's warnings and progress (nil: discarded).
	Stderr io.Writer
}

// args are the command line Options stand for.
func (o Options) args() []string {
	a := []string{"mcp-lockcheck", "check", "--format", "json"}
	add := func(flag, v string) {
		if v != "" {
			a = append(a, "--"+flag, v)
		}
	}
	for _, c := range o.Configs {
		add("config", c)
	}
	for _, s := range o.Servers {
		add("server", s)
	}
	add("lock", o.Lock)
	add("policy", o.Policy)
	add("profile", o.Profile)
	add("sandbox", o.Sandbox)
	add("base", o.Base)
	add("fail-on", o.FailOn)
	if o.WarmupCalls != nil {
		add("warmup-calls", strconv.Itoa(*o.WarmupCalls))
	}
	if o.Launches != nil {
		add("launches", strconv.Itoa(*o.Launches))
	}
	if o.Stderr == nil {
		a = append(a, "--quiet")
	} else {
		a = append(a, "--progress", "plain")
	}
	return a
}

// ErrUsage is wrapped by Run's error when the check could not run as
// asked (the CLI's exit code 2): bad options, an unreadable or invalid
// config, lock or policy. The error says which.
var ErrUsage = errors.New("check could not run")

// Run checks the servers and returns the report. Its Summary.ExitCode is
// the verdict the CLI would exit with: report.ExitOK, report.ExitDrift
// (drift, or a finding at FailOn) or report.ExitHeld (a server could not be
// probed). An error means there is no verdict: the check could not run as
// asked (ErrUsage), or ctx ended first.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	if err := sandbox.ProtectSelf(); err != nil {
		return nil, fmt.Errorf("%w: cannot protect the environment from the servers: %v", ErrUsage, err)
	}
	if opts.Dir != "" {
		dir, err := filepath.Abs(opts.Dir)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		opts.Dir = dir
	}
	var stdout, stderr bytes.Buffer
	errw := io.Writer(&stderr)
	if opts.Stderr != nil {
		errw = io.MultiWriter(&stderr, opts.Stderr)
	}
	code := cli.Run(ctx, opts.args(), cli.Env{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: errw,
		Getenv: os.LookupEnv, Now: time.Now, Environ: os.Environ, Dir: opts.Dir,
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch code {
	case report.ExitOK, report.ExitDrift, report.ExitHeld:
	default:
		return nil, fmt.Errorf("%w: %s", ErrUsage, cause(stderr.String()))
	}
	r, err := report.Read(&stdout)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the run's report: %v", ErrUsage, err)
	}
	return r, nil
}

// cause is the error a failed run printed: from its last line that starts
// "mcp-lockcheck: " and is not a warning to the end (a message may run
// over lines: git's advice on a repository owned by another user), else
// all of it.
func cause(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], "mcp-lockcheck: "); ok && !strings.HasPrefix(rest, "warning:") {
			return strings.Join(append([]string{rest}, lines[i+1:]...), "\n")
		}
	}
	return strings.TrimSpace(stderr)
}
