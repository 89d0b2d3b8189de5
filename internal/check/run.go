package check

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Config is one run's inputs, as a caller (the command line, package
// check's Run) gives them: what to read, how to probe, and for a check the
// base branch to review against. Run, and Load with Loaded's methods for
// pin and approve, do the rest: read the configs, the lock and the
// policies, combine the policies, probe, compare, review, scan the
// repository and settle, so that every caller reaches the same verdict.
type Config struct {
	// Sources are the configs, servers, lock and policy to read, and
	// where warnings go.
	Sources Sources
	// Options are how to probe and judge: the probe template, the
	// sandbox, the jobs, the threshold, the redactor, progress. Servers,
	// All, Lock, LockPath, LockData, Policy and Fixed are Load's to fill.
	Options Options
	// Deadline bounds the whole run: servers not finished by then are
	// held (0: none).
	Deadline time.Duration
	// Fixed are the settings the caller fixed (the flags given on the
	// command line): the policy file overrides the others.
	Fixed policy.Fixed
	// BaseLock (a file) or BaseRef (a git revision, whose lock and policy
	// are read at the paths of this run's) name the base branch of a pull
	// request: the check then also reviews what this lock approves over
	// the base's, with the base's policy in force. BasePolicy is the base
	// branch's policy file, with BaseLock.
	BaseLock, BaseRef, BasePolicy string
	// ServersOnly leaves out the repository's findings (unchecked-config,
	// policy-weakened) and the run's warnings: the servers' report alone
	// (diff).
	ServersOnly bool
}

// Loaded is a run whose inputs are read and checked, nothing launched yet:
// Check, Pin and ProbeLive probe from it. A caller may narrow
// Options.Servers between Load and a probe (approve's selectors).
type Loaded struct {
	Config
	// Lock is the lock read (nil: there is none at Sources.Lock).
	Lock *lock.File
	// LockData are its bytes.
	LockData []byte
	// policy is the run's policy file (nil: none).
	policy *policy.Policy
}

// Run is the whole check: Load, then Check.
func Run(ctx context.Context, cfg Config) (*report.Report, error) {
	l, err := Load(cfg)
	if err != nil {
		return nil, err
	}
	return l.Check(ctx)
}

// Load reads the configured servers, the lock (a missing one is not an
// error here: Check, Pin and ProbeLive each say what it means) and the
// policy, and fills the options from them. Every error is a usage error:
// nothing has been launched.
func Load(cfg Config) (*Loaded, error) {
	l := &Loaded{Config: cfg}
	src := &l.Sources
	servers, all, err := src.LoadServers()
	if err != nil {
		return nil, err
	}
	if l.Lock, l.LockData, err = src.ReadLock(true); err != nil {
		return nil, err
	}
	if l.policy, err = src.LoadPolicy(); err != nil {
		return nil, err
	}
	o := &l.Options
	o.Servers, o.All, o.Lock, o.LockData, o.LockPath = servers, all, l.Lock, l.LockData, src.Lock
	if o.BaseDir == "" {
		o.BaseDir = src.WorkDir()
	}
	if o.Getenv == nil {
		o.Getenv = src.Getenv
	}
	o.Fixed = l.Fixed
	if l.policy != nil {
		o.Policy, o.repositoryAcks = l.policy, l.policy
	}
	return l, nil
}

// withDeadline is ctx bounded by the run's Deadline.
func (l *Loaded) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if l.Deadline > 0 {
		return context.WithTimeout(ctx, l.Deadline)
	}
	return ctx, func() {}
}

// fit refuses, before anything is launched, a run whose time-outs cannot
// hold its plan (FitPlans).
func (l *Loaded) fit() error {
	return AsUsage(l.Options.FitPlans(l.Deadline))
}

// strictPreflight is strict's self-test: a strict run that cannot be
// strict stops, with the setting that is behind it.
func strictPreflight() error {
	if err := sandbox.Available(sandbox.Strict); err != nil {
		return AsUsage(fmt.Errorf("--sandbox strict cannot be applied here: %w", err))
	}
	return nil
}

// preflightFirst is the strict self-test made before anything is launched,
// for pin and approve: fail closed, and early.
func (l *Loaded) preflightFirst() error {
	if l.Options.Sandbox.Level == sandbox.Strict {
		return strictPreflight()
	}
	return nil
}

// interrupted is the error of a run whose ctx ended before it could give a
// verdict: every server would look held, and a report saying so would be
// a false one. It wraps ctx's error (context.Canceled).
func interrupted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: no report and no lock written: %w", err)
	}
	return nil
}

