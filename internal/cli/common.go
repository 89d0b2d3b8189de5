package cli

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	policyPath string
	flags      *flag.FlagSet
	// src is what the flags say to read, once made (sources): the
	// engine reads configs, the lock and the policy through it.
	src *check.Sources
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
	fs.IntVar(&c.warmup, "warmup-calls", check.DefaultWarmupCalls, "`N` warm-up tools/call requests per launch, with a re-list after each (0 disables)")
	fs.IntVar(&c.launches, "launches", check.DefaultLaunches, "`N` launches per server (a sleeper changes on a later launch)")
	fs.Var(&c.identities, "client-identity", "add a launch presenting clientInfo `NAME/VERSION` (repeatable)")
	fs.StringVar(&c.protocol, "protocol", string(protocolAuto), "handshake `MODE`: auto (initialize, as the presented client does; server/discover only when initialize is refused), legacy or stateless")
	fs.DurationVar(&c.timeout, "timeout", 0, "deadline for one server's whole probe (default: what the plan needs, twice its estimate plus 1m and at least 2m; see docs/profiles.md); one too short for the plan is refused")
	fs.DurationVar(&c.requestTimeout, "request-timeout", check.DefaultRequestTimeout, "deadline for one request")
	fs.DurationVar(&c.callTimeout, "call-timeout", probe.DefaultCallTimeout, "deadline for one warm-up tools/call; a call not answered by then still counts, and is a note")
	fs.IntVar(&c.maxMessage, "max-message-bytes", check.DefaultMaxMessageBytes, "largest JSON-RPC message accepted from a server, in `BYTES`")
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

// sources is what the flags say to read, for the engine (check.Sources):
// made once, so the policy is read and warned about once.
func (c *common) sources(env Env) *check.Sources {
	if c.src == nil {
		c.src = &check.Sources{Dir: env.Dir, Configs: c.configs, User: c.user, Servers: c.servers,
			Lock: c.lockPath, LockGiven: c.explicit()("lock"), Policy: c.policyPath, Getenv: env.Getenv, Warnings: env.Stderr}
	}
	return c.src
}

// userMode applies --user (check.Sources.UserMode): the per-user lock
// (unless --lock was given) and the user-level configs that exist
// (unless --config was given), which it returns.
func (c *common) userMode(env Env) ([]string, error) {
	src := c.sources(env)
	paths, err := src.UserMode()
	c.lockPath = src.Lock
	return paths, err
}

