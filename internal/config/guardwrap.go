package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// `mcp-lockcheck guard install` rewrites a server's launch to run behind
// the guard:
//
//	"command": "mcp-lockcheck",
//	"args": ["guard", "--lock", "mcp-lock.json", "--server", NAME, "--", COMMAND, ARGS...]
//
// The lock approves the server, not the guard in front of it, so a check
// must compare and probe COMMAND ARGS: installing the guard must not change
// the verdict. But the config is repository content, and a wrapper is only
// ours when the program it runs is ours: `"command": "./evil", "args":
// ["guard", ..., "--", "npx", "approved-pkg"]` runs ./evil, and unwrapping
// it would compare the approved launch and hide the change. So a wrapper is
// recognised only when all of this holds, and otherwise the whole launch is
// compared and reported as written:
//   - the command is the bare name "mcp-lockcheck" (found on PATH, as
//     guard install writes it), or an absolute path the caller confirms is
//     this very program (guard install's fallback when it is not on PATH);
//     never a relative path or one with placeholders, which the repository
//     or the environment chooses;
//   - the arguments are "guard", then only the guard's own flags, each with
//     its value, then "--" and a command;
//   - --server names this very entry, so the guard holds the server to the
//     lock entry the check compares it with.
//
// The bridge to a remote server that guard install writes for a url entry
// ("guard", flags, "--remote-env", "--transport", http|sse, no command) is
// read the same way, as the url launch the guard connects to: see
// unwrapRemote.

// GuardCommand is the name guard install writes as the command.
const GuardCommand = "mcp-lockcheck"

// GuardWrap is a recognised guard wrapper around a server's launch.
type GuardWrap struct {
	// Command and Args are the wrapper's own launch, as written.
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Lock, Mode and Sandbox are the guard's flags ("" when not given).
	Lock, Mode, Sandbox string
	// Remote is set when the wrapper is the bridge to a url server
	// (--remote-env): the launch read back is the url in its env.
	Remote bool `json:",omitempty"`
}

// The environment of a bridged remote entry (guard install writes it,
// guard --remote-env reads it). The url and header templates go in env,
// not in args: clients expand placeholders in both, and an expanded token
// in args is on every process listing; env is where a stdio server's
// secrets already live.
const (
	// GuardEnvURL holds the url as the config wrote it.
	GuardEnvURL = "MCP_LOCKCHECK_URL"
	// GuardEnvOriginal holds the entry's bytes as they were before guard
	// install (comments and all), which guard uninstall writes back.
	GuardEnvOriginal = "MCP_LOCKCHECK_ORIGINAL"
	// MaxGuardEnvHeaders bounds the headers read back.
	MaxGuardEnvHeaders = 64
	// guardEnvPrefix starts every variable of ours: none is the server's.
	guardEnvPrefix = "MCP_LOCKCHECK_"
)

// GuardEnvHeader names the i-th (1-based) header variable, whose value is
// "Name: value". The guard reads them from 1 up to the first one unset.
func GuardEnvHeader(i int) string { return guardEnvPrefix + "HEADER_" + strconv.Itoa(i) }

// guardFlags are the guard's flags that take a value.
var guardFlags = []string{"lock", "server", "mode", "sandbox", "pass-env", "max-message-bytes"}

// remoteGuardFlags are those a bridge to a remote server takes: no
// sandbox (the server runs elsewhere), and the transport.
var remoteGuardFlags = []string{"lock", "server", "mode", "max-message-bytes", "transport"}

// ParseGuardWrap reads args as the arguments of a guard invocation
// ("guard", flags, "--", command...). It returns the guard's flags by name
// (a repeated flag keeps every value), the index of the inner command in
// args, and false when args are not exactly that shape.
func ParseGuardWrap(args []string) (flags map[string][]string, inner int, ok bool) {
	return parseGuardArgs(args, false)
}

// ParseRemoteGuardWrap reads args as the arguments of the guard bridging
// to a remote server ("guard", flags including --remote-env, and no
// command). It returns the flags by name, and false when args are not
// exactly that shape or --transport is neither http nor sse.
func ParseRemoteGuardWrap(args []string) (flags map[string][]string, ok bool) {
	flags, _, ok = parseGuardArgs(args, true)
	if !ok || len(flags["remote-env"]) != 1 || len(flags["transport"]) > 1 {
		return nil, false
	}
	if t := flags["transport"]; len(t) == 1 && t[0] != TypeHTTP && t[0] != TypeSSE {
		return nil, false
	}
	return flags, true
}

