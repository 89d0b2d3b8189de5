package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// cutText is how many runes of one value a diff shows before cutting;
// approve's "show full text" shows everything.
const cutText = 400

// painter colours diff lines. It is off unless the output is a terminal
// and NO_COLOR is unset (https://no-color.org: any value, even empty,
// turns colour off); escapes of server text apply either way, so colour
// codes are the only control sequences that ever reach the terminal, and
// only ours.
type painter struct{ on bool }

func newPainter(env Env, w io.Writer) painter {
	if _, set := env.Getenv("NO_COLOR"); set {
		return painter{}
	}
	return painter{on: isTerminal(w)}
}

// termWidth is the width text for w is wrapped to: $COLUMNS, else the
// terminal's, else report.DefaultWidth.
func termWidth(env Env, w any) int {
	if v, ok := env.Getenv("COLUMNS"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			return n
		}
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return report.DefaultWidth
}

// isTerminal reports whether w is a terminal (a file whose termios can be
// read; /dev/null and pipes are not).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p painter) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p painter) red(s string) string   { return p.paint("31", s) }
func (p painter) green(s string) string { return p.paint("32", s) }
func (p painter) cyan(s string) string  { return p.paint("36", s) }
func (p painter) bold(s string) string  { return p.paint("1", s) }
func (p painter) dim(s string) string   { return p.paint("2", s) }

// shown is server text made safe for a terminal: escaped, and cut to
// limit runes unless limit is 0.
func shown(s string, limit int) string { return cut(inert.Text(s), limit) }

// shownComposed is shown for text this program composed around server text
// it already escaped (a finding's message or detail, a held reason, an
// error): made inert without escaping those escapes again.
func shownComposed(s string, limit int) string { return cut(inert.Composed(s), limit) }

// cut cuts escaped text to limit runes unless limit is 0.
func cut(e string, limit int) string {
	if limit > 0 {
		if r := []rune(e); len(r) > limit {
			return string(r[:limit]) + fmt.Sprintf("… (%d more characters; show the full text to see them)", len(r)-limit)
		}
	}
	return e
}

// writeHidden adds the text hidden in tag characters, decoded, below a
// value that holds any.
func writeHidden(w io.Writer, p painter, indent, s string) {
	if t := inspect.DecodeTags(s); t != "" {
		fmt.Fprintf(w, "%s%s %s\n", indent, p.bold("hidden tag text, decoded:"), shown(t, cutText))
	}
}

// writeValueDiff writes one field's before and after.
func writeValueDiff(w io.Writer, p painter, indent, before, after string, limit int) {
	if before != "" {
		fmt.Fprintf(w, "%s%s\n", indent, p.red("- "+shown(before, limit)))
		writeHidden(w, p, indent+"  ", before)
	}
	if after != "" {
		fmt.Fprintf(w, "%s%s\n", indent, p.green("+ "+shown(after, limit)))
		writeHidden(w, p, indent+"  ", after)
	}
}

// changeMark is the one-character sign of a change.
func changeMark(op string) string {
	switch op {
	case approval.OpAdded:
		return "+"
	case approval.OpRemoved:
		return "-"
	case approval.OpRenamed:
		return ">"
	}
	return "~"
}

// changeTitle is "text/tool/summarize (changed)", escaped.
func changeTitle(c approval.Change) string {
	id := c.ID()
	if c.Op == approval.OpRenamed {
		id = c.Server + "/" + string(c.Kind) + "/" + c.From + " -> " + c.Name
	}
	return shown(id, 0) + " (" + c.Op + ")"
}

