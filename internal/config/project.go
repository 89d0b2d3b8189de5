package config

import "path/filepath"

// oneUp and twoUp are the client config directories a project keeps its
// config in: the project is the directory that holds them.
var (
	oneUp = map[string]bool{".vscode": true, ".cursor": true, ".gemini": true, ".codex": true, ".zed": true,
		".roo": true, ".amazonq": true, ".windsurf": true, ".opencode": true}
	twoUp = map[[2]string]bool{{".kiro", "settings"}: true, {".junie", "mcp"}: true,
		{".continue", "mcpServers"}: true, {".codeium", "windsurf"}: true}
)

// ProjectRoot is the directory a config file belongs to: what its relative
// paths (a server's cwd) mean, and the tree a run that reads it is about.
// For .vscode/mcp.json it is the parent of .vscode; for
// .kiro/settings/mcp.json the parent of .kiro; for a file at a project's
// top (.mcp.json, opencode.json), its own directory.
func ProjectRoot(file string) string {
	dir := filepath.Dir(file)
	if oneUp[filepath.Base(dir)] {
		return filepath.Dir(dir)
	}
	parent := filepath.Dir(dir)
	if twoUp[[2]string{filepath.Base(parent), filepath.Base(dir)}] {
		return filepath.Dir(parent)
	}
	return dir
}