// Check probes every server and compares it with the lock; with a base
// branch it also reviews what the lock approves over the base's, with the
// base branch's policy in force; and it reports the repository's findings
// (files holding servers this run did not read, a policy the pull request
// weakens) and the run's warnings. An error means there is no verdict: the
// run could not go as asked (ErrUsage), or ctx ended first (interrupted).
func (l *Loaded) Check(ctx context.Context) (*report.Report, error) {
	root := ctx // the repository scan is bounded by ctx, not the deadline
	ctx, cancel := l.withDeadline(ctx)
	defer cancel()
	src, opts := &l.Sources, &l.Options
	if l.Lock == nil {
		if src.LockGiven {
			return nil, Usagef("lockfile %s does not exist: run `mcp-lockcheck pin` first", src.Lock)
		}
		src.warnf("%s does not exist: every server is unpinned", src.Lock)
	}
	weakened, err := l.review(ctx)
	if err != nil {
		return nil, err
	}
	if err := l.fit(); err != nil {
		return nil, err
	}
	var preflightErr error
	if opts.Sandbox.Level == sandbox.Strict {
		// The self-test (a helper started once, tens of milliseconds) is
		// made only when a server was held: a strict launch that answered
		// shows strict works, and one that cannot be strict fails closed
		// (the helper refuses to start the server, or the namespaces are
		// refused at clone). It still stops the run.
		opts.Sandbox.NoPreflight = true
		opts.preflight = func() error {
			preflightErr = strictPreflight()
			return preflightErr
		}
	}
	scan := l.scanBeside(root, weakened)
	r := Compare(ctx, *opts)
	scanned, scanErr := scan.wait()
	if preflightErr != nil {
		return nil, preflightErr
	}
	if src.Warnings != nil {
		src.Warnings.Write(scanned)
	}
	if err := interrupted(root); err != nil {
		return nil, err
	}
	if scanErr != nil {
		return nil, scanErr
	}
	if !l.ServersOnly {
		r.Warnings = append(r.Warnings, containmentWarnings(src.getenv, r)...)
	}
	return r, nil
}

// review reads the base branch's lock and policy when the run reviews a
// pull request. Under review the base branch's policy is in force: the
// pull request's own policy file can only tighten it, and what it weakens
// is returned as policy-weakened findings.
func (l *Loaded) review(ctx context.Context) (weakened []finding.Finding, err error) {
	src, opts := &l.Sources, &l.Options
	review := l.BaseLock != "" || l.BaseRef != ""
	var base *lock.File
	if review {
		if base, err = src.loadBase(ctx, l.BaseLock, l.BaseRef); err != nil {
			return nil, err
		}
	} else if l.BasePolicy != "" {
		return nil, Usagef("--base-policy needs --base-lock")
	}
	if l.BasePolicy != "" && l.BaseRef != "" {
		return nil, Usagef("--base reads the base branch's policy itself: drop --base-policy")
	}
	basePol, reviewPolicy, err := src.loadBasePolicy(ctx, l.BasePolicy, l.BaseRef)
	if err != nil {
		return nil, err
	}
	if reviewPolicy {
		comb := &policy.Combined{Base: basePol, PR: l.policy, Run: l.defaults()}
		opts.Policy = comb
		var names []string
		for _, s := range opts.Servers {
			names = append(names, s.Name)
		}
		weakened = comb.Weakenings(names, src.PolicyName())
		// Under review the base branch's acknowledgements are in force:
		// one the pull request adds is a weakening until merged.
		opts.repositoryAcks = basePol
	} else if review {
		src.warnf("warning: --base-lock without --base-policy: the policy is not reviewed; this check runs with the pull request's own policy")
	}
	if review {
		opts.Base = &BaseLock{Lock: base}
	}
	return weakened, nil
}

// defaults are what a server gets where no policy sets a value: the run's
// own settings, and the deep profile's counts as this run resolves them.
func (l *Loaded) defaults() policy.Run {
	o := &l.Options
	deep := Profile{WarmupCalls: o.Probe.WarmupCalls, Launches: o.Probe.Launches}
	if o.Deep != nil {
		deep = *o.Deep
	}
	return policy.Run{WarmupCalls: o.Probe.WarmupCalls, Launches: o.Probe.Launches, Sandbox: o.Sandbox.Level, Timeout: o.ServerTimeout,
		RequestTimeout: o.Probe.RequestTimeout, CallTimeout: o.Probe.CallTimeout,
		Profile: o.ProfileName, DeepWarmupCalls: deep.WarmupCalls, DeepLaunches: deep.Launches}
}

