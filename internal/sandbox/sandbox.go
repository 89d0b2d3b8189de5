package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Unlimited in a [Limits] field means "do not set this limit".
const Unlimited = ^uint64(0)

// Limits are the resource limits (setrlimit, soft = hard) a server runs
// under in Basic and Strict. A zero field takes the default; [Unlimited]
// leaves the limit as inherited. Core dumps are always disabled: a core file
// would copy the canaries and whatever else the server read into the run
// directory.
type Limits struct {
	// CPUSeconds is RLIMIT_CPU, per process. Default 300: a whole probe
	// (several launches, each its own process) fits with room to spare.
	CPUSeconds uint64
	// DataBytes is RLIMIT_DATA (private writable memory). Default 4 GiB. It
	// is used instead of RLIMIT_AS because node/V8 reserves far more address
	// space than it uses (PROT_NONE reservations do not count here).
	DataBytes uint64
	// AddressSpaceBytes is RLIMIT_AS. Default: not set (see DataBytes).
	AddressSpaceBytes uint64
	// OpenFiles is RLIMIT_NOFILE. Default 1024.
	OpenFiles uint64
	// FileSizeBytes is RLIMIT_FSIZE, the largest file the server can write.
	// Default 256 MiB.
	FileSizeBytes uint64
	// Processes is RLIMIT_NPROC (processes and threads). Strict only,
	// default 512: inside Strict's own user namespace the kernel counts
	// the server's tasks alone, so this caps the whole server, forks and
	// threads of every descendant together, whatever uid it runs as. In
	// Basic the count is the user's across the machine, so no cap is set.
	Processes uint64
}

func (l Limits) withDefaults() Limits {
	def := func(v *uint64, d uint64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.CPUSeconds, 300)
	def(&l.DataBytes, 4<<30)
	def(&l.AddressSpaceBytes, Unlimited)
	def(&l.OpenFiles, 1024)
	def(&l.FileSizeBytes, 256<<20)
	def(&l.Processes, Unlimited)
	return l
}

// defaultStrictProcesses is Strict's RLIMIT_NPROC: node with its worker
// threads uses a dozen tasks, npx and a shell a few more.
const defaultStrictProcesses = 512

// Options configure one server's sandbox.
type Options struct {
	// Level is the isolation level; "" is an error.
	Level Level
	// Watch, when set, is called by New with the run once its canaries
	// are chosen and before any is written where a server could read
	// it. A caller that searches every server's output for the other
	// servers' canaries (in basic mode, servers that run as one user can
	// read each other's run directories) registers the run here: a
	// neighbour that reads a canary the moment it is written is caught
	// as surely as one that reads it later.
	Watch func(*Run)
	// PassEnv names variables of the checker's environment to pass through
	// unchanged (--pass-env). A name here also suppresses that name's canary.
	PassEnv []string
	// CacheDir is the package-manager cache root (npm, uv, Go modules go in
	// subdirectories, created by New). "" uses the user's real caches:
	// $npm_config_cache or ~/.npm (not `npm config get cache`, which takes
	// most of a second), $UV_CACHE_DIR or $XDG_CACHE_HOME/uv or
	// ~/.cache/uv, $GOMODCACHE or $GOPATH/pkg/mod or ~/go/pkg/mod.
	//
	// Strict grants a CacheDir read-write and the user's real caches
	// read-only: a server must not poison a cache the user later runs
	// unsandboxed. npm cannot use a read-only cache (measured here: `npx -y`
	// writes _cacache/tmp even with a warm cache and offline, and on
	// EACCES goes to the network, which Strict does not have), so for npm
	// servers under Strict set CacheDir to a cache mcp-lockcheck owns,
	// warmed outside the sandbox; one per server if servers must not be
	// able to touch each other's installs.
	CacheDir string
	// Limits are the resource limits; the zero value means the defaults.
	Limits Limits
	// ReadOnly are extra paths Strict makes readable (and executable): paths
	// among the server's arguments, data the config points at.
	ReadOnly []string
	// Getenv reads the checker's environment; nil means os.LookupEnv.
	// Injected so tests can plant "real" secrets without touching the
	// process environment. Off ignores it and passes os.Environ() whole.
	Getenv func(string) (string, bool)
	// NoPreflight: New does not wait for Strict's self-test, because the
	// caller runs [Available] itself, beside the launches, and stops the
	// run when it fails. The self-test is for the error message only: a
	// launch that cannot be strict fails closed all the same (the helper
	// refuses to exec the server, or the namespaces are refused at clone).
	NoPreflight bool
	// Network is a strict server's network allowance: the host:port
	// destinations it may reach, each connection dialled by the checker
	// (netfwd.go). Empty: no network at all. Only Strict on Linux takes
	// one; New refuses it elsewhere, and Basic and Off, which do not
	// restrict the network, ignore it.
	Network Allowance
	// Resolve, when set, replaces the checker's own resolution of allowed
	// names (tests: names under .invalid on loopback test hosts), and
	// lets a name resolve to loopback, which the real resolution refuses.
	Resolve Resolver
}

