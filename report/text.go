package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// Column widths (runes) for the text table. Cells are cut, not wrapped: one
// finding is one line, so the table stays scannable and greppable, and the
// details below it carry the long text.
const (
	widthServer  = 16
	widthSubject = 24
	widthField   = 26
	widthPhase   = 22
	widthMessage = 50
	// Around the first differing region of before/after: this much context
	// on each side, and at most this much of the region itself.
	diffContext = 24
	diffRegion  = 72
	widthDetail = 200
)

// WriteText writes the terminal report: a table with one row per finding,
// the details of drift below it (first differing region of before/after,
// decoded hidden text), one verdict line per server and a summary line.
// All server text is escaped, so no terminal escape or bidi control reaches
// the TTY.
func WriteText(w io.Writer, r *Report, opts Options) error {
	opts = opts.withDefaults()
	bw := bufio.NewWriter(w)
	for _, w := range r.Warnings {
		fmt.Fprintf(bw, "warning: %s\n\n", escape(w))
	}
	all := r.Findings()
	writeTextPRSections(bw, all)
	if len(all) > 0 {
		if err := writeFindingTable(bw, all); err != nil {
			return err
		}
		writeTextDetails(bw, all)
	} else {
		fmt.Fprintln(bw, "No findings.")
	}
	fmt.Fprintln(bw)
	for _, s := range r.Servers {
		fmt.Fprintln(bw, serverVerdict(s))
		if s.Isolation != "" {
			fmt.Fprintf(bw, "    sandbox: %s\n", escape(s.Isolation))
		}
		if len(s.Calls) > 0 {
			fmt.Fprintf(bw, "    warm-up calls: %s\n", escape(callsText(s.Calls)))
		}
		for _, n := range s.Notes {
			fmt.Fprintf(bw, "    note: %s\n", escape(n))
		}
	}
	fmt.Fprintln(bw)
	line := summaryLine(r, escape)
	if opts.ToolVersion != "" {
		line += " [mcp-lockcheck " + escape(opts.ToolVersion) + "]"
	}
	fmt.Fprintln(bw, line)
	return bw.Flush()
}

// writeTextPRSections lists, before the table, what a pull request does
// to its own bar: acknowledgements it adds for error-level findings (with
// the hidden text decoded), then the policy settings it lowers, with the
// base's value the check ran with and the pull request's.
func writeTextPRSections(w io.Writer, fs []finding.Finding) {
	first := true
	for _, f := range fs {
		if !isSelfAck(f) {
			continue
		}
		if first {
			fmt.Fprintln(w, "Acknowledged in this pull request (error-level findings it silences on its own content):")
			first = false
		}
		fmt.Fprintf(w, "  %s › %s › %s\n", escape(f.Server), escape(subjectText(f)), truncate(escape(f.Message), widthDetail))
		if tags, _ := hiddenTags(f); tags != "" {
			fmt.Fprintln(w, "    hidden tag text, decoded: "+truncate(escape(tags), widthDetail))
		}
		if f.Detail != "" {
			fmt.Fprintln(w, "    "+truncate(escape(f.Detail), widthDetail))
		}
	}
	if !first {
		fmt.Fprintln(w)
	}
	first = true
	for _, f := range fs {
		if f.Rule != finding.PolicyWeakened {
			continue
		}
		if first {
			fmt.Fprintln(w, "This pull request changes the policy (the check ran with the base branch's values):")
			first = false
		}
		where := escape(f.File)
		if f.Line > 0 {
			where += fmt.Sprintf(":%d", f.Line)
		}
		fmt.Fprintf(w, "  %s: %s -> %s (%s)\n", escape(f.Field), truncate(escape(f.Before), widthDetail), truncate(escape(f.After), widthDetail), where)
	}
	if !first {
		fmt.Fprintln(w)
	}
}

func writeFindingTable(w io.Writer, fs []finding.Finding) error {
	table := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Symbols: tw.NewSymbols(tw.StyleLight),
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	table.Header("SEVERITY", "SERVER", "RULE", "SUBJECT", "FIELD", "PHASE", "MESSAGE")
	for _, f := range fs {
		sev := f.Severity.String()
		if f.Acknowledged {
			sev += " (ack)"
		}
		if err := table.Append(
			sev,
			cell(f.Server, widthServer),
			cell(f.Rule, 0),
			cell(subjectText(f), widthSubject),
			cell(f.Field, widthField),
			cell(f.Phase, widthPhase),
			cell(f.Message, widthMessage),
		); err != nil {
			return err
		}
	}
	return table.Render()
}

