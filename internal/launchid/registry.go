package launchid

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
)

// RegistryAnswer is what the registry resolved a spec to before the
// launch: the version a client's `npx -y SPEC` runs today.
type RegistryAnswer struct {
	Version   string `json:"version"`
	Integrity string `json:"dist.integrity"`
	Tarball   string `json:"dist.tarball"`
}

// ResolveRegistry asks the registry the launch would use which version
// and tarball the spec names today, outside the sandbox and running no
// package code (`npm view --prefer-online`: it revalidates the cached
// packument instead of trusting it). This is what a client's `npx -y
// SPEC` runs; a warm cache (a laptop, a runner that restores its cache)
// would otherwise rerun an older release under prefer-offline.
//
// npm runs in a session of its own. The check asks while the server
// starts, and most of what npm spends is CPU (about 0.35 s, nearly all of
// it npm loading itself). Where the kernel shares CPU time between
// sessions rather than processes (autogroup, on by default in most
// distributions' kernels), a child in the checker's session takes that
// time from the server's own start on a busy machine; in its own session
// it takes its share beside every other session's.
//
// An exact version asked where npm's settings are plain (npmPlainConfig:
// the default registry, no proxy, token or other store of certificates)
// is asked directly, over the checker's own HTTP client: the same GET of
// the version's manifest npm makes, without the third of a second of CPU
// npm spends loading itself, which is what a quick check of an npx server
// cost over the client's own start on a two-core machine. Any doubt about
// the settings, and any answer but the version's manifest, sends the
// question to npm view as before.
func ResolveRegistry(ctx context.Context, npm, spec string, env []string) (*RegistryAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, PrefetchTimeout)
	defer cancel()
	if a, err := askRegistry(ctx, npm, spec, env); err == nil {
		return a, nil
	}
	cmd := exec.CommandContext(ctx, npm, "view", "--json", "--prefer-online", "--loglevel=error", spec, "version", "dist.integrity", "dist.tarball")
	cmd.Env = env
	cmd.Dir = os.TempDir()
	ownSession(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("npm view %s: %v: %s", spec, err, OneLine(clip.Tail(stderr.String()+string(out), 300)))
	}
	return ParseView(out, spec)
}

// ParseView reads `npm view --json SPEC version dist.integrity
// dist.tarball`: one object, or an array of them when a range matches
// several versions (ascending; npx runs the highest, the last).
func ParseView(out []byte, spec string) (*RegistryAnswer, error) {
	out = bytes.TrimSpace(out)
	var a RegistryAnswer
	if len(out) > 0 && out[0] == '[' {
		var all []RegistryAnswer
		if err := json.Unmarshal(out, &all); err != nil || len(all) == 0 {
			return nil, fmt.Errorf("npm view %s: unreadable answer", spec)
		}
		a = all[len(all)-1]
	} else if err := json.Unmarshal(out, &a); err != nil {
		return nil, fmt.Errorf("npm view %s: unreadable answer", spec)
	}
	if a.Version == "" {
		return nil, fmt.Errorf("npm view %s: no version matches", spec)
	}
	return &a, nil
}

// Release is what the index or registry of a uvx / pipx run / pnpm dlx /
// bunx launch resolves its spec to today: the release a client on a fresh
// machine installs. Exactly one of Py and Registry is set.
type Release struct {
	Py       *PyRelease
	Registry *RegistryAnswer
}

// Version, Integrity and Distribution are the lock's fields for r.
func (r Release) Version() string {
	if r.Py != nil {
		return r.Py.Version
	}
	return r.Registry.Version
}

func (r Release) Integrity() string {
	if r.Py != nil {
		return r.Py.Integrity()
	}
	return r.Registry.Integrity
}

func (r Release) Distribution() string {
	if r.Py != nil {
		return r.Py.File
	}
	return ""
}

// ErrNotInstaller is ResolveRelease's answer for a launch that is not a
// uvx / pipx run / pnpm dlx / bunx one.
var ErrNotInstaller = errors.New("not a uvx, pipx run, pnpm dlx or bunx launch")

// ResolveRelease asks, outside any sandbox and installing nothing, what a
// uvx / pipx run launch's Python index or a pnpm dlx / bunx launch's npm
// registry resolves its spec to today. env is the config's (its npm
// settings name the registry), launchEnv the whole environment the
// launch gets (its index variables name the index), npmCache the cache
// the checker's own npm may use. The error says why the release cannot be
// identified.
func ResolveRelease(ctx context.Context, command string, args []string, env, launchEnv map[string]string, npmCache string) (Release, error) {
	pkg, ok := PackageOf(command, args)
	if !ok {
		return Release{}, ErrNotInstaller
	}
	unreadable := strings.Contains(pkg.Spec, "${") || strings.Contains(pkg.Spec, "://") || strings.HasPrefix(pkg.Spec, "git+")
	switch pkg.Manager {
	case "uvx", "pipx run":
		if unreadable {
			return Release{}, errors.New("the spec is not an index package (a URL, a git reference or a placeholder)")
		}
		index, more := PyIndex(pkg.Manager, args, launchEnv)
		if more != "" {
			return Release{}, fmt.Errorf("the launch can also install from another source (%s), and which one wins is the installer's choice", more)
		}
		rel, err := ResolvePy(ctx, nil, index, pkg.Spec)
		if err != nil {
			return Release{}, fmt.Errorf("the index could not be read: %w", err)
		}
		return Release{Py: &rel}, nil
	case "pnpm dlx", "bunx":
		if unreadable || strings.Contains(pkg.Spec, ":") {
			return Release{}, errors.New("the registry could not be asked (the spec is not a registry package: a URL, a git reference, an alias or a placeholder)")
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			return Release{}, errors.New("the registry could not be asked (npm is not installed where the checker runs)")
		}
		ans, err := ResolveRegistry(ctx, npm, pkg.Spec, NpmEnv(env, npmCache))
		if err != nil {
			return Release{}, fmt.Errorf("the registry could not be asked (%w)", err)
		}
		return Release{Registry: ans}, nil
	}
	return Release{}, ErrNotInstaller
}