// Sentinel errors for the reasons Strict cannot run; [New] wraps them with
// details. The caller holds the server (exit code 3), it never downgrades.
var (
	ErrNoLandlock      = errors.New("landlock is not available")
	ErrNoUserNamespace = errors.New("cannot create an unprivileged user and network namespace")
	ErrNoHelper        = errors.New("the sandbox helper did not run")
)

// Run is one server's sandbox for one whole check run. Its run directory
// (HOME, XDG_*, TMPDIR, the default working directory) survives across the
// launches of the run, so a sleeper counting its launches in a file sees the
// count rise as it would on a user's machine; [Run.Close] removes it.
//
// Command, Canaries, Leaks and Redact may be called concurrently; Close
// must not race with them.
type Run struct {
	opts     Options
	limits   Limits
	getenv   func(string) (string, bool)
	dir      string // run directory root
	home     string
	tmp      string
	work     string
	self     string // the checker's executable, re-executed as the helper
	abi      int    // Landlock ABI (Strict only)
	caches   map[string]string
	baseRO   []string // Strict: read-only paths that do not depend on the command
	cacheRW  bool     // Strict: caches are read-write (Options.CacheDir set)
	canary   []canaryEntry
	matchers matcherOnce       // built from canary on first use
	envCan   map[string]string // env var -> canary token
	realHome string
	// endpoints are the loopback listeners planted credentials point
	// at; Close closes them.
	endpoints []*endpoint
	// direct are the cmds Start may run without the helper, with the
	// helper's policy for them (direct_linux.go).
	directMu sync.Mutex
	direct   map[*exec.Cmd]policy
	// entry is the run directory's locked registry entry (stale.go),
	// nil when there is none; Close removes it.
	entry *os.File
	// fwd carries a strict server's allowed connections (netfwd.go);
	// nil without an allowance.
	fwd *forwarder
	// netFiles are the run's /etc/hosts and /etc/resolv.conf for the
	// sandbox, with fwd.
	netHosts, netResolv string
}

