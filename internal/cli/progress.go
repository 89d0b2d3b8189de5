package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/ghcmd"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// progressStyle is how progress is written on stderr (--progress).
type progressStyle string

// Progress styles: the closed set parseProgressStyle accepts.
const (
	progressAuto   progressStyle = "auto"
	progressPlain  progressStyle = "plain"
	progressTTY    progressStyle = "tty"
	progressGitHub progressStyle = "github"
)

// parseProgressStyle reads a --progress value.
func parseProgressStyle(s string) (progressStyle, error) {
	switch st := progressStyle(s); st {
	case progressAuto, progressPlain, progressTTY, progressGitHub:
		return st, nil
	}
	return "", usageErr("--progress %q: want auto, plain, tty or github", s)
}

// newProgress returns the engine's progress callback for style: "plain"
// writes a line per event, "tty" keeps one line per server and rewrites
// them in place, "github" wraps each server's lines in a
// `::group::`/`::endgroup::` log group. "auto" picks github when
// GITHUB_ACTIONS=true, tty when w is a terminal, plain otherwise.
// Without verbose only the start of each launch and the end of each
// server are told; with it, every phase. Server names are escaped: a
// name is config text, and a newline in it could start a workflow
// command. In github style the name is also neutralized (ghcmd): a name
// such as "::stop-commands::x" or "##[error]..." must not become a runner
// command, and only the group lines go out as commands (ghcmd.Own).
func newProgress(w io.Writer, env Env, style progressStyle, verbose bool) func(server, phase string) {
	if style == progressAuto {
		switch {
		case getenvIs(env, "GITHUB_ACTIONS", "true"):
			style = progressGitHub
		case isTerminal(w):
			style = progressTTY
		default:
			style = progressPlain
		}
	}
	p := &progressWriter{w: w, style: style, verbose: verbose, phase: map[string]string{}}
	return p.event
}

func getenvIs(env Env, name, want string) bool {
	if env.Getenv == nil {
		return false
	}
	v, ok := env.Getenv(name)
	return ok && v == want
}

type progressWriter struct {
	mu      sync.Mutex
	w       io.Writer
	style   progressStyle
	verbose bool
	// tty: the servers in first-seen order, their current phase, and how
	// many lines are on screen to move back over.
	order []string
	phase map[string]string
	drawn int
	// github: the server whose group is open ("" none).
	open string
}

// shows reports whether a phase is worth a line without --verbose: the
// start of a launch, and the end of the server.
func shows(phase string, verbose bool) bool {
	return verbose || phase == "done" || strings.HasSuffix(phase, "/start")
}

func phaseText(phase string) string {
	return strings.TrimSuffix(phase, "/start")
}

func (p *progressWriter) event(server, phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name := inert.Text(server)
	switch p.style {
	case progressPlain:
		if shows(phase, p.verbose) {
			fmt.Fprintf(p.w, "mcp-lockcheck: %s: %s\n", name, phaseText(phase))
		}
	case progressTTY:
		if _, ok := p.phase[name]; !ok {
			p.order = append(p.order, name)
		}
		p.phase[name] = phaseText(phase)
		p.redraw()
	case progressGitHub:
		if !shows(phase, p.verbose) {
			return
		}
		name = ghcmd.Neutralize(name)
		own := ghcmd.Own(p.w)
		if p.open != name {
			if p.open != "" {
				fmt.Fprintln(own, "::endgroup::")
			}
			fmt.Fprintf(own, "::group::mcp-lockcheck %s\n", name)
			p.open = name
		}
		fmt.Fprintln(p.w, ghcmd.Neutralize(name+": "+phaseText(phase)))
		if phase == "done" {
			fmt.Fprintln(own, "::endgroup::")
			p.open = ""
		}
	}
}

// redraw moves the cursor back over the lines drawn before and writes
// one line per server, each cleared first: the lines are replaced in
// place, and a finished server's last line stays as its record.
func (p *progressWriter) redraw() {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	for _, name := range p.order {
		fmt.Fprintf(&b, "\r\x1b[2Kmcp-lockcheck: %s: %s\n", name, p.phase[name])
	}
	p.drawn = len(p.order)
	io.WriteString(p.w, b.String())
}
