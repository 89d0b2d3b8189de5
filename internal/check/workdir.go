package check

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
)

// workDir is the directory a stdio server's launches start in, as the
// client the config belongs to would start it (docs/usage.md, "Where a
// server starts"):
//
//   - the entry's cwd, placeholders expanded, a relative one taken from the
//     project the config belongs to;
//   - with no cwd, that project's root: Claude Code, Cursor, VS Code and the
//     other project-level clients start a project's servers there, so
//     `node srv/index.mjs` and `./scripts/server.sh` resolve as they do for
//     the user;
//   - with no cwd in a user-level config (--user: Claude Desktop, ~/.claude.json,
//     ~/.cursor/mcp.json, ...), "": there is no project, and the sandbox's
//     own empty project directory stands in for the directory the client
//     happens to run in.
//
// file is the config's path, absolute or relative to baseDir. A cwd whose
// placeholders cannot be expanded is an error the caller reports.
func workDir(s config.Server, baseDir string, getenv func(string) (string, bool)) (dir string, set bool, err error) {
	file := s.File
	if !filepath.IsAbs(file) && baseDir != "" {
		file = filepath.Join(baseDir, file)
	}
	cwd, err := s.ResolveDir(getenv)
	if err != nil {
		return "", false, err
	}
	if cwd == "" {
		if isUserConfig(file, getenv) {
			return "", false, nil
		}
		return projectRoot(file), false, nil
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(projectRoot(file), cwd)
	}
	return cwd, true, nil
}

// isUserConfig reports whether file is one of this machine's user-level
// client configs.
func isUserConfig(file string, getenv func(string) (string, bool)) bool {
	get := func(k string) string { v, _ := getenv(k); return v }
	clean := filepath.Clean(file)
	real, _ := filepath.EvalSymlinks(clean)
	for _, u := range config.UserConfigPaths(runtime.GOOS, get) {
		u = filepath.Clean(u)
		if u == clean || u == real {
			return true
		}
		if ru, err := filepath.EvalSymlinks(u); err == nil && (ru == clean || ru == real) {
			return true
		}
	}
	return false
}

// ValidateWorkDirs refuses a server whose working directory (workDir: its
// `cwd`, or the project root it defaults to) resolves, through symlinks,
// outside the repository work tree that holds its config, or inside a .git
// directory. The config is repository content, often a pull request's: a
// cwd in the real HOME, behind a committed symlink, in /proc or in .git is
// a way to make the sandbox grant what it otherwise would not, and the
// run's own directories are never a server's business. The error is a
// *config.Error naming the file and the server's line (exit 2).
//
// A cwd whose placeholders cannot be expanded is left to the probe, which
// holds that server with the reason. baseDir is what relative config paths
// are relative to; getenv expands placeholders.
func ValidateWorkDirs(servers []config.Server, baseDir string, getenv func(string) (string, bool)) error {
	trees := map[string]string{}
	for _, s := range servers {
		if s.Type == config.TypeHTTP || s.Type == config.TypeSSE || s.URL != "" {
			continue
		}
		cwd, set, err := workDir(s, baseDir, getenv)
		if err != nil || cwd == "" {
			continue
		}
		file := s.File
		if !filepath.IsAbs(file) && baseDir != "" {
			file = filepath.Join(baseDir, file)
		}
		dir := filepath.Dir(file)
		tree, ok := trees[dir]
		if !ok {
			tree = workTree(file)
			trees[dir] = tree
		}
		bad := func(format string, a ...any) error {
			what := fmt.Sprintf("cwd %q", s.Cwd)
			if !set {
				what = fmt.Sprintf("project root %s (where a server with no cwd starts)", cwd)
			}
			return &config.Error{File: s.File, Line: s.Line, Msg: fmt.Sprintf("server %q: %s ", s.Name, what) + fmt.Sprintf(format, a...)}
		}
		real, err := filepath.EvalSymlinks(cwd)
		if err != nil {
			return bad("cannot be resolved: %v", err)
		}
		rel, err := filepath.Rel(tree, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return bad("resolves to %s, outside the repository work tree %s: a server's working directory must lie in the repository", real, tree)
		}
		for _, el := range strings.Split(rel, string(filepath.Separator)) {
			if el == ".git" {
				return bad("resolves into %s, the repository's .git directory", real)
			}
		}
	}
	return nil
}

// workTree is the root of the git work tree that holds file, symlinks
// resolved; outside git, the project root the config belongs to.
func workTree(file string) string {
	dir := filepath.Dir(file)
	root := projectRoot(file)
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output(); err == nil {
		if t := strings.TrimSpace(string(out)); t != "" {
			root = t
		}
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		return real
	}
	return root
}
