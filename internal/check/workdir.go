package check

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
)

// ValidateWorkDirs refuses a server whose `cwd` resolves, through symlinks,
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
		if s.Cwd == "" || s.Type == config.TypeHTTP || s.Type == config.TypeSSE || s.URL != "" {
			continue
		}
		cwd, err := s.ResolveDir(getenv)
		if err != nil || cwd == "" {
			continue
		}
		file := s.File
		if !filepath.IsAbs(file) && baseDir != "" {
			file = filepath.Join(baseDir, file)
		}
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(projectRoot(file), cwd)
		}
		dir := filepath.Dir(file)
		tree, ok := trees[dir]
		if !ok {
			tree = workTree(file)
			trees[dir] = tree
		}
		bad := func(format string, a ...any) error {
			return &config.Error{File: s.File, Line: s.Line, Msg: fmt.Sprintf("server %q: cwd %q ", s.Name, s.Cwd) + fmt.Sprintf(format, a...)}
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
