package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/atomicfile"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/ghcmd"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
)

// Options carries what a renderer needs beyond the Report: facts about the
// run that the Report's JSON contract does not hold. The zero value works.
type Options struct {
	// LockPath is the lockfile the run checked, relative to the repository
	// root. SARIF results and annotations point at it (line 1) when a finding
	// has no File of its own. Default DefaultLockPath.
	LockPath string
	// ToolVersion is mcp-lockcheck's version, shown in SARIF's
	// tool.driver.version and the text footer. Empty omits it.
	ToolVersion string
	// InformationURI is SARIF's tool.driver.informationUri. Default
	// DefaultInformationURI.
	InformationURI string
	// AutomationID is SARIF's runs[].automationDetails.id. Code scanning
	// treats uploads with the same tool and id as one analysis, so two checks
	// in one workflow (two lockfiles, a matrix) must use different ids or the
	// second replaces the first. Empty omits automationDetails.
	AutomationID string
	// SummaryURL is where the run's job summary can be read (the workflow
	// run's URL). A truncated PR comment links to it; empty names it in words.
	SummaryURL string
	// MarkdownLimit caps the PR comment in bytes. Default MarkdownLimit.
	MarkdownLimit int
	// SummaryLimit caps the job summary in bytes. Default SummaryLimit.
	SummaryLimit int
	// Redactor is the backstop that keeps secrets out of every rendered
	// report: the report is redacted before rendering (Redacted) and the
	// rendered bytes once more (JSON-aware for JSON and SARIF). nil redacts
	// the secret shapes only (keys, tokens and passwords by their form).
	Redactor Redactor
	// Width is the terminal width the text report wraps to (0:
	// DefaultWidth); Color colours it (a terminal without NO_COLOR);
	// Verbose lists acknowledged findings too; NoNext leaves out the
	// "Next:" commands (for pin and approve, which are the next step).
	Width   int
	Color   bool
	Verbose bool
	NoNext  bool
	// Approve is how the "Next:" commands call approve: the program and
	// the flags the run was given that approve takes too (so that its
	// probe sees what this run saw), as shell words. Default
	// "mcp-lockcheck approve". Pin is the same for pin.
	Approve string
	Pin     string
}

// Defaults.
const (
	DefaultLockPath       = "mcp-lock.json"
	DefaultInformationURI = "https://github.com/mcp-lockcheck/mcp-lockcheck"
	// MarkdownLimit keeps a PR comment under GitHub's 65,536-character body
	// limit with room for what a caller adds around it. Counted in bytes,
	// which is never fewer than characters.
	MarkdownLimit = 60000
	// SummaryLimit keeps the job summary under GitHub's 1 MiB per-step limit;
	// the margin leaves room for whatever else the step appends.
	SummaryLimit = 1<<20 - 32<<10
)

// A Redactor replaces the secrets in text with a stand-in. String and
// Bytes redact text; JSON redacts inside a JSON document's decoded strings
// and returns valid JSON, so an escaped spelling of a secret is caught
// too. mcp-lockcheck's own redactor knows the secret shapes and the values
// of the run's secret environment variables.
type Redactor interface {
	String(s string) string
	Bytes(b []byte) []byte
	JSON(raw []byte) []byte
}

// shapesOnly is the redactor of Options that name none: the secret shapes.
var shapesOnly Redactor = (*redact.Redactor)(nil)

// redactor is o's Redactor, or the shapes-only one.
func (o Options) redactor() Redactor {
	if o.Redactor == nil {
		return shapesOnly
	}
	return o.Redactor
}

func (o Options) withDefaults() Options {
	if o.LockPath == "" {
		o.LockPath = DefaultLockPath
	}
	if o.InformationURI == "" {
		o.InformationURI = DefaultInformationURI
	}
	if o.MarkdownLimit <= 0 {
		o.MarkdownLimit = MarkdownLimit
	}
	if o.SummaryLimit <= 0 {
		o.SummaryLimit = SummaryLimit
	}
	if o.Approve == "" {
		o.Approve = "mcp-lockcheck approve"
	}
	if o.Pin == "" {
		o.Pin = "mcp-lockcheck pin"
	}
	return o
}

