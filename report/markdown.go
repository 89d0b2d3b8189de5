package report

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// Marker starts every PR comment, so the Action can find its own sticky
// comment among the others and edit it instead of adding a new one.
const Marker = "<!-- mcp-lockcheck -->"

// Diff block sizes (bytes of diff text per finding) for the PR comment and
// the job summary: a comment has 60,000 bytes for everything, a summary
// nearly a mebibyte.
const (
	commentDiffLimit = 3000
	summaryDiffLimit = 30000
)

// writeMarkdown writes the PR comment: the marker, a verdict, what the pull
// request approves (if anything), a table of servers, then per server a
// heading with its verdict, a compact list of every changed definition (one
// line each: subject, rules, changed fields) and one collapsed <details>
// with each finding in full, its before/after as a word diff. The compact
// lists are laid out first and kept room for, so they fit within
// Options.MarkdownLimit at any scale a comment can hold; the full findings
// fill what is left, cut at a finding boundary, with a note pointing to the
// job summary and the JSON report.
//
// Every piece of server text is inert: it sits in a code span or fenced
// block longer than any backtick run in it, after escape has made it one
// line of visible characters, so no @mention, link, image, HTML or fence
// break can come from it. Table cells also lose their `|`; the <summary>
// lines hold only our own words.
func writeMarkdown(w io.Writer, r *Report, opts Options) error {
	opts = opts.withDefaults()
	note := "the job summary of this run and its JSON report artifact"
	if u := safeURL(opts.SummaryURL); u != "" {
		note = "the [job summary](" + u + ") of this run and its JSON report artifact"
	}
	_, err := io.WriteString(w, renderMarkdown(r, opts, mdStyle{
		limit:     opts.MarkdownLimit,
		diffLimit: commentDiffLimit,
		moreAt:    note,
	}))
	return err
}

// writeSummary writes the job summary (GITHUB_STEP_SUMMARY): the PR
// comment's content with a larger budget, capped under Options.SummaryLimit.
func writeSummary(w io.Writer, r *Report, opts Options) error {
	opts = opts.withDefaults()
	_, err := io.WriteString(w, renderMarkdown(r, opts, mdStyle{
		limit:     opts.SummaryLimit,
		diffLimit: summaryDiffLimit,
		moreAt:    "the JSON or SARIF report of this run",
	}))
	return err
}

type mdStyle struct {
	limit     int    // bytes for the whole document
	diffLimit int    // bytes of diff text per finding
	moreAt    string // where the findings a cut leaves out can be read
}

// mdDoc builds a document within a byte budget. Content is added in units
// (a finding, a table row, a section heading); a unit that does not fit is
// not written and nothing after it is, so a cut never lands inside a fence
// or a table row. reserve keeps room for closing an open <details> and for
// the note saying what was cut.
type mdDoc struct {
	b       strings.Builder
	limit   int
	reserve int
	full    bool
	omitted int // findings not written
}

func (d *mdDoc) add(s string) bool {
	if d.full || d.b.Len()+len(s)+d.reserve > d.limit {
		d.full = true
		return false
	}
	d.b.WriteString(s)
	return true
}

// fits says s can be added without cutting the document.
func (d *mdDoc) fits(s string) bool {
	return !d.full && d.b.Len()+len(s)+d.reserve <= d.limit
}

// noteLimit bounds one note in markdown, in bytes of escaped text: a
// network note lists up to a hundred refused destinations, which the text
// and JSON reports give whole.
const noteLimit = 600

// addNotes lists the servers' notes (a destination the sandbox refused, a
// clock that could not be moved, tools not called), each in a code span:
// the text is partly the server's. Notes go in only where they fit beside
// the findings, which the sections below keep room for; they never cut the
// document, and whatever does not fit is in the text and JSON reports.
func (d *mdDoc) addNotes(servers []Server) {
	var lines []string
	for _, s := range servers {
		for _, n := range s.Notes {
			n = clip.Bytes(escape(n), noteLimit)
			lines = append(lines, "- "+codeSpan(escape(s.Name))+": "+codeSpan(n)+"\n")
		}
	}
	if len(lines) == 0 || !d.fits(notesHead+lines[0]+"\n") {
		return
	}
	d.b.WriteString(notesHead)
	for _, l := range lines {
		if !d.fits(l + "\n") {
			break
		}
		d.b.WriteString(l)
	}
	d.b.WriteString("\n")
}

// notesHead starts the list of the servers' notes.
const notesHead = "**Notes**\n\n"

