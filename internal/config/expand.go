package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Expand replaces placeholders in s the way MCP clients do at launch:
//
//   - ${VAR} and ${env:VAR}: the variable; an unset one is an error naming it
//     (a set but empty one expands to "").
//   - ${VAR:-default} and ${env:VAR:-default}: the default when VAR is unset
//     or empty, as in the shell; the default may itself hold placeholders.
//   - $${ is a literal "${" (the one escape needed to write that text).
//   - Any other $ is literal: "$HOME", "$$", "a$b" stay as written, because
//     the clients pass them through and the server must get what it gets
//     from the client.
//   - ${input:ID} (VS Code prompts the user for it) is an error: there is
//     nobody to ask in a check. ${config:...} and ${command:...} likewise.
//   - An unterminated "${" is an error rather than literal text: it is
//     almost certainly a typo that would launch the wrong thing.
//
// Errors name variables, never values.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	return expand(s, lookup, lookup, false)
}

// expand resolves bare ${NAME} through vars and ${env:NAME} through env:
// Resolve adds VS Code's predefined variables to vars only. With dollar,
// $NAME is a placeholder too, as in Gemini CLI's settings.
func expand(s string, vars, env func(string) (string, bool), dollar bool) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		if strings.HasPrefix(s[i:], "$${") {
			b.WriteString("${")
			i += 2
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			n := nameLen(s[i+1:])
			if !dollar || n == 0 {
				b.WriteByte(c)
				continue
			}
			name := s[i+1 : i+1+n]
			v, ok := vars(name)
			if !ok {
				return "", fmt.Errorf("environment variable %s is not set", name)
			}
			b.WriteString(v)
			i += n
			continue
		}
		end := closing(s, i+2)
		if end < 0 {
			return "", fmt.Errorf(`"${" at byte %d has no closing "}"`, i)
		}
		v, err := placeholder(s[i+2:end], i, vars, env, dollar)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		i = end
	}
	return b.String(), nil
}

// closing returns the index of the "}" that closes a "${" whose body starts
// at from, counting nested braces so that defaults may hold placeholders.
func closing(s string, from int) int {
	depth := 1
	for j := from; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// placeholder expands the body of one "${...}" found at byte at.
func placeholder(body string, at int, vars, env func(string) (string, bool), dollar bool) (string, error) {
	lookup := vars
	name, def, hasDef := body, "", false
	if prefix, rest, ok := strings.Cut(body, ":"); ok && !strings.HasPrefix(rest, "-") {
		switch prefix {
		case "env":
			lookup, name = env, rest
		case "input":
			return "", fmt.Errorf("${input:%s}: VS Code input variables are prompted for interactively and are not supported non-interactively; put the value in the environment and use ${env:NAME}", safeName(rest))
		default:
			return "", fmt.Errorf("${%s:...} variables are not supported (only ${NAME}, ${NAME:-default} and ${env:NAME})", safeName(prefix))
		}
	}
	if n, d, ok := strings.Cut(name, ":-"); ok {
		name, def, hasDef = n, d, true
	}
	if !validName(name) {
		return "", fmt.Errorf(`invalid variable name in the "${...}" at byte %d`, at)
	}
	if v, ok := lookup(name); ok && (v != "" || !hasDef) {
		return v, nil
	}
	if hasDef {
		return expand(def, vars, env, dollar)
	}
	return "", fmt.Errorf("environment variable %s is not set", name)
}

// nameLen is the length of the shell-style name s starts with, or 0.
func nameLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || n > 0 && c >= '0' && c <= '9' {
			n++
			continue
		}
		break
	}
	return n
}

// validName accepts shell-style names (and VS Code's "${/}"). A value that
// is not a name is not echoed in errors: it might be part of a secret.
func validName(name string) bool {
	if name == "/" {
		return true
	}
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// safeName echoes an identifier such as an input id ("github-pat") but not
// arbitrary text.
func safeName(s string) string {
	if s == "" || len(s) > 64 {
		return "..."
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "..."
		}
	}
	return s
}