// Format names a renderer, as spelled by `check --format`.
type Format string

// The formats. Text, JSON, SARIF and Markdown are the `--format` contract;
// Summary and Annotations are for the GitHub Action.
const (
	FormatText        Format = "text"
	FormatJSON        Format = "json"
	FormatSARIF       Format = "sarif"
	FormatMarkdown    Format = "markdown"
	FormatSummary     Format = "summary"
	FormatAnnotations Format = "annotations"
)

// Formats lists every format in the order they are documented.
var Formats = []Format{FormatText, FormatJSON, FormatSARIF, FormatMarkdown, FormatSummary, FormatAnnotations}

// ParseFormat reads a format name; an unknown one is an error naming the
// valid ones (the CLI maps it to exit code 2).
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Write renders r in format f to w, redacted (Options.Redactor).
//
// In a GitHub Actions log every line could be a workflow command. The
// annotations are the checker's own commands and go to ghcmd.Own(w); JSON
// and SARIF never hold "##[" (ghcmd.NeutralizeJSON); the other formats rely on the
// caller's ghcmd.Writer when they are printed to a step log.
func Write(w io.Writer, f Format, r *Report, opts Options) error {
	red := opts.redactor()
	r = Redacted(r, red)
	var buf bytes.Buffer
	if err := render(&buf, f, r, opts); err != nil {
		return err
	}
	out := buf.Bytes()
	switch f {
	case FormatJSON, FormatSARIF:
		out = ghcmd.NeutralizeJSON(red.JSON(out))
	default:
		out = red.Bytes(out)
	}
	if f == FormatAnnotations {
		w = ghcmd.Own(w)
	}
	_, err := w.Write(out)
	return err
}

func render(w io.Writer, f Format, r *Report, opts Options) error {
	switch f {
	case FormatText:
		return writeText(w, r, opts)
	case FormatJSON:
		return writeJSON(w, r, opts)
	case FormatSARIF:
		return writeSARIF(w, r, opts)
	case FormatMarkdown:
		return writeMarkdown(w, r, opts)
	case FormatSummary:
		return writeSummary(w, r, opts)
	case FormatAnnotations:
		return writeAnnotations(w, r, opts)
	}
	return fmt.Errorf("unknown format %q", f)
}

// Targets names the files one run writes at once (`--sarif`, `--markdown`,
// `--json`, ...). An empty path skips that format.
type Targets struct {
	Text        string
	JSON        string
	SARIF       string
	Markdown    string
	Summary     string
	Annotations string
}

// WriteAll renders r to every file named in t, each atomically. It writes
// every target it can and returns all failures joined, so one unwritable
// path does not cost the user the other reports.
func WriteAll(r *Report, t Targets, opts Options) error {
	var errs []error
	for _, x := range []struct {
		path string
		f    Format
	}{
		{t.Text, FormatText},
		{t.JSON, FormatJSON},
		{t.SARIF, FormatSARIF},
		{t.Markdown, FormatMarkdown},
		{t.Summary, FormatSummary},
		{t.Annotations, FormatAnnotations},
	} {
		if x.path == "" {
			continue
		}
		// Through atomicfile, not go-sarif's WriteFile, which opens without
		// O_TRUNC: a shorter report would keep the tail of a longer one.
		err := atomicfile.WriteFunc(x.path, func(w io.Writer) error { return Write(w, x.f, r, opts) })
		if err != nil {
			errs = append(errs, fmt.Errorf("writing %s report: %w", x.f, err))
		}
	}
	return errors.Join(errs...)
}

// counts tallies findings by severity.
type counts struct {
	errors, warnings, notes, acked int
}

func countFindings(fs []finding.Finding) counts {
	var c counts
	for _, f := range fs {
		if f.Acknowledged {
			c.acked++
			continue
		}
		switch {
		case f.Severity >= finding.Error:
			c.errors++
		case f.Severity == finding.Warning:
			c.warnings++
		default:
			c.notes++
		}
	}
	return c
}

