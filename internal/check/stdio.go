package check

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// stdioTarget is a server the config launches as a command: every launch
// runs in the server's sandbox, whose canaries its output is searched for.
type stdioTarget struct {
	probe.Stdio
	s       config.Server
	opts    *Options
	sb      *sandbox.Run
	command string
	args    []string
	cwd     string
	env     map[string]string
	leaks   *leakLog
	tap     func(phase, method, subject string, request json.RawMessage, payload []byte)
	red     *redact.Redactor
	// early is the registry question asked while the launch started
	// from the cache (startEarly); nil when it was asked before.
	early *earlyRegistry
}

// newStdioTarget resolves the launch, makes the server's sandbox and sets
// popts up for it: roots, the canary tap, clock launches. It returns nil
// when the server cannot be launched (run.held says why). early lets an
// npx launch of an exact version the cache holds start while the
// registry is asked (startEarly); otherwise the registry is asked and the
// package fetched before the launch (prefetch).
func newStdioTarget(ctx context.Context, s config.Server, opts *Options, popts *probe.Options, run *serverRun, early bool) *stdioTarget {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	command, args, env, err := s.Resolve(getenv)
	if err != nil {
		run.held = "cannot resolve the launch: " + err.Error()
		return nil
	}
	cwd, cwdSet, err := workDir(s, opts.BaseDir, getenv)
	if err != nil {
		run.held = "cannot resolve the working directory: " + err.Error()
		return nil
	}
	sbOpts := opts.Sandbox
	sbOpts.Watch = func(sb *sandbox.Run) { opts.sandboxes.add(s.Name, sb) }
	sb, err := sandbox.New(s.Name, sbOpts)
	if err != nil {
		run.held = "sandbox: " + err.Error()
		run.isolation = string(opts.Sandbox.Level) + " (could not be applied)"
		return nil
	}
	t := &stdioTarget{s: s, opts: opts, sb: sb, command: command, args: args, cwd: cwd, env: env, leaks: &leakLog{}}
	if early {
		t.early = startEarly(ctx, command, args, env, opts)
	}
	if t.early == nil {
		ans, errText, note := prefetch(ctx, command, args, env, opts)
		run.art.Registry, run.art.RegistryErr = ans, errText
		if note != "" {
			run.notes = append(run.notes, note)
		}
	}
	if note := resolveElsewhere(ctx, command, args, env, sb.Environ(env), opts, &run.art); note != "" {
		run.notes = append(run.notes, note)
	}
	switch {
	case coldPackage(command, args, npmCacheDir(opts, env)):
		popts.StartTimeout = coldStartTimeout
		run.notes = append(run.notes, fmt.Sprintf("the package was not in the npm cache: its first launch installed it, and was given up to %s to start", coldStartTimeout))
	case buildsOrFetches(command, args):
		// uvx, docker run, go run, ...: whether the cache is warm
		// cannot be read as cheaply, and a cold one costs a download
		// or a build before the first answer.
		popts.StartTimeout = coldStartTimeout
	}
	run.isolation = sb.Isolation()

	// The roots a client would send: the config's cwd when it names one.
	// Otherwise the run directory, as before servers started in the
	// project root: the warm-up calls' paths lie there, and a server that
	// confines itself to its roots (server-filesystem) answers them.
	root := sb.Dir()
	if cwdSet {
		root = cwd
	}
	popts.Roots = []string{(&url.URL{Scheme: "file", Path: root}).String()}
	judge := newBait(sb, cwd, popts.Calls)
	t.tap = func(phase, method, subject string, request json.RawMessage, payload []byte) {
		if method == "tools/list" {
			judge.listed(payload)
		}
		if found := sb.Leaks(payload); len(found) > 0 {
			t.leaks.add(found, phase, method, subject, judge.asked(method, subject, request))
		}
		t.leaks.addForeign(opts.sandboxes.foreign(s.Name, payload), phase, method, subject)
	}
	popts.Tap = t.tap
	launchEnv := clockLaunches(run, opts, popts, env)
	t.Command = func(ctx context.Context, n int) (*exec.Cmd, error) {
		return sb.Command(ctx, command, args, launchEnv(n), cwd)
	}
	t.Exec = sb.Start
	t.Hold = func(ctx context.Context, n int) (*exec.Cmd, func() error, func(), error) {
		cmd, gate, err := sb.HeldCommand(ctx, command, args, launchEnv(n), cwd)
		if err != nil {
			return nil, nil, nil, err
		}
		return cmd, gate.Open, gate.Close, nil
	}
	// The run's random directories never reach pinned text: what the
	// server shows is compared and pinned with placeholders for them.
	t.red = opts.Redactor
	if pc, err := sb.Command(ctx, command, args, env, cwd); err == nil {
		t.red = t.red.WithPaths(pinned.LaunchPaths(pc))
	}
	return t
}

