package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/guard"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/guardinstall"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// guardFlags are guard's flags: the lock entry the server is held to,
// what to do with drift, how to isolate a stdio server, and where a
// remote one is.
type guardFlags struct {
	lockPath, server, mode, sandbox string
	passEnv                         multi
	maxMessage                      int
	configs                         multi
	remoteEnv                       bool
	transport                       string
}

func (g *guardFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.lockPath, "lock", lock.DefaultPath, "lockfile `FILE`")
	fs.StringVar(&g.server, "server", "", "the lock entry `NAME` this server is held to (required)")
	fs.StringVar(&g.mode, "mode", "enforce", "what to do with a drifted answer, as `MODE`: enforce refuses it and stops the server, and refuses a message hiding characters or escapes; sanitize does as enforce but strips hidden characters and escapes and forwards the rest; warn forwards and logs")
	fs.StringVar(&g.sandbox, "sandbox", "off", "isolation `LEVEL` for the server: off, basic or strict")
	fs.Var(&g.passEnv, "pass-env", "with --sandbox basic|strict: pass this environment variable `NAME` to the server (repeatable)")
	fs.IntVar(&g.maxMessage, "max-message-bytes", guard.DefaultMaxMessageBytes, "largest JSON-RPC line accepted either way, in `BYTES`")
	fs.Var(&g.configs, "config", "without a command: the client config `FILE` whose url entry for --server the guard bridges to over HTTP (repeatable; default: discover in the working directory)")
	fs.BoolVar(&g.remoteEnv, "remote-env", false, "without a command: read the remote server's url and headers from MCP_LOCKCHECK_URL and MCP_LOCKCHECK_HEADER_1, _2, ... (\"Name: value\"), as guard install writes them")
	fs.StringVar(&g.transport, "transport", "", "with --remote-env: `TYPE` http (streamable HTTP, falling back to HTTP+SSE) or sse")
}

// runGuard is `mcp-lockcheck guard [flags] -- COMMAND ARGS...`, and its
// `install` and `uninstall` subcommands. Exit codes: 0 the client closed a
// clean session; 1 an answer was refused (or logged in --mode warn, or
// stripped in --mode sanitize) or the server misbehaved; 2 the guard could not run as asked (flags, lock, no
// entry for the server, a command that does not start).
func runGuard(ctx context.Context, args []string, env Env) (int, error) {
	if len(args) > 0 {
		switch args[0] {
		case "install":
			return runGuardInstall(args[1:], env, false)
		case "uninstall":
			return runGuardInstall(args[1:], env, true)
		}
	}
	var g guardFlags
	fs := newFlagSet("guard", env)
	g.register(fs)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, err
		}
		return ExitUsage, err
	}
	rest := fs.Args()
	if g.server == "" {
		return ExitUsage, usageErr("guard: --server NAME is required (the lock entry the server is held to)")
	}
	var remote *guard.Remote
	if len(rest) == 0 {
		if lvl, _ := sandbox.ParseLevel(g.sandbox); lvl != sandbox.Off {
			return ExitUsage, usageErr("guard: --sandbox isolates a server the guard starts; a remote server runs elsewhere")
		}
		var err error
		if g.remoteEnv {
			remote, err = remoteFromEnv(g.server, g.transport, env)
		} else {
			remote, err = remoteFromConfig(g.server, g.configs, env)
		}
		if err != nil {
			return ExitUsage, err
		}
	} else if g.remoteEnv || len(g.configs) > 0 {
		return ExitUsage, usageErr("guard: --remote-env and --config name a remote server; a command after -- is a stdio one: give one or the other")
	}
	m, err := guard.ParseMode(g.mode)
	if err != nil {
		return ExitUsage, asUsage(fmt.Errorf("--mode: %w", err))
	}
	lvl, err := sandbox.ParseLevel(g.sandbox)
	if err != nil {
		return ExitUsage, asUsage(fmt.Errorf("--sandbox: %w", err))
	}
	if g.maxMessage < 1024 {
		return ExitUsage, usageErr("--max-message-bytes must be >= 1024")
	}
	c := common{lockPath: findLockUp(env, g.lockPath)}
	lk, _, err := c.readLock(env, false)
	if err != nil {
		// Fail closed: without a readable lock nothing can be held to it,
		// and the server is not started.
		return ExitUsage, fmt.Errorf("guard: refusing to start server %q: %w", g.server, err)
	}
	o := guard.Options{
		Lock: lk, LockPath: g.lockPath, Server: g.server, Mode: m, Redactor: env.red,
		Remote:          remote,
		Sandbox:         sandbox.Options{Level: lvl, PassEnv: g.passEnv, Getenv: env.Getenv},
		MaxMessageBytes: g.maxMessage,
		Stdin:           env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
	}
	if lvl == sandbox.Strict {
		// Strict cannot write the user's caches (a server must not poison
		// what the user later runs unsandboxed), and npm and go run cannot
		// work from read-only ones: the guard uses the cache check under
		// strict uses, which the guard fetches an npx package into before
		// the launch (as check does) and go run builds into.
		o.Sandbox.CacheDir = defaultCacheDir(env)
	}
	if remote == nil {
		o.Command, o.Args = rest[0], rest[1:]
		// The client started the guard where it starts the server (a
		// project's root, for a project's config): a sandboxed server
		// starts there too, not in the sandbox's empty project.
		o.Dir = c.dir(env)
	}
	return guard.Run(ctx, o), nil
}

