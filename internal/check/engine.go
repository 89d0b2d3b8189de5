// Package check is the engine: it probes each configured server in its
// sandbox through every phase, compares every phase with the lock and with
// the first phase, inspects every definition it saw, and turns all of it
// into findings and a status per server. pin uses the same probe and
// writes a lock only when every server was probed and stable.
package check

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/review"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/timestamps"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
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
	// repositoryAck is the reason the policy in force gives for living
	// with a repository finding (policy.Policy.Acknowledged), if any.
	repositoryAck func(finding.Finding) (string, bool)
	// PerServer, when set, gives one server's settings from the policy
	// file, already resolved against the flags given on the command line
	// (policy.Policy.Effective); its set fields override the run-wide
	// ones above for that server, and its rules re-level or drop the
	// server's findings.
	PerServer func(server string) policy.Settings
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

// forServer is opts with the server's policy settings applied. Calls are
// added after any run-wide ones; pass-env names add to --pass-env.
func (opts *Options) forServer(name string) *Options {
	if opts.PerServer == nil && opts.Network[name] == nil {
		return opts
	}
	var st policy.Settings
	if opts.PerServer != nil {
		st = opts.PerServer(name)
	}
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
	if opts.PerServer == nil {
		return fs, ""
	}
	return policy.Apply(fs, opts.PerServer(server).Rules)
}

// serverRun is everything learned about one configured server.
type serverRun struct {
	cfg       config.Server
	res       *probe.Result
	snaps     []*snapshot
	findings  []finding.Finding
	isolation string
	held      string // reason it could not be probed
	notes     []string
	resolved  string // package version the launch resolved to (hygiene.go)
	art       artifact
	// clockLaunches are the launches made with a moved clock
	// (libfaketime), by number; clockShift is each one's offset.
	clockLaunches []int
	clockShift    map[int]time.Duration
	// now is the run's clock (Options.Now).
	now      func() time.Time
	plan     Plan   // what the probe was planned to do
	probed   bool   // the probe was started (a launch was tried)
	planNote string // the warm-up planner's line on skipped tools
	// inspector holds the inspection of snaps started while the server
	// was still being driven (streamPhases); inspectRun finishes it.
	inspector *inspector
	// network is the server's network allowance, as the lock records it
	// in its launch (liveLaunch).
	network []string
	// again says why this probe is dropped and made again (an npx
	// launch started from a cache the registry's answer overtook); ""
	// for a probe that stands.
	again string
}

// probeBeside is probeAll with opts.preflight after it when a server was
// held; err is what preflight returned. The lock is not read here: the
// caller reads and validates it before anything starts, so a file that
// is not a lock stops the run before any server is launched.
func probeBeside(ctx context.Context, opts *Options) (runs []*serverRun, finish func(), err error) {
	compiled := make(chan struct{})
	go func() {
		defer close(compiled)
		// The expressions inspection and redaction will need, compiled
		// now rather than at the end of the run: the servers are still
		// starting, and the comparison is what the report waits for.
		inspect.Compile()
		redact.Compile()
	}()
	runs, finish = probeAll(ctx, opts)
	<-compiled
	if opts.preflight != nil && slices.ContainsFunc(runs, func(r *serverRun) bool { return r.held != "" }) {
		// After the sweep, which would kill the self-test's helper.
		finish()
		err = opts.preflight()
	}
	if err != nil {
		finish()
		return nil, func() {}, err
	}
	opts.preflight = nil
	return runs, finish, nil
}