// writeChange shows one change as a field-level diff: the changed field
// paths with their before and after values, the whole definition of an
// added or removed entry. full shows every value uncut.
func writeChange(w io.Writer, p painter, c approval.Change, full bool) {
	limit := cutText
	if full {
		limit = 0
	}
	fmt.Fprintf(w, "%s %s\n", p.bold(changeMark(c.Op)), p.bold(changeTitle(c)))
	switch {
	case full:
		if c.Before != nil {
			fmt.Fprintln(w, "    "+p.dim("in the lock:"))
			writeJSONLines(w, p.red, "      - ", c.Before)
		}
		if c.After != nil {
			fmt.Fprintln(w, "    "+p.dim("live:"))
			writeJSONLines(w, p.green, "      + ", c.After)
		}
	case len(c.Fields) > 0:
		for _, f := range c.Fields {
			path := f.Path
			if path == "" {
				path = "(whole definition)"
			}
			fmt.Fprintf(w, "    %s\n", p.cyan(shown(path, 0)))
			writeValueDiff(w, p, "      ", f.Before, f.After, limit)
		}
	default:
		writeValueDiff(w, p, "      ", string(c.Before), string(c.After), limit)
	}
}

// writeJSONLines pretty-prints canonical JSON, one escaped line at a time.
func writeJSONLines(w io.Writer, colour func(string) string, prefix string, b []byte) {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		fmt.Fprintln(w, colour(prefix+shown(string(b), 0)))
		return
	}
	for _, line := range strings.Split(out.String(), "\n") {
		fmt.Fprintln(w, colour(prefix+shown(line, 0)))
	}
	var v any
	if json.Unmarshal(b, &v) == nil {
		seen := map[string]bool{}
		var walk func(any)
		walk = func(v any) {
			switch t := v.(type) {
			case string:
				if tags := inspect.DecodeTags(t); tags != "" && !seen[tags] {
					seen[tags] = true
					fmt.Fprintf(w, "%shidden tag text, decoded: %s\n", strings.Repeat(" ", len(prefix)), shown(tags, 0))
				}
			case map[string]any:
				for _, x := range t {
					walk(x)
				}
			case []any:
				for _, x := range t {
					walk(x)
				}
			}
		}
		walk(v)
	}
}

// driftRules are the findings diff shows as a diff; every other finding
// is listed below it with its message.
var driftRules = map[finding.RuleID]bool{
	finding.ToolAdded: true, finding.ToolRemoved: true, finding.ToolChanged: true,
	finding.PromptAdded: true, finding.PromptRemoved: true, finding.PromptChanged: true,
	finding.ResourceAdded: true, finding.ResourceRemoved: true, finding.ResourceChanged: true,
	finding.ResourceTemplateAdded: true, finding.ResourceTemplateRemoved: true, finding.ResourceTemplateChanged: true,
	finding.InstructionsChanged: true, finding.LaunchChanged: true, finding.ServerInfoChanged: true,
	finding.CapabilitiesChanged: true, finding.PackageChanged: true, finding.UnstableManifest: true,
}

// WriteDiff renders a check report as a diff for a terminal: per server
// its verdict, then per changed subject its changed fields with the lock's
// and the live value, then the other findings. All server text is escaped.
func WriteDiff(w io.Writer, p painter, r *report.Report) {
	for _, s := range r.Servers {
		writeDiffServer(w, p, s)
	}
	sum := r.Summary
	fmt.Fprintf(w, "\n%d server(s): %d ok, %d drift, %d held; %d finding(s)\n", sum.Servers, sum.OK, sum.Drift, sum.Held, sum.Findings)
}

// writeDiffServer writes one server's verdict, its drift findings as a
// diff, then its other findings.
func writeDiffServer(w io.Writer, p painter, s report.Server) {
	fmt.Fprintf(w, "%s %s\n", p.bold("server "+shown(s.Name, 0)+":"), statusText(p, s))
	if s.Reason != "" {
		fmt.Fprintf(w, "  %s\n", shownComposed(s.Reason, cutText))
	}
	var others []finding.Finding
	lastSubject := ""
	for _, f := range s.Findings {
		if !driftRules[f.Rule] {
			others = append(others, f)
			continue
		}
		lastSubject = writeDriftFinding(w, p, s.Name, f, lastSubject)
	}
	for _, f := range others {
		writeOtherFinding(w, p, f)
	}
}

