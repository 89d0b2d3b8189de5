package pinned

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
)

// launchPathVars are the variables naming per-launch directories a server
// may show, and the placeholder each becomes in pinned text. XDG_CONFIG_HOME
// and its siblings are left to HOME: the sandbox puts them under its HOME,
// and a user's machine where they are unset derives them from HOME too.
// TMPDIR counts only when it is set: a server outside the sandbox with no
// TMPDIR uses /tmp, and replacing every "/tmp" would rewrite ordinary text.
var launchPathVars = []struct{ name, placeholder string }{
	{"HOME", "${HOME}"},
	{"USERPROFILE", "${HOME}"},
	{"TMPDIR", "${TMPDIR}"},
	{"TMP", "${TMPDIR}"},
	{"TEMP", "${TMPDIR}"},
	{"XDG_RUNTIME_DIR", "${XDG_RUNTIME_DIR}"},
}

// LaunchPaths are the directories one launch of a server sees that differ
// between runs and machines (its working directory, HOME, TMPDIR), with the
// placeholders pin records in their place: the sandbox's run directory is
// random (/tmp/tmp.<random>/home/user/project), and a server that shows its
// cwd in a description (figma-developer-mcp) must pin once and check clean
// on every run, on another checkout path and under guard. Every probe of a
// stdio server, and the guard for its own launch, normalise with these
// (redact.Redactor.WithPaths), so live text is compared in the form it was
// pinned in. Each path is given as set and, when it differs, with symlinks
// resolved (what getcwd returns on macOS's /var).
func LaunchPaths(cmd *exec.Cmd) []redact.PathSub {
	if cmd == nil {
		return nil
	}
	var out []redact.PathSub
	add := func(p, placeholder string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		out = append(out, redact.PathSub{Path: p, Placeholder: placeholder})
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			out = append(out, redact.PathSub{Path: real, Placeholder: placeholder})
		}
	}
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	// The working directory first: WithPaths orders by length, and a cwd
	// equal to HOME is the working directory.
	add(dir, "${PWD}")
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	vals := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vals[k] = v
		}
	}
	for _, v := range launchPathVars {
		add(vals[v.name], v.placeholder)
	}
	return out
}
