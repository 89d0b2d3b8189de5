// Package check runs mcp-lockcheck's check in the calling program: it
// starts each configured MCP server in a sandbox, drives it as a client
// would (initialize, the lists, warm-up tools/call requests, a second
// launch), compares what the server tells a model with the lock, inspects
// it for hidden and model-addressed text, and returns the report, as
// `mcp-lockcheck check` does. Run is the engine the command line runs,
// with the command line's defaults; the command line parses its flags into
// the same engine and renders what it returns.
//
// The sandbox starts each server through a helper that is this program
// itself, re-executed. A program that calls Run must therefore call Main
// first thing in its main function (and a test binary in TestMain): in
// the re-executed process Main becomes the helper and never returns; in
// every other process it returns at once. Importing check changes nothing
// by itself; Run refuses to start a server until Main was called.
//
//	func main() {
//		check.Main()
//		r, err := check.Run(ctx, check.Config{Dir: "."})
//		...
//	}
//
// Run is safe to call from one goroutine at a time: a run makes the
// process non-dumpable (so servers cannot read its environment through
// /proc) and sweeps what its servers leave behind.
package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	icheck "github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Sandbox is how a server is isolated while it is probed (docs/sandbox.md).
type Sandbox string

// The sandbox levels.
const (
	// SandboxBasic (the default) scrubs the environment, gives the
	// server a fresh HOME with canaries and limits its resources. It does
	// not contain a hostile server.
	SandboxBasic Sandbox = "basic"
	// SandboxStrict adds namespaces and Landlock on Linux, Seatbelt on
	// macOS: no network, writes only to the run directory. Where it
	// cannot be applied, Run fails with ErrUsage.
	SandboxStrict Sandbox = "strict"
	// SandboxOff runs the command as the client would.
	SandboxOff Sandbox = "off"
)

// Profile is a named set of probe settings (docs/profiles.md).
type Profile string

// The probe profiles.
const (
	// ProfileQuick (the default) is what a pull-request check can afford.
	ProfileQuick Profile = "quick"
	// ProfileDeep baits what quick cannot reach: 50 calls, 5 launches,
	// clock shifts, every client identity, idle gaps, a burst of calls.
	ProfileDeep Profile = "deep"
)

// Severity is the least severity of a finding that fails a run.
type Severity string

// The thresholds of Config.FailOn.
const (
	// FailOnError (the default) fails on an error.
	FailOnError Severity = "error"
	// FailOnWarning fails on a warning or an error.
	FailOnWarning Severity = "warning"
	// FailOnNote fails on any finding.
	FailOnNote Severity = "note"
	// FailOnNever fails on no finding: only drift and held servers fail.
	FailOnNever Severity = "never"
)

// NoCalls, as Config.WarmupCalls, makes no warm-up calls at all (0 takes
// the profile's count).
const NoCalls = -1

// Config are a check's inputs. The zero value checks the servers of the
// client configs discovered in the working directory against
// mcp-lock.json there, with the command line's defaults (the quick
// profile, the basic sandbox, failing on errors).
type Config struct {
	// Dir is the project's root: where configs are discovered and relative
	// paths resolve ("": the working directory).
	Dir string
	// Configs are client config files to read instead of discovering them.
	Configs []string
	// Lock is the lockfile ("": mcp-lock.json in Dir, which need not
	// exist: every server is then unpinned). A Lock named here must exist.
	Lock string
	// Policy is the policy file ("": .mcp-lockcheck.yaml in Dir, if any).
	Policy string
	// Servers limits the check to these servers (nil: all).
	Servers []string
	// Profile is the probe profile ("": ProfileQuick).
	Profile Profile
	// Sandbox is the isolation level ("": SandboxBasic). A policy file
	// may raise it for a server, never lower it.
	Sandbox Sandbox
	// Base is a git revision whose lock and policy are the base branch's:
	// the check then also reviews what this lock approves over that one,
	// with the base's policy in force ("": no review).
	Base string
	// FailOn is the least severity of a finding that fails the run
	// (report.ExitDrift) ("": FailOnError, the command line's default).
	FailOn Severity
	// WarmupCalls is how many warm-up tools/call requests each launch
	// makes: 0 takes the profile's (5 quick, 50 deep), NoCalls makes none.
	WarmupCalls int
	// Launches is how many times each server is started: 0 takes the
	// profile's (2 quick, 5 deep).
	Launches int
	// Stderr receives the run's warnings, a line each (nil: discarded).
	Stderr io.Writer
	// Progress, when set, is told each server's phases as they start
	// ("launch-1/initial", ...), and "done" when its probe has ended. It
	// is called from several goroutines at once.
	Progress func(server, phase string)
}

// ErrUsage is wrapped by Run's error when the check could not run as
// asked (the command line's exit code 2): a bad Config, an unreadable or
// invalid config, lock or policy, a sandbox that cannot be applied. The
// error says which.
var ErrUsage = errors.New("check could not run")

// ErrHeld is wrapped by Run's error when a server could not be probed (the
// command line's exit code 3, unless drift outranks it): the report is
// returned with it, and the error is a *HeldError.
var ErrHeld = errors.New("a server was held")