// remoteFromConfig finds server's url entry in the client configs and
// expands its url and headers from the environment, as the client would.
// The values are secrets: they go to the guard's HTTP client and nowhere
// else.
func remoteFromConfig(server string, configs multi, env Env) (*guard.Remote, error) {
	c := common{configs: configs}
	var paths []string
	for _, p := range configs {
		paths = append(paths, c.path(env, p))
	}
	if len(paths) == 0 {
		if paths = config.Discover(c.dir(env)); len(paths) == 0 {
			return nil, usageErr("guard: no server command, and no client config found in %s to find server %q in: give COMMAND ARGS after --, or --config FILE", c.dir(env), server)
		}
	}
	servers, err := config.LoadAll(paths)
	if err != nil {
		return nil, asUsage(err)
	}
	for _, s := range servers {
		if s.Name != server {
			continue
		}
		if s.URL == "" {
			return nil, usageErr("guard: %s:%d: server %q is a stdio server: give its command after -- (mcp-lockcheck guard --server %s -- COMMAND ARGS...)", s.File, s.Line, server, server)
		}
		url, headers, err := s.ResolveRemote(env.Getenv)
		if err != nil {
			return nil, asUsage(err)
		}
		return &guard.Remote{URL: url, Headers: headers, SSE: s.Type == config.TypeSSE}, nil
	}
	return nil, usageErr("guard: no server command, and no config names server %q (configured: %s)", server, config.Names(servers))
}