// repoScan is the repository scan running beside the probe.
type repoScan struct {
	done     chan struct{}
	findings []finding.Finding
	err      error
	out      bytes.Buffer
}

// wait waits for the scan and returns what it said (held until the probe
// is over, so it does not cut into the progress lines) and its error.
func (s *repoScan) wait() ([]byte, error) {
	<-s.done
	return s.out.Bytes(), s.err
}

// scanBeside starts the repository scan (a git listing) beside the probe,
// and has the probe wait for it before its end-of-run sweep, which kills
// every process this one started, and settle its findings (and weakened)
// as the repository's. Bounded by ctx, not by the deadline: the deadline
// is the servers' budget, and a run whose servers ran out of it still
// reports them held, with the repository's findings.
func (l *Loaded) scanBeside(ctx context.Context, weakened []finding.Finding) *repoScan {
	s := &repoScan{done: make(chan struct{})}
	if l.ServersOnly {
		close(s.done)
		return s
	}
	src := l.Sources // a copy: its warnings are held
	src.Warnings = &s.out
	all := l.Options.All
	go func() {
		defer close(s.done)
		s.findings, s.err = src.uncheckedConfigs(ctx, all)
	}()
	l.Options.beforeSweep = func() { <-s.done }
	l.Options.repository = func() []finding.Finding {
		<-s.done
		return append(slices.Clone(weakened), s.findings...)
	}
	return s
}

// BasicInCI is the warning a CI run gets when a server ran with less than
// strict: the check gates code nobody has reviewed yet, and basic was
// never meant to contain it.
const BasicInCI = "Some servers ran in the `basic` (or `off`) sandbox on a CI runner. Basic scrubs the environment, plants canaries and redacts secrets, but does not contain a hostile server: it can read what the runner's user can read, write where it can write (the workspace, the runner's files), reach the network and keep running. Use `sandbox: strict`."

// RunWarnings are every run-level warning this build writes.
var RunWarnings = []string{BasicInCI}

// containmentWarnings warns when a run in CI (CI or GITHUB_ACTIONS set)
// probed a server with less than strict.
func containmentWarnings(getenv func(string) (string, bool), r *report.Report) []string {
	ci := false
	for _, k := range []string{"CI", "GITHUB_ACTIONS"} {
		if v, ok := getenv(k); ok && v != "" && v != "false" && v != "0" {
			ci = true
		}
	}
	if !ci {
		return nil
	}
	for _, s := range r.Servers {
		if strings.HasPrefix(s.Isolation, "basic") || strings.HasPrefix(s.Isolation, "off") {
			return []string{BasicInCI}
		}
	}
	return nil
}

// Pin probes every server through all phases and builds the new lock from
// what they showed (Pin). A missing lock is first adoption. An error means
// nothing may be written: the run could not go as asked (ErrUsage), or ctx
// ended first.
func (l *Loaded) Pin(ctx context.Context, who approval.Approver) (*lock.File, *report.Report, error) {
	next, r, err := probeLoaded(ctx, l, func(ctx context.Context) (*lock.File, *report.Report) { return Pin(ctx, l.Options, who) })
	if err != nil {
		return nil, nil, err
	}
	return next, r, nil
}

// ProbeLive probes every server through all phases, as Pin does, and
// returns what each showed (ProbeLive), for approve. Errors as Pin's.
func (l *Loaded) ProbeLive(ctx context.Context, who approval.Approver) ([]*approval.Live, *report.Report, error) {
	return probeLoaded(ctx, l, func(ctx context.Context) ([]*approval.Live, *report.Report) { return ProbeLive(ctx, l.Options, who) })
}

// probeLoaded runs pin's or approve's probe: strict's self-test first, the plans
// fitted to the time-outs, the deadline, and no result from a run that ctx
// stopped.
func probeLoaded[T any](ctx context.Context, l *Loaded, run func(context.Context) (T, *report.Report)) (T, *report.Report, error) {
	var zero T
	if err := l.preflightFirst(); err != nil {
		return zero, nil, err
	}
	if err := l.fit(); err != nil {
		return zero, nil, err
	}
	dctx, cancel := l.withDeadline(ctx)
	defer cancel()
	v, r := run(dctx)
	if err := interrupted(ctx); err != nil {
		return zero, nil, err
	}
	return v, r, nil
}
