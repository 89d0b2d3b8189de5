package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// common is what every command that reads the configured servers or the
// lock shares: which configs and servers, the lock, the policy and
// --user, and the working directory every path is resolved against.
// Commands that probe add probeFlags (probing); the others add only
// their own flags.
type common struct {
	lockPath string
	configs  multi
	servers  multi
	// user is --user: the user-level configs of this machine's clients
	// instead of the project's, and a per-user lock by default.
	user bool
	// policyPath is --policy; flags is the flag set the flags were
	// registered in, so options can tell a flag given on the command line
	// (which overrides the policy) from its default (which does not).
	// policyFile is the policy once read (nil: none), so it is read and
	// warned about once.
	policyPath   string
	flags        *flag.FlagSet
	policyFile   *policy.Policy
	policyLoaded bool
	// readPaths are the config files loadServers read (absolute or
	// relative to the working directory, as given).
	readPaths []string
}

// probeFlags say how servers are probed. A profile (--profile, or a
// policy's profile: deep) raises the ones not given explicitly, and the
// policy may set them per server.
type probeFlags struct {
	sandbox        string
	passEnv        multi
	network        multi
	cacheDir       string
	warmup         int
	launches       int
	identities     multi
	protocol       string
	timeout        time.Duration
	requestTimeout time.Duration
	callTimeout    time.Duration
	maxMessage     int
	jobs           int
	quiet          bool
	verbose        bool
	progress       string
	deadline       time.Duration
	clockOffsets   durations
	callGap        time.Duration
	burst          int
	profile        string
}

// probing is what pin, check, diff, approve and repin share: the servers
// and lock they probe against, and how.
type probing struct {
	common
	probeFlags
	// beside: strict's self-test is made only after the probe, when a
	// server was held (check.Options.Preflight), rather than before it;
	// checkRun sets it. preflightErr is what it returned, set once
	// check.Check has returned (besideErr).
	beside       bool
	preflightErr error
}

// besideErr is what went wrong beside the probe: the run stops with it.
func (c *probing) besideErr() error {
	return c.preflightErr
}

// register adds the flags of a command that probes servers against the
// lock: which servers, the lock, the policy and how to probe.
func (c *probing) register(fs *flag.FlagSet) {
	c.registerServers(fs)
	fs.StringVar(&c.lockPath, "lock", lock.DefaultPath, "lockfile `FILE`")
	c.registerProbe(fs)
}

// registerServers adds the flags that choose the configured servers:
// configs, names and the policy (which loadServers checks against them).
func (c *common) registerServers(fs *flag.FlagSet) {
	fs.Var(&c.configs, "config", "client config `FILE` (repeatable; default: discover .mcp.json, .vscode/mcp.json, ... in the working directory)")
	fs.Var(&c.servers, "server", "only this server `NAME` (repeatable; default: all)")
	fs.StringVar(&c.policyPath, "policy", "", "policy `FILE`: per-server warm-up calls, launches, env, sandbox, time-outs and rule levels (default: "+policy.DefaultFile+" in the working directory, if it exists); flags given here override it")
	fs.BoolVar(&c.user, "user", false, "the user-level configs of Claude Desktop, Claude Code, Cursor, Windsurf, VS Code, Gemini CLI, Codex and Zed instead of the project's; the lock defaults to a per-user path")
	c.flags = fs
}