// remoteFromEnv reads what guard install put in a server's env block:
// the client expands placeholders there as it would have in url and
// headers. A placeholder still unexpanded (a client that does not expand
// env) is expanded here from the guard's environment.
func remoteFromEnv(server, transport string, env Env) (*guard.Remote, error) {
	var sse bool
	switch strings.ToLower(transport) {
	case "", "http":
	case "sse":
		sse = true
	default:
		return nil, usageErr("--transport %q: want http or sse", transport)
	}
	u, ok := env.Getenv(config.GuardEnvURL)
	if !ok || u == "" {
		return nil, usageErr("guard --remote-env: %s is not set (guard install writes it into the server's env)", config.GuardEnvURL)
	}
	s := config.Server{Name: server, URL: u, Headers: map[string]string{}, File: "the environment"}
	for i := 1; i <= config.MaxGuardEnvHeaders; i++ {
		h, ok := env.Getenv(config.GuardEnvHeader(i))
		if !ok {
			break
		}
		name, value, found := strings.Cut(h, ":")
		if !found || strings.TrimSpace(name) == "" {
			return nil, usageErr("guard --remote-env: %s is not \"Name: value\"", config.GuardEnvHeader(i))
		}
		s.Headers[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	url, headers, err := s.ResolveRemote(env.Getenv)
	if err != nil {
		return nil, asUsage(err)
	}
	return &guard.Remote{URL: url, Headers: headers, SSE: sse}, nil
}

// guardInstallFlags are guard install's and uninstall's flags: the
// configs to rewrite, and for install the lock and the guard's flags.
type guardInstallFlags struct {
	common
	mode, sandbox string
}

func (c *guardInstallFlags) register(fs *flag.FlagSet, undo bool) {
	fs.Var(&c.configs, "config", "client config `FILE` to rewrite (repeatable; default: discover .mcp.json, .vscode/mcp.json, ... in the working directory)")
	// uninstall needs no lock and sets no guard flags: it takes none.
	if !undo {
		fs.StringVar(&c.lockPath, "lock", lock.DefaultPath, "lockfile `FILE` the guard holds the servers to")
		fs.StringVar(&c.mode, "mode", "enforce", "the guard's --mode `MODE` for every server: enforce, sanitize or warn")
		fs.StringVar(&c.sandbox, "sandbox", "off", "the guard's --sandbox `LEVEL` for every server: off, basic or strict")
	}
	fs.BoolVar(&c.user, "user", false, "the user-level configs of Claude Desktop, Claude Code, Cursor, Windsurf, VS Code, Gemini CLI, Codex and Zed; the lock defaults to the per-user one that check --user and pin --user use")
	c.flags = fs
}

// runGuardInstall rewrites client configs so each pinned server runs behind
// the guard (or, for uninstall, back). The original file is kept as
// FILE.bak before the first change.
func runGuardInstall(args []string, env Env, undo bool) (int, error) {
	name := "guard install"
	if undo {
		name = "guard uninstall"
	}
	var c guardInstallFlags
	fs := newFlagSet(name, env)
	c.register(fs, undo)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	paths, err := c.configPaths(env)
	if err != nil {
		return ExitUsage, err
	}
	var o guardinstall.Options
	if !undo {
		if o, err = c.installOptions(env); err != nil {
			return ExitUsage, err
		}
	}
	for _, p := range paths {
		if err := c.rewrite(env, p, o, undo); err != nil {
			return ExitUsage, err
		}
	}
	return ExitOK, nil
}

// configPaths are the configs to rewrite: the user-level ones with --user,
// those named with --config, or else those discovered in the directory.
func (c *guardInstallFlags) configPaths(env Env) ([]string, error) {
	var paths []string
	if c.user {
		var err error
		if paths, err = c.userMode(env); err != nil {
			return nil, err
		}
	}
	for _, p := range c.configs {
		paths = append(paths, c.path(env, p))
	}
	if len(paths) == 0 {
		paths = config.Discover(c.dir(env))
		if len(paths) == 0 {
			return nil, usageErr("no client config found in %s; name one with --config", c.dir(env))
		}
	}
	return paths, nil
}

// installOptions checks --mode and --sandbox, reads the lock and builds
// what guardinstall.Install writes into every config.
func (c *guardInstallFlags) installOptions(env Env) (guardinstall.Options, error) {
	var o guardinstall.Options
	if _, err := guard.ParseMode(c.mode); err != nil {
		return o, asUsage(fmt.Errorf("--mode: %w", err))
	}
	if _, err := sandbox.ParseLevel(c.sandbox); err != nil {
		return o, asUsage(fmt.Errorf("--sandbox: %w", err))
	}
	lk, _, err := c.readLock(env, false)
	if err != nil {
		return o, err
	}
	exe, err := guardCommand(env)
	if err != nil {
		return o, err
	}
	o = guardinstall.Options{Lock: lk, Executable: exe}
	if strings.ToLower(c.mode) != "enforce" {
		o.Flags = append(o.Flags, "--mode", strings.ToLower(c.mode))
	}
	if strings.ToLower(c.sandbox) != "off" {
		o.Flags = append(o.Flags, "--sandbox", strings.ToLower(c.sandbox))
	}
	return o, nil
}

// rewrite installs the guard into (or, with undo, removes it from) the
// config at p, says what changed, and writes the file back after a backup
// when it did.
func (c *guardInstallFlags) rewrite(env Env, p string, o guardinstall.Options, undo bool) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return asUsage(err)
	}
	var out []byte
	var changes []guardinstall.Change
	if undo {
		out, changes, err = guardinstall.Uninstall(p, data)
	} else {
		var note string
		o.LockPath, note = lockArg(c.path(env, c.lockPath), p, c.user)
		if note != "" {
			fmt.Fprintf(env.Stderr, "mcp-lockcheck: %s: %s\n", p, note)
		}
		out, changes, err = guardinstall.Install(p, data, o)
	}
	if err != nil {
		return asUsage(err)
	}
	for _, ch := range changes {
		fmt.Fprintf(env.Stderr, "%s: %s: %s\n", p, escapeName(ch.Server), ch.Action)
		if ch.Warning != "" {
			fmt.Fprintf(env.Stderr, "%s: %s: warning: %s\n", p, escapeName(ch.Server), ch.Warning)
		}
	}
	if string(out) == string(data) {
		return nil
	}
	bak, err := firstBackup(p, data)
	if err != nil {
		return err
	}
	if err := lock.WriteAtomic(p, out); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "mcp-lockcheck: rewrote %s (%s)\n", p, bak)
	return nil
}