// Resolve expands the placeholders of a stdio launch: command, args, env
// values and cwd (cwd is only checked here; ResolveDir returns it). env holds
// just the variables the entry sets: what else the server inherits is the
// caller's decision. For Gemini CLI configs $NAME is expanded as well as
// ${NAME}, as Gemini does. For VS Code and Cursor configs, bare ${workspaceFolder},
// ${workspaceFolderBasename}, ${userHome}, ${pathSeparator} and ${/} mean
// what those editors make of them. Errors are *Error at the entry's line.
func (s Server) Resolve(lookup func(string) (string, bool)) (command string, args []string, env map[string]string, err error) {
	vars := s.vars(lookup)
	if command, err = s.expandField("command", s.Command, vars, lookup); err != nil {
		return "", nil, nil, err
	}
	if s.Args != nil {
		args = make([]string, len(s.Args))
	}
	for i, a := range s.Args {
		if args[i], err = s.expandField(fmt.Sprintf("args[%d]", i), a, vars, lookup); err != nil {
			return "", nil, nil, err
		}
	}
	if s.Env != nil {
		env = make(map[string]string, len(s.Env))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if env[k], err = s.expandField(fmt.Sprintf("env %s", k), s.Env[k], vars, lookup); err != nil {
			return "", nil, nil, err
		}
	}
	if _, err = s.ResolveDir(lookup); err != nil {
		return "", nil, nil, err
	}
	return command, args, env, nil
}

// ResolveDir expands the placeholders of the entry's cwd ("" when unset).
func (s Server) ResolveDir(lookup func(string) (string, bool)) (string, error) {
	return s.expandField("cwd", s.Cwd, s.vars(lookup), lookup)
}

// ResolveRemote expands the placeholders of an HTTP or SSE server's url and
// header values (for example "Authorization": "Bearer ${GITHUB_TOKEN}").
func (s Server) ResolveRemote(lookup func(string) (string, bool)) (url string, headers map[string]string, err error) {
	vars := s.vars(lookup)
	if url, err = s.expandField("url", s.URL, vars, lookup); err != nil {
		return "", nil, err
	}
	if s.Headers != nil {
		headers = make(map[string]string, len(s.Headers))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if headers[k], err = s.expandField(fmt.Sprintf("header %s", k), s.Headers[k], vars, lookup); err != nil {
			return "", nil, err
		}
	}
	return url, headers, nil
}

func (s Server) expandField(field, v string, vars, env func(string) (string, bool)) (string, error) {
	var (
		out string
		err error
	)
	if s.Client == ClientOpenCode {
		out, err = expandOpenCode(v, env)
	} else {
		// Gemini CLI expands $NAME as well as ${NAME} in its settings.
		out, err = expand(v, vars, env, s.Client == ClientGeminiCLI)
	}
	if err != nil {
		return "", &Error{File: s.File, Line: s.Line, Msg: fmt.Sprintf("server %q: %s: %v", s.Name, field, err)}
	}
	return out, nil
}

// expandOpenCode replaces opencode's own placeholders: {env:NAME} is the
// variable (opencode writes "" for an unset one; here that is an error, as
// for ${NAME}: a launch that silently lost a value is not what was
// reviewed). {file:PATH} reads a file at launch and is not supported.
// "${...}" is literal text to opencode, so it is to this function.
func expandOpenCode(s string, env func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "{env:")
		j := strings.Index(s, "{file:")
		if j >= 0 && (i < 0 || j < i) {
			return "", fmt.Errorf("{file:...} placeholders read a file at launch and are not supported; put the value in the environment and use {env:NAME}")
		}
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf(`"{env:" has no closing "}"`)
		}
		name := s[i+len("{env:") : i+end]
		if !validName(name) {
			return "", fmt.Errorf(`invalid variable name in an "{env:...}"`)
		}
		v, ok := env(name)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set", name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// vars adds the editor-defined variables of VS Code and Cursor in front of
// the environment; other clients expand only environment variables.
func (s Server) vars(lookup func(string) (string, bool)) func(string) (string, bool) {
	if s.Client != ClientVSCode && s.Client != ClientCursor {
		return lookup
	}
	return func(name string) (string, bool) {
		switch name {
		case "workspaceFolder", "workspaceFolderBasename":
			// The workspace is known only for <workspace>/.vscode/mcp.json and
			// <workspace>/.cursor/mcp.json, not for a user-level file.
			dir := filepath.Dir(s.File)
			if d := filepath.Base(dir); d != ".vscode" && d != ".cursor" {
				return lookup(name)
			}
			root, err := filepath.Abs(filepath.Dir(dir))
			if err != nil {
				return "", false
			}
			if name == "workspaceFolderBasename" {
				return filepath.Base(root), true
			}
			return root, true
		case "userHome":
			return lookup("HOME")
		case "pathSeparator", "/":
			return string(filepath.Separator), true
		}
		return lookup(name)
	}
}