// registerProbe adds the flags that say how servers are probed.
func (c *probeFlags) registerProbe(fs *flag.FlagSet) {
	fs.StringVar(&c.sandbox, "sandbox", "basic", "isolation `LEVEL` for servers: off, basic or strict")
	fs.Var(&c.passEnv, "pass-env", "pass this environment variable `NAME` to servers (repeatable)")
	fs.Var(&c.network, "network", "under strict, let server NAME reach these destinations: `NAME=HOST:PORT[,HOST:PORT...]` (repeatable; added to the policy's servers.NAME.network; see docs/sandbox.md)")
	fs.StringVar(&c.cacheDir, "cache-dir", "", "package-manager cache `DIR` for servers (default: the user's caches; under strict, mcp-lockcheck's own cache, since strict servers need it writable)")
	fs.IntVar(&c.warmup, "warmup-calls", 5, "`N` warm-up tools/call requests per launch, with a re-list after each (0 disables)")
	fs.IntVar(&c.launches, "launches", 2, "`N` launches per server (a sleeper changes on a later launch)")
	fs.Var(&c.identities, "client-identity", "add a launch presenting clientInfo `NAME/VERSION` (repeatable)")
	fs.StringVar(&c.protocol, "protocol", string(protocolAuto), "handshake `MODE`: auto (initialize, as the presented client does; server/discover only when initialize is refused), legacy or stateless")
	fs.DurationVar(&c.timeout, "timeout", 0, "deadline for one server's whole probe (default: what the plan needs, twice its estimate plus 1m and at least 2m; see docs/profiles.md); one too short for the plan is refused")
	fs.DurationVar(&c.requestTimeout, "request-timeout", 30*time.Second, "deadline for one request")
	fs.DurationVar(&c.callTimeout, "call-timeout", probe.DefaultCallTimeout, "deadline for one warm-up tools/call; a call not answered by then still counts, and is a note")
	fs.IntVar(&c.maxMessage, "max-message-bytes", 16<<20, "largest JSON-RPC message accepted from a server, in `BYTES`")
	fs.IntVar(&c.jobs, "jobs", defaultJobs(), "`N` servers probed at once (default: 8 per CPU, between 16 and 64)")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress on stderr")
	fs.Var(&c.clockOffsets, "clock-offset", "add a launch with the server's clock moved forward by `DURATION` (libfaketime; repeatable)")
	fs.DurationVar(&c.callGap, "call-gap", 0, "idle `DURATION` between warm-up calls in a session (a server that waits for wall time)")
	fs.IntVar(&c.burst, "burst-calls", 0, "`N` calls in a burst, in the first launch after its warm-up calls: no gaps, re-lists at growing intervals, reads only (0: none; deep: 1000)")
	fs.StringVar(&c.profile, "profile", ProfileQuick, "probe `NAME`: quick (the defaults) or deep (50 calls, 5 launches, clock shifts, every client identity, idle gaps, a burst of 1000 calls; see docs/profiles.md); flags given override it")
	fs.BoolVar(&c.verbose, "verbose", false, "progress for every phase on stderr; the text report lists acknowledged findings and every finding of a rule that fires on many subjects")
	fs.StringVar(&c.progress, "progress", string(progressAuto), "progress `STYLE` on stderr: auto, plain, tty (lines replaced in place) or github (log groups)")
	fs.DurationVar(&c.deadline, "deadline", 0, "deadline for the whole run; servers not finished by then are held (0: none)")
}

// userMode applies --user: the per-user lock (unless --lock was given),
// its directory created, and the user-level configs that exist (unless
// --config was given). It returns the configs to read.
func (c *common) userMode(env Env) ([]string, error) {
	getenv := func(k string) string { v, _ := env.Getenv(k); return v }
	if !c.explicit()("lock") {
		c.lockPath = config.UserLockPath(runtime.GOOS, getenv)
		if c.lockPath == "" {
			return nil, usageErr("--user: no home directory (HOME, or USERPROFILE on Windows) to keep the lock in; name one with --lock")
		}
		if err := os.MkdirAll(filepath.Dir(c.lockPath), 0o700); err != nil {
			return nil, fmt.Errorf("--user: creating the lock's directory: %w", err)
		}
	}
	if len(c.configs) > 0 {
		return nil, nil
	}
	paths := config.UserConfigs(runtime.GOOS, getenv)
	if len(paths) == 0 {
		return nil, usageErr("--user: no user-level client config found on this machine (Claude Desktop, Claude Code, Cursor, Windsurf, VS Code, Gemini CLI, Codex or Zed; docs/platforms.md lists where); name one with --config")
	}
	return paths, nil
}

// loadPolicy reads --policy, else the default policy file if there is
// one. A policy that exists but cannot be read or parsed is an exit-2
// error naming its line and column: a setting silently not applied could
// weaken the check.
func (c *common) loadPolicy(env Env) (*policy.Policy, error) {
	if c.policyLoaded {
		return c.policyFile, nil
	}
	name := c.policyName()
	data, err := os.ReadFile(c.path(env, name))
	if err != nil {
		if c.policyPath == "" && errors.Is(err, os.ErrNotExist) {
			c.policyLoaded = true
			return nil, nil
		}
		return nil, usageErr("policy: %v", err)
	}
	p, err := policy.Parse(name, data)
	if err != nil {
		return nil, asUsage(err)
	}
	c.policyFile, c.policyLoaded = p, true
	return p, nil
}

// policyName is --policy, else the default policy file's name.
func (c *common) policyName() string {
	if c.policyPath != "" {
		return c.policyPath
	}
	return policy.DefaultFile
}