// loadPolicy reads --policy, else the default policy file if there is
// one (check.Sources.LoadPolicy).
func (c *common) loadPolicy(env Env) (*policy.Policy, error) {
	return c.sources(env).LoadPolicy()
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

// loadServers reads the configs (or discovers them) and applies --server
// (check.Sources.LoadServers); with --user, the lock's path is the
// per-user one from then on. all reports whether no --server filter was
// given.
func (c *common) loadServers(env Env) (servers []config.Server, all bool, err error) {
	src := c.sources(env)
	servers, all, err = src.LoadServers()
	c.lockPath = src.Lock
	return servers, all, err
}

// readLock reads the lock; missing is not an error when allowMissing.
func (c *common) readLock(env Env, allowMissing bool) (*lock.File, []byte, error) {
	src := c.sources(env)
	src.Lock = c.lockPath
	return src.ReadLock(allowMissing)
}

// options builds the engine's options from the flags: the probe
// template, the sandbox, the jobs, progress. What the configs, the lock
// and the policy add is the engine's (check.Load).
func (c *probing) options(env Env, stderr io.Writer) (check.Options, error) {
	var o check.Options
	o.Redactor = env.red
	o.Now = env.Now
	// check sets its --fail-on; pin and approve judge as check does by
	// default.
	o.FailOn = finding.Error
	var err error
	if o.Probe, err = c.probeTemplate(); err != nil {
		return o, err
	}
	// 0: each server gets the deadline its plan needs.
	o.ServerTimeout = c.timeout
	o.ProfileName = cmp.Or(c.profile, ProfileQuick)
	if o.Sandbox, err = c.sandboxOptions(env); err != nil {
		return o, err
	}
	if o.Network, err = networkFlags(c.network); err != nil {
		return o, err
	}
	o.Getenv = env.Getenv
	o.Jobs = c.jobs
	o.BaseDir = c.dir(env)
	o.ClockOffsets = c.clockOffsets
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

// probeTemplate checks the counts and time-outs the flags give (the
// profile applied) and makes every server's probe template of them.
func (c *probing) probeTemplate() (probe.Options, error) {
	if _, err := sandbox.ParseLevel(c.sandbox); err != nil {
		return probe.Options{}, asUsage(fmt.Errorf("--sandbox: %w", err))
	}
	if c.warmup < 0 || c.launches < 1 || c.jobs < 1 || c.maxMessage < 1024 {
		return probe.Options{}, usageErr("--warmup-calls must be >= 0, --launches and --jobs >= 1, --max-message-bytes >= 1024")
	}
	if c.callTimeout <= 0 {
		return probe.Options{}, usageErr("--call-timeout must be above zero")
	}
	if err := c.applyProfile(); err != nil {
		return probe.Options{}, err
	}
	if c.callGap < 0 {
		return probe.Options{}, usageErr("--call-gap must be >= 0")
	}
	if c.timeout < 0 || c.deadline < 0 {
		return probe.Options{}, usageErr("--timeout and --deadline must be >= 0")
	}
	if c.burst < 0 || c.burst > maxBurstCalls {
		return probe.Options{}, usageErr("--burst-calls must be between 0 and %d", maxBurstCalls)
	}
	mode, err := parseProtocolMode(c.protocol)
	if err != nil {
		return probe.Options{}, err
	}
	ids, err := identityList(c.identities)
	if err != nil {
		return probe.Options{}, err
	}
	return probe.Options{
		Launches: c.launches, WarmupCalls: c.warmup, ExtraIdentities: ids, Protocol: string(mode),
		RequestTimeout: c.requestTimeout, CallTimeout: c.callTimeout, MaxMessageBytes: c.maxMessage,
		CallGap: c.callGap, BurstCalls: c.burst,
	}, nil
}

// sandboxOptions are the servers' sandbox as the flags say.
func (c *probing) sandboxOptions(env Env) (sandbox.Options, error) {
	lvl, err := sandbox.ParseLevel(c.sandbox)
	if err != nil {
		return sandbox.Options{}, asUsage(fmt.Errorf("--sandbox: %w", err))
	}
	cacheDir := c.cacheDir
	if cacheDir == "" && lvl == sandbox.Strict {
		// Strict cannot use the user's caches read-write (a server must
		// not poison what the user later runs unsandboxed) and npm cannot
		// run from a read-only one: strict gets a cache of its own.
		cacheDir = defaultCacheDir(env)
	}
	return sandbox.Options{Level: lvl, PassEnv: c.passEnv, CacheDir: cacheDir, Getenv: env.Getenv}, nil
}

// config is the engine's input for a run that probes (check.Config): what
// to read, the options, the deadline, the settings the command line fixes
// over the policy, and failOn, the run's --fail-on ("": error).
func (c *probing) config(env Env, failOn string) (check.Config, error) {
	threshold := finding.Error
	if failOn != "" {
		var err error
		if threshold, err = finding.ParseSeverity(failOn); err != nil {
			return check.Config{}, asUsage(fmt.Errorf("--fail-on: %w", err))
		}
	}
	opts, err := c.options(env, env.Stderr)
	if err != nil {
		return check.Config{}, err
	}
	opts.FailOn = threshold
	return check.Config{Sources: *c.sources(env), Options: opts, Deadline: c.deadline, Fixed: c.policyFixed()}, nil
}

// defaultCacheDir is the package cache strict servers use when --cache-dir
// is not given (check.DefaultCacheDir).
func defaultCacheDir(env Env) string { return check.DefaultCacheDir(env.Getenv) }

// defaultJobs is how many servers are probed at once by default
// (check.DefaultJobs).
func defaultJobs() int { return check.DefaultJobs() }

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