// HeldError is Run's error, beside the report, when servers were held:
// started but not probed to the end (it failed to start, timed out, broke
// the protocol), so nothing about them was checked. A held server never
// passes.
type HeldError struct {
	// Servers are the held servers' names, in the report's order.
	Servers []string
}

func (e *HeldError) Error() string {
	return "held, not checked: " + strings.Join(e.Servers, ", ")
}

// Is makes errors.Is(err, ErrHeld) hold.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// mainCalled says Main ran: the sandbox's helper can be started.
var mainCalled atomic.Bool

// Main makes this process the sandbox's helper when the sandbox started
// it as one (the helper sets the server's limits and executes it: it never
// returns then), and returns at once otherwise. Call it first thing in
// main, before anything else the program does, in every program that
// calls Run; a test binary calls it in TestMain.
func Main() {
	mainCalled.Store(true)
	sandbox.HelperMain()
}

// Run checks the servers and returns the report. Its Summary.ExitCode is
// the verdict the command line would exit with: report.ExitOK,
// report.ExitDrift (drift, or a finding at FailOn) or report.ExitHeld.
//
// The error tells the outcomes apart:
//   - nil: every server was probed; the report is the verdict.
//   - a *HeldError (errors.Is(err, ErrHeld)), with the report: some
//     servers could not be probed and are held in it.
//   - ErrUsage, and no report: the check could not run as asked.
//   - ctx's error (errors.Is(err, context.Canceled)), and no report: ctx
//     ended before the verdict, which would have held every server left.
func Run(ctx context.Context, cfg Config) (*report.Report, error) {
	if !mainCalled.Load() {
		return nil, fmt.Errorf("%w: check.Main was not called: the sandbox re-executes this program as its helper, and main must call check.Main first thing", ErrUsage)
	}
	if err := sandbox.ProtectSelf(); err != nil {
		return nil, fmt.Errorf("%w: cannot protect the environment from the servers: %w", ErrUsage, err)
	}
	ec, err := cfg.engine()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	r, err := icheck.Run(ctx, ec)
	if errors.Is(err, icheck.ErrUsage) {
		// The engine's usage error, as this package's.
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err != nil {
		return nil, err
	}
	var held []string
	for _, s := range r.Servers {
		if s.Status == report.StatusHeld {
			held = append(held, s.Name)
		}
	}
	if len(held) > 0 {
		return r, &HeldError{Servers: held}
	}
	return r, nil
}

// engine is the engine's configuration for cfg, with the command line's
// defaults where cfg leaves a setting at its zero value.
func (cfg Config) engine() (icheck.Config, error) {
	dir, err := filepath.Abs(cmp.Or(cfg.Dir, "."))
	if err != nil {
		return icheck.Config{}, icheck.AsUsage(err)
	}
	lvl, err := sandbox.ParseLevel(string(cmp.Or(cfg.Sandbox, SandboxBasic)))
	if err != nil {
		return icheck.Config{}, icheck.AsUsage(fmt.Errorf("Sandbox: %w", err))
	}
	profile := cmp.Or(cfg.Profile, ProfileQuick)
	if profile != ProfileQuick && profile != ProfileDeep {
		return icheck.Config{}, icheck.Usagef("Profile %q: want %s or %s", profile, ProfileQuick, ProfileDeep)
	}
	if cfg.WarmupCalls < NoCalls || cfg.Launches < 0 {
		return icheck.Config{}, icheck.Usagef("WarmupCalls must be >= NoCalls and Launches >= 0 (0: the profile's)")
	}
	failOn, err := finding.ParseSeverity(string(cmp.Or(cfg.FailOn, FailOnError)))
	if err != nil {
		return icheck.Config{}, icheck.AsUsage(fmt.Errorf("FailOn: %w", err))
	}
	o := icheck.DefaultOptions(string(profile), lvl)
	o.FailOn, o.Progress = failOn, cfg.Progress
	// A count given here holds for every server, one a policy makes deep
	// included; NoCalls is none.
	if n := cfg.WarmupCalls; n != 0 {
		o.Probe.WarmupCalls = max(n, 0)
		if o.Deep != nil {
			o.Deep.WarmupCalls = o.Probe.WarmupCalls
		}
	}
	if n := cfg.Launches; n != 0 {
		o.Probe.Launches = n
		if o.Deep != nil {
			o.Deep.Launches = n
		}
	}
	return icheck.Config{
		Sources: icheck.Sources{Dir: dir, Configs: cfg.Configs, Servers: cfg.Servers, Lock: cmp.Or(cfg.Lock, lock.DefaultPath), LockGiven: cfg.Lock != "",
			Policy: cfg.Policy, Getenv: os.LookupEnv, Warnings: cfg.Stderr},
		Options: o,
		Fixed:   policy.Fixed{Profile: cfg.Profile != "", WarmupCalls: cfg.WarmupCalls != 0, Launches: cfg.Launches != 0, Sandbox: cfg.Sandbox != ""},
		BaseRef: cfg.Base,
	}, nil
}