func parseGuardArgs(args []string, remote bool) (flags map[string][]string, inner int, ok bool) {
	if len(args) < 2 || args[0] != "guard" {
		return nil, 0, false
	}
	known := guardFlags
	if remote {
		known = remoteGuardFlags
	}
	flags = map[string][]string{}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if remote || i+1 >= len(args) || args[i+1] == "" {
				return nil, 0, false
			}
			return flags, i + 1, true
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			name, ok = strings.CutPrefix(a, "-")
		}
		if !ok || name == "" {
			return nil, 0, false
		}
		if remote && name == "remote-env" {
			flags[name] = append(flags[name], "true")
			continue
		}
		name, val, hasVal := strings.Cut(name, "=")
		if !slices.Contains(known, name) {
			return nil, 0, false
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, 0, false
			}
			i++
			val = args[i]
		}
		flags[name] = append(flags[name], val)
	}
	if remote {
		return flags, 0, true
	}
	return nil, 0, false
}

// UnwrapGuard replaces the launch of each entry that runs behind a guard
// wrapper of ours with the launch inside it, and records the wrapper in
// Server.Guard. self reports whether an absolute path is this program.
func UnwrapGuard(servers []Server, self func(path string) bool) {
	for i := range servers {
		s := &servers[i]
		if s.Type != TypeStdio || !ownCommand(s.Command, self) {
			continue
		}
		if unwrapRemote(s) {
			continue
		}
		flags, inner, ok := ParseGuardWrap(s.Args)
		if !ok || len(flags["server"]) != 1 || flags["server"][0] != s.Name {
			continue
		}
		s.Guard = newGuardWrap(s, flags, inner)
		s.Command, s.Args = s.Args[inner], slices.Clone(s.Args[inner+1:])
		if len(s.Args) == 0 {
			s.Args = nil
		}
	}
}

func newGuardWrap(s *Server, flags map[string][]string, inner int) *GuardWrap {
	w := &GuardWrap{Command: s.Command, Args: slices.Clone(s.Args[:inner])}
	if v := flags["lock"]; len(v) > 0 {
		w.Lock = v[len(v)-1]
	}
	if v := flags["mode"]; len(v) > 0 {
		w.Mode = v[len(v)-1]
	}
	if v := flags["sandbox"]; len(v) > 0 {
		w.Sandbox = v[len(v)-1]
	}
	return w
}

// unwrapRemote turns a bridge entry of ours back into the url launch the
// guard runs: the url and headers it reads from the entry's env
// (GuardEnvURL, GuardEnvHeader), the transport its --transport names, and
// the env without our variables. That is what the guard connects to, so it
// is what a check compares and probes; an entry that is not exactly that
// shape (no url, a header not "Name: value", --server naming another
// entry) is left as written and compared as the command it is.
func unwrapRemote(s *Server) bool {
	flags, ok := ParseRemoteGuardWrap(s.Args)
	if !ok || len(flags["server"]) != 1 || flags["server"][0] != s.Name {
		return false
	}
	u := s.Env[GuardEnvURL]
	if u == "" {
		return false
	}
	headers := map[string]string{}
	for i := 1; i <= MaxGuardEnvHeaders; i++ {
		h, ok := s.Env[GuardEnvHeader(i)]
		if !ok {
			break
		}
		name, value, found := strings.Cut(h, ":")
		if !found || strings.TrimSpace(name) == "" {
			return false
		}
		headers[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	var env map[string]string
	for k, v := range s.Env {
		if strings.HasPrefix(k, guardEnvPrefix) {
			continue
		}
		if env == nil {
			env = map[string]string{}
		}
		env[k] = v
	}
	w := newGuardWrap(s, flags, len(s.Args))
	w.Remote = true
	s.Guard = w
	s.Type = TypeHTTP
	if t := flags["transport"]; len(t) == 1 && t[0] == TypeSSE {
		s.Type = TypeSSE
	}
	s.URL, s.Headers, s.Env = u, headers, env
	if len(s.Headers) == 0 {
		s.Headers = nil
	}
	s.Command, s.Args = "", nil
	return true
}

// ownCommand reports whether command runs mcp-lockcheck (see above).
func ownCommand(command string, self func(string) bool) bool {
	if command == GuardCommand {
		return true
	}
	if strings.ContainsAny(command, "$%") || !filepath.IsAbs(command) {
		return false
	}
	base := strings.TrimSuffix(filepath.Base(command), ".exe")
	return base == GuardCommand && self != nil && self(command)
}

// Note says how the entry was read, for the report.
func (w *GuardWrap) Note() string {
	mode := w.Mode
	if mode == "" {
		mode = "enforce"
	}
	msg := fmt.Sprintf("the config runs this server behind mcp-lockcheck guard (--mode %s", mode)
	if w.Lock != "" {
		msg += fmt.Sprintf(", --lock %q", w.Lock)
	}
	if w.Remote {
		return msg + "): it bridges to the url in the entry's env, which is what was compared with the lock and probed"
	}
	return msg + "): the launch inside the guard is what was compared with the lock and probed"
}