// firstBackup writes data to p.bak unless it exists, and says which. The
// first backup is the file as it was before mcp-lockcheck ever touched it:
// a later install or uninstall must not replace it.
func firstBackup(p string, data []byte) (string, error) {
	bak := "backup: " + p + ".bak"
	switch f, err := os.OpenFile(p+".bak", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); {
	case errors.Is(err, os.ErrExist):
		bak = "kept the existing backup " + p + ".bak"
	case err != nil:
		return "", fmt.Errorf("writing backup %s.bak: %w", p, err)
	default:
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", fmt.Errorf("writing backup %s.bak: %w", p, werr)
		}
	}
	return bak, nil
}

// escapeName keeps a server name from a config inert on a terminal,
// quoted as every other output quotes a name (inert.Quote).
func escapeName(s string) string { return inert.Quote(s) }

// guardCommand is the command guard install writes: the name
// "mcp-lockcheck" when PATH finds it, so a committed config names no path
// of this machine (and check recognises the wrapper anywhere); else this
// binary's absolute path, which is said, because then the config only
// works, and only reads as guarded, on this machine.
func guardCommand(env Env) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating mcp-lockcheck: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	path, _ := env.Getenv("PATH")
	found := lookPath(path, config.GuardCommand)
	if found == "" {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: warning: %s is not on PATH: writing its absolute path %s; the config then names a path of this machine (put %s on PATH and install again to write the bare name)\n",
			config.GuardCommand, exe, filepath.Dir(exe))
		return exe, nil
	}
	if !isSameFile(found, exe) {
		fmt.Fprintf(env.Stderr, "mcp-lockcheck: note: the %s on PATH is %s, not this binary (%s): clients will run that one\n", config.GuardCommand, found, exe)
	}
	return config.GuardCommand, nil
}

// lookPath finds an executable regular file named name in a PATH list.
// Empty entries (the current directory) are skipped: a repository must not
// be able to supply the guard.
func lookPath(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func isSameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// lockArg is the --lock value written into a config: relative to the
// config's project (config.ProjectRoot: the directory .vscode/ or .cursor/
// sits in), which is where clients start project servers and where the
// guard starts looking (findLockUp). A per-user config (--user), or a lock
// outside the config's project, gets the absolute path, and a note says
// why.
func lockArg(lockAbs, configPath string, user bool) (arg, note string) {
	if user {
		return lockAbs, ""
	}
	cfgAbs, err := filepath.Abs(configPath)
	if err != nil {
		return lockAbs, ""
	}
	root := config.ProjectRoot(cfgAbs)
	rel, err := filepath.Rel(root, lockAbs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return lockAbs, fmt.Sprintf("the lock %s is outside the config's project %s: writing its absolute path", lockAbs, root)
	}
	return filepath.ToSlash(rel), ""
}

// findLockUp resolves the guard's --lock: an absolute path, or a path that
// exists from the working directory, is used as given; otherwise the
// directories above are tried, nearest first, the way git finds .git. guard
// install writes the lock relative to the project, and a client may start
// the server in a directory below it. Not found anywhere: the path as given,
// so the error names it.
func findLockUp(env Env, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	c := common{}
	dir := c.dir(env)
	for range 64 { // bounded: no path is deeper
		cand := filepath.Join(dir, p)
		if _, err := os.Stat(cand); err == nil {
			return cand
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return p
}