// probeAll probes every server, Jobs at a time, and returns the runs in
// the order of opts.Servers whatever finished first. What is left once
// every probe is over runs in the background while the caller compares:
// the end-of-run sweep, then the removal of the run directories, after
// the sweep so that no orphan writes into one while it goes. finish waits
// for both; call it before the run is reported.
func probeAll(ctx context.Context, opts *Options) (runs []*serverRun, finish func()) {
	// Orphans of our servers (a grandchild that called setsid left the
	// process group we kill) are reparented to us, and killed when every
	// probe is over: nothing a server started outlives the run.
	_ = procgroup.EnableSubreaper()
	opts.closers = &closers{}
	opts.sandboxes = &sandboxes{}
	opts.npm = &npmMemo{}
	runs = make([]*serverRun, len(opts.Servers))
	jobs := max(opts.Jobs, 1)
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, s := range opts.Servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
				runs[i] = probeServer(ctx, s, opts)
				if opts.Progress != nil {
					opts.Progress(s.Name, "done")
				}
			case <-ctx.Done():
				runs[i] = &serverRun{cfg: s, held: "the run was stopped before this server was probed: " + ctx.Err().Error(), res: &probe.Result{}}
			}
		}()
	}
	wg.Wait()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if opts.beforeSweep != nil {
			opts.beforeSweep()
		}
		procgroup.KillDescendants(nil)
		opts.closers.run()
	}()
	return runs, func() { <-done }
}

// closers are the targets whose close (a run directory's removal) waits
// for the end of the run: probeAll makes them after its sweep.
type closers struct {
	mu  sync.Mutex
	fns []func()
}

// add queues close; with no closers (a server probed on its own) it runs
// at once.
func (c *closers) add(close func()) {
	if c == nil {
		close()
		return
	}
	c.mu.Lock()
	c.fns = append(c.fns, close)
	c.mu.Unlock()
}