func renderMarkdown(r *Report, opts Options, st mdStyle) string {
	// The reserve covers the cut note, the footer and a closing </details>.
	d := &mdDoc{limit: st.limit, reserve: 400 + len(st.moreAt) + 2*len(opts.ToolVersion)}
	// The marker and verdict are written whatever the limit: without the
	// marker the Action cannot find its comment again.
	d.b.WriteString(Marker + "\n\n")
	d.b.WriteString(mdVerdict(r) + "\n\n")
	for _, w := range r.Warnings {
		d.b.WriteString("> [!WARNING]\n> " + w + "\n\n") // our own text, never a server's
	}
	d.pullRequestSections(r, st)

	// Every server's section, with its compact list of every changed
	// definition, is planned before the table and kept room for: the list
	// names every change whatever the full diffs take; they fill what is
	// left.
	secs := planSections(r, st)
	skeleton := 0
	for _, s := range secs {
		skeleton += len(s.open) + len(s.list) + len(foldClose)
	}
	reserved := d.b.Len()+d.reserve+skeleton+len(serversHead)+len(r.Servers)*64 <= d.limit
	if reserved {
		d.reserve += skeleton
	}
	d.serverTable(r.Servers)
	for _, s := range secs {
		d.serverSection(s, st, reserved)
	}
	d.finish(opts, st)
	return d.b.String()
}

// pullRequestSections writes what a pull request does to its own bar,
// first: acknowledgements it adds for error-level findings (it silences
// its own failure), then settings of the policy it lowers, then files
// nobody checked, then what it approves.
func (d *mdDoc) pullRequestSections(r *Report, st mdStyle) {
	var selfAcks, approvals, policyChanges, repo []finding.Finding
	for _, f := range r.Findings() {
		switch {
		case isSelfAck(f):
			selfAcks = append(selfAcks, f)
		case isApproval(f):
			approvals = append(approvals, f)
		}
	}
	for _, f := range r.Repository {
		if f.Rule == finding.PolicyWeakened {
			policyChanges = append(policyChanges, f)
		} else if !isApproval(f) {
			repo = append(repo, f)
		}
	}
	section := func(head string, fs []finding.Finding) {
		if len(fs) == 0 {
			return
		}
		if !d.add(head) {
			d.omitted += len(fs)
			return
		}
		for _, f := range fs {
			if !d.add(mdFinding(f, st, f.Server != "", nil)) {
				d.omitted++
			}
		}
	}
	section("### Acknowledged in this pull request\n\n"+
		"> [!CAUTION]\n> This pull request adds acknowledgements that silence error-level findings on content it approves itself. Read the decoded text; a second person should decide.\n\n", selfAcks)
	section("### This pull request changes the policy\n\n"+
		"This check ran with the base branch's value of each setting below; the pull request's takes effect once merged.\n\n", policyChanges)
	section("### Not checked\n\n", repo)
	section("### This pull request approves:\n\n", approvals)
}

// serverTable writes the table of servers, what each probe baited, and
// the servers' notes.
func (d *mdDoc) serverTable(servers []Server) {
	d.add(serversHead)
	for _, s := range servers {
		c := countFindings(live(s.Findings)).String()
		if c == "" {
			c = "none"
		}
		iso := "-"
		if s.Isolation != "" {
			iso = MarkdownCell(s.Isolation)
		}
		d.add(fmt.Sprintf("| %s | %s %s | %s | %s |\n", MarkdownCell(s.Name), statusMark(shownStatus(s)), mdStatus(shownStatus(s)), c, iso))
	}
	d.add("\n")
	var baited []string
	for _, s := range servers {
		if s.Coverage != nil {
			baited = append(baited, codeSpan(s.Name)+": "+s.Coverage.String())
		}
	}
	if len(baited) > 0 {
		d.add("Baited: " + strings.Join(baited, "; ") + ".\n\n")
	}
	d.addNotes(servers)
}

// serverSection writes one server's section: its compact list of changes,
// always, when room was reserved for it, then its findings in full, in a
// fold, as far as they fit.
func (d *mdDoc) serverSection(s mdSection, st mdStyle, reserved bool) {
	if reserved {
		// Reserved in renderMarkdown: always fits.
		d.reserve -= len(s.open) + len(s.list) + len(foldClose)
		d.b.WriteString(s.open + s.list)
	} else if !d.add(s.open) || !d.add(s.list) {
		d.omitted += len(s.fs)
		return
	}
	d.reserve += len(foldClose)
	opened := false
	for _, f := range s.fs {
		if !opened && !d.add(foldOpen) {
			d.omitted += len(s.fs)
			break
		}
		opened = true
		if !d.add(mdFinding(f, st, false, s.same)) {
			d.omitted++
		}
	}
	d.reserve -= len(foldClose)
	if opened {
		d.b.WriteString(foldClose) // reserved above: always fits
	}
}

