package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// registryAnswer is launchid.RegistryAnswer: what the registry resolved
// a spec to before the launch.
type registryAnswer = launchid.RegistryAnswer

var resolveRegistry = launchid.ResolveRegistry

// prefetch resolves an npx / npm exec launch against its registry and
// makes the cache the launch will use hold exactly that version, outside
// the sandbox and before any launch. It returns the registry's answer
// (nil when the launch is not such a launch, or the registry could not be
// asked: why is in errText) and a note for the report. The registry is
// asked once per spec in a run (npmMemo), and one spec's install is made
// once at a time.
//
// Installing uses `npm exec --ignore-scripts --prefer-online
// --package=SPEC -- true`: npm resolves and installs exactly as the
// sandboxed npx will (same cache entries, same _npx directory) without
// running a line of the package's code (install scripts are what a
// hostile package would use), and the command it runs afterwards is
// `true`. npx inside the sandbox then finds that version installed and
// the packument fresh, and runs it (offline in strict, which has no
// network; its own cache is the one filled here). A package whose own
// install scripts must run (a native build) fails there and is held with
// the reason.
func prefetch(ctx context.Context, command string, args []string, env map[string]string, opts *Options) (ans *registryAnswer, errText, note string) {
	l, ok := npmLaunchOf(command, args, env, opts)
	if !ok {
		return nil, l.errText, ""
	}
	start := time.Now()
	q := opts.npm.question(ctx, l)
	<-q.done
	if q.err != nil {
		return nil, q.err.Error(), ""
	}
	ans = q.ans
	unlock := opts.npm.lockInstall(l.key)
	defer unlock()
	if in, ok := launchid.ReadNpxInstall(l.cache, l.pkg.Spec, l.pkg.Name); ok && in.Version == ans.Version && in.Integrity == ans.Integrity {
		return ans, "", fmt.Sprintf("%s was resolved by the registry (%s) to %s; the cache already held it", l.pkg.Spec, ans.Tarball, ans.Version)
	}
	tmp, err := os.MkdirTemp("", "prefetch.")
	if err != nil {
		return ans, "", ""
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, launchid.PrefetchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.npm, "exec", "--yes", "--ignore-scripts", "--no-audit", "--no-fund",
		"--prefer-online", "--loglevel=error", "--package="+l.pkg.Spec, "--", "true")
	cmd.Dir = tmp
	cmd.Env = l.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return ans, "", fmt.Sprintf("could not prefetch %s into %s: %v: %s", l.pkg.Spec, filepath.Dir(l.cache), err, launchid.OneLine(clip.Tail(string(out), 400)))
	}
	return ans, "", fmt.Sprintf("%s was resolved by the registry (%s) to %s and fetched into the npm cache the launch used, without running its install scripts (%s)",
		l.pkg.Spec, ans.Tarball, ans.Version, time.Since(start).Round(100*time.Millisecond))
}

// npmLaunchInfo is an npx / npm exec launch as the checker's own npm
// sees it: the package, the npm it runs, the cache the sandboxed launch
// uses and the environment npm is asked in. key names the question: the
// same spec asked with the same settings is one question in a run.
type npmLaunchInfo struct {
	pkg     launchid.Package
	npm     string
	cache   string
	env     []string
	key     string
	errText string // why the registry cannot be asked (ok false)
}

// npmLaunchOf is the launch's npmLaunchInfo. ok is false for a launch
// that is not a registry package run through npx / npm exec, for strict
// without a cache of its own (the user's caches are read-only there), and
// when npm is missing (errText says so).
func npmLaunchOf(command string, args []string, env map[string]string, opts *Options) (npmLaunchInfo, bool) {
	if opts.Sandbox.Level == sandbox.Strict && opts.Sandbox.CacheDir == "" {
		return npmLaunchInfo{}, false
	}
	pkg, ok := launchid.NpmLaunch(command, args)
	if !ok {
		return npmLaunchInfo{}, false
	}
	cache := npmCacheDir(opts, env)
	npm, err := exec.LookPath("npm")
	if err != nil || cache == "" {
		return npmLaunchInfo{errText: "npm is not installed where the checker runs, so the registry could not be asked"}, false
	}
	nenv := launchid.NpmEnv(env, cache)
	sorted := slices.Clone(nenv)
	slices.Sort(sorted)
	return npmLaunchInfo{pkg: pkg, npm: npm, cache: cache, env: nenv, key: pkg.Spec + "\x00" + strings.Join(sorted, "\x00")}, true
}

// npmMemo is one run's registry answers, one per question (npmLaunchInfo's
// key): however many servers or launches name a spec, the registry is
// asked once per run. It also serializes the installs of one spec, so two
// servers never write the same _npx directory at once. A nil memo (a
// server probed on its own) asks every time.
type npmMemo struct {
	mu       sync.Mutex
	asked    map[string]*npmQuestion
	installs map[string]*sync.Mutex
}

// npmQuestion is one registry question: done is closed once ans or err
// is set.
type npmQuestion struct {
	done chan struct{}
	ans  *registryAnswer
	err  error
}

// question returns l's question, asking the registry in the background
// the first time. The answer outlives the caller's context: it is the
// run's.
func (m *npmMemo) question(ctx context.Context, l npmLaunchInfo) *npmQuestion {
	if m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if q, ok := m.asked[l.key]; ok {
			return q
		}
	}
	q := &npmQuestion{done: make(chan struct{})}
	if m != nil {
		if m.asked == nil {
			m.asked = map[string]*npmQuestion{}
		}
		m.asked[l.key] = q
	}
	go func() {
		defer close(q.done)
		q.ans, q.err = resolveRegistry(ctx, l.npm, l.pkg.Spec, l.env)
	}()
	return q
}

