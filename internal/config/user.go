package config

import (
	"os"
	"strings"
)

// User-level configs: the files a client reads from the user's profile
// rather than from a project. `--user` checks, pins and guards these; a
// repository check never reads them (see discoverable). Locations are the
// clients' documented ones, per platform.

// userDirs resolves goos's path separator, the user's home and the
// per-user application data directory: Application Support on macOS,
// %APPDATA% (roaming) on Windows, XDG_CONFIG_HOME elsewhere.
func userDirs(goos string, getenv func(string) string) (join func(string, ...string) string, home, appData string) {
	sep := "/"
	home = getenv("HOME")
	if goos == "windows" {
		sep = `\`
		home = getenv("USERPROFILE")
	}
	join = func(base string, elem ...string) string {
		if base == "" {
			return ""
		}
		return strings.TrimRight(base, sep) + sep + strings.Join(elem, sep)
	}
	switch goos {
	case "darwin":
		appData = join(home, "Library", "Application Support")
	case "windows":
		appData = getenv("APPDATA")
		if appData == "" {
			appData = join(home, "AppData", "Roaming")
		}
	default:
		appData = getenv("XDG_CONFIG_HOME")
		if appData == "" {
			appData = join(home, ".config")
		}
	}
	return join, home, appData
}

// userConfigs lists, for goos, the user-level config files of each client
// whose location is documented. Paths are joined with goos's separator, so
// the table is testable on any OS.
func userConfigs(goos string, getenv func(string) string) []string {
	join, home, appData := userDirs(goos, getenv)
	codexHome := getenv("CODEX_HOME")
	if codexHome == "" {
		codexHome = join(home, ".codex")
	}
	zed := join(home, ".config", "zed", "settings.json")
	if goos == "windows" {
		zed = join(appData, "Zed", "settings.json")
	} else if x := getenv("XDG_CONFIG_HOME"); x != "" && goos != "darwin" {
		zed = join(x, "zed", "settings.json")
	}
	paths := []string{
		join(appData, "Claude", "claude_desktop_config.json"), // Claude Desktop
		join(home, ".claude.json"),                            // Claude Code
		join(home, ".cursor", "mcp.json"),                     // Cursor
		join(home, ".codeium", "windsurf", "mcp_config.json"), // Windsurf
		join(appData, "Code", "User", "mcp.json"),             // VS Code user profile
		join(home, ".gemini", "settings.json"),                // Gemini CLI
		join(codexHome, "config.toml"),                        // Codex
		zed,                                                   // Zed
	}
	out := paths[:0]
	for _, p := range paths {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// UserConfigPaths returns where goos's clients keep their user-level
// configs, whether or not the files exist.
func UserConfigPaths(goos string, getenv func(string) string) []string {
	return userConfigs(goos, getenv)
}

// UserConfigs returns the user-level config files that exist on this
// machine (regular files only), in the order of the table above.
func UserConfigs(goos string, getenv func(string) string) []string {
	var found []string
	for _, p := range userConfigs(goos, getenv) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			found = append(found, p)
		}
	}
	return found
}

// UserLockPath is the default lock for --user: under macOS's Application
// Support, Windows' %APPDATA% or the XDG config directory.
func UserLockPath(goos string, getenv func(string) string) string {
	join, _, appData := userDirs(goos, getenv)
	return join(appData, "mcp-lockcheck", "mcp-lock.json")
}
