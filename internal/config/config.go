package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Server is one MCP server entry from a client config file.
type Server struct {
	Name    string
	Type    string            // "stdio" (default when command is set), "http", "sse"
	Command string            // as written, placeholders NOT expanded
	Args    []string          // as written
	Env     map[string]string // as written (values may hold ${VAR} placeholders or literal secrets)
	Cwd     string
	URL     string
	Headers map[string]string
	File    string // path of the config file it came from
	Line    int    // 1-based line of the server's entry (the line of its key) in File
	// UnknownKeys are the keys of the entry its format does not accept
	// (a typo such as "arg" for "args"): the client ignores them.
	UnknownKeys []KeyWarning `json:",omitempty"`
	// Guard is set when the entry ran behind mcp-lockcheck's own guard
	// wrapper and UnwrapGuard put the launch inside it in Command and Args.
	Guard  *GuardWrap `json:",omitempty"`
	Client string     // which client's config this is: "claude-code", "claude-desktop", "cursor", "vscode", "windsurf", "gemini-cli", "codex", "zed", "roo-code", "kiro", "amazon-q", "junie", "continue", "opencode", or "unknown"
}

// Transport types a Server can have after normalisation.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http" // streamable HTTP
	TypeSSE   = "sse"  // the deprecated HTTP+SSE transport
)

// Client names, as stored in Server.Client and accepted by ClientInfo.
const (
	ClientClaudeCode    = "claude-code"
	ClientClaudeDesktop = "claude-desktop"
	ClientCursor        = "cursor"
	ClientVSCode        = "vscode"
	ClientWindsurf      = "windsurf"
	ClientGeminiCLI     = "gemini-cli"
	ClientCodex         = "codex"
	ClientZed           = "zed"
	ClientRooCode       = "roo-code"
	ClientKiro          = "kiro"
	ClientAmazonQ       = "amazon-q"
	ClientJunie         = "junie"
	ClientContinue      = "continue"
	ClientOpenCode      = "opencode"
	ClientUnknown       = "unknown"
)

// Error is a problem in a config file, with its position.
// Line and Column are 1-based (Column counts bytes) and 0 when unknown.
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

// Error renders "FILE:LINE:COL: MSG", dropping the parts of the position that
// are unknown rather than printing a misleading ":0".
func (e *Error) Error() string {
	switch {
	case e.Line <= 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Column <= 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Load reads one config file and returns its servers sorted by name.
func Load(path string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		// *fs.PathError already names the file.
		return nil, fmt.Errorf("reading MCP config: %w", err)
	}
	return Parse(path, data)
}

// Parse reads config data as if it came from the file name: the name picks
// the format (.toml is Codex, anything else JSON with comments) and the client,
// and is used in errors. Servers are sorted by name. Every error is an *Error.
func Parse(name string, data []byte) ([]Server, error) {
	client := detectClient(name)
	var (
		servers []Server
		err     error
	)
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case ext == ".toml":
		servers, err = parseTOML(name, data, client)
	case ext == ".yaml" || ext == ".yml":
		servers, err = parseContinueYAML(name, data, client)
	case client == ClientOpenCode:
		servers, err = parseOpenCode(name, data)
	default:
		servers, err = parseJSON(name, data, client)
	}
	if err != nil {
		return nil, err
	}
	if unknown := UnknownKeys(name, data); len(unknown) > 0 {
		for i := range servers {
			for _, w := range unknown {
				if w.Server == servers[i].Name {
					servers[i].UnknownKeys = append(servers[i].UnknownKeys, w)
				}
			}
		}
	}
	slices.SortFunc(servers, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return servers, nil
}

// discoverable are the project-level config files Discover looks for, relative
// to the project root, in sorted order so that the result is deterministic:
// every file a mainstream client reads from a project, since a server
// configured in any of them reaches an agent as much as one in .mcp.json
// (Roo Code's .roo/mcp.json, Kiro's .kiro/settings/mcp.json, Amazon Q's
// .amazonq/mcp.json and .amazonq/default.json, Junie's .junie/mcp/mcp.json,
// opencode's opencode.json(c), Windsurf's mcp_config.json under .windsurf;
// Continue's .continue/mcpServers/ directory is listed by Discover).
// User-level files (~/.claude.json, ~/.codex/config.toml, Zed's user
// settings, Cline's cline_mcp_settings.json) are deliberately absent: a
// repository check must not depend on the home directory of whoever runs
// it; pass those with --config.
var discoverable = []string{
	".amazonq/default.json",
	".amazonq/mcp.json",
	".codex/config.toml",
	".cursor/mcp.json",
	".gemini/settings.json",
	".junie/mcp/mcp.json",
	".kiro/settings/mcp.json",
	".mcp.json",
	".opencode/opencode.json",
	".opencode/opencode.jsonc",
	".roo/mcp.json",
	".vscode/mcp.json",
	".windsurf/mcp_config.json",
	".zed/settings.json",
	"claude_desktop_config.json",
	"mcp.json",
	"opencode.json",
	"opencode.jsonc",
}

// continueDir holds Continue's per-server block files (YAML, or JSON in
// the mcpServers shape), one or more servers each.
const continueDir = ".continue/mcpServers"

// Discover returns the project config files that exist in dir (regular files
// only), sorted by their path relative to dir.
func Discover(dir string) []string {
	var rels []string
	rels = append(rels, discoverable...)
	if ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(continueDir))); err == nil {
		for _, e := range ents {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".yaml", ".yml", ".json":
				rels = append(rels, continueDir+"/"+e.Name())
			}
		}
	}
	slices.Sort(rels)
	var found []string
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			found = append(found, p)
		}
	}
	return found
}