// cell escapes and cuts one table cell. An empty cell shows "-" so columns
// stay readable.
func cell(s string, width int) string {
	if s == "" {
		return "-"
	}
	return truncate(escape(s), width)
}

// subjectText is "tool read_file" (kind and subject), or what there is.
func subjectText(f finding.Finding) string {
	switch {
	case f.Subject == "" && (f.Kind == "" || f.Kind == finding.KindServer):
		return ""
	case f.Kind == "":
		return f.Subject
	}
	return f.Kind + " " + f.Subject
}

// writeTextDetails lists, below the table, what the table cannot show: the
// first differing region of before/after, decoded tag text and the detail.
func writeTextDetails(w io.Writer, fs []finding.Finding) {
	first := true
	for _, f := range fs {
		tags, where := hiddenTags(f)
		if f.Before == "" && f.After == "" && f.Detail == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Details:")
			first = false
		}
		head := escape(f.Server) + " › " + escape(f.Rule)
		if s := subjectText(f); s != "" {
			head += " › " + escape(s)
		}
		if f.Field != "" {
			head += " › " + escape(f.Field)
		}
		fmt.Fprintln(w, "  "+head)
		if f.Before != "" || f.After != "" {
			b, a := firstDifference(f.Before, f.After)
			fmt.Fprintln(w, "    - lock: "+b)
			fmt.Fprintln(w, "    + live: "+a)
		}
		if tags != "" {
			fmt.Fprintln(w, "    hidden tag text ("+where+"), decoded: "+truncate(escape(tags), widthDetail))
		}
		if f.Detail != "" {
			fmt.Fprintln(w, "    detail: "+truncate(escape(f.Detail), widthDetail))
		}
	}
}

// firstDifference renders before and after compactly around their first
// differing region, marked the way `git diff --word-diff` does: [-removed-]
// and {+added+}, with a little shared context on each side. Both lines start
// with the same context, so the eye finds the change at the same column.
func firstDifference(before, after string) (string, string) {
	if before == "" {
		return "(none)", "{+" + truncate(escape(after), diffRegion) + "+}"
	}
	if after == "" {
		return "[-" + truncate(escape(before), diffRegion) + "-]", "(none)"
	}
	b, a := []rune(before), []rune(after)
	p := 0
	for p < len(b) && p < len(a) && b[p] == a[p] {
		p++
	}
	q := 0
	for q < len(b)-p && q < len(a)-p && b[len(b)-1-q] == a[len(a)-1-q] {
		q++
	}
	if p == len(b) && p == len(a) {
		return escape(before), escape(after)
	}
	// Snap the region to whole words: "text/[-plain-]" beats "text/[-plai-]n".
	for p > 0 && !unicode.IsSpace(b[p-1]) {
		p--
	}
	for q > 0 && !unicode.IsSpace(b[len(b)-q]) {
		q--
	}
	pre := ""
	if p > diffContext {
		pre = "…" + escape(string(b[p-diffContext:p]))
	} else {
		pre = escape(string(b[:p]))
	}
	post := ""
	if q > diffContext {
		post = escape(string(b[len(b)-q:len(b)-q+diffContext])) + "…"
	} else {
		post = escape(string(b[len(b)-q:]))
	}
	mid := func(rs []rune) string { return truncate(escape(string(rs)), diffRegion) }
	return pre + "[-" + mid(b[p:len(b)-q]) + "-]" + post,
		pre + "{+" + mid(a[p:len(a)-q]) + "+}" + post
}

// callsText summarizes the warm-up calls: "summarize x3 (ok), format_text x2 (tool-error)".
func callsText(calls []Call) string {
	type key struct{ tool, outcome string }
	var order []key
	n := map[key]int{}
	for _, c := range calls {
		k := key{c.Tool, c.Outcome}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%s x%d (%s)", k.tool, n[k], k.outcome))
	}
	return strings.Join(parts, ", ")
}