func (c *closers) run() {
	c.mu.Lock()
	fns := c.fns
	c.fns = nil
	c.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// target is one configured server made ready to probe: the probe.Target
// its launches come from, and what the engine does around the probe that
// depends on where the server runs (stdio.go, remote.go).
type target interface {
	probe.Target
	// planDir is where synthesized path arguments point ("": nowhere).
	planDir() string
	// redactor is what the phases are canonicalized through (a stdio
	// launch's run directories become placeholders).
	redactor() *redact.Redactor
	// scrub takes out of reported text what only this target knows is
	// secret: the sandbox's canaries, the expanded credentials.
	scrub(string) string
	// where ends a held reason: the endpoint, for a remote server.
	where() string
	// finish adds, after the probe, what only this target can tell: the
	// canaries a sandboxed server used or leaked, a credential a remote
	// one sent back.
	finish(run *serverRun)
	close()
}

// probeServer probes one server: it makes the server's target (a
// sandboxed command, or a remote endpoint) and drives it through every
// launch and phase, one path for both. An npx server started from the
// cache while the registry was asked, and whose cache turned out to hold
// another release than the registry names, is probed again from the
// registry's release (probeOnce's run.again); the first probe is dropped.
func probeServer(ctx context.Context, s config.Server, opts *Options) *serverRun {
	run := probeOnce(ctx, s, opts, true)
	if run.again == "" {
		return run
	}
	again := probeOnce(ctx, s, opts, false)
	again.notes = append([]string{run.again}, again.notes...)
	return again
}

// probeOnce is one probe of one server (probeServer); early as in
// newStdioTarget.
func probeOnce(ctx context.Context, s config.Server, opts *Options, early bool) *serverRun {
	opts = opts.forServer(s.Name)
	run := &serverRun{cfg: s, res: &probe.Result{}, plan: opts.planFor(s), now: opts.Now}
	if !isRemote(s) {
		// A remote server is reached by the checker itself: an
		// allowance is a stdio server's under strict.
		run.network = opts.Sandbox.Network.Strings()
	}
	timeout, derived := opts.serverTimeout(run.plan)
	if !derived && !run.plan.Fits(timeout) {
		// FitPlans refuses this run up front; a caller that did not ask
		// it still never gets a server held half-way through its plan.
		run.held = fmt.Sprintf("the plan needs about %s (%s); the server time-out is %s: nothing was launched", About(run.plan.Estimate()), run.plan, timeout)
		return run
	}
	popts := probeOptions(s, opts)
	var t target
	if isRemote(s) {
		if rt := newRemoteTarget(s, opts, &popts, run); rt != nil {
			t = rt
		}
	} else if st := newStdioTarget(ctx, s, opts, &popts, run, early); st != nil {
		t = st
	}
	if t == nil {
		return run
	}
	defer opts.closers.add(t.close)
	var mu sync.Mutex
	if popts.Plan == nil {
		popts.Plan = warmupPlanner(&popts, t.planDir(), func(line string) {
			mu.Lock()
			run.planNote = line
			mu.Unlock()
		})
	}
	var cold time.Duration
	if derived && popts.StartTimeout > 0 {
		// A first launch that installs its package first may take
		// StartTimeout to start: the plan's deadline gets it on top.
		cold = popts.StartTimeout
		timeout += cold
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if w, ok := t.(interface{ staleCache() <-chan struct{} }); ok {
		// The probe of a release the registry no longer names stops
		// early: it is made again.
		if stale := w.staleCache(); stale != nil {
			go func() {
				select {
				case <-stale:
					cancel()
				case <-pctx.Done():
				}
			}()
		}
	}
	wait := run.streamPhases(&popts, t.redactor())
	run.probed = true
	run.res = probe.Run(pctx, t, popts)
	wait()
	run.notes = append(run.notes, run.res.Notes...)
	if run.planNote != "" {
		run.notes = append(run.notes, run.planNote)
	}
	t.finish(run)
	if run.again != "" {
		return run
	}
	run.res.Stderr = opts.Redactor.String(t.scrub(run.res.Stderr))
	if run.res.Err != nil && run.held == "" {
		run.held = opts.Redactor.String(t.scrub(heldReason(run.res.Err, timeout, derived, run.plan, cold, serverExpired(ctx, pctx))) + t.where())
	}
	if run.held == "" {
		// The probe went on to its end, and still did less than planned:
		// what the report says it baited is not what a pass promises.
		run.held = opts.Redactor.String(t.scrub(unfinished(run)))
	}
	for i, n := range run.notes {
		// A note may quote the server's own output (stdout lines it
		// skipped): no canary token or credential leaves in it.
		run.notes[i] = t.scrub(n)
	}
	run.redactNotes(opts.Redactor)
	return run
}

// probeOptions is the probe template for one server: the clientInfo and
// capabilities of the client whose config named it (extra identities keep
// those capabilities, so only clientInfo differs), and progress under the
// server's name.
func probeOptions(s config.Server, opts *Options) probe.Options {
	popts := opts.Probe
	name, version := config.ClientInfo(s.Client)
	popts.Identity = probe.Identity{Name: name, Version: version, Capabilities: config.ClientCapabilities(s.Client)}
	// An extra identity the server's own client already presents adds
	// nothing but a launch.
	popts.ExtraIdentities = slices.DeleteFunc(slices.Clone(popts.ExtraIdentities), func(id probe.Identity) bool {
		return id.Name == name && id.Version == version
	})
	popts.ExtraIdentities = withCapabilities(popts.ExtraIdentities, popts.Identity.Capabilities)
	if opts.Progress != nil {
		popts.Progress = func(phase string) { opts.Progress(s.Name, phase) }
	}
	return popts
}

// configFile is the path of the config that named s, made absolute against
// BaseDir when it is relative.
func configFile(s config.Server, opts *Options) string {
	if !filepath.IsAbs(s.File) && opts.BaseDir != "" {
		return filepath.Join(opts.BaseDir, s.File)
	}
	return s.File
}

// serverExpired reports that the server's own time-out, not the whole
// run's deadline or an interruption, stopped its probe.
func serverExpired(run, server context.Context) bool {
	return run.Err() == nil && errors.Is(server.Err(), context.DeadlineExceeded)
}

// heldReason says why a probe could not finish, naming the time-out that
// stopped it: timeout, set or derived from plan (with cold, a first
// start's allowance, in it).
//
// expired says the server's own deadline passed while the run's did not:
// it is asked of the contexts, not read from err, because the probe's error
// may carry the expiry only as text (a connection read cut off by it).
func heldReason(err error, timeout time.Duration, derived bool, plan Plan, cold time.Duration, expired bool) string {
	reason := err.Error()
	switch {
	case !expired:
	case derived:
		first := ""
		if cold > 0 {
			first = ", and " + cold.String() + " for a first start that installs the package"
		}
		reason += fmt.Sprintf(" (server time-out %s, its plan's: twice the estimate of %s for %s plus 1m, at least %s%s; a server slower than that needs --timeout or the policy's timeout)", timeout.Round(time.Second), About(plan.Estimate()), plan, MinServerTimeout, first)
	default:
		reason += fmt.Sprintf(" (server time-out %s)", timeout)
	}
	return reason
}

// unfinished is why a probe that ran to its end did less than its plan
// ("" if it did not): a burst the server cut short, or fewer launches
// than planned.
func unfinished(run *serverRun) string {
	if len(run.res.Unfinished) > 0 {
		return "the plan was not finished: " + strings.Join(run.res.Unfinished, "; ")
	}
	if c := coverageOf(run); c != nil && c.Planned != nil && c.Launches < c.Planned.Launches {
		return fmt.Sprintf("the plan was not finished: %d of %d launches were made", c.Launches, c.Planned.Launches)
	}
	return ""
}

// note adds a note once, however often it is made (the findings may be
// computed more than once for one run).
func (run *serverRun) note(n string) {
	if !slices.Contains(run.notes, n) {
		run.notes = append(run.notes, n)
	}
}

// redactNotes redacts the run's notes: they quote what the server said.
func (run *serverRun) redactNotes(r *redact.Redactor) {
	for i, n := range run.notes {
		run.notes[i] = r.String(n)
	}
}

// snapshot turns the probe's observations into comparable snapshots,
// canonicalizing and redacting each distinct definition once per run.
func (run *serverRun) snapshot(r *redact.Redactor) {
	cache := &canonCache{red: r}
	for _, o := range run.res.Observations {
		s := newSnapshotCached(run.cfg.Name, o, cache)
		s.at = run.clockAt(o.Launch)
		run.snaps = append(run.snaps, s)
	}
}

// clockAt is the clock the server of launch n reads now: the run's,
// moved forward by the launch's clock offset if it is a clock launch.
func (run *serverRun) clockAt(n int) time.Time {
	now := time.Now
	if run.now != nil {
		now = run.now
	}
	return now().Add(run.clockShift[n])
}

// streamPhases makes the probe hand over each phase as it is recorded, so
// that canonicalizing and inspecting it overlap with driving the server
// through the next. The phases arrive in order on one goroutine, so the
// snapshots and findings are the ones snapshot and inspectRun would make
// afterwards. wait returns once every phase handed over is processed;
// call it after probe.Run.
func (run *serverRun) streamPhases(popts *probe.Options, r *redact.Redactor) (wait func()) {
	phases := make(chan probe.Observation, 16)
	done := make(chan struct{})
	run.inspector = newInspector(run.cfg.Name)
	run.inspector.red = r
	go func() {
		defer close(done)
		cache := &canonCache{red: r}
		for o := range phases {
			s := newSnapshotCached(run.cfg.Name, o, cache)
			s.at = run.clockAt(o.Launch)
			run.snaps = append(run.snaps, s)
			run.inspector.add(s)
		}
	}()
	popts.Observed = func(o probe.Observation) { phases <- o }
	return func() {
		close(phases)
		<-done
	}
}

// leakFinding is a canary-leak finding about the secret named where, seen
// in the answer to method; format gets where and the method.
func leakFinding(server, where, phase, method, format string) finding.Finding {
	f := finding.New(finding.CanaryLeak, server)
	f.Kind, f.Subject, f.Phase = finding.KindServer, where, phase
	via := method
	if via == "" {
		via = "a response"
	}
	f.Message = fmt.Sprintf(format, where, via)
	return f
}

// projectRoot is the directory a config file's relative paths mean: the
// parent of .vscode/.cursor/.gemini, else the file's own directory.
func projectRoot(file string) string { return config.ProjectRoot(file) }

// withCapabilities gives extra identities (--client-identity) the
// capabilities of the config's client: only clientInfo changes, so a
// difference is the identity's, not a capability's.
func withCapabilities(ids []probe.Identity, caps map[string]any) []probe.Identity {
	out := make([]probe.Identity, len(ids))
	for i, id := range ids {
		if id.Capabilities == nil {
			id.Capabilities = caps
		}
		out[i] = id
	}
	return out
}

// stabilityFindings compares every phase with the first: a manifest that
// changes during one probe is unstable whatever the lock says.
func stabilityFindings(run *serverRun) []finding.Finding {
	if len(run.snaps) < 2 {
		return nil
	}
	first := run.snaps[0]
	var out []finding.Finding
	out = append(out, promptGetFindings(run)...)
	noted := map[string]bool{}
	for _, s := range run.snaps[1:] {
		fs, moves := compareClock(run.cfg.Name, first, s, s.obs.Phase, true)
		for _, m := range moves {
			// One note an entry, at the first phase it moved in.
			if id := string(m.kind) + "\x00" + m.key; !noted[id] {
				noted[id] = true
				run.note(m.note("between phases", s.obs.Phase))
			}
		}
		for i := range fs {
			if s.obs.Identity.Name != first.obs.Identity.Name {
				fs[i].Message += fmt.Sprintf(" (client identity %s vs %s)", s.obs.Identity, first.obs.Identity)
			}
		}
		out = append(out, fs...)
	}
	return out
}

// promptGetFindings compares each prompts/get answer with the first answer
// to the same request in the run.
func promptGetFindings(run *serverRun) []finding.Finding {
	var out []finding.Finding
	firstSeen := map[string]lock.Canonical{}
	for _, s := range run.snaps {
		for _, name := range slices.Sorted(maps.Keys(s.obs.PromptGets)) {
			c := lock.Canonicalize(s.obs.PromptGets[name])
			prev, ok := firstSeen[name]
			if !ok {
				firstSeen[name] = c
				continue
			}
			if prev.SHA256 == c.SHA256 {
				continue
			}
			if before, after, ok := timestamps.OnlyDiffer(prev.Bytes, c.Bytes, time.Now()); ok {
				run.note(fmt.Sprintf("prompts/get %q answers differently between reads only in timestamp-shaped tokens (%q, then %q): read as the time of the request, not as a change", name, clip.Bytes(before, 60), clip.Bytes(after, 60)))
				firstSeen[name] = c
				continue
			}
			for _, ch := range lock.FieldDiff(prev.Bytes, c.Bytes) {
				f := finding.New(finding.UnstableManifest, run.cfg.Name)
				f.Kind, f.Subject, f.Field, f.Phase = finding.KindPrompt, name, lock.JoinFieldPaths("prompts/get", ch.Path), s.obs.Phase
				f.Message = fmt.Sprintf("changed during the probe: prompts/get %q answers differently than earlier in the run (%s)", name, orWhole(ch.Path))
				f.Before, f.After = ch.Before, ch.After
				out = append(out, f)
			}
			firstSeen[name] = c
		}
	}
	return out
}

// inspectRun inspects every distinct definition the probe saw, in any
// phase, matched or not: a server poisoned from day one passes its pin.
// When the probe streamed its phases (streamPhases), most of the work is
// already done.
func inspectRun(run *serverRun) []finding.Finding {
	in := run.inspector
	run.inspector = nil
	if in == nil {
		in = newInspector(run.cfg.Name)
		for _, s := range run.snaps {
			in.add(s)
		}
	}
	// What the warm-up calls returned is model input too.
	var calls []probe.CallRecord
	if run.res != nil {
		calls = run.res.Calls
	}
	in.addCalls(calls)
	return in.finish()
}

// inspector inspects one server's snapshots as they come, so inspection
// overlaps with driving the server. Definitions are independent: they are
// inspected on every CPU, and the findings kept in the order the
// definitions were first seen, so the result does not depend on timing.
type inspector struct {
	server string
	// red is what definitions went through (placeholders for the run's
	// paths): call results are inspected in the same form, so the hash a
	// finding is bound to does not change with the run directory.
	red   *redact.Redactor
	seen  map[string]bool
	out   []finding.Finding // found while queueing (duplicates, ambiguous JSON)
	jobs  []*inspectJob
	queue chan *inspectJob
	wg    sync.WaitGroup
}

func newInspector(server string) *inspector {
	in := &inspector{server: server, seen: map[string]bool{}, queue: make(chan *inspectJob, 256)}
	for range runtime.GOMAXPROCS(0) {
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			for j := range in.queue {
				j.run()
			}
		}()
	}
	return in
}

func (in *inspector) job(j *inspectJob) {
	in.jobs = append(in.jobs, j)
	in.queue <- j
}

// add queues what snapshot s shows that no earlier snapshot showed.
func (in *inspector) add(s *snapshot) {
	seen, server := in.seen, in.server
	in.out = append(in.out, s.dups...)
	if len(s.obs.Instructions) > 0 && !seen["i"+s.instructions.SHA256] {
		seen["i"+s.instructions.SHA256] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindServer, Name: "instructions", Raw: s.obs.Instructions, Phase: s.obs.Phase}, sum: s.instructions.SHA256})
	}
	canon := map[string]lock.Canonical{"instructions": s.instructions, "serverInfo": s.serverInfo, "capabilities": s.capabilities}
	for _, field := range []string{"instructions", "serverInfo", "capabilities"} {
		c := canon[field]
		if c.Ambiguous != "" && !seen["a"+field+c.SHA256] {
			seen["a"+field+c.SHA256] = true
			f := finding.New(finding.AmbiguousJSON, server)
			f.Kind, f.Subject, f.Field, f.Phase, f.ContentSHA256 = finding.KindServer, field, field, s.obs.Phase, c.SHA256
			f.Message = fmt.Sprintf("the server's %s is not JSON with one meaning: %s; it is pinned by its raw bytes", field, c.Ambiguous)
			in.out = append(in.out, f)
		}
	}
	// serverInfo's name and title are shown to users and models too.
	if len(s.obs.ServerInfo) > 0 && !seen["s"+s.serverInfo.SHA256] {
		seen["s"+s.serverInfo.SHA256] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindServer, Name: "serverInfo", Raw: s.obs.ServerInfo, Phase: s.obs.Phase}, sum: s.serverInfo.SHA256, prefix: "serverInfo"})
	}
	// What a prompt expands to is model input as much as its listing:
	// text its authors wrote for the model, judged as a definition is.
	for _, name := range slices.Sorted(maps.Keys(s.obs.PromptGets)) {
		raw := s.obs.PromptGets[name]
		sum := lock.Sum(raw)
		if seen["g"+name+sum] {
			continue
		}
		seen["g"+name+sum] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindPrompt, Name: name, Raw: raw, Phase: s.obs.Phase}, sum: sum, prefix: "prompts/get", answer: &inspect.AnswerOptions{}})
	}
	// So is what a resource holds: data the server read, judged by the
	// same rules but for a credential path named alone (AnswerOptions).
	for _, uri := range slices.Sorted(maps.Keys(s.obs.ResourceReads)) {
		raw := s.obs.ResourceReads[uri]
		sum := lock.Sum(raw)
		if seen["r"+uri+"\x00"+sum] {
			continue
		}
		seen["r"+uri+"\x00"+sum] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindResource, Name: uri, Raw: raw, Phase: s.obs.Phase}, sum: sum, prefix: "resources/read", answer: &inspect.AnswerOptions{Data: true}})
	}
	for _, kind := range probe.Kinds {
		for _, key := range s.order[kind] {
			c := s.entries[kind][key]
			id := string(kind) + "\x00" + key + "\x00" + c.SHA256
			if seen[id] {
				continue
			}
			seen[id] = true
			if c.Ambiguous != "" {
				f := finding.New(finding.AmbiguousJSON, server)
				f.Kind, f.Subject, f.Phase, f.ContentSHA256 = kind, key, s.obs.Phase, c.SHA256
				f.Message = fmt.Sprintf("%s %q is not JSON with one meaning: %s", kind, key, c.Ambiguous)
				in.out = append(in.out, f)
			}
			in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: kind, Name: key, Raw: s.raw[kind][key], Phase: s.obs.Phase}, sum: c.SHA256})
		}
	}
}