// Discoverable reports whether rel (slash-separated, relative to the
// project root) is a path Discover looks at.
func Discoverable(rel string) bool {
	if slices.Contains(discoverable, rel) {
		return true
	}
	dir, file := path.Split(rel)
	switch strings.ToLower(path.Ext(file)) {
	case ".yaml", ".yml", ".json":
		return dir == continueDir+"/"
	}
	return false
}

// LoadAll loads every file and merges their servers, sorted by name.
//
// Two clients may legitimately configure the same server (say .mcp.json and
// .vscode/mcp.json both run the filesystem server); when the launch is
// identical the first file's entry is kept. When it differs the lock could
// only approve one of them, so that is an error naming both places. Errors of
// all files are returned together.
func LoadAll(paths []string) ([]Server, error) {
	var (
		errs   []error
		merged []Server
		byName = map[string]int{}
	)
	for _, p := range paths {
		servers, err := Load(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, s := range servers {
			i, seen := byName[s.Name]
			if !seen {
				byName[s.Name] = len(merged)
				merged = append(merged, s)
				continue
			}
			first := merged[i]
			if field := launchDiff(first, s); field != "" {
				errs = append(errs, &Error{File: s.File, Line: s.Line, Msg: fmt.Sprintf(
					"server %q is also defined at %s:%d with a different %s; rename one of them or make them identical",
					s.Name, first.File, first.Line, field)})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortStableFunc(merged, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return merged, nil
}

// launchDiff names the first field in which two entries launch differently,
// or returns "" when they launch the same server. Only field names are
// returned: values (env in particular) may be secrets.
func launchDiff(a, b Server) string {
	switch {
	case a.Type != b.Type:
		return "type"
	case a.Command != b.Command:
		return "command"
	case !slices.Equal(a.Args, b.Args):
		return "args"
	case !maps.Equal(a.Env, b.Env):
		return "env"
	case a.Cwd != b.Cwd:
		return "cwd"
	case a.URL != b.URL:
		return "url"
	case !maps.Equal(a.Headers, b.Headers):
		return "headers"
	}
	return ""
}

// EnvNames returns the sorted names of the environment variables the entry
// sets. Names, never values, are what the lock records.
func (s Server) EnvNames() []string {
	return slices.Sorted(maps.Keys(s.Env))
}

// Names lists the servers' names for a message ("configured: a, b"):
// joined with ", " in the order given, or "none" when there are none.
func Names(ss []Server) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

// detectClient tells which client a config file belongs to from its path
// alone; parseJSON refines "unknown" from the file's shape.
func detectClient(name string) string {
	p := filepath.ToSlash(filepath.Clean(name))
	base := strings.ToLower(filepath.Base(name))
	parent := strings.ToLower(filepath.Base(filepath.Dir(name)))
	hasDir := func(d string) bool {
		for _, part := range strings.Split(strings.ToLower(p), "/") {
			if part == d {
				return true
			}
		}
		return false
	}
	switch {
	case base == ".mcp.json" || base == ".claude.json":
		return ClientClaudeCode
	case base == "claude_desktop_config.json":
		return ClientClaudeDesktop
	case base == "mcp.json" && parent == ".vscode":
		return ClientVSCode
	case base == "mcp.json" && parent == ".cursor":
		return ClientCursor
	case base == "settings.json" && parent == ".gemini":
		return ClientGeminiCLI
	case base == "mcp_config.json" && (hasDir("windsurf") || hasDir(".windsurf") || hasDir(".codeium")):
		return ClientWindsurf
	case base == "config.toml" && parent == ".codex":
		return ClientCodex
	case base == "settings.json" && (parent == "zed" || parent == ".zed"):
		return ClientZed
	case base == "mcp.json" && parent == ".roo":
		return ClientRooCode
	case base == "mcp.json" && parent == "settings" && hasDir(".kiro"):
		return ClientKiro
	case (base == "mcp.json" || base == "default.json") && parent == ".amazonq":
		return ClientAmazonQ
	case base == "mcp.json" && parent == "mcp" && hasDir(".junie"):
		return ClientJunie
	case parent == "mcpservers" && hasDir(".continue"):
		return ClientContinue
	case base == "opencode.json" || base == "opencode.jsonc":
		return ClientOpenCode
	}
	return ClientUnknown
}

// inferType sets the type of an entry that names none from what it gives:
// stdio for a command, remote (the type the client assumes for a URL) for
// a URL. It reports false when the entry has neither, which every reader
// refuses in its own file's terms.
func inferType(s *Server, remote string) bool {
	switch {
	case s.Command != "":
		s.Type = TypeStdio
	case s.URL != "":
		s.Type = remote
	default:
		return false
	}
	return true
}