// New creates the run directory and plants the canaries. For Strict it also
// checks, once per process, that Landlock is present and that a user and
// network namespace can be created, and fails with [ErrNoLandlock] or
// [ErrNoUserNamespace] otherwise.
func New(server string, opts Options) (*Run, error) {
	if _, err := ParseLevel(string(opts.Level)); err != nil {
		return nil, err
	}
	r := &Run{opts: opts, limits: opts.Limits.withDefaults(), getenv: opts.Getenv}
	if r.getenv == nil {
		r.getenv = os.LookupEnv
	}
	if opts.Level != Off {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("sandbox: locating the helper executable: %w", err)
		}
		r.self = self
		// Strict is tested once before any launch (unless the caller
		// tests it itself: NoPreflight): a kernel without Landlock or a
		// denied user namespace is one clear error, not every server
		// held. Basic is not: its helper only sets limits
		// and a best-effort write ruleset, and a helper that cannot
		// still fails its launch closed (exit HelperExitStatus, the
		// reason on stderr, which the probe quotes); a self-test exec
		// before every run cost more than any launch it could save.
		if opts.Level == Strict && !opts.NoPreflight {
			if err := preflight(self, opts.Level); err != nil {
				return nil, err
			}
		}
		r.abi = landlockABI() // Basic uses it for writes, when the kernel has it

	}

	// Nothing in the paths a server can see names the checker: a server
	// that looked for "mcp-lockcheck" in $HOME or $TMPDIR could behave for
	// the check and misbehave for the agent. The layout mimics a user's
	// machine: a temp dir holding a home directory named after the user.
	// Where a killed run left its run directory, the next run removes it
	// (stale.go): the record of which are whose is kept outside them.
	reg := sweepStale()
	dir, err := os.MkdirTemp("", "tmp.")
	if err != nil {
		return nil, fmt.Errorf("sandbox: creating run directory: %w", err)
	}
	// MkdirTemp may return a path through a symlink (macOS /var); Landlock
	// and the leak messages want the real one.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	r.dir = dir
	r.entry = registerRun(reg, dir, os.TempDir())
	r.home = filepath.Join(dir, "home", homeUser())
	r.tmp = filepath.Join(dir, "tmp")
	r.work = filepath.Join(r.home, "project")
	for _, d := range []string{r.home, r.tmp, r.work, filepath.Join(dir, "run"),
		filepath.Join(r.home, ".config"), filepath.Join(r.home, ".cache"),
		filepath.Join(r.home, ".local", "share"), filepath.Join(r.home, ".local", "state")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			r.Close()
			return nil, fmt.Errorf("sandbox: creating run directory: %w", err)
		}
	}
	if opts.Level == Off {
		return r, nil
	}
	r.realHome, _ = r.getenv("HOME")
	r.caches = r.cacheDirs()
	if opts.CacheDir != "" {
		r.cacheRW = true
		for _, d := range r.caches {
			if err := os.MkdirAll(d, 0o700); err != nil {
				r.Close()
				return nil, fmt.Errorf("sandbox: creating cache directory: %w", err)
			}
		}
	} else if opts.Level == Basic {
		r.makeUserCaches()
	}
	if err := r.plantCanaries(); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.furnishHome(); err != nil {
		r.Close()
		return nil, err
	}
	if opts.Level == Strict {
		r.baseRO = r.strictBaseRO()
		if len(opts.Network) > 0 {
			if err := r.startNetwork(); err != nil {
				r.Close()
				return nil, err
			}
		}
	}
	return r, nil
}

// startNetwork makes the run's forwarder and the resolver files its
// launches' sandboxes see.
func (r *Run) startNetwork() error {
	if err := netSupported(); err != nil {
		return err
	}
	r.fwd = newForwarder(NormalAllowance(slices.Clone(r.opts.Network)), r.opts.Resolve)
	dir := filepath.Join(r.dir, "net")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox: network files: %w", err)
	}
	r.netHosts, r.netResolv = filepath.Join(dir, "hosts"), filepath.Join(dir, "resolv.conf")
	for p, content := range map[string]string{r.netHosts: r.fwd.hostsFile(), r.netResolv: resolvConf} {
		if err := os.WriteFile(p, []byte(content), 0o444); err != nil {
			return fmt.Errorf("sandbox: network files: %w", err)
		}
	}
	return nil
}

// Refused are the destinations a strict server with a network allowance
// tried and was refused, over every launch so far: names it looked up
// that are not allowed, and connections to an allowed port that are not
// to an allowed destination. A connection to a port no destination has is
// refused by the kernel at once and is not seen. nil without an
// allowance.
func (r *Run) Refused() []Refusal {
	if r.fwd == nil {
		return nil
	}
	return r.fwd.Refused()
}

// Network is the allowance in force for the run's launches: empty where
// the level does not take one.
func (r *Run) Network() Allowance {
	if r.fwd == nil {
		return nil
	}
	return r.fwd.allow
}