// addCalls queues the distinct results of the warm-up calls.
func (in *inspector) addCalls(calls []probe.CallRecord) {
	for _, c := range calls {
		if len(c.Result) == 0 {
			continue
		}
		raw := in.red.JSON(c.Result)
		sum := lock.Sum(raw)
		if in.seen["c"+c.Tool+"\x00"+sum] {
			continue
		}
		in.seen["c"+c.Tool+"\x00"+sum] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: in.server, Kind: finding.KindTool, Name: c.Tool, Raw: raw, Phase: c.Phase}, sum: sum, prefix: "tools/call result", answer: &inspect.AnswerOptions{Data: true}})
	}
}

// finish waits for the queued inspections and returns every finding: those
// found while queueing, then each job's in queue order.
func (in *inspector) finish() []finding.Finding {
	close(in.queue)
	in.wg.Wait()
	out := in.out
	for _, j := range in.jobs {
		out = append(out, j.out...)
	}
	return out
}

type inspectJob struct {
	subject inspect.Subject
	sum     string
	prefix  string // put before each finding's field path
	// answer, when set, marks an answer (a warm-up call's result, a
	// prompts/get or resources/read answer): inspect.Answer reads it,
	// with the text encoded in it, under these options.
	answer *inspect.AnswerOptions
	out    []finding.Finding // set by run
}

