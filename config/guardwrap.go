package config

import (
	"fmt"
	"path/filepath"
	"slices"
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

// GuardCommand is the name guard install writes as the command.
const GuardCommand = "mcp-lockcheck"

// GuardWrap is a recognised guard wrapper around a server's launch.
type GuardWrap struct {
	// Command and Args are the wrapper's own launch, as written.
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Lock, Mode and Sandbox are the guard's flags ("" when not given).
	Lock, Mode, Sandbox string
}

// guardFlags are the guard's flags that take a value.
var guardFlags = []string{"lock", "server", "mode", "sandbox", "pass-env", "max-message-bytes"}

// ParseGuardWrap reads args as the arguments of a guard invocation
// ("guard", flags, "--", command...). It returns the guard's flags by name
// (a repeated flag keeps every value), the index of the inner command in
// args, and false when args are not exactly that shape.
func ParseGuardWrap(args []string) (flags map[string][]string, inner int, ok bool) {
	if len(args) < 2 || args[0] != "guard" {
		return nil, 0, false
	}
	flags = map[string][]string{}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 >= len(args) || args[i+1] == "" {
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
		name, val, hasVal := strings.Cut(name, "=")
		if !slices.Contains(guardFlags, name) {
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
		flags, inner, ok := ParseGuardWrap(s.Args)
		if !ok || len(flags["server"]) != 1 || flags["server"][0] != s.Name {
			continue
		}
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
		s.Guard = w
		s.Command, s.Args = s.Args[inner], slices.Clone(s.Args[inner+1:])
		if len(s.Args) == 0 {
			s.Args = nil
		}
	}
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
	return msg + "): the launch inside the guard is what was compared with the lock and probed"
}