// makeUserCaches creates the user's package caches that do not exist yet,
// owned by the user, before Basic's write rules are made: those grant
// only directories that exist, so on a fresh account (a new runner, a new
// laptop account, a container, no ~/.npm yet) every npx server failed
// with EACCES creating ~/.npm. It is what the user's own first npx, uvx
// or go run would have made. Best effort: a cache that cannot be made
// stays unwritable, and the server that needs it fails closed.
func (r *Run) makeUserCaches() {
	for _, d := range r.caches {
		if _, err := os.Stat(d); err == nil || !r.safeGrant(d) {
			continue
		}
		_ = os.MkdirAll(d, 0o700)
	}
}

// Dir is the run directory. It exists from [New] to [Run.Close] at every
// level (Off does not point the server at it, but the caller may keep logs
// there).
func (r *Run) Dir() string { return r.dir }

// Isolation is one line for the report saying what the server ran under.
func (r *Run) Isolation() string {
	switch r.opts.Level {
	case Basic:
		if r.abi > 0 {
			return fmt.Sprintf("basic: env scrubbed, fresh HOME and TMPDIR, canaries, rlimits, writes only to the run dir and caches (landlock ABI %d)", r.abi)
		}
		return basicIsolation
	case Strict:
		if runtime.GOOS == "darwin" {
			return "strict: seatbelt (no network; reads: system, install prefix, run dir; writes: run dir), env scrubbed, fresh HOME and TMPDIR, canaries, rlimits"
		}
		if r.fwd != nil {
			return fmt.Sprintf("strict: landlock ABI %d + netns (network only to %s, dialled by the checker), env scrubbed, fresh HOME and TMPDIR, canaries, rlimits", r.abi, strings.Join(r.fwd.allow.Strings(), ", "))
		}
		return fmt.Sprintf("strict: landlock ABI %d + netns (no network), env scrubbed, fresh HOME and TMPDIR, canaries, rlimits", r.abi)
	}
	return "off"
}

// Close removes the run directory, then its registry entry (stale.go). It
// is safe to call more than once.
func (r *Run) Close() error {
	r.directMu.Lock()
	r.direct = nil
	r.directMu.Unlock()
	for _, e := range r.endpoints {
		e.close()
	}
	r.endpoints = nil
	if r.fwd != nil {
		r.fwd.close()
	}
	if r.dir == "" {
		return nil
	}
	err := os.RemoveAll(r.dir)
	if err != nil {
		// A server may have left read-only directories behind.
		_ = filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o700)
			}
			return nil
		})
		err = os.RemoveAll(r.dir)
	}
	if err != nil {
		// The entry stays locked: once this process is gone, the next
		// run tries again.
		return fmt.Errorf("sandbox: removing run directory: %w", err)
	}
	r.dir = ""
	releaseEntry(r.entry)
	r.entry = nil
	return nil
}

