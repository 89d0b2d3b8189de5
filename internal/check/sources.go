package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Sources say what a run reads: the client configs (named, discovered in
// Dir, or the user's own), the servers chosen among them, the lock and
// the policy. Every command that reads configured servers or the lock
// reads them through one Sources; Load reads them for a check, a pin or an
// approval. Paths are relative to Dir.
type Sources struct {
	// Dir is the working directory every path is resolved against ("":
	// the process's).
	Dir string
	// Configs are client config files to read instead of discovering them
	// in Dir (--config).
	Configs []string
	// User reads the user-level configs of this machine's clients instead
	// of the project's, and keeps the lock at a per-user path unless
	// LockGiven (--user).
	User bool
	// Servers limits the run to these configured servers (nil: all).
	Servers []string
	// Lock is the lockfile's path (--lock); LockGiven says the caller
	// named it, rather than taking the default: a named lock that does
	// not exist stops a check, and --user does not move it.
	Lock      string
	LockGiven bool
	// Policy is the policy file (--policy; "": policy.DefaultFile in
	// Dir, if it exists).
	Policy string
	// Getenv reads the environment (config placeholders, --user's home).
	Getenv func(string) (string, bool)
	// Warnings receives what the run says beside its report, one line
	// each (nil: discarded).
	Warnings io.Writer

	// policyFile is the policy once read (nil: none), so it is read and
	// warned about once.
	policyFile   *policy.Policy
	policyLoaded bool
	// readPaths are the config files LoadServers read (absolute or
	// relative to Dir, as given).
	readPaths []string
}

// warnf writes one line to Warnings, prefixed as every line the tool
// writes is.
func (s *Sources) warnf(format string, args ...any) {
	if s.Warnings != nil {
		fmt.Fprintf(s.Warnings, "mcp-lockcheck: "+format+"\n", args...)
	}
}

func (s *Sources) getenv(k string) (string, bool) {
	if s.Getenv == nil {
		return "", false
	}
	return s.Getenv(k)
}

// WorkDir is Dir, or the process's working directory.
func (s *Sources) WorkDir() string {
	if s.Dir != "" {
		return s.Dir
	}
	d, _ := os.Getwd()
	return d
}

// Path resolves p against the working directory.
func (s *Sources) Path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.WorkDir(), p)
}

// PolicyName is Policy, else the default policy file's name.
func (s *Sources) PolicyName() string {
	if s.Policy != "" {
		return s.Policy
	}
	return policy.DefaultFile
}

// UserMode applies User: the per-user lock (unless LockGiven), its
// directory created, and the user-level configs that exist (unless
// Configs names some). It returns the configs to read.
func (s *Sources) UserMode() ([]string, error) {
	getenv := func(k string) string { v, _ := s.getenv(k); return v }
	if !s.LockGiven {
		s.Lock = config.UserLockPath(runtime.GOOS, getenv)
		if s.Lock == "" {
			return nil, Usagef("--user: no home directory (HOME, or USERPROFILE on Windows) to keep the lock in; name one with --lock")
		}
		if err := os.MkdirAll(filepath.Dir(s.Lock), 0o700); err != nil {
			return nil, fmt.Errorf("--user: creating the lock's directory: %w", err)
		}
	}
	if len(s.Configs) > 0 {
		return nil, nil
	}
	paths := config.UserConfigs(runtime.GOOS, getenv)
	if len(paths) == 0 {
		return nil, Usagef("--user: no user-level client config found on this machine (Claude Desktop, Claude Code, Cursor, Windsurf, VS Code, Gemini CLI, Codex or Zed; docs/platforms.md lists where); name one with --config")
	}
	return paths, nil
}

// LoadPolicy reads Policy, else the default policy file if there is one.
// A policy that exists but cannot be read or parsed is a usage error
// naming its line and column: a setting silently not applied could weaken
// the check.
func (s *Sources) LoadPolicy() (*policy.Policy, error) {
	if s.policyLoaded {
		return s.policyFile, nil
	}
	name := s.PolicyName()
	data, err := os.ReadFile(s.Path(name))
	if err != nil {
		if s.Policy == "" && errors.Is(err, os.ErrNotExist) {
			s.policyLoaded = true
			return nil, nil
		}
		return nil, Usagef("policy: %v", err)
	}
	p, err := policy.Parse(name, data)
	if err != nil {
		return nil, AsUsage(err)
	}
	s.policyFile, s.policyLoaded = p, true
	return p, nil
}

// LoadServers reads the configs (or discovers them) and applies Servers.
// all reports whether no server was chosen by name.
func (s *Sources) LoadServers() (servers []config.Server, all bool, err error) {
	var paths []string
	if s.User {
		if paths, err = s.UserMode(); err != nil {
			return nil, false, err
		}
	}
	for _, p := range s.Configs {
		paths = append(paths, s.Path(p))
	}
	dir := s.WorkDir()
	if len(paths) == 0 {
		paths = config.Discover(dir)
		if len(paths) == 0 {
			return nil, false, Usagef("no client config found in %s (looked for .mcp.json, .vscode/mcp.json, .cursor/mcp.json, .gemini/settings.json, .zed/settings.json, .codex/config.toml, .roo/mcp.json, .kiro/settings/mcp.json, .amazonq/mcp.json, .junie/mcp/mcp.json, .continue/mcpServers/, opencode.json, mcp.json, claude_desktop_config.json and the others listed in docs/usage.md); name one with --config", dir)
		}
	}
	s.readPaths = paths
	servers, err = config.LoadAll(paths)
	if err != nil {
		return nil, false, AsUsage(err)
	}
	// The lock approves the server, not the guard in front of it: an entry
	// guard install rewrote is compared and probed by its inner launch.
	config.UnwrapGuard(servers, isSelf)
	if err := ValidateWorkDirs(servers, dir, s.Getenv); err != nil {
		return nil, false, AsUsage(err)
	}
	pol, err := s.LoadPolicy()
	if err != nil {
		return nil, false, err
	}
	var configured []string
	for _, sv := range servers {
		configured = append(configured, sv.Name)
	}
	for _, u := range pol.Unused(configured) {
		s.warnf("warning: %s:%d:%d: the policy names server %q, which no config names (configured: %s)", pol.File, u.Line, u.Column, u.Name, config.Names(servers))
	}
	for i := range servers {
		if rel, err := filepath.Rel(dir, servers[i].File); err == nil && !strings.HasPrefix(rel, "..") {
			servers[i].File = rel
		}
	}
	if len(s.Servers) == 0 {
		return servers, true, nil
	}
	byName := map[string]config.Server{}
	for _, sv := range servers {
		byName[sv.Name] = sv
	}
	var out []config.Server
	for _, n := range s.Servers {
		sv, ok := byName[n]
		if !ok {
			return nil, false, Usagef("--server %q: no configured server has that name (configured: %s)", n, config.Names(servers))
		}
		out = append(out, sv)
	}
	return out, false, nil
}

// ReadLock reads the lock; a missing one is not an error when
// allowMissing (nil, nil, nil then).
func (s *Sources) ReadLock(allowMissing bool) (*lock.File, []byte, error) {
	f, data, err := lock.Read(s.Path(s.Lock))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if allowMissing {
				return nil, nil, nil
			}
			return nil, nil, Usagef("lockfile %s does not exist: run `mcp-lockcheck pin` first", s.Lock)
		}
		return nil, nil, AsUsage(err)
	}
	return f, data, nil
}

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
