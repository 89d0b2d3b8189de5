package check

import (
	"slices"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Options configure a check or pin run.
type Options struct {
	// Servers are the configured servers to probe (already filtered by
	// --server). All is true when no filter was given, so lock entries no
	// config names are reported as orphaned.
	Servers []config.Server
	All     bool
	// Lock is the lock to compare with (nil: none yet); LockPath and
	// LockData locate findings in it.
	Lock     *lock.File
	LockPath string
	LockData []byte
	// Base, when set, is the base branch's lock a pull request's check
	// reviews Lock against (--base, --base-lock): what Lock approves over
	// it is one more finding source of the run, settled with the rest.
	// nil: no review.
	Base *BaseLock
	// Probe is the template for every server's probe (launches, warm-up
	// calls, the burst, time-outs, extra identities). Identity, Roots, Tap
	// and Plan are filled in per server.
	Probe probe.Options
	// ServerTimeout bounds one server's whole probe (all launches); 0
	// gives each server the deadline its plan needs (Plan.Deadline). One
	// that is set and cannot hold the plan holds the server before its
	// launch (FitPlans refuses such a run up front).
	ServerTimeout time.Duration
	// ProfileName names the run's probe profile in messages ("quick",
	// "deep"; "" for none); a server the policy makes deep is "deep".
	ProfileName string
	Sandbox     sandbox.Options
	FailOn      finding.Severity
	// Getenv expands config placeholders; nil means os.LookupEnv.
	Getenv func(string) (string, bool)
	// BaseDir is what relative config paths are relative to ("" = the
	// process's working directory).
	BaseDir string
	// Jobs is how many servers are probed at once (at least 1).
	Jobs int
	// Progress is told each server's phases as they start, and "done"
	// when the server's probe has ended (a renderer closes its line or
	// log group then).
	Progress func(server, phase string)
	// ClockOffsets each add a launch with the server's clock moved forward
	// by libfaketime, to bait servers that change after a date.
	// FakeTimeLib overrides where libfaketime is looked for.
	ClockOffsets []time.Duration
	FakeTimeLib  string
	// Now is the run's clock (nil: time.Now): what a value in a
	// definition that follows the clock is held to (a phase is seen at
	// Now, moved by its clock launch's offset; a lock entry was seen at
	// its approvedAt; timestamps.FollowClock).
	Now func() time.Time
	// Redactor keeps secrets out of everything the run reports and pins:
	// definitions, stderr, held reasons, notes and findings go through it
	// (nil: the secret shapes only, no environment values). The CLI builds
	// it from its own environment (redact.New(os.Environ())).
	Redactor *redact.Redactor
	// sandboxes are this run's server sandboxes (probeAll): each server's
	// output is searched for the others' canaries too.
	sandboxes *sandboxes
	// closers are this run's targets to close once it is swept (probeAll).
	closers *closers
	// npm is this run's registry answers, one per npx spec (probeAll).
	npm *npmMemo
	// preflight, when set, is a check of the machine (can strict be
	// applied here?) whose failure stops the run. It runs only when a
	// server was held, after the sweep: a strict launch that answered
	// shows that strict works (its helper applied every restriction or
	// would have refused to start the server), so a run whose servers all
	// answered needs no self-test, and a run that cannot be strict has
	// every server held, failed closed. Loaded.Check sets it.
	preflight func() error
	// beforeSweep, when set, is waited for before the end-of-run sweep
	// kills every process this one started: the repository scan's git,
	// which runs beside the probe (Loaded.scanBeside), finishes first
	// instead of being killed half-way.
	beforeSweep func()
	// repository, when set, returns the findings about the repository
	// rather than one server (unchecked-config, policy-weakened), which
	// Loaded.Check computes beside the probe. Compare calls it once the
	// probe is over and settles them as it settles a server's (dedup, the
	// policy's top-level rules, the policy's acknowledgements, sort)
	// before the one summary: no finding reaches the verdict another way.
	repository func() []finding.Finding
	// repositoryAcks is the policy whose acknowledgements of repository
	// findings are in force (policy.Policy.Acknowledged; nil: none).
	repositoryAcks *policy.Policy
	// Policy, when set, is the policy in force (a policy file, or the
	// base branch's combined with the pull request's): each server's
	// settings, resolved against Fixed, the settings the caller fixed
	// (the flags given on the command line). Its set fields override the
	// run-wide ones above for that server, and its rules re-level or drop
	// the server's findings.
	Policy Policy
	Fixed  policy.Fixed
	// Network is each server's network allowance from the command line
	// (--network), added to the policy's (servers.NAME.network).
	Network map[string]sandbox.Allowance
	// Deep is what a server whose policy says `profile: deep` is probed
	// with when the run itself is not deep: the deep profile's settings
	// as this run resolves them (a flag given on the command line keeps
	// its value). nil: the policy's profile changes nothing.
	Deep *Profile
}

// Profile is a probe profile's share of the options: what --profile
// deep sets (docs/profiles.md), for one server at a time.
type Profile struct {
	WarmupCalls, Launches, BurstCalls int
	ExtraIdentities                   []probe.Identity
	CallGap                           time.Duration
	ClockOffsets                      []time.Duration
}

// Policy is a policy in force: *policy.Policy, or *policy.Combined
// under review.
type Policy interface {
	Effective(server string, fixed policy.Fixed) policy.Settings
}

// settings are server name's settings from the policy in force (the zero
// Settings without one).
func (opts *Options) settings(name string) policy.Settings {
	if opts.Policy == nil {
		return policy.Settings{}
	}
	return opts.Policy.Effective(name, opts.Fixed)
}

// forServer is opts with the server's policy settings applied. Calls are
// added after any run-wide ones; pass-env names add to --pass-env.
func (opts *Options) forServer(name string) *Options {
	if opts.Policy == nil && opts.Network[name] == nil {
		return opts
	}
	st := opts.settings(name)
	o := *opts
	// The allowance: the command line's and the policy's. Only strict
	// enforces one; the lock records it whatever the level (networkOf).
	if a := append(slices.Clone(opts.Network[name]), st.Network...); len(a) > 0 {
		o.Sandbox.Network = sandbox.NormalAllowance(a)
	}
	// The profile first: the policy's own counts below override it.
	if st.Profile == policy.ProfileDeep && opts.Deep != nil {
		d := opts.Deep
		o.Probe.WarmupCalls, o.Probe.Launches, o.Probe.CallGap, o.Probe.BurstCalls = d.WarmupCalls, d.Launches, d.CallGap, d.BurstCalls
		o.Probe.ExtraIdentities = slices.Clone(d.ExtraIdentities)
		o.ClockOffsets = slices.Clone(d.ClockOffsets)
		o.ProfileName = policy.ProfileDeep
	}
	if st.WarmupCalls != nil {
		o.Probe.WarmupCalls = *st.WarmupCalls
	}
	if st.Launches != nil {
		o.Probe.Launches = *st.Launches
	}
	if len(st.Calls) > 0 {
		o.Probe.Calls = append(slices.Clone(opts.Probe.Calls), st.Calls...)
	}
	if st.RequestTimeout > 0 {
		o.Probe.RequestTimeout = st.RequestTimeout
	}
	if st.CallTimeout > 0 {
		o.Probe.CallTimeout = st.CallTimeout
	}
	if st.Timeout > 0 {
		o.ServerTimeout = st.Timeout
	}
	// A policy never lowers the sandbox below what the command line asked
	// (or its default): the file comes with pull requests.
	if st.Sandbox != "" && policy.SandboxRank(st.Sandbox) > policy.SandboxRank(o.Sandbox.Level) {
		o.Sandbox.Level = st.Sandbox
	}
	if len(st.PassEnv) > 0 {
		env := slices.Clone(opts.Sandbox.PassEnv)
		for _, e := range st.PassEnv {
			if !slices.Contains(env, e) {
				env = append(env, e)
			}
		}
		o.Sandbox.PassEnv = env
	}
	return &o
}

// applyRules drops or re-levels a server's findings as its policy rules
// say, before status and summary are computed from them; note says what
// it did, for the server's notes.
func (opts *Options) applyRules(server string, fs []finding.Finding) ([]finding.Finding, string) {
	if opts.Policy == nil {
		return fs, ""
	}
	return policy.Apply(fs, opts.settings(server).Rules)
}