// String reads "2 errors, 1 warning"; empty when there is nothing.
func (c counts) String() string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(c.errors, "error", "errors")
	add(c.warnings, "warning", "warnings")
	add(c.notes, "note", "notes")
	add(c.acked, "acknowledged", "acknowledged")
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// isApproval reports whether a finding describes what the pull request
// approves (a lock change) rather than what a live server showed.
func isApproval(f finding.Finding) bool {
	return f.Rule == finding.ApprovalAdded || f.Rule == finding.ApprovalChanged
}

// isSelfAck reports whether f is an acknowledgement the pull request adds
// for a rule whose default level is error: the pull request silencing a
// failure of its own content. Reports list these first, loudly.
func isSelfAck(f finding.Finding) bool {
	rule, ok := strings.CutPrefix(f.Field, "acknowledgements/")
	return f.Rule == finding.ApprovalAdded && ok && finding.DefaultSeverity(finding.RuleID(rule)) >= finding.Error
}

// hiddenTags returns the text spelled by tag characters in a finding's live
// text, or in its lock text when the live text has none, and which it was.
// For an approval the two sides are the pull request's lock and the base's.
func hiddenTags(f finding.Finding) (text, where string) {
	after, before := "live", "lock"
	if isApproval(f) {
		after, before = "approved", "base"
	}
	if t := decodeTags(f.After); t != "" {
		return t, after
	}
	if t := decodeTags(f.Before); t != "" {
		return t, before
	}
	return "", ""
}

// shownStatus is the status a renderer shows for s: its own, except that
// a server with an unacknowledged error is never shown as ok, whatever
// the report it came from says (a report merged from files, or written by
// an older build): no ✔ or "ok" stands next to an error.
func shownStatus(s Server) Status {
	if s.Status == StatusOK && countFindings(s.Findings).errors > 0 {
		return StatusDrift
	}
	return s.Status
}

// statusMark is the one-character verdict for a server status.
func statusMark(status Status) string {
	switch status {
	case StatusOK:
		return "✔"
	case StatusHeld:
		return "⏸"
	}
	return "✖"
}

// serverVerdict is the one-line verdict for a server, already escaped:
// "✔ fs: ok (3 phases)", "✔ fs: ok (no server started)" (lint), "✖ evil:
// drift (2 errors)", "⏸ broken: held: reason".
func serverVerdict(s Server) string {
	s.Status = shownStatus(s)
	name := escape(s.Name)
	switch s.Status {
	case StatusHeld:
		reason := s.Reason
		if reason == "" {
			reason = "could not be probed"
		}
		return fmt.Sprintf("%s %s: held: %s", statusMark(s.Status), name, escape(reason))
	case StatusOK:
		detail := plural(len(s.Phases), "phase", "phases")
		if len(s.Phases) == 0 {
			// lint, or a lock entry no config names: nothing was
			// launched, and "0 phases" would read as a probe that saw
			// nothing.
			detail = "no server started"
		}
		if c := countFindings(s.Findings).String(); c != "" {
			detail += ", " + c
		}
		return fmt.Sprintf("%s %s: ok (%s)", statusMark(s.Status), name, detail)
	}
	detail := countFindings(s.Findings).String()
	if detail == "" {
		detail = "no findings"
	}
	return fmt.Sprintf("%s %s: %s (%s)", statusMark(s.Status), name, escape(string(s.Status)), detail)
}

// summaryLine is the run's one-line verdict. quote renders the fail-on
// threshold, the one piece of it that is not a number or our own word.
func summaryLine(r *Report, quote func(string) string) string {
	s := r.Summary
	line := fmt.Sprintf("%s: %d ok, %d drift, %d held; %s",
		plural(s.Servers, "server", "servers"), s.OK, s.Drift, s.Held, plural(s.Findings, "finding", "findings"))
	if c := countFindings(r.Findings()).String(); c != "" {
		line += " (" + c + ")"
	}
	failOn := s.FailOn
	if failOn == "" {
		failOn = "error"
	}
	return line + fmt.Sprintf("; exit %d (fail-on %s)", s.ExitCode, quote(failOn))
}
