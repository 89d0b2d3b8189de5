package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml/parser"
)

// A key a client does not know is a key it ignores: `"arg": [...]` for
// `"args"` launches the server without its arguments, and nothing says so.
// UnknownKeys finds such keys in server entries so the run can warn about
// them, with the key the author most likely meant.
//
// What counts as known is per format, not per client: the same
// mcpServers-shaped file is copied between Claude Code, Cursor, Roo Code,
// Cline, Kiro and the others, so a key one of them reads (alwaysAllow,
// autoApprove, disabled, timeout, trust, ...) is not a typo in another's.
// The lists follow each client's documentation (November 2026):
//   - Claude Code (code.claude.com/docs/en/mcp): type, command, args, env,
//     url, headers, headersHelper, oauth.
//   - Cursor (cursor.com/docs/mcp): envFile, auth.
//   - Windsurf: serverUrl, disabled, disabledTools.
//   - Gemini CLI (docs/tools/mcp-server.md): cwd, httpUrl, timeout, trust,
//     description, includeTools, excludeTools, oauth, authProviderType,
//     targetAudience, targetServiceAccount, extensionName.
//   - Roo Code: alwaysAllow, disabled, timeout, watchPaths, disabledTools.
//   - Cline: autoApprove, disabled, timeout, transportType.
//   - Kiro, Amazon Q: disabled, autoApprove, disabledTools, timeout.
//   - GitHub Copilot's portable .mcp.json: tools.
//   - VS Code (copilot/reference/mcp-configuration): type, command, args,
//     env, envFile, cwd, url, headers, dev, sandboxEnabled, sandbox; and
//     gallery, version, which it writes for a server installed from its
//     gallery.
//   - Zed (context_servers): command (string, or {path, args, env}),
//     args, env, source, enabled, settings, url, headers.
//   - opencode (opencode.ai/docs/mcp-servers, 1.x and 2.x): type, command,
//     environment, cwd, enabled, disabled, timeout, url, headers, oauth.
//   - Codex (config.toml [mcp_servers.NAME]): command, args, env, env_vars,
//     cwd, url, bearer_token_env_var, http_headers, env_http_headers,
//     startup_timeout_sec, startup_timeout_ms, tool_timeout_sec, enabled,
//     required, enabled_tools, disabled_tools, scopes, oauth_resource.
//   - Continue (.continue/mcpServers/*.yaml): name, type, command, args,
//     env, cwd, url, requestOptions, connectionTimeout, apiKey, sourceFile.
//
// Every list also holds the keys this package reads, whatever the client.

// keySet is the keys one format accepts in a server entry.
type keySet struct {
	format string // how messages name the format
	keys   []string
}

var (
	mcpServersKeys = keySet{"an mcpServers entry", []string{
		"type", "command", "args", "env", "cwd", "url", "headers",
		"httpUrl", "serverUrl", "headersHelper", "oauth", "auth", "envFile",
		"disabled", "enabled", "disabledTools", "alwaysAllow", "autoApprove",
		"timeout", "networkTimeout", "trust", "description", "includeTools", "excludeTools",
		"authProviderType", "targetAudience", "targetServiceAccount", "extensionName",
		"watchPaths", "transportType", "source", "settings", "tools",
	}}
	vscodeKeys = keySet{"a VS Code server", []string{
		"type", "command", "args", "env", "envFile", "cwd", "url", "headers",
		"dev", "sandboxEnabled", "sandbox", "oauth", "description", "gallery", "version",
	}}
	zedKeys = keySet{"a Zed context server", []string{
		"type", "command", "args", "env", "cwd", "source", "enabled", "settings", "url", "headers",
	}}
	zedCommandKeys = keySet{"Zed's command object", []string{"path", "args", "env"}}
	openCodeKeys   = keySet{"an opencode server", []string{
		"type", "command", "environment", "cwd", "enabled", "disabled", "timeout", "url", "headers", "oauth",
	}}
	codexKeys = keySet{"a Codex server", []string{
		"command", "args", "env", "env_vars", "cwd", "url", "bearer_token_env_var", "http_headers",
		"env_http_headers", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec",
		"enabled", "required", "enabled_tools", "disabled_tools", "scopes", "oauth_resource",
	}}
	continueKeys = keySet{"a Continue server", []string{
		"name", "type", "command", "args", "env", "cwd", "url", "requestOptions",
		"connectionTimeout", "apiKey", "sourceFile",
	}}
)