// run is what a server gets where no policy sets a value: the flags'
// values, given or default.
func (c *probing) run() policy.Run {
	_ = c.applyProfile() // a bad --profile is reported by options
	lvl, _ := sandbox.ParseLevel(c.sandbox)
	deep := c.deepCopy()
	return policy.Run{WarmupCalls: c.warmup, Launches: c.launches, Sandbox: lvl, Timeout: c.timeout, RequestTimeout: c.requestTimeout, CallTimeout: c.callTimeout,
		Profile: cmp.Or(c.profile, ProfileQuick), DeepWarmupCalls: deep.warmup, DeepLaunches: deep.launches}
}

// deepCopy is c with --profile deep applied: what a server whose policy
// says `profile: deep` gets, flags given on the command line kept.
func (c *probing) deepCopy() *probing {
	d := *c
	d.identities = slices.Clone(c.identities)
	d.clockOffsets = slices.Clone(c.clockOffsets)
	d.profile = ProfileDeep
	_ = d.applyProfile()
	return &d
}

// protocolMode is how the probe opens a session (--protocol). The probe
// takes it as a string; the closed set is checked here, where the flag
// is read.
type protocolMode string

// Protocol modes: the closed set parseProtocolMode accepts.
const (
	// protocolAuto initializes as the presented client does, and
	// tries server/discover only when initialize is refused.
	protocolAuto      protocolMode = "auto"
	protocolLegacy    protocolMode = "legacy"
	protocolStateless protocolMode = "stateless"
)

// parseProtocolMode reads a --protocol value.
func parseProtocolMode(s string) (protocolMode, error) {
	switch m := protocolMode(s); m {
	case protocolAuto, protocolLegacy, protocolStateless:
		return m, nil
	}
	return "", usageErr("--protocol %q: want auto, legacy or stateless", s)
}

// identityList parses --client-identity values.
func identityList(list []string) ([]probe.Identity, error) {
	var ids []probe.Identity
	for _, s := range list {
		name, version, ok := strings.Cut(s, "/")
		if !ok || name == "" || version == "" {
			return nil, usageErr("--client-identity %q: want NAME/VERSION", s)
		}
		ids = append(ids, probe.Identity{Name: name, Version: version})
	}
	return ids, nil
}

// explicit reports whether a flag was given on the command line.
func (c *common) explicit() func(string) bool {
	set := map[string]bool{}
	if c.flags != nil {
		c.flags.Visit(func(f *flag.Flag) { set[f.Name] = true })
	}
	return func(name string) bool { return set[name] }
}

// policyFixed is which policy settings this run's command line fixes: a
// flag given there wins over the policy file. The policy package knows
// only its own keys; which flag stands for which key is said here.
func (c *common) policyFixed() policy.Fixed {
	explicit := c.explicit()
	return policy.Fixed{
		Profile:        explicit("profile"),
		WarmupCalls:    explicit("warmup-calls"),
		Launches:       explicit("launches"),
		Sandbox:        explicit("sandbox"),
		Timeout:        explicit("timeout"),
		RequestTimeout: explicit("request-timeout"),
		CallTimeout:    explicit("call-timeout"),
	}
}

// newFlagSet makes a flag set whose errors we print ourselves.
func newFlagSet(name string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet("mcp-lockcheck "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() { writeHelp(env.Stdout, name, fs) }
	return fs
}

// parse parses flags and rejects stray arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

func (c *common) dir(env Env) string {
	if env.Dir != "" {
		return env.Dir
	}
	d, _ := os.Getwd()
	return d
}

// path resolves a flag path against the working directory.
func (c *common) path(env Env, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir(env), p)
}