// finish writes the note that the document was cut, if it was, and the
// footer, from the room reserved for them.
func (d *mdDoc) finish(opts Options, st mdStyle) {
	if d.full {
		what := "the rest of the servers are"
		if d.omitted > 0 {
			what = plural(d.omitted, "more finding is", "more findings are")
		}
		// The blank line first ends a table the cut may have left open.
		d.b.WriteString(fmt.Sprintf("\n> [!WARNING]\n> This report was cut to fit: %s not shown here. Read all of them in %s.\n\n",
			what, st.moreAt))
	}
	footer := "mcp-lockcheck"
	if opts.ToolVersion != "" {
		footer += " " + codeSpan(escape(opts.ToolVersion))
	}
	d.b.WriteString("— " + footer + "\n")
}

// serversHead starts the table of servers.
const serversHead = "### Servers\n\n| Server | Status | Findings | Sandbox |\n| --- | --- | --- | --- |\n"

// mdSection is one server's part of a markdown report: the opening (a
// heading with the verdict), the compact list of every changed definition,
// and the findings shown in full, folded in one <details> per server.
type mdSection struct {
	open, list string
	fs         []finding.Finding
	same       sameGroups // the subjects each of fs stands for
}

// Folding the findings shown in full; the summary is our text only.
const (
	foldOpen  = "<details>\n<summary>In full: each finding with its word diff</summary>\n\n"
	foldClose = "</details>\n\n"
)

// planSections lays out a section for every server with findings or held.
func planSections(r *Report, st mdStyle) []mdSection {
	var out []mdSection
	for _, s := range r.Servers {
		fs := live(s.Findings)
		if len(fs) == 0 && s.Status != StatusHeld {
			continue
		}
		// The server's name stays out of HTML: it is a heading (its text
		// in a code span) and the <summary> holds only our words.
		sec := mdSection{open: "#### " + mdServerHeading(s) + "\n\n"}
		if s.Status == StatusHeld {
			reason := s.Reason
			if reason == "" {
				reason = "could not be probed"
			}
			sec.open += "Held: " + codeSpan(escape(reason)) + "\n\n"
		}
		var list strings.Builder
		fs, same := groupSame(fs)
		entries := groupEntries(fs, same)
		if len(entries) > 0 {
			fmt.Fprintf(&list, "Changed and flagged (%s):\n\n", plural(len(entries), "entry", "entries"))
			for _, e := range entries {
				list.WriteString(mdCompact(e, same) + "\n")
			}
			list.WriteString("\n")
		}
		sec.list = list.String()
		sec.fs = fullDiffFindings(entries)
		sec.same = same
		out = append(out, sec)
	}
	return out
}

// mdCompact is one line for one entry: mark, subject, rules and the
// changed fields (+added ~changed -removed), every piece of server text in
// a code span.
func mdCompact(e entry, same sameGroups) string {
	f0 := e.fs[0]
	top := f0
	var rules, fields, inputs []string
	seen := map[string]bool{}
	for _, f := range e.fs {
		top.Severity = max(top.Severity, f.Severity)
		top.Acknowledged = top.Acknowledged && f.Acknowledged
		if !seen["r"+string(f.Rule)] {
			seen["r"+string(f.Rule)] = true
			rules = append(rules, string(f.Rule))
		}
		if f.Rule == finding.NewInputProperty {
			inputs = append(inputs, strings.TrimPrefix(f.Field, "inputSchema/properties/"))
			continue
		}
		if f.Field == "" || seen["f"+f.Field] {
			continue
		}
		seen["f"+f.Field] = true
		if !driftRules[f.Rule] {
			fields = append(fields, "in "+f.Field)
			continue
		}
		mark := "~"
		switch {
		case f.Before == "" && f.After != "":
			mark = "+"
		case f.After == "" && f.Before != "":
			mark = "-"
		}
		fields = append(fields, mark+f.Field)
	}
	subject := codeSpan(escape(subjectText(f0)))
	if subjectText(f0) == "" {
		subject = codeSpan(escape(f0.Server))
	}
	if g := same.of(f0); g != nil {
		subject = mdSubjects(f0, same)
	}
	line := "- " + strings.SplitN(severityMark(top), " ", 2)[0] + " " + subject + " · " + codeSpan(escape(strings.Join(rules, ", ")))
	if len(fields) > 0 {
		line += " · " + codeSpan(escape(strings.Join(fields, " ")))
	}
	if len(inputs) > 0 {
		line += " · new inputs " + codeSpan(escape(strings.Join(inputs, ", ")))
	}
	// A group is said whole by its line: its message, once.
	if len(fields) == 0 && len(inputs) == 0 && len(e.fs) == 1 || same.of(f0) != nil {
		line += " · " + codeSpan(inert.Composed(clip.Fit(f0.Message, 160)))
	}
	return line
}