// envAllow are the names passed from the checker's environment in Basic and
// Strict: what programs need to find binaries, speak the user's locale, and
// reach the network through a corporate proxy and CA. No credentials:
// GITHUB_TOKEN, ACTIONS_*, AWS_*, cloud and API keys pass only when the
// config's env or PassEnv names them.
var envAllow = []string{
	"PATH", "USER", "LOGNAME", "TERM", "TZ", "SHELL",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY",
	"LC_NUMERIC", "LC_TIME", "LC_ADDRESS", "LC_IDENTIFICATION", "LC_MEASUREMENT",
	"LC_NAME", "LC_PAPER", "LC_TELEPHONE",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

const defaultPATH = "/usr/local/bin:/usr/bin:/bin"

// proxyVars are the proxy variables envAllow passes.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy"}

// Command builds the cmd for one launch of the server. env is the config's
// env, already expanded by the caller; cwd is the config's working directory
// ("" = the run directory's work dir; Off: the checker's own).
//
// The child's environment, later entries winning: the allowlist above from
// the checker; HOME, XDG_*, TMPDIR in the run directory; the package caches
// (npm itself is set to prefer-offline in the sandbox HOME's .npmrc:
// `npx -y` in the sandbox takes 71 s by default and 0.9 s offline,
// docs/design.md#measured-facts); the canary variables not named by the
// config or PassEnv; PassEnv; the config's env (it wins, HOME and TMPDIR
// included, because that is what the client would do).
//
// The command is looked up on the child's PATH, not the checker's. The cmd
// has Setpgid (the probe kills the group: grandchildren survive a plain kill)
// and cancels the context by killing the group. Basic and Strict start the
// helper, which sets the rlimits (and for Strict, Landlock inside a new user
// and network namespace) and then execs the server; a helper failure exits
// with status [HelperExitStatus] and a message on the cmd's stderr.
func (r *Run) Command(ctx context.Context, command string, args []string, env map[string]string, cwd string) (*exec.Cmd, error) {
	return r.command(ctx, command, args, env, cwd, false)
}

// ErrCannotHold is HeldCommand's error where a launch cannot be held: with
// no helper between the checker and the server (Off), or on Windows.
var ErrCannotHold = errors.New("sandbox: this launch cannot be held")

// HeldCommand is Command for a launch started ahead of its turn. The
// helper applies every limit and restriction and then waits at the gate
// until [Gate.Open]: what costs time in a launch before the server's first
// instruction (the helper's own start, Landlock, namespaces, /proc) is
// done while the launch before it still runs, and nothing of the server
// runs before the gate opens. The cmd's one extra file is the gate; the
// caller starts the cmd and then opens or closes the gate.
func (r *Run) HeldCommand(ctx context.Context, command string, args []string, env map[string]string, cwd string) (*exec.Cmd, *Gate, error) {
	if r.opts.Level == Off || runtime.GOOS == "windows" {
		return nil, nil, ErrCannotHold
	}
	cmd, err := r.command(ctx, command, args, env, cwd, true)
	if err != nil {
		return nil, nil, err
	}
	gr, gw, err := gateSockets()
	if err != nil {
		return nil, nil, err
	}
	if len(cmd.ExtraFiles) > 0 {
		cmd.ExtraFiles[0] = gr // the helper's gateFD, before its netFD
	} else {
		cmd.ExtraFiles = []*os.File{gr} // the helper's gateFD
	}
	return cmd, &Gate{r: gr, w: gw}, nil
}

// Gate holds a launch made by [Run.HeldCommand] before its server starts.
type Gate struct {
	r, w *os.File
}

// Open lets the held server start.
func (g *Gate) Open() error {
	g.r.Close()
	_, err := g.w.Write([]byte{1})
	if cerr := g.w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sandbox: opening the gate: %w", err)
	}
	return nil
}

// Close discards the held launch: its helper exits and the server never
// starts. Closing an opened gate does nothing.
func (g *Gate) Close() {
	g.r.Close()
	g.w.Close()
}

func (r *Run) command(ctx context.Context, command string, args []string, env map[string]string, cwd string, held bool) (*exec.Cmd, error) {
	if r.dir == "" {
		return nil, errors.New("sandbox: Command on a closed Run")
	}
	if command == "" {
		return nil, errors.New("sandbox: empty command")
	}
	childEnv := r.Environ(env)

	dir, err := r.workDir(cwd)
	if err != nil {
		return nil, err
	}
	path, err := lookPath(command, childEnv["PATH"], dir)
	if err != nil {
		return nil, err
	}

	var cmd *exec.Cmd
	if r.opts.Level == Off {
		cmd = exec.CommandContext(ctx, path, args...)
		cmd.Args[0] = command
		cmd.SysProcAttr = groupAttr()
	} else {
		p := r.helperPolicy(path, args, dir, childEnv, held)
		if cmd, err = r.helperCommand(ctx, command, args, p, childEnv, held); err != nil {
			return nil, err
		}
	}
	cmd.Dir = dir
	cmd.Env = flatten(childEnv)
	cmd.Cancel = func() error { return KillGroup(cmd, syscall.SIGKILL) }
	return cmd, nil
}

// workDir is the absolute directory the server starts in: cwd, or in a
// sandbox the run's work directory; "" for the caller's.
func (r *Run) workDir(cwd string) (string, error) {
	dir := cwd
	if dir == "" && r.opts.Level != Off {
		dir = r.work
	}
	if dir != "" && !filepath.IsAbs(dir) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("sandbox: working directory: %w", err)
		}
		dir = abs
	}
	return dir, nil
}

