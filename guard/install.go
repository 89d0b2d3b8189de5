package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// InstallOptions say how Install puts servers behind the guard.
type InstallOptions struct {
	// Lock is the lock; only servers with an entry in it are wrapped.
	Lock *lock.File
	// LockPath is the lock's absolute path, written into each server's args
	// (the client starts servers from a directory of its own choosing).
	LockPath string
	// Executable is the absolute path of mcp-lockcheck, the new command.
	Executable string
	// Flags are extra guard flags written before "--" ("--mode", "warn").
	Flags []string
}

// Change is what Install or Uninstall did to one server.
type Change struct {
	Server string
	// Action is "guarded", "restored", or why the server was left alone:
	// "already guarded", "not pinned", "not stdio", "not guarded".
	Action string
	// Warning is set when the config's launch differs from the approved one.
	Warning string
}

// guardArg is the first argument of a guarded server: how Uninstall knows
// a server it put behind the guard.
const guardArg = "guard"

// Install rewrites one client config (the JSON "mcpServers" and "servers"
// shapes) so that each pinned stdio server runs behind the guard:
//
//	"command": "/abs/mcp-lockcheck",
//	"args": ["guard", "--lock", "/abs/mcp-lock.json", "--server", NAME, "--", OLD-COMMAND, OLD-ARGS...]
//
// Every other member of the server (env, cwd, type, the client's own
// settings) is kept as it was, and so is every byte of the file outside the
// servers rewritten. The original command and arguments are the guard's
// own arguments after "--", which is what Uninstall reads back, so no
// backup is needed to undo it (the CLI keeps one anyway). Placeholders
// (${workspaceFolder}, ${env:X}) move into args unchanged; clients expand
// args as they expand command.
//
// Servers without a lock entry are left alone and reported: the guard
// would refuse them, which would break the client rather than protect it.
func Install(name string, data []byte, o InstallOptions) ([]byte, []Change, error) {
	servers, err := config.Parse(name, data)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]config.Server{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	return rewrite(name, data, func(key string, ms []member) ([]member, Change, error) {
		ch := Change{Server: key}
		cmdRaw, hasCmd := get(ms, "command")
		cmd, _ := jsonString(cmdRaw)
		if !hasCmd || cmd == "" {
			s, ok := byName[key]
			if !ok || s.URL == "" {
				ch.Action = "not stdio"
				return nil, ch, nil
			}
			ls := o.Lock.Servers[key]
			if ls == nil {
				ch.Action = "not pinned"
				return nil, ch, nil
			}
			if l := check.LaunchOf(s); l.URL != ls.Launch.URL {
				ch.Warning = fmt.Sprintf("the config's url (%s) differs from the lock's approved one (%s); mcp-lockcheck check reports launch-changed", l.URL, ls.Launch.URL)
			}
			next, err := installRemote(s, ms, o)
			if err != nil {
				return nil, ch, err
			}
			ch.Action = "guarded (remote)"
			return next, ch, nil
		}
		args, err := argsOf(ms)
		if err != nil {
			return nil, ch, fmt.Errorf("server %q: %w", key, err)
		}
		if isGuarded(args) || len(args) > 0 && args[0] == guardArg && slices.Contains(args, "--remote-env") {
			ch.Action = "already guarded"
			return nil, ch, nil
		}
		ls := o.Lock.Servers[key]
		if ls == nil {
			ch.Action = "not pinned"
			return nil, ch, nil
		}
		if s, ok := byName[key]; ok {
			if l := check.LaunchOf(s); !l.Equal(ls.Launch) {
				ch.Warning = fmt.Sprintf("the config's launch (%s %s) differs from the lock's approved one (%s %s); mcp-lockcheck check reports launch-changed",
					l.Command, strings.Join(l.Args, " "), ls.Launch.Command, strings.Join(ls.Launch.Args, " "))
			}
		}
		newArgs := append([]string{guardArg, "--lock", o.LockPath, "--server", key}, o.Flags...)
		newArgs = append(newArgs, "--", cmd)
		newArgs = append(newArgs, args...)
		ch.Action = "guarded"
		return setLaunch(ms, o.Executable, newArgs), ch, nil
	})
}