// loadServers reads the configs (or discovers them) and applies --server.
// all reports whether no --server filter was given.
func (c *common) loadServers(env Env) (servers []config.Server, all bool, err error) {
	var paths []string
	if c.user {
		if paths, err = c.userMode(env); err != nil {
			return nil, false, err
		}
	}
	for _, p := range c.configs {
		paths = append(paths, c.path(env, p))
	}
	if len(paths) == 0 {
		paths = config.Discover(c.dir(env))
		if len(paths) == 0 {
			return nil, false, usageErr("no client config found in %s (looked for .mcp.json, .vscode/mcp.json, .cursor/mcp.json, .gemini/settings.json, .zed/settings.json, .codex/config.toml, .roo/mcp.json, .kiro/settings/mcp.json, .amazonq/mcp.json, .junie/mcp/mcp.json, .continue/mcpServers/, opencode.json, mcp.json, claude_desktop_config.json and the others listed in docs/usage.md); name one with --config", c.dir(env))
		}
	}
	c.readPaths = paths
	servers, err = config.LoadAll(paths)
	if err != nil {
		return nil, false, asUsage(err)
	}
	// The lock approves the server, not the guard in front of it: an entry
	// guard install rewrote is compared and probed by its inner launch.
	config.UnwrapGuard(servers, isSelf)
	if err := check.ValidateWorkDirs(servers, c.dir(env), env.Getenv); err != nil {
		return nil, false, asUsage(err)
	}
	pol, err := c.loadPolicy(env)
	if err != nil {
		return nil, false, err
	}
	var configured []string
	for _, s := range servers {
		configured = append(configured, s.Name)
	}
	for _, u := range pol.Unused(configured) {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: warning: %s:%d:%d: the policy names server %q, which no config names (configured: %s)\n", pol.File, u.Line, u.Column, u.Name, config.Names(servers))
	}
	for i := range servers {
		if rel, err := filepath.Rel(c.dir(env), servers[i].File); err == nil && !strings.HasPrefix(rel, "..") {
			servers[i].File = rel
		}
	}
	if len(c.servers) == 0 {
		return servers, true, nil
	}
	byName := map[string]config.Server{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	var out []config.Server
	for _, n := range c.servers {
		s, ok := byName[n]
		if !ok {
			return nil, false, usageErr("--server %q: no configured server has that name (configured: %s)", n, config.Names(servers))
		}
		out = append(out, s)
	}
	return out, false, nil
}

// readLock reads the lock; missing is not an error when allowMissing.
func (c *common) readLock(env Env, allowMissing bool) (*lock.File, []byte, error) {
	f, data, err := lock.Read(c.path(env, c.lockPath))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if allowMissing {
				return nil, nil, nil
			}
			return nil, nil, usageErr("lockfile %s does not exist: run `mcp-lockcheck pin` first", c.lockPath)
		}
		return nil, nil, asUsage(err)
	}
	return f, data, nil
}

// options builds the engine's options from the flags.
func (c *probing) options(env Env, stderr io.Writer) (check.Options, error) {
	var o check.Options
	o.Redactor = env.red
	o.Now = env.Now
	// check sets its --fail-on; pin and approve judge as check does by
	// default.
	o.FailOn = finding.Error
	lvl, err := sandbox.ParseLevel(c.sandbox)
	if err != nil {
		return o, asUsage(fmt.Errorf("--sandbox: %w", err))
	}
	if c.warmup < 0 || c.launches < 1 || c.jobs < 1 || c.maxMessage < 1024 {
		return o, usageErr("--warmup-calls must be >= 0, --launches and --jobs >= 1, --max-message-bytes >= 1024")
	}
	if c.callTimeout <= 0 {
		return o, usageErr("--call-timeout must be above zero")
	}
	if err := c.applyProfile(); err != nil {
		return o, err
	}
	if c.callGap < 0 {
		return o, usageErr("--call-gap must be >= 0")
	}
	if c.timeout < 0 || c.deadline < 0 {
		return o, usageErr("--timeout and --deadline must be >= 0")
	}
	if c.burst < 0 || c.burst > maxBurstCalls {
		return o, usageErr("--burst-calls must be between 0 and %d", maxBurstCalls)
	}
	mode, err := parseProtocolMode(c.protocol)
	if err != nil {
		return o, err
	}
	ids, err := identityList(c.identities)
	if err != nil {
		return o, err
	}
	o.Probe = probe.Options{
		Launches: c.launches, WarmupCalls: c.warmup, ExtraIdentities: ids, Protocol: string(mode),
		RequestTimeout: c.requestTimeout, CallTimeout: c.callTimeout, MaxMessageBytes: c.maxMessage,
		CallGap: c.callGap, BurstCalls: c.burst,
	}
	// 0: each server gets the deadline its plan needs.
	o.ServerTimeout = c.timeout
	o.ProfileName = cmp.Or(c.profile, ProfileQuick)
	preflight := func() error {
		if err := sandbox.Available(lvl); err != nil {
			return asUsage(fmt.Errorf("--sandbox strict cannot be applied here: %w", err))
		}
		return nil
	}
	if lvl == sandbox.Strict && !c.beside {
		// Fail closed, and early: a strict run that cannot be strict is
		// not a run with less isolation.
		if err := preflight(); err != nil {
			return o, err
		}
	}
	cacheDir := c.cacheDir
	if cacheDir == "" && lvl == sandbox.Strict {
		// Strict cannot use the user's caches read-write (a server must
		// not poison what the user later runs unsandboxed) and npm cannot
		// run from a read-only one: strict gets a cache of its own.
		cacheDir = defaultCacheDir(env)
	}
	o.Sandbox = sandbox.Options{Level: lvl, PassEnv: c.passEnv, CacheDir: cacheDir, Getenv: env.Getenv}
	if o.Network, err = networkFlags(c.network); err != nil {
		return o, err
	}
	if lvl == sandbox.Strict && c.beside {
		// The self-test (a helper started once, tens of milliseconds)
		// is made only when a server was held: a strict launch that
		// answered shows strict works, and one that cannot be strict
		// fails closed (the helper refuses to start the server, or the
		// namespaces are refused at clone). It still stops the run.
		o.Sandbox.NoPreflight = true
		o.Preflight = func() error {
			c.preflightErr = preflight()
			return c.preflightErr
		}
	}
	o.Getenv = env.Getenv
	o.Jobs = c.jobs
	o.BaseDir = c.dir(env)
	o.ClockOffsets = c.clockOffsets
	o.LockPath = c.lockPath
	pol, err := c.loadPolicy(env)
	if err != nil {
		return o, err
	}
	if pol != nil {
		fixed := c.policyFixed()
		o.PerServer = func(name string) policy.Settings { return pol.Effective(name, fixed) }
		o.RepositoryAck = pol.Acknowledged
	}
	if c.profile != ProfileDeep {
		// A server the policy makes deep (profile: deep) gets these.
		d := c.deepCopy()
		dids, err := identityList(d.identities)
		if err != nil {
			return o, err
		}
		o.Deep = &check.Profile{WarmupCalls: d.warmup, Launches: d.launches, BurstCalls: d.burst, ExtraIdentities: dids, CallGap: d.callGap, ClockOffsets: d.clockOffsets}
	}
	if !c.quiet {
		style, err := parseProgressStyle(c.progress)
		if err != nil {
			return o, err
		}
		o.Progress = newProgress(stderr, env, style, c.verbose)
	}
	return o, nil
}