// helperPolicy is what the helper confines the server at path to, for the
// run's level.
func (r *Run) helperPolicy(path string, args []string, dir string, childEnv map[string]string, held bool) policy {
	p := policy{Path: path, Limits: r.limits, Gate: held}
	if r.opts.Level == Basic && r.abi > 0 {
		// Basic reads what the user can read, but writes only where a
		// server has business writing: its run directory and the
		// package caches it installs into. Not the workspace, not the
		// runner's GITHUB_ENV, not the binary later steps run.
		p.WriteOnly = true
		p.RW = []string{r.dir, "/dev/shm"}
		for _, d := range r.caches {
			if r.safeGrant(d) {
				p.RW = append(p.RW, d)
			}
		}
		p.RW = dedupe(p.RW)
	}
	if r.opts.Level == Strict {
		if r.opts.Limits.Processes == 0 {
			p.Limits.Processes = defaultStrictProcesses
		}
		p.Landlock = true
		p.RO = append(r.commandRO(path, childEnv["PATH"], dir, childEnv), r.scriptGrants(args, dir)...)
		p.RW = []string{r.dir}
		if r.fwd != nil {
			p.Net = &netPolicy{Ports: r.fwd.allow.Ports(), Addrs: r.fwd.sandboxAddrs(), Hosts: r.netHosts, Resolv: r.netResolv}
		}
		if r.cacheRW {
			for _, d := range r.caches {
				p.RW = append(p.RW, d)
			}
			p.RW = dedupe(p.RW)
		}
	}
	return p
}

// helperCommand runs the helper, which applies p and then execs command;
// p travels in childEnv. A Basic launch that is not held is recorded for
// confinement without the helper where that is supported.
func (r *Run) helperCommand(ctx context.Context, command string, args []string, p policy, childEnv map[string]string, held bool) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, r.self)
	cmd.Args = append([]string{helperArg0, command}, args...)
	cmd.SysProcAttr = groupAttr()
	if r.opts.Level == Strict {
		setNamespaces(cmd.SysProcAttr, &p)
	}
	if p.Net != nil {
		parent, child, err := netSockets()
		if err != nil {
			return nil, err
		}
		// fd 3 is the gate of a held launch (HeldCommand), or nothing.
		cmd.ExtraFiles = []*os.File{nil, child}
		go r.fwd.receive(parent, child)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encoding helper policy: %w", err)
	}
	childEnv[envPolicy] = string(raw)
	if r.opts.Level == Basic && !held && directSupported() {
		r.directMu.Lock()
		if r.direct == nil {
			r.direct = map[*exec.Cmd]policy{}
		}
		r.direct[cmd] = p
		r.directMu.Unlock()
	}
	return cmd, nil
}

// Start starts cmd, made by [Run.Command] or [Run.HeldCommand]. A Basic
// launch on Linux that is not held starts without the helper, its
// restrictions and limits in place before its first instruction all the
// same (direct_linux.go); everything else is cmd.Start, which runs the
// helper. A cmd started with cmd.Start instead runs the helper: slower,
// never less restricted.
func (r *Run) Start(cmd *exec.Cmd) error {
	r.directMu.Lock()
	p, ok := r.direct[cmd]
	delete(r.direct, cmd)
	r.directMu.Unlock()
	// Only as Command left it: a parent-death signal would fire when the
	// launching thread ends, and extra files are not the server's.
	if !ok || cmd.Process != nil || cmd.Path != r.self || len(cmd.Args) < 2 || cmd.Args[0] != helperArg0 ||
		len(cmd.ExtraFiles) > 0 || hasParentDeathSignal(cmd) {
		return cmd.Start()
	}
	cmd.Path, cmd.Args = p.Path, cmd.Args[1:]
	env := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, envPolicy+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return startDirect(cmd, p)
}