// run inspects the job's subject. An answer gets the definitions' rules
// at the definitions' levels: what the guard refuses in a session (hidden
// text, control sequences) fails the check that sees it, and what it
// logs is a warning here too. It cannot be pinned, and an answer that
// varies from run to run is not acknowledged for good by one hash: a
// server whose answers need that is one to run behind the guard in
// sanitize mode.
func (j *inspectJob) run() {
	var fs []finding.Finding
	if j.answer != nil {
		fs = withHash(inspect.Answer(j.subject, *j.answer), j.sum)
	} else {
		fs = withHash(inspect.Definition(j.subject), j.sum)
	}
	if p := j.prefix; p != "" {
		for k := range fs {
			// Field is already a path: prefix it, do not
			// escape it again.
			fs[k].Field = lock.JoinFieldPaths(p, fs[k].Field)
		}
	}
	j.out = fs
}

// withHash binds inspection findings to the canonical hash of their
// content, the hash an acknowledgement in the lock must match.
func withHash(fs []finding.Finding, sum string) []finding.Finding {
	for i := range fs {
		fs[i].ContentSHA256 = sum
	}
	return fs
}

// acrossRuns checks names across servers (shadowing, confusables) on what
// each server listed first, judging name collisions against lk (nil: no
// lock), the lock the run compares with or replaces.
func acrossRuns(runs []*serverRun, lk *lock.File) []finding.Finding {
	var subjects []inspect.Subject
	for _, r := range runs {
		if len(r.snaps) == 0 {
			continue
		}
		s := r.snaps[0]
		for _, kind := range []lock.Kind{probe.KindTool, probe.KindPrompt} {
			for _, key := range s.order[kind] {
				subjects = append(subjects, inspect.Subject{Server: r.cfg.Name, Kind: kind, Name: key, Raw: s.raw[kind][key], Phase: s.obs.Phase})
			}
		}
		// The instructions and what prompts expand to are prose the
		// model reads too: naming another server's tool there steers.
		if len(s.obs.Instructions) > 0 {
			subjects = append(subjects, inspect.Subject{Server: r.cfg.Name, Kind: finding.KindServer, Name: "instructions", Raw: s.obs.Instructions, Phase: s.obs.Phase})
		}
		for _, name := range slices.Sorted(maps.Keys(s.obs.PromptGets)) {
			subjects = append(subjects, inspect.Subject{Server: r.cfg.Name, Kind: promptGetKind, Name: name, Raw: s.obs.PromptGets[name], Phase: s.obs.Phase})
		}
	}
	// Bind each finding to the canonical hash the lock and its
	// acknowledgements use, not to the raw bytes' hash.
	sums := map[string]string{}
	for _, r := range runs {
		if len(r.snaps) == 0 {
			continue
		}
		for kind, m := range r.snaps[0].entries {
			for key, c := range m {
				sums[r.cfg.Name+"\x00"+string(kind)+"\x00"+key] = c.SHA256
			}
		}
	}
	for _, r := range runs {
		if len(r.snaps) == 0 {
			continue
		}
		s := r.snaps[0]
		sums[r.cfg.Name+"\x00"+string(finding.KindServer)+"\x00instructions"] = s.instructions.SHA256
		for name, raw := range s.obs.PromptGets {
			sums[r.cfg.Name+"\x00"+promptGetKind+"\x00"+name] = lock.Sum(raw)
		}
	}
	fs := inspect.AcrossLock(subjects, review.PinnedIn(lk))
	for i, f := range fs {
		if sum, ok := sums[f.Server+"\x00"+string(f.Kind)+"\x00"+f.Subject]; ok {
			fs[i].ContentSHA256 = sum
		}
		if f.Kind == promptGetKind {
			// A prompt's expansion: the prompt's finding, at the path
			// inspection gives it (inspectJob's prefix).
			fs[i].Kind, fs[i].Field = finding.KindPrompt, lock.JoinFieldPaths("prompts/get", f.Field)
		}
	}
	return fs
}

