package config

import (
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml"
)

// A client that is not discovered, or a config path nobody passed with
// --config, runs servers nobody reviewed: the developers using that client
// get them, and the check says nothing. Holders finds, among the files of
// a repository, those that hold an MCP server map, so the caller can
// report each one the run did not read (unchecked-config).

// mapKeys are the keys under which clients keep their servers:
// mcpServers (most), servers (VS Code), mcp (opencode, VS Code's
// settings.json "mcp": {"servers"}), context_servers (Zed), mcp_servers
// (Codex).
var mapKeys = []string{"mcpServers", "servers", "mcp", "context_servers", "mcp_servers"}

// maxHolderBytes bounds what is read of one file: a client config is small,
// and a repository may hold large data files with these extensions.
const maxHolderBytes = 1 << 20

// Holder is a file that holds an MCP server map.
type Holder struct {
	// File is the path relative to the directory searched, slash-separated.
	File string
	// Key is the map's key ("mcpServers"); Line its 1-based line (0 when
	// the format gives none); Servers the names in it, sorted.
	Key     string
	Line    int
	Servers []string
}

// Holders lists the files under dir that hold an MCP server map, sorted by
// path. The files are those git tracks under dir (honouring .gitignore, as
// git does: an ignored file is not tracked unless someone forced it in);
// outside a git work tree it returns nothing and ok false: there is no
// repository to speak of, and walking a home directory would be neither
// bounded nor meaningful. Files that cannot be read or parsed are skipped:
// a config that is read reports its own errors.
func Holders(ctx context.Context, dir string) (out []Holder, ok bool, err error) {
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-z", "--cached", "--", ".")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), "not a git repository") {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("listing the repository's files with git: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	for _, rel := range strings.Split(stdout.String(), "\x00") {
		if rel == "" || !candidate(rel) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxHolderBytes {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if h, found := HoldsServers(rel, data); found {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b Holder) int { return strings.Compare(a.File, b.File) })
	return out, true, nil
}

// candidate reports whether a file's name is one a client config can
// have: JSON (with comments), YAML or TOML.
func candidate(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".json", ".jsonc", ".json5", ".yaml", ".yml", ".toml":
		return true
	}
	return false
}

// HoldsServers reports whether data (a file named name) holds an MCP
// server map: one of mapKeys, at the top level or up to two objects down
// (VS Code's "mcp": {"servers": ...}, Claude Code's per-project maps),
// whose value maps names to objects with a command or url, or lists
// such objects (Continue). The shape must look like servers so that,
// say, an OpenAPI document's "servers" list of URLs is not taken for one.
func HoldsServers(name string, data []byte) (Holder, bool) {
	if !bytes.Contains(data, []byte("servers")) && !bytes.Contains(data, []byte("Servers")) && !bytes.Contains(data, []byte("mcp")) {
		return Holder{}, false
	}
	var v any
	switch strings.ToLower(path.Ext(name)) {
	case ".toml":
		if _, err := toml.Decode(string(data), &v); err != nil {
			return Holder{}, false
		}
	case ".yaml", ".yml":
		if !safeYAML(data) {
			// Not decoded (aliases can expand without bound), and not
			// passed over either: a file that may hold servers is
			// reported, unread.
			for _, k := range mapKeys {
				if bytes.Contains(data, []byte(k+":")) {
					return Holder{File: name, Key: k, Line: keyLine(data, k)}, true
				}
			}
			return Holder{}, false
		}
		if err := yaml.Unmarshal(data, &v); err != nil {
			return Holder{}, false
		}
	default:
		clean, err := standardJSON(data)
		if err != nil || json.Unmarshal(clean, &v) != nil {
			return Holder{}, false
		}
	}
	key, servers, ok := findServerMap(v, 0)
	if !ok {
		return Holder{}, false
	}
	return Holder{File: name, Key: key, Line: keyLine(data, key), Servers: servers}, true
}

// safeYAML refuses YAML with anchors or aliases before it is decoded: a
// few lines of aliases can expand to gigabytes (and a repository is
// untrusted input). The lexer only splits the text into tokens; it expands
// nothing. A workflow's `&&` and `*` are not anchors and pass.
func safeYAML(data []byte) bool {
	if !bytes.ContainsAny(data, "&*") {
		return true
	}
	for _, tk := range lexer.Tokenize(string(data)) {
		if tk.Type == token.AnchorType || tk.Type == token.AliasType {
			return false
		}
	}
	return true
}

// findServerMap looks for a server map in v, depth objects down.
func findServerMap(v any, depth int) (key string, servers []string, ok bool) {
	m, isMap := asMap(v)
	if !isMap || depth > 2 {
		return "", nil, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(mapKeys, k) {
			continue
		}
		if _, isList := m[k].([]any); isList && k != "mcpServers" {
			// Only Continue lists servers, under mcpServers; an OpenAPI
			// document's "servers" is a list of URLs.
			continue
		}
		if names := serverNames(m[k]); len(names) > 0 {
			return k, names, true
		}
		// opencode 2.x and VS Code settings: "mcp": {"servers": {...}}.
		if inner, ok := asMap(m[k]); ok {
			if names := serverNames(inner["servers"]); len(names) > 0 {
				return k + ".servers", names, true
			}
		}
	}
	for _, k := range keys {
		if key, names, ok := findServerMap(m[k], depth+1); ok {
			return k + "." + key, names, true
		}
	}
	return "", nil, false
}

// serverNames returns the names in v when it looks like servers: a map of
// names to server-shaped objects, or a list of server-shaped objects with
// names.
func serverNames(v any) []string {
	var names []string
	if m, ok := asMap(v); ok {
		for name, s := range m {
			if serverShaped(s) {
				names = append(names, name)
			}
		}
	} else if list, ok := v.([]any); ok {
		for _, s := range list {
			if sm, ok := asMap(s); ok && serverShaped(s) {
				if n, _ := sm["name"].(string); n != "" {
					names = append(names, n)
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// serverShaped reports whether v is an object that launches or reaches a
// server: it has a command (string, list or Zed's object) or a URL.
func serverShaped(v any) bool {
	m, ok := asMap(v)
	if !ok {
		return false
	}
	for _, k := range []string{"command", "url", "httpUrl", "serverUrl"} {
		if _, has := m[k]; has {
			return true
		}
	}
	return false
}

// asMap accepts the map types the JSON, YAML and TOML decoders produce.
func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[fmt.Sprint(k)] = x
		}
		return out, true
	}
	return nil, false
}

// keyLine is the line of the first occurrence of the map's last key, a
// good place to point a reviewer at; 0 if not found.
func keyLine(data []byte, key string) int {
	last := key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		last = key[i+1:]
	}
	for _, pat := range []string{`"` + last + `"`, last + ":", "[" + last + ".", last + " ="} {
		if i := bytes.Index(data, []byte(pat)); i >= 0 {
			return 1 + bytes.Count(data[:i], []byte("\n"))
		}
	}
	return 0
}