// aliases are names people write for a key that edit distance would not
// find: another tool's spelling of the same thing.
var aliases = map[string][]string{
	"env":     {"environment", "env_vars", "envvars", "envs", "environment_variables", "variables"},
	"args":    {"arguments", "argv", "params", "parameters"},
	"command": {"cmd", "exec", "executable", "program", "bin"},
	"headers": {"header", "http_headers"},
	"cwd":     {"workdir", "working_directory", "workingDirectory", "dir", "directory"},
	"url":     {"uri", "endpoint", "serverUrl", "httpUrl"},
	// opencode and Codex spell two of them their own way.
	"environment":  {"env", "env_vars", "envs", "variables"},
	"http_headers": {"headers", "header"},
}

// KeyWarning is a key of a server entry that its client does not read.
type KeyWarning struct {
	File   string
	Line   int // 1-based line of the key; 0 when the format gives none
	Server string
	Key    string
	// Suggest is the accepted key the author most likely meant, or "".
	Suggest string
	// Format names the kind of entry ("an mcpServers entry").
	Format string
}

// Message says what is wrong, without the file position or the server
// (the caller adds them).
func (w KeyWarning) Message() string {
	// ASCII-quoted: a key that differs from "args" by a homoglyph
	// (Cyrillic "ѕ") must not print as "args".
	msg := fmt.Sprintf("unknown key %s in %s", strconv.QuoteToASCII(w.Key), w.Format)
	if w.Suggest != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", w.Suggest)
	}
	return msg + ": clients ignore it, so the server runs without it"
}

// UnknownKeys lists the keys of the server entries in a config file (as
// Parse reads it) that the file's format does not accept, in file order.
// A file Parse rejects gives nothing: its error is reported by Parse.
func UnknownKeys(name string, data []byte) []KeyWarning {
	client := detectClient(name)
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case ext == ".toml":
		return tomlUnknownKeys(name, data)
	case ext == ".yaml" || ext == ".yml":
		return yamlUnknownKeys(name, data)
	case client == ClientOpenCode:
		return jsonUnknownKeys(name, data, true)
	}
	return jsonUnknownKeys(name, data, false)
}

func jsonUnknownKeys(name string, data []byte, opencode bool) []KeyWarning {
	clean, err := standardJSON(data)
	if err != nil {
		return nil
	}
	root, err := buildTree(clean)
	if err != nil || root.kind != '{' {
		return nil
	}
	f := &jsonFile{name: name, data: data}
	var out []KeyWarning
	if opencode {
		holder := openCodeServers(root)
		if holder == nil {
			return nil
		}
		for i := range holder.members {
			out = append(out, f.unknownServerKeys(&holder.members[i], openCodeKeys)...)
		}
		return out
	}
	for _, key := range serverKeys {
		c, _ := root.get(key)
		if c == nil || c.val.kind != '{' {
			continue
		}
		ks := mcpServersKeys
		switch key {
		case "servers":
			ks = vscodeKeys
		case "context_servers":
			ks = zedKeys
		}
		for i := range c.val.members {
			out = append(out, f.unknownServerKeys(&c.val.members[i], ks)...)
		}
	}
	return out
}

// openCodeServers is the object holding OpenCode's servers: "mcp", or
// "mcp.servers" when that is not itself a server; nil when there is none.
func openCodeServers(root *node) *node {
	mcp, _ := root.get("mcp")
	if mcp == nil || mcp.val.kind != '{' {
		return nil
	}
	holder := mcp.val
	if inner, dup := holder.get("servers"); inner != nil && dup == nil && inner.val.kind == '{' {
		if t, _ := inner.val.get("type"); t == nil {
			holder = inner.val
		}
	}
	return holder
}