// promptGetKind marks a prompts/get answer among the subjects acrossRuns
// hands to inspect.AcrossLock: only its prose is looked at there.
const promptGetKind = "prompts/get"

// heldFinding is the server-unavailable finding of a held server.
func heldFinding(run *serverRun) finding.Finding {
	f := finding.New(finding.ServerUnavailable, run.cfg.Name)
	f.Kind, f.Subject, f.Phase = finding.KindServer, run.cfg.Name, run.res.Phase
	f.Message = "held: " + run.held
	if st := strings.TrimSpace(run.res.Stderr); st != "" {
		f.Detail = "stderr (last lines):\n" + tailLines(st, 15)
	}
	return f
}

func tailLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func phasesOf(run *serverRun) []string {
	out := []string{}
	for _, s := range run.snaps {
		out = append(out, s.obs.Phase)
	}
	return out
}

func callsOf(run *serverRun) []report.Call {
	var out []report.Call
	for _, c := range run.res.Calls {
		out = append(out, report.Call{Phase: c.Phase, Tool: c.Tool, Arguments: c.Arguments, Outcome: c.Outcome})
	}
	return out
}

// countIdentities is how many distinct clientInfo identities a probe with
// popts plans to present.
func countIdentities(popts probe.Options) int {
	seen := map[string]bool{}
	if popts.Identity.Name != "" {
		seen[popts.Identity.String()] = true
	}
	for _, id := range popts.ExtraIdentities {
		seen[id.String()] = true
	}
	return max(len(seen), 1)
}