// lockInstall holds key's install until unlock is called.
func (m *npmMemo) lockInstall(key string) (unlock func()) {
	if m == nil {
		return func() {}
	}
	m.mu.Lock()
	if m.installs == nil {
		m.installs = map[string]*sync.Mutex{}
	}
	mu, ok := m.installs[key]
	if !ok {
		mu = &sync.Mutex{}
		m.installs[key] = mu
	}
	m.mu.Unlock()
	mu.Lock()
	return mu.Unlock
}

// earlyRegistry is an npx launch started from the cache while the
// registry is asked what the spec resolves to today (startEarly).
type earlyRegistry struct {
	l      npmLaunchInfo
	q      *npmQuestion
	cached launchid.NpxInstall // what the cache held before the launch
	start  time.Time
}

// startEarly lets an npx / npm exec launch start from the cache while the
// registry is asked, instead of after its answer: the question is most of
// a second to several (npm's own start and the packument's download),
// about as long as the server's start. It applies only where the launch
// cannot run anything the registry has not named before: the spec is an
// exact version, and the cache the sandboxed npx uses (offline first)
// already holds an install of exactly that version with its integrity.
// Otherwise (a tag, a range, a cold cache) nil: the registry is asked and
// the package fetched first (prefetch), as before, so nothing unresolved
// runs. The probe made from the cache is kept only when the registry's
// answer is what the cache held (settle).
func startEarly(ctx context.Context, command string, args []string, env map[string]string, opts *Options) *earlyRegistry {
	l, ok := npmLaunchOf(command, args, env, opts)
	if !ok || !l.pkg.Pinned || l.pkg.Version == "" {
		return nil
	}
	in, ok := launchid.ReadNpxInstall(l.cache, l.pkg.Spec, l.pkg.Name)
	if !ok || in.Version != l.pkg.Version || in.Integrity == "" {
		return nil
	}
	return &earlyRegistry{l: l, q: opts.npm.question(ctx, l), cached: in, start: time.Now()}
}

// stale reports, once the registry answered, that the cache held another
// version or other bytes than the registry names: a probe made from the
// cache is not one of what a client runs today.
func (e *earlyRegistry) stale() bool {
	return e.q.err == nil && (e.q.ans.Version != e.cached.Version || e.q.ans.Integrity != e.cached.Integrity)
}

// settle waits for the registry's answer and records it in a as prefetch
// would have. It returns a note for the report, and whether the probe
// made from the cache must be made again after a prefetch (stale).
func (e *earlyRegistry) settle(a *artifact) (note string, again bool) {
	// The question ends with the run's context, or its own time-out.
	<-e.q.done
	if e.q.err != nil {
		a.RegistryErr = e.q.err.Error()
		return "", false
	}
	if e.stale() {
		return fmt.Sprintf("%s was resolved by the registry (%s) to %s (%s), but the cache held %s (%s): the package was fetched and the server probed again",
			e.l.pkg.Spec, e.q.ans.Tarball, e.q.ans.Version, e.q.ans.Integrity, e.cached.Version, orUnknown(e.cached.Integrity)), true
	}
	a.Registry = e.q.ans
	return fmt.Sprintf("%s was resolved by the registry (%s) to %s; the cache already held it, and the server started from it while the registry was asked",
		e.l.pkg.Spec, e.q.ans.Tarball, e.q.ans.Version), false
}

// resolveElsewhere asks, before the launch and outside the sandbox, what
// a uvx / pipx run launch's Python index or a pnpm dlx / bunx launch's
// npm registry resolves its spec to today (launchid.ResolveRelease): the
// release a client on a fresh machine runs, which the lock then pins
// (readArtifact). Nothing is installed and no package code runs. It
// fills a's Py / PyErr or Registry / RegistryErr, and returns a note for
// the report. env is the config's, launchEnv the whole environment the
// launch gets.
func resolveElsewhere(ctx context.Context, command string, args []string, env, launchEnv map[string]string, opts *Options, a *artifact) string {
	pkg, ok := launchid.PackageOf(command, args)
	if !ok {
		return ""
	}
	start := time.Now()
	rel, err := launchid.ResolveRelease(ctx, command, args, env, launchEnv, npmCacheDir(opts, env))
	switch {
	case errors.Is(err, launchid.ErrNotInstaller):
		return ""
	case err != nil && (pkg.Manager == "uvx" || pkg.Manager == "pipx run"):
		a.PyErr = err.Error()
	case err != nil:
		a.RegistryErr = err.Error()
	case rel.Py != nil:
		a.Py = rel.Py
		return fmt.Sprintf("%s was resolved by the index (%s) to %s, distribution %s sha256 %s (%s)",
			pkg.Spec, rel.Py.Page, rel.Py.Version, rel.Py.File, rel.Py.SHA256, time.Since(start).Round(time.Millisecond))
	default:
		a.Registry = rel.Registry
		return fmt.Sprintf("%s was resolved by the registry (%s) to %s; %s installs from the registry itself", pkg.Spec, rel.Registry.Tarball, rel.Registry.Version, strings.Fields(pkg.Manager)[0])
	}
	return ""
}