// writeDriftFinding writes a drift finding's changed field and values,
// under a heading for its rule and subject unless lastSubject (returned
// updated) says the one before had the same.
func writeDriftFinding(w io.Writer, p painter, server string, f finding.Finding, lastSubject string) string {
	subject := string(f.Kind) + "/" + f.Subject
	if f.Kind == finding.KindServer || f.Kind == "" {
		subject = f.Field
		if subject == "" {
			subject = f.Subject
		}
	}
	if id := string(f.Rule) + "\x00" + subject; id != lastSubject {
		lastSubject = id
		fmt.Fprintf(w, "%s %s %s\n", p.bold(ruleMark(string(f.Rule))), p.bold(shown(server+"/"+subject, 0)), p.dim("("+string(f.Rule)+", "+f.Severity.String()+")"))
	}
	if f.Field != "" && f.Kind != finding.KindServer {
		fmt.Fprintf(w, "    %s", p.cyan(shown(f.Field, 0)))
		if f.Phase != "" {
			fmt.Fprint(w, p.dim("  at "+shown(f.Phase, 0)))
		}
		fmt.Fprintln(w)
	}
	writeValueDiff(w, p, "      ", f.Before, f.After, cutText)
	return lastSubject
}

// writeOtherFinding writes a finding that is not drift: its message,
// field, detail and any hidden text.
func writeOtherFinding(w io.Writer, p painter, f finding.Finding) {
	ack := ""
	if f.Acknowledged {
		ack = " acknowledged: " + shown(f.AckReason, 0)
	}
	subject := f.Subject
	if f.Kind != "" && f.Kind != finding.KindServer {
		subject = string(f.Kind) + "/" + f.Subject
	}
	fmt.Fprintf(w, "%s %s %s %s%s\n", p.bold("!"), shown(subject, 0), p.dim("("+string(f.Rule)+", "+f.Severity.String()+")"), shownComposed(f.Message, cutText), ack)
	if f.Field != "" {
		fmt.Fprintf(w, "    %s %s\n", p.dim("field"), p.cyan(shown(f.Field, 0)))
	}
	if f.Detail != "" {
		fmt.Fprintf(w, "    %s\n", shownComposed(f.Detail, cutText))
	}
	writeHidden(w, p, "    ", f.After)
}

func statusText(p painter, s report.Server) string {
	switch s.Status {
	case report.StatusOK:
		return p.green(string(s.Status))
	case report.StatusHeld:
		return p.bold(string(s.Status))
	}
	return p.red(string(s.Status))
}

func ruleMark(rule string) string {
	switch {
	case strings.HasSuffix(rule, "-added"):
		return "+"
	case strings.HasSuffix(rule, "-removed"):
		return "-"
	}
	return "~"
}

// diffFlags are diff's flags: the probe's and the threshold.
type diffFlags struct {
	probing
	failOn string
}

func (c *diffFlags) register(fs *flag.FlagSet) {
	c.probing.register(fs)
	fs.StringVar(&c.failOn, "fail-on", "error", "lowest `SEVERITY` that fails the run: error, warning, note or never")
}

func runDiff(ctx context.Context, args []string, env Env) (int, error) {
	var c diffFlags
	fs := newFlagSet("diff", env)
	c.register(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	cfg, err := c.config(env, c.failOn)
	if err != nil {
		return ExitUsage, err
	}
	// The servers' changes as word diffs: no repository scan, no base.
	cfg.ServersOnly = true
	r, err := check.Run(ctx, cfg)
	if err != nil {
		return ExitUsage, err
	}
	WriteDiff(env.Stdout, newPainter(env, env.Stdout), r)
	return r.Summary.ExitCode, nil
}