// clockLaunches adds a launch for each of opts.ClockOffsets, with the
// server's clock moved forward by libfaketime, and returns each launch's
// environment, by number: env, or env with the clock moved. Where
// libfaketime is missing no clock launch is made, and run's notes say so.
func clockLaunches(run *serverRun, opts *Options, popts *probe.Options, env map[string]string) func(int) map[string]string {
	launchEnv := func(int) map[string]string { return env }
	if len(opts.ClockOffsets) == 0 {
		return launchEnv
	}
	lib := sandbox.FakeTimeLib(opts.FakeTimeLib)
	if lib == "" {
		run.notes = append(run.notes, "the clock could not be moved (--clock-offset): libfaketime is not installed (apt-get install faketime); no clock launch was made")
		return launchEnv
	}
	popts.Launches = max(popts.Launches, 1)
	clocks := map[int]map[string]string{}
	for _, off := range opts.ClockOffsets {
		popts.ExtraLaunches++
		n := popts.Launches + len(popts.ExtraIdentities) + popts.ExtraLaunches
		clocks[n] = sandbox.ClockEnv(env, lib, off)
		run.clockLaunches = append(run.clockLaunches, n)
		if run.clockShift == nil {
			run.clockShift = map[int]time.Duration{}
		}
		run.clockShift[n] = off
		run.notes = append(run.notes, fmt.Sprintf("launch-%d ran with the clock moved forward %s by libfaketime (programs that read time through libc, such as node; Go binaries are not affected)", n, off))
	}
	return func(n int) map[string]string {
		if clock, ok := clocks[n]; ok {
			return clock
		}
		return env
	}
}

// coldStartTimeout is how long a first launch that installs its package
// may take to answer initialize: a cold `npx -y` of a server with a few
// dozen dependencies took 45 s from a slow registry here.
const coldStartTimeout = 2 * time.Minute

// coldPackage reports a launch through npx or npm exec whose package is not
// installed in cacheDir yet: its first start downloads it.
func coldPackage(command string, args []string, cacheDir string) bool {
	pkg, ok := launchid.PackageOf(command, args)
	if !ok || cacheDir == "" || (pkg.Manager != "npx" && pkg.Manager != "npm exec") || strings.Contains(pkg.Spec, "${") {
		return false
	}
	return resolvedVersion(command, args, cacheDir) == ""
}

// buildsOrFetches reports a launch that may download or compile before the
// server's first instruction: any package launcher, and `go run` (strict
// compiles into the checker's own empty build cache on its first run).
func buildsOrFetches(command string, args []string) bool {
	if _, ok := launchid.PackageOf(command, args); ok {
		return true
	}
	base := strings.TrimSuffix(filepath.Base(command), ".exe")
	return base == "go" && len(args) > 0 && args[0] == "run"
}

// planDir is where synthesized path arguments point: the sandbox's own
// temporary directory, with no canary and nothing of the user's.
func (t *stdioTarget) planDir() string { return filepath.Join(t.sb.Dir(), "tmp") }

func (t *stdioTarget) redactor() *redact.Redactor { return t.red }

// scrub replaces the sandbox's canary values: a note or an error may
// quote the server's own output.
func (t *stdioTarget) scrub(s string) string { return t.sb.Redact(s) }

func (t *stdioTarget) where() string { return "" }

// finish records the artifact the launch ran, and the canaries the server
// used or leaked: its stderr is searched too, raw, before anything
// redacts it. A launch that ran another version than the registry
// resolved before it is held: what was checked would not be what a
// client runs.
//
// A launch started from the cache while the registry was asked (early)
// waits for its answer first: when the cache held another version than
// the registry names, nothing of this probe is kept (run.again), and
// probeServer probes again after a prefetch.
func (t *stdioTarget) finish(run *serverRun) {
	if t.early != nil {
		note, again := t.early.settle(&run.art)
		if again {
			run.again = note
			return
		}
		if note != "" {
			run.notes = append(run.notes, note)
		}
	}
	readArtifact(context.Background(), t, &run.art)
	run.resolved = run.art.Version
	if reg := run.art.Registry; reg != nil && run.held == "" && (run.art.Version != reg.Version || run.art.Integrity != "" && run.art.Integrity != reg.Integrity) {
		run.held = fmt.Sprintf("the registry resolved the package to %s (%s), but the launch ran %s (%s): what was checked would not be what a client runs",
			reg.Version, reg.Integrity, orUnknown(run.art.Version), orUnknown(run.art.Integrity))
	}
	if refused := t.sb.Refused(); len(refused) > 0 {
		run.notes = append(run.notes, networkNote(t.s.Name, refused))
	}
	for _, u := range t.sb.Used() {
		f := finding.New(finding.CanaryUsed, t.s.Name)
		f.Kind, f.Subject, f.Phase = finding.KindServer, u.Where, run.res.Phase
		f.Message = fmt.Sprintf("the server connected %d time(s) to %s, the endpoint the credentials planted in %s name: it tried credentials it had no reason to read", u.Connections, u.Address, u.Where)
		run.findings = append(run.findings, f)
	}
	t.tap(run.res.Phase, "stderr", "", nil, []byte(run.res.Stderr))
	run.findings = append(run.findings, t.leaks.findings(t.s.Name)...)
}

func (t *stdioTarget) close() { t.sb.Close() }

// networkNote names the destinations a strict server with a network
// allowance tried and was refused, so that a failed run says what to
// allow rather than leave it to the server's documentation.
func networkNote(server string, refused []sandbox.Refusal) string {
	parts := make([]string, len(refused))
	for i, r := range refused {
		parts[i] = r.String()
	}
	return fmt.Sprintf("network: the server tried %d destination(s) its allowance does not name, and was refused: %s; to let it reach one, add HOST:PORT to servers.%s.network in the policy file (or --network %s=HOST:PORT), after review",
		len(refused), strings.Join(parts, ", "), server, server)
}

// staleCache is closed as soon as the registry answered that the cache
// the launch started from holds another release: the probe can stop, it
// will be made again. nil (never closed) when the registry was asked
// before the launch.
func (t *stdioTarget) staleCache() <-chan struct{} {
	if t.early == nil {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		<-t.early.q.done
		if t.early.stale() {
			close(ch)
		}
	}()
	return ch
}