// mdSubjects names the subjects of a group: "8 tools: `a`, `b`, ...",
// each in its own code span.
func mdSubjects(f finding.Finding, same sameGroups) string {
	names := same.names(f)
	spans := make([]string, len(names))
	for i, n := range names {
		spans[i] = codeSpan(escape(n))
	}
	return fmt.Sprintf("%d %ss: %s", len(names), escape(string(f.Kind)), strings.Join(spans, ", "))
}

// fullDiffFindings are the findings shown in full below the compact list:
// all of them, less the ones that repeat what another says (a new input
// already in the entry's schema change, the same change seen again in a
// later phase).
func fullDiffFindings(entries []entry) []finding.Finding {
	var out []finding.Finding
	for _, e := range entries {
		seen := map[string]bool{}
		for _, f := range e.fs {
			if f.Rule == finding.NewInputProperty && len(e.fs) > 1 {
				continue
			}
			// A lone finding with nothing more than its message is said
			// whole by its compact line.
			if len(e.fs) == 1 && f.Before == "" && f.After == "" && f.Detail == "" && !f.Acknowledged {
				continue
			}
			k := f.Field + "\x00" + f.Before + "\x00" + f.After
			if f.Rule == finding.UnstableManifest && seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// live drops the approval findings: they are listed in their own section,
// not as what a server showed.
func live(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if !isApproval(f) {
			out = append(out, f)
		}
	}
	return out
}

// mdVerdict is the comment's first visible line.
func mdVerdict(r *Report) string {
	s := r.Summary
	head := "✔ mcp-lockcheck: every server matches the lock"
	switch {
	case s.ExitCode == ExitUsage:
		head = "✖ mcp-lockcheck could not run"
	case s.Drift == 0 && s.ExitCode == ExitDrift:
		head = "✖ mcp-lockcheck: the repository check failed"
		if s.Held > 0 {
			head += ", " + plural(s.Held, "server held", "servers held")
		}
	case s.Drift > 0 || s.ExitCode == ExitDrift:
		head = "✖ mcp-lockcheck: " + plural(s.Drift, "server drifted", "servers drifted")
		if s.Held > 0 {
			head += ", " + plural(s.Held, "held", "held")
		}
	case s.Held > 0 || s.ExitCode == ExitHeld:
		head = "⏸ mcp-lockcheck: " + plural(s.Held, "server held", "servers held") + " (could not be probed)"
	case countFindings(live(r.Findings())).errors > 0:
		// Passing only because --fail-on is above error: never a ✔.
		head = "⚠ mcp-lockcheck: errors found; the run does not fail on them"
	}
	// The summary line is our words and numbers; the fail-on threshold is
	// quoted as if it were server text, since it comes from flags or policy.
	return "## " + head + "\n\n" + summaryLine(r, func(s string) string { return codeSpan(escape(s)) })
}

func mdStatus(status Status) string {
	if status.Valid() {
		return string(status)
	}
	return codeSpan(escape(string(status)))
}

// mdServerHeading is "✖ `evil`: drift (2 errors)".
func mdServerHeading(s Server) string {
	c := countFindings(live(s.Findings)).String()
	h := statusMark(shownStatus(s)) + " " + codeSpan(escape(s.Name)) + ": " + mdStatus(shownStatus(s))
	if c != "" {
		h += " (" + c + ")"
	}
	return h
}

func severityMark(f finding.Finding) string {
	if f.Acknowledged {
		return "☑ acknowledged " + f.Severity.String()
	}
	switch {
	case f.Severity >= finding.Error:
		return "✖ error"
	case f.Severity == finding.Warning:
		return "⚠ warning"
	}
	return "ℹ note"
}

// mdFinding renders one finding as a self-contained block: a line naming
// rule and subject, a list of its attributes, and a diff block for
// before/after. Self-contained means a cut after it leaves valid markdown.
// withServer names the server, for findings listed outside their server's
// section.
func mdFinding(f finding.Finding, st mdStyle, withServer bool, same sameGroups) string {
	var b strings.Builder
	b.WriteString("**" + severityMark(f) + "** " + codeSpan(escape(string(f.Rule))))
	if same.of(f) != nil {
		b.WriteString(" · " + mdSubjects(f, same))
	} else if f.Subject != "" {
		kind := string(f.Kind)
		if f.Kind == "" || f.Kind == finding.KindServer {
			kind = "subject"
		}
		b.WriteString(" · " + kind + " " + codeSpan(escape(f.Subject)))
	}
	b.WriteString("\n\n")
	item := func(label, value string) {
		if value != "" {
			b.WriteString("- " + label + ": " + codeSpan(escape(value)) + "\n")
		}
	}
	// The message and detail are composed text: their producer escaped
	// the untrusted parts already.
	composed := func(label, value string) {
		if value != "" {
			b.WriteString("- " + label + ": " + codeSpan(inert.Composed(value)) + "\n")
		}
	}
	if withServer {
		item("server", f.Server)
	}
	if strings.HasPrefix(f.Field, "inputSchema") || strings.HasPrefix(f.Field, "outputSchema") {
		item("schema path", f.Field)
	} else {
		item("field", f.Field)
	}
	item("phase", f.Phase)
	composed("message", f.Message)
	if f.Acknowledged {
		reason := f.AckReason
		if reason == "" {
			reason = "acknowledged in the lock"
		}
		item("acknowledged", reason)
	}
	if tags, where := hiddenTags(f); tags != "" {
		item("hidden tag text ("+where+"), decoded", tags)
	}
	composed("detail", f.Detail)
	b.WriteString("\n")
	if f.Before != "" || f.After != "" {
		b.WriteString(fenced("diff", capLines(wordDiff(f.Before, f.After), st.diffLimit)))
		b.WriteString("\n")
	}
	return b.String()
}

// capLines joins lines up to limit bytes, cutting at a line boundary (a line
// longer than the limit is cut inside) and saying so.
func capLines(lines []string, limit int) []string {
	total := 0
	for i, l := range lines {
		if total+len(l) > limit {
			out := append([]string(nil), lines[:i]...)
			if room := limit - total; room > 200 {
				out = append(out, clip.Fit(l, room/4))
			}
			return append(out, "… (diff cut: see the JSON report for the full text)")
		}
		total += len(l) + 1
	}
	return lines
}

// fenced wraps lines in a fenced code block whose fence is longer than any
// backtick run in them, so no line can close it. The lines are escaped text
// (no newlines inside them).
func fenced(info string, lines []string) string {
	body := strings.Join(lines, "\n")
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fence + info + "\n" + body + "\n" + fence + "\n"
}

// codeSpan wraps escaped, single-line text in a code span whose delimiter is
// longer than any backtick run inside, padded with spaces when the text
// starts or ends with a backtick or space (CommonMark strips one space on
// each side). Inside a code span, markdown and HTML are literal and GitHub
// makes no mentions, issue links or autolinks.
func codeSpan(s string) string {
	if s == "" {
		return "*(empty)*"
	}
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[0] == ' ' || s[len(s)-1] == '`' || s[len(s)-1] == ' ' {
		return tick + " " + s + " " + tick
	}
	return tick + s + tick
}

// MarkdownCell renders untrusted text for a cell of a GitHub-flavoured
// markdown table: the inert text (inert.Text) in a code span, with every
// `|` written `\|`. GFM splits a row on `|` before it parses code spans, so
// a pipe inside a code span must be escaped too; a `|` right after a
// backslash never splits a row (the text's own backslash included: GitHub's
// cmark-gfm and goldmark both look at the one byte before the pipe), and
// the table takes that backslash off again before the code span is read,
// so the cell shows the inert text exactly.
func MarkdownCell(s string) string {
	return strings.ReplaceAll(codeSpan(inert.Text(s)), "|", `\|`)
}

// safeURL returns u if it is a plain https URL that cannot break out of a
// markdown link destination, else "".
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" || p.Host == "" {
		return ""
	}
	if strings.ContainsAny(u, " ()<>\"'`\\[]\t\r\n") {
		return ""
	}
	return u
}
