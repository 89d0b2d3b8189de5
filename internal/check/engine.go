package check

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
)

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