// Environ is the environment a launch with the config's env gets at this
// level (see Command): the checker's whole environment and env under
// Off, the allowed subset, the run's own directories and env otherwise.
// What decides a launch's install source (a Python index variable, say)
// is read from it, not from the checker's environment.
func (r *Run) Environ(env map[string]string) map[string]string {
	if r.opts.Level != Off {
		return r.environ(env)
	}
	e := make(map[string]string)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e[k] = v
		}
	}
	for k, v := range env {
		e[k] = v
	}
	return e
}

// environ builds the Basic/Strict environment as documented on Command.
func (r *Run) environ(config map[string]string) map[string]string {
	e := make(map[string]string)
	for _, k := range append(envAllow, envAllowPlatform...) {
		if v, ok := r.getenv(k); ok {
			e[k] = v
		}
	}
	if _, ok := e["PATH"]; !ok {
		e["PATH"] = defaultPATH
	}
	if r.fwd != nil {
		// A server with an allowance connects to its destinations, and
		// the checker dials them: a proxy of the checker's environment
		// is not one of them (allowed, a proxy would let the server
		// choose every destination through it).
		for _, k := range proxyVars {
			delete(e, k)
		}
	}
	e["HOME"] = r.home
	e["XDG_CONFIG_HOME"] = filepath.Join(r.home, ".config")
	e["XDG_CACHE_HOME"] = filepath.Join(r.home, ".cache")
	e["XDG_DATA_HOME"] = filepath.Join(r.home, ".local", "share")
	e["XDG_STATE_HOME"] = filepath.Join(r.home, ".local", "state")
	e["XDG_RUNTIME_DIR"] = filepath.Join(r.dir, "run")
	e["TMPDIR"] = r.tmp
	e["TMP"] = r.tmp
	e["TEMP"] = r.tmp
	r.platformHome(e)
	for k, v := range r.caches {
		e[k] = v
	}
	// npm's settings live in ~/.npmrc (furnishHome), not in npm_config_*
	// variables no user has set: those would tell a server it is probed.
	delete(e, "npm_config_cache")
	if _, ok := e["SHELL"]; !ok {
		e["SHELL"] = "/bin/bash"
	}
	for k, tok := range r.envCan {
		if _, named := config[k]; !named {
			e[k] = tok
		}
	}
	for _, k := range r.opts.PassEnv {
		if v, ok := r.getenv(k); ok {
			e[k] = v
		}
	}
	for k, v := range config {
		e[k] = v
	}
	return e
}

// cacheDirs maps the cache variables to directories, as documented on
// Options.CacheDir.
func (r *Run) cacheDirs() map[string]string {
	c := make(map[string]string)
	if r.opts.CacheDir != "" {
		root, err := filepath.Abs(r.opts.CacheDir)
		if err != nil {
			root = r.opts.CacheDir
		}
		c["npm_config_cache"] = filepath.Join(root, "npm")
		c["UV_CACHE_DIR"] = filepath.Join(root, "uv")
		c["GOMODCACHE"] = filepath.Join(root, "gomod")
		c["GOCACHE"] = filepath.Join(root, "go-build")
		return c
	}
	get := func(k string) string { v, _ := r.getenv(k); return v }
	home := r.realHome
	first := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	join := func(base string, elem ...string) string {
		if base == "" {
			return ""
		}
		return filepath.Join(append([]string{base}, elem...)...)
	}
	c["npm_config_cache"] = first(get("npm_config_cache"), get("NPM_CONFIG_CACHE"), join(home, ".npm"))
	c["UV_CACHE_DIR"] = first(get("UV_CACHE_DIR"), join(get("XDG_CACHE_HOME"), "uv"), join(home, ".cache", "uv"))
	gopath := get("GOPATH")
	if i := strings.IndexByte(gopath, os.PathListSeparator); i >= 0 {
		gopath = gopath[:i]
	}
	c["GOMODCACHE"] = first(get("GOMODCACHE"), join(gopath, "pkg", "mod"), join(home, "go", "pkg", "mod"))
	// The Go build cache: without it a `go run` server recompiles the
	// standard library on every launch (seconds, not milliseconds).
	c["GOCACHE"] = first(get("GOCACHE"), join(get("XDG_CACHE_HOME"), "go-build"), join(home, ".cache", "go-build"))
	for k, v := range c {
		if v == "" {
			delete(c, k)
		}
	}
	return c
}