// Uninstall undoes Install: each server whose args are a guard invocation
// gets back the command and arguments after the guard's "--".
func Uninstall(name string, data []byte) ([]byte, []Change, error) {
	if _, err := config.Parse(name, data); err != nil {
		return nil, nil, err
	}
	return rewrite(name, data, func(key string, ms []member) ([]member, Change, error) {
		ch := Change{Server: key}
		args, err := argsOf(ms)
		if err != nil {
			return nil, ch, fmt.Errorf("server %q: %w", key, err)
		}
		if len(args) > 0 && args[0] == guardArg && slices.Contains(args, "--remote-env") {
			next, ok, err := uninstallRemote(ms)
			if err != nil || !ok {
				ch.Action = "not guarded"
				return nil, ch, err
			}
			ch.Action = "restored"
			return next, ch, nil
		}
		if !isGuarded(args) {
			ch.Action = "not guarded"
			return nil, ch, nil
		}
		i := slices.Index(args, "--")
		ch.Action = "restored"
		return setLaunch(ms, args[i+1], args[i+2:]), ch, nil
	})
}

// isGuarded reports whether args are a guard invocation with a command.
func isGuarded(args []string) bool {
	if len(args) < 2 || args[0] != guardArg {
		return false
	}
	i := slices.Index(args, "--")
	return i > 0 && i+1 < len(args) && slices.Contains(args[:i], "--server")
}

func argsOf(ms []member) ([]string, error) {
	raw, ok := get(ms, "args")
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var args []string
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf(`"args" must be an array of strings: %v`, err)
	}
	return args, nil
}

// setLaunch returns the members with command and args replaced (args added
// after command when absent, dropped when empty), everything else in place.
func setLaunch(ms []member, command string, args []string) []member {
	cmd, _ := json.Marshal(command)
	var argv []byte
	if len(args) > 0 {
		argv, _ = marshalNoEscape(args)
	}
	out := make([]member, 0, len(ms)+1)
	for _, m := range ms {
		switch m.fold {
		case fold("command"):
			m.val = cmd
			out = append(out, m)
			if _, ok := get(ms, "args"); !ok && argv != nil {
				out = append(out, member{key: "args", fold: fold("args"), val: argv})
			}
		case fold("args"):
			if argv != nil {
				m.val = argv
				out = append(out, m)
			}
		default:
			out = append(out, m)
		}
	}
	return out
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// rewrite walks the servers of a plain-JSON config and splices each server
// edit returns new members for into the file, leaving every other byte as
// it was. JSON with comments is refused: the splice offsets would be right,
// but a comment inside a rewritten server would be lost silently.
func rewrite(name string, data []byte, edit func(key string, ms []member) ([]member, Change, error)) ([]byte, []Change, error) {
	if !json.Valid(data) {
		return nil, nil, fmt.Errorf("%s: guard install edits plain JSON configs; this one has comments or trailing commas: edit it by hand (see README, guard)", name)
	}
	root, err := objectMembers(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	type splice struct {
		from, to int
		with     []byte
	}
	var splices []splice
	var changes []Change
	found := false
	for _, top := range root {
		if top.key != "mcpServers" && top.key != "servers" {
			continue
		}
		found = true
		servers, err := objectMembers(top.val)
		if err != nil {
			continue // null or not an object: config.Parse said what it allows
		}
		for _, sm := range servers {
			ms, err := objectMembers(sm.val)
			if err != nil {
				continue
			}
			next, ch, err := edit(sm.key, ms)
			if err != nil {
				line, _ := lock.LineCol(data, top.off+sm.koff)
				return nil, nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			changes = append(changes, ch)
			if next == nil {
				continue
			}
			at := top.off + sm.off
			splices = append(splices, splice{at, at + len(sm.val), renderObject(next, indentAt(data, top.off+sm.koff), bytes.IndexByte(sm.val, '\n') >= 0)})
		}
	}
	if !found {
		return nil, nil, fmt.Errorf(`%s: no "mcpServers" or "servers" object`, name)
	}
	var out bytes.Buffer
	last := 0
	for _, s := range splices {
		out.Write(data[last:s.from])
		out.Write(s.with)
		last = s.to
	}
	out.Write(data[last:])
	return out.Bytes(), changes, nil
}

// indentAt is the leading whitespace of the line holding offset off.
func indentAt(data []byte, off int) string {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// renderObject writes members as an object, indented like its neighbours
// when the original spanned lines.
func renderObject(ms []member, indent string, multiline bool) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalNoEscape(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	if !multiline {
		var c bytes.Buffer
		if json.Compact(&c, b.Bytes()) == nil {
			return c.Bytes()
		}
		return b.Bytes()
	}
	unit := "  "
	if strings.HasPrefix(indent, "\t") {
		unit = "\t"
	}
	var out bytes.Buffer
	if json.Indent(&out, b.Bytes(), indent, unit) != nil {
		return b.Bytes()
	}
	return out.Bytes()
}