// fit refuses, before anything is launched, a run whose time-outs cannot
// hold its plan (check.Options.FitPlans): exit 2, with the numbers. Call
// it once opts hold the servers and the policy in force.
func (c *probing) fit(opts *check.Options) error {
	return asUsage(opts.FitPlans(c.deadline))
}

// defaultCacheDir is the package cache strict servers use when --cache-dir
// is not given: mcp-lockcheck's own, under the user's cache directory,
// never the caches the user's own tools read.
func defaultCacheDir(env Env) string {
	if v, ok := env.Getenv("XDG_CACHE_HOME"); ok && filepath.IsAbs(v) {
		return filepath.Join(v, "mcp-lockcheck", "sandbox")
	}
	if home, ok := env.Getenv("HOME"); ok && filepath.IsAbs(home) {
		return filepath.Join(home, ".cache", "mcp-lockcheck", "sandbox")
	}
	return filepath.Join(os.TempDir(), "mcp-lockcheck-sandbox-cache")
}

// defaultJobs is how many servers are probed at once by default. A probe
// mostly waits on its server (start-up, answers, shutdown grace), so tying
// it to the CPU count would leave the machine idle: on 2 CPUs, 16 servers
// would take four times as long as 4. Eight per CPU, between 16 and 64,
// keeps the CPUs busy without starting every server of a large config at
// once.
func defaultJobs() int { return min(max(8*runtime.NumCPU(), 16), 64) }

// isSelf reports whether path is this very program: an absolute command a
// config names that may be unwrapped as our own guard.
func isSelf(path string) bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	a, errA := os.Stat(exe)
	b, errB := os.Stat(path)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// networkFlags reads --network NAME=HOST:PORT[,HOST:PORT...], each given
// once or more per server: the allowances add up.
func networkFlags(vals []string) (map[string]sandbox.Allowance, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]sandbox.Allowance{}
	for _, v := range vals {
		name, list, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(list) == "" {
			return nil, usageErr("--network %q: want NAME=HOST:PORT[,HOST:PORT...] (the server's name in the config)", v)
		}
		a, err := sandbox.ParseDests(strings.Split(list, ","))
		if err != nil {
			return nil, usageErr("--network %s: %v", name, err)
		}
		out[name] = sandbox.NormalAllowance(append(out[name], a...))
	}
	return out, nil
}