// lookPath resolves command the way the child's execve would be asked to:
// a name without a slash is searched on the child's PATH (the config may set
// its own), a relative path is taken from the child's working directory.
func lookPath(command, pathEnv, dir string) (string, error) {
	if hasDir(command) {
		p := command
		if !filepath.IsAbs(p) {
			base := dir
			if base == "" {
				base, _ = os.Getwd()
			}
			p = filepath.Join(base, p)
		}
		p, err := findExecutable(p)
		if err != nil {
			return "", fmt.Errorf("sandbox: command %q: %w", command, err)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			// An empty or relative PATH entry means "the current
			// directory": too easy to plant a binary in.
			continue
		}
		if p, err := findExecutable(filepath.Join(d, command)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("sandbox: command %q not found on PATH %q: %w", command, pathEnv, exec.ErrNotFound)
}

func flatten(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeName makes a server name usable in a directory name.
func safeName(s string) string {
	s = unsafeChars.ReplaceAllString(s, "_")
	if len(s) > 32 {
		s = s[:32]
	}
	if s == "" || s == "." || s == ".." {
		s = "server"
	}
	return s
}

// isAncestorOrSelf reports whether dir is p or one of its parents.
func isAncestorOrSelf(dir, p string) bool {
	if dir == "" || p == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func dedupe(paths []string) []string {
	slices.Sort(paths)
	return slices.Compact(paths)
}

// homeUser is the name of the sandbox's home directory: the real user's
// login name, as a server would see on the user's own machine.
func homeUser() string {
	for _, k := range []string{"USER", "LOGNAME"} {
		if v := os.Getenv(k); v != "" && safeName(v) == v {
			return v
		}
	}
	return "user"
}

// furnishHome makes the sandbox HOME look lived in: the dotfiles a user's
// home has, npm's settings in ~/.npmrc (the cache to use, offline first, no
// notifier: npm_config_* variables would name the checker's intent), and
// every planted file backdated by months, since a server that saw a home
// created a second ago, holding nothing but keys, would know.
func (r *Run) furnishHome() error {
	npmrc := "prefer-offline=true\nupdate-notifier=false\nfund=false\naudit=false\n" +
		"logs-dir=" + filepath.Join(r.tmp, "npm-logs") + "\n"
	if c := r.caches["npm_config_cache"]; c != "" {
		npmrc += "cache=" + c + "\n"
	}
	if r.opts.Level == Strict {
		// No network in Strict: fail a cache miss at once instead of
		// retrying the registry for a minute.
		npmrc += "fetch-retries=0\n"
	}
	files := map[string]string{
		".npmrc":        npmrc,
		".bashrc":       "# ~/.bashrc\n[ -z \"$PS1\" ] && return\nHISTCONTROL=ignoreboth\nshopt -s histappend\nalias ll='ls -alF'\nexport EDITOR=vim\n",
		".profile":      "# ~/.profile\nif [ -n \"$BASH_VERSION\" ] && [ -f \"$HOME/.bashrc\" ]; then . \"$HOME/.bashrc\"; fi\nPATH=\"$HOME/.local/bin:$PATH\"\n",
		".gitconfig":    "[user]\n\tname = " + homeUser() + "\n\temail = " + homeUser() + "@users.noreply.example.com\n[init]\n\tdefaultBranch = main\n[pull]\n\trebase = true\n",
		".bash_history": "git status\ncd project\nnpm install\ngit pull\nls -la\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(r.home, name), []byte(content), 0o644); err != nil {
			return fmt.Errorf("sandbox: furnishing HOME: %w", err)
		}
	}
	// Backdate everything under HOME: between 60 and 400 days old.
	var b [2]byte
	_, _ = rand.Read(b[:])
	age := time.Duration(60+int(b[0])%340) * 24 * time.Hour
	old := time.Now().Add(-age).Add(-time.Duration(b[1]) * time.Minute)
	return filepath.WalkDir(r.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
}
