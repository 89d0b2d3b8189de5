package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// EnvRef is one environment variable a launch field expands: what runs
// then depends on where it runs. The lock records the template, so CI can
// approve one expansion while a developer's machine runs another
// ("${CI:-src}/server.js" is "true/server.js" in CI and "src/server.js" on
// a laptop).
type EnvRef struct {
	// Field names the launch field: "command", "args[0]", "cwd", "url",
	// "header Authorization".
	Field string
	// Template is the field as written.
	Template string
	// Var is the variable's name.
	Var string
	// HasDefault is set for ${VAR:-default}; Default is its text as
	// written. WhenSet and WhenUnset are the field with this placeholder
	// replaced by ${VAR} and by the default: the two expansions, without
	// any variable's value (which may be a secret).
	HasDefault         bool
	Default            string
	WhenSet, WhenUnset string
}

// EnvRefs lists the environment variables the launch fields (command,
// args, cwd, url, header values) expand, in field order. None of them is
// set by the config: placeholders are expanded from the environment of
// whoever starts the client, and the entry's own env block only sets the
// server's environment (Resolve does the same). Editor-defined variables
// of VS Code and Cursor (${workspaceFolder}, ${userHome}, ...) are not
// environment variables and are left out. A placeholder that cannot be
// parsed is left out too: Resolve reports it.
func (s Server) EnvRefs() []EnvRef {
	type field struct{ name, v string }
	fields := []field{{"command", s.Command}}
	for i, a := range s.Args {
		fields = append(fields, field{fmt.Sprintf("args[%d]", i), a})
	}
	fields = append(fields, field{"cwd", s.Cwd}, field{"url", s.URL})
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		fields = append(fields, field{"header " + k, s.Headers[k]})
	}
	var out []EnvRef
	for _, f := range fields {
		refs := placeholderRefs(f.v, s.Client == ClientGeminiCLI)
		if s.Client == ClientOpenCode {
			refs = openCodeRefs(f.v)
		}
		for _, r := range refs {
			if s.editorVar(r.name, r.env) {
				continue
			}
			e := EnvRef{Field: f.name, Template: f.v, Var: r.name, HasDefault: r.hasDef, Default: r.def}
			if r.hasDef {
				e.WhenSet = f.v[:r.start] + "${" + r.name + "}" + f.v[r.end:]
				e.WhenUnset = f.v[:r.start] + r.def + f.v[r.end:]
			}
			if !slices.ContainsFunc(out, func(o EnvRef) bool { return o.Field == e.Field && o.Var == e.Var }) {
				out = append(out, e)
			}
		}
	}
	return out
}

// editorVar reports whether name is one VS Code or Cursor define
// themselves (Server.vars), not an environment variable.
func (s Server) editorVar(name string, env bool) bool {
	if env || (s.Client != ClientVSCode && s.Client != ClientCursor) {
		return false
	}
	switch name {
	case "workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/":
		return true
	}
	return false
}

// CISets reports whether CI runners set the variable: CI, GITHUB_* and
// RUNNER_* (GitHub Actions; CI is set by nearly every CI service). A
// launch that expands one of them is one thing in CI and another on a
// developer's machine by construction.
func CISets(name string) bool {
	return name == "CI" || strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "RUNNER_")
}

// openCodeRefs finds opencode's {env:NAME} placeholders.
func openCodeRefs(s string) []ref {
	var out []ref
	for off := 0; ; {
		i := strings.Index(s[off:], "{env:")
		if i < 0 {
			return out
		}
		i += off
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return out
		}
		if name := s[i+len("{env:") : i+end]; validName(name) {
			out = append(out, ref{start: i, end: i + end + 1, name: name, env: true})
		}
		off = i + end + 1
	}
}

// ref is one placeholder in a field: s[start:end] is its whole text.
type ref struct {
	start, end int
	name, def  string
	hasDef     bool
	env        bool // ${env:NAME}
}

// placeholderRefs finds the placeholders Expand would expand, by the same
// syntax (nested placeholders in a default included), without expanding
// anything. With dollar, $NAME counts too (Gemini CLI).
func placeholderRefs(s string, dollar bool) []ref {
	var out []ref
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		if strings.HasPrefix(s[i:], "$${") {
			i += 2
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			if n := nameLen(s[i+1:]); dollar && n > 0 {
				out = append(out, ref{start: i, end: i + 1 + n, name: s[i+1 : i+1+n]})
				i += n
			}
			continue
		}
		end := closing(s, i+2)
		if end < 0 {
			return out
		}
		body := s[i+2 : end]
		r := ref{start: i, end: end + 1}
		if prefix, rest, ok := strings.Cut(body, ":"); ok && !strings.HasPrefix(rest, "-") {
			if prefix != "env" {
				i = end
				continue
			}
			r.env, body = true, rest
		}
		r.name = body
		if n, d, ok := strings.Cut(body, ":-"); ok {
			r.name, r.def, r.hasDef = n, d, true
		}
		if validName(r.name) {
			out = append(out, r)
			for _, inner := range placeholderRefs(r.def, dollar) {
				// Positions inside the default are not positions in s;
				// the inner variable is reported with the whole template.
				inner.start, inner.end = r.start, r.end
				inner.hasDef, inner.def = false, ""
				out = append(out, inner)
			}
		}
		i = end
	}
	return out
}