// unknownServerKeys lists the keys of server that ks does not accept, and
// for Zed those of its nested command.
func (f *jsonFile) unknownServerKeys(server *member, ks keySet) []KeyWarning {
	if server.val.kind != '{' {
		return nil
	}
	var out []KeyWarning
	for _, m := range server.val.members {
		if w, bad := unknown(ks, m.key); bad {
			w.File, w.Line, w.Server = f.name, f.line(m.keyOff), server.key
			out = append(out, w)
		}
		if m.key != "command" || m.val.kind != '{' || ks.format != zedKeys.format {
			continue
		}
		for _, c := range m.val.members {
			if w, bad := unknown(zedCommandKeys, c.key); bad {
				w.File, w.Line, w.Server = f.name, f.line(c.keyOff), server.key
				out = append(out, w)
			}
		}
	}
	return out
}

func tomlUnknownKeys(name string, data []byte) []KeyWarning {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil
	}
	f := &tomlFile{name: name, md: md}
	prim, ok := top["mcp_servers"]
	if !ok {
		return nil
	}
	table, ok := f.table(prim)
	if !ok {
		return nil
	}
	var out []KeyWarning
	for _, server := range slices.Sorted(maps.Keys(table)) {
		fields, ok := f.table(table[server])
		if !ok {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			if w, bad := unknown(codexKeys, k); bad {
				w.File, w.Line, w.Server = name, f.line(fields[k]), server
				out = append(out, w)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b KeyWarning) int { return a.Line - b.Line })
	return out
}

func yamlUnknownKeys(name string, data []byte) (out []KeyWarning) {
	defer func() {
		if recover() != nil {
			out = nil // Parse reports what the parser cannot read
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil || len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil
	}
	for _, fields := range continueEntries(f.Docs[0].Body) {
		server := ""
		for _, fv := range fields {
			if fv.Key != nil && fv.Key.String() == "name" && fv.Value != nil {
				server = strings.Trim(fv.Value.String(), `"'`)
			}
		}
		for _, fv := range fields {
			if fv.Key == nil {
				continue
			}
			k := strings.Trim(fv.Key.String(), `"'`)
			if w, bad := unknown(continueKeys, k); bad {
				line, _ := yamlPos(fv.Key)
				w.File, w.Line, w.Server = name, line, server
				out = append(out, w)
			}
		}
	}
	return out
}

// unknown reports whether key is outside ks, with a suggestion.
func unknown(ks keySet, key string) (KeyWarning, bool) {
	if slices.Contains(ks.keys, key) {
		return KeyWarning{}, false
	}
	return KeyWarning{Key: key, Suggest: suggestKey(ks.keys, key), Format: ks.format}, true
}

// suggestKey finds the accepted key closest to key: the same letters in
// another case ("URL"), a known alias ("cmd" for "command"), or one within
// a small edit distance ("arg", "comand"). Keys are compared in lower case.
func suggestKey(accepted []string, key string) string {
	lk := strings.ToLower(key)
	for _, a := range accepted {
		if strings.ToLower(a) == lk {
			return a
		}
	}
	for target, names := range aliases {
		if !slices.Contains(accepted, target) {
			continue
		}
		for _, n := range names {
			if strings.ToLower(n) == lk {
				return target
			}
		}
	}
	// Allow one edit in a short key and two in a longer one: "arg" is one
	// from "args", but "dir" is also two from "env".
	limit := 1
	if len([]rune(lk)) > 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, a := range accepted {
		if d := editDistance(lk, strings.ToLower(a)); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance over code points, with adjacent
// transpositions ("agrs") counted as one edit, so a homoglyph ("argѕ" with
// a Cyrillic letter) is one edit from the key it imitates. Long keys are
// not compared: no accepted key is long, and a hostile file should not
// cost quadratic time.
func editDistance(as, bs string) int {
	a, b := []rune(as), []rune(bs)
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