// coverageOf counts what the probe of run spent, beside what its plan
// asked: nil for a server that was never launched (held before its probe,
// or orphaned). Launches, identities and clock shifts count those that
// reached a recorded phase; calls count every call made.
func coverageOf(run *serverRun) *report.Coverage {
	if run.res == nil || !run.probed {
		return nil
	}
	launches := map[int]bool{}
	ids := map[string]bool{}
	for _, s := range run.snaps {
		launches[s.obs.Launch] = true
		ids[s.obs.Identity.String()] = true
	}
	shifts := 0
	for _, n := range run.clockLaunches {
		if launches[n] {
			shifts++
		}
	}
	burst := 0
	for _, c := range run.res.Calls {
		if strings.Contains(c.Phase, "/burst-") {
			burst++
		}
	}
	p := run.plan
	return &report.Coverage{
		Calls: len(run.res.Calls), Launches: len(launches), Identities: len(ids), ClockShifts: shifts, BurstCalls: burst,
		Planned:  &report.Planned{Calls: p.Launches*p.Calls + p.Burst, Launches: p.Launches, Identities: p.Identities, ClockShifts: p.ClockShifts, BurstCalls: p.Burst},
		Finished: run.res.Err == nil && len(run.res.Unfinished) == 0 && len(launches) >= p.Launches,
	}
}
