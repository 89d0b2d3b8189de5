package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/termtable"
)

// Widths for what the text report shortens. Findings are wrapped to the
// terminal width (Options.Width), never cut; only values that must stay on
// one line are shortened, around the part that differs.
const (
	// Around the first differing region of before/after: this much context
	// on each side, and at most this much of the region itself.
	diffContext = 24
	diffRegion  = 72
	widthDetail = 200
	// DefaultWidth is the width a report is wrapped to when neither
	// COLUMNS nor a terminal says otherwise.
	DefaultWidth = 100
)

// writeText writes the terminal report: one verdict line per server, then
// per server one entry per changed definition (its changed fields listed
// inside it, text changes as a word diff) and per other finding, then the
// summary and the next command to run. Acknowledged findings are counted,
// not listed, unless Options.Verbose. All server text is escaped, so no
// terminal escape or bidi control reaches the TTY; the only control
// sequences written are the colours of Options.Color.
func writeText(w io.Writer, r *Report, opts Options) error {
	opts = opts.withDefaults()
	t := &textWriter{w: bufio.NewWriter(w), width: opts.Width, color: opts.Color}
	if t.width <= 0 {
		t.width = DefaultWidth
	}
	t.width = max(t.width, 40)
	for _, w := range r.Warnings {
		t.para("warning: "+escape(w), "", "")
		t.nl()
	}
	all := r.Findings()
	writeTextPRSections(t.w, all)
	if err := t.verdicts(r.Servers); err != nil {
		return err
	}
	if len(r.Repository) > 0 {
		t.para(t.bold("repository"), "", "")
		t.entries(r.Repository, opts.Verbose)
		t.nl()
	}
	for _, s := range r.Servers {
		if len(s.Findings) == 0 && s.Status == StatusOK && !opts.Verbose {
			continue
		}
		t.para(t.bold(escape(s.Name))+" "+t.dim("("+serverWhere(s)+")"), "", "    ")
		if s.Status == StatusHeld && !hasRule(s.Findings, finding.ServerUnavailable) {
			reason := s.Reason
			if reason == "" {
				reason = "could not be probed"
			}
			t.para("held: "+escape(reason), "  ", "    ")
		}
		if s.Isolation != "" {
			t.para(t.dim("sandbox: "+escape(s.Isolation)), "  ", "    ")
		}
		if s.Coverage != nil {
			t.para(t.dim("baited: "+s.Coverage.String()), "  ", "    ")
		}
		if len(s.Calls) > 0 {
			t.para(t.dim("warm-up calls: "+escape(callsText(s.Calls))), "  ", "    ")
		}
		for _, n := range s.Notes {
			t.para("note: "+escape(n), "  ", "    ")
		}
		t.entries(s.Findings, opts.Verbose)
		t.nl()
	}
	if len(all) == 0 {
		t.line("No findings.")
	}
	line := summaryLine(r, escape)
	if opts.ToolVersion != "" {
		line += " [mcp-lockcheck " + escape(opts.ToolVersion) + "]"
	}
	t.para(line, "", "")
	if !opts.NoNext {
		t.next(r, opts.Approve, opts.Pin)
	}
	return t.w.Flush()
}

// verdicts opens the report with the servers' verdicts: one line for one
// server, a table that fits the width for several.
func (t *textWriter) verdicts(servers []Server) error {
	if len(servers) == 0 {
		return nil
	}
	if len(servers) == 1 {
		t.para(t.verdict(servers[0]), "", "    ")
	} else {
		header, rows := serverTable(servers)
		if err := termtable.Write(t.w, header, rows, t.width); err != nil {
			return err
		}
	}
	t.nl()
	return nil
}

// hasRule reports whether a finding of rule is among fs.
func hasRule(fs []finding.Finding, rule finding.RuleID) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// serverWhere is where a server's entry is: its config file and line.
func serverWhere(s Server) string {
	if s.Config == "" {
		return "lock entry only"
	}
	if s.ConfigLine > 0 {
		return fmt.Sprintf("%s:%d", escape(s.Config), s.ConfigLine)
	}
	return escape(s.Config)
}

// textWriter wraps lines to a width and colours our own words.
type textWriter struct {
	w     *bufio.Writer
	width int
	color bool
	same  sameGroups // the groups of the section being written
}

func (t *textWriter) nl()           { t.w.WriteString("\n") }
func (t *textWriter) line(s string) { t.w.WriteString(s + "\n") }
func (t *textWriter) paint(code, s string) string {
	if !t.color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
func (t *textWriter) bold(s string) string  { return t.paint("1", s) }
func (t *textWriter) dim(s string) string   { return t.paint("2", s) }
func (t *textWriter) red(s string) string   { return t.paint("31", s) }
func (t *textWriter) green(s string) string { return t.paint("32", s) }

// verdict is serverVerdict, the mark coloured.
func (t *textWriter) verdict(s Server) string {
	v := serverVerdict(s)
	switch shownStatus(s) {
	case StatusOK:
		return t.green(v)
	case StatusDrift:
		return t.red(v)
	}
	return t.bold(v)
}

// para writes s wrapped at the width: the first line after first, the
// rest after rest. Words are split on spaces; a word longer than a line is
// broken, never cut. Colour codes (ours) do not count toward the width.
func (t *textWriter) para(s, first, rest string) {
	t.w.WriteString(wrap(s, t.width, first, rest))
}

// wrap is para's text.
func wrap(s string, width int, first, rest string) string {
	var b strings.Builder
	line, n := first, visible(first)
	empty := true
	flush := func() {
		b.WriteString(strings.TrimRight(line, " ") + "\n")
		line, n, empty = rest, visible(rest), true
	}
	for _, word := range strings.Split(s, " ") {
		wn := visible(word)
		if !empty && n+1+wn > width {
			flush()
		}
		if !empty {
			line += " "
			n++
		}
		// A word longer than a whole line is broken at the width.
		for n+wn > width && wn > 0 && !strings.Contains(word, "\x1b") {
			room := width - n
			if room <= 0 {
				flush()
				continue
			}
			rs := []rune(word)
			line += string(rs[:room])
			word = string(rs[room:])
			wn = len(rs) - room
			n = width
			empty = false
			flush()
		}
		line += word
		n += wn
		empty = false
	}
	if !empty || b.Len() == 0 {
		flush()
	}
	return b.String()
}

// visible counts the runes of s a terminal shows: our colour sequences
// (ESC [ ... m) take no room. Server text never holds ESC: it is escaped.
func visible(s string) int {
	n, inEsc := 0, false
	for _, r := range s {
		switch {
		case inEsc:
			if r == 'm' {
				inEsc = false
			}
		case r == '\x1b':
			inEsc = true
		default:
			n++
		}
	}
	return n
}

// driftRules are the findings that say a definition differs from the lock
// or across phases: they are shown as one entry per definition.
var driftRules = map[finding.RuleID]bool{
	finding.ToolAdded: true, finding.ToolRemoved: true, finding.ToolChanged: true,
	finding.PromptAdded: true, finding.PromptRemoved: true, finding.PromptChanged: true,
	finding.ResourceAdded: true, finding.ResourceRemoved: true, finding.ResourceChanged: true,
	finding.ResourceTemplateAdded: true, finding.ResourceTemplateRemoved: true, finding.ResourceTemplateChanged: true,
	finding.NewInputProperty: true, finding.UnstableManifest: true,
}

// entry is one definition's findings (drift rules), or one finding of
// another rule with the same findings on other fields of the same subject.
type entry struct {
	fs []finding.Finding
}

// groupEntries groups findings into entries in report order: every drift
// finding of one kind+subject together (one entry per changed definition),
// every other finding by rule+kind+subject, and a finding that stands for
// the same finding on several subjects (same) as an entry of its own.
func groupEntries(fs []finding.Finding, same sameGroups) []entry {
	var out []entry
	idx := map[string]int{}
	for _, f := range fs {
		key := "drift\x00" + string(f.Kind) + "\x00" + f.Subject
		if !driftRules[f.Rule] || f.Kind == finding.KindServer || f.Kind == "" {
			key = string(f.Rule) + "\x00" + string(f.Kind) + "\x00" + f.Subject
		}
		if same.of(f) != nil {
			key = "same\x00" + identity(f)
		}
		if i, ok := idx[key]; ok {
			out[i].fs = append(out[i].fs, f)
			continue
		}
		idx[key] = len(out)
		out = append(out, entry{fs: []finding.Finding{f}})
	}
	return out
}

// entries writes the findings of one server (or the repository), one
// entry per changed definition; acknowledged ones counted unless verbose.
func (t *textWriter) entries(fs []finding.Finding, verbose bool) {
	var shown []finding.Finding
	acked := 0
	for _, f := range fs {
		if f.Acknowledged && !verbose {
			acked++
			continue
		}
		shown = append(shown, f)
	}
	// The same finding on many subjects of one server is one entry
	// naming them (groupSame), --verbose or not: it says nothing more
	// per subject.
	shown, t.same = groupSame(shown)
	entries := groupEntries(shown, t.same)
	// A rule that fires on many subjects the same way (a dozen files with
	// unchecked servers) is one entry naming them all, not a dozen
	// entries repeating one message; --verbose lists each with its own.
	byRule := map[finding.RuleID][]int{}
	for i, e := range entries {
		if f := e.fs[0]; len(e.fs) == 1 && t.same.of(f) == nil && !driftRules[f.Rule] && f.Before == "" && f.After == "" && f.Detail == "" && decodeTags(f.Message) == "" {
			byRule[f.Rule] = append(byRule[f.Rule], i)
		}
	}
	done := map[int]bool{}
	alike := t.alikeDrift(entries)
	for i, e := range entries {
		if done[i] {
			continue
		}
		if group := alike[i]; len(group) > 1 {
			t.entryGroup(entries, group)
			for _, j := range group {
				done[j] = true
			}
			continue
		}
		if same := byRule[e.fs[0].Rule]; !verbose && len(same) >= collapseAfter && same[0] == i {
			t.sameRule(entries, same)
			for _, j := range same {
				done[j] = true
			}
			continue
		}
		t.entry(e)
	}
	if acked > 0 {
		t.para(t.dim(fmt.Sprintf("%s not listed (--verbose lists them)", plural(acked, "acknowledged finding", "acknowledged findings"))), "  ", "    ")
	}
}

// alikeDrift finds the changed definitions of one kind whose entries
// would read the same but for their names: the same rules, severity and
// acknowledgement, and the same body (fields, new inputs, values shown).
// A routine upgrade changes most tools of a server the same way (nine of
// server-memory's gain annotations, an output schema and a title that is
// their name in words); each such group is one entry naming them all
// (entryGroup), not one entry each. The map is keyed by the first
// entry's index; groups of one are left out.
func (t *textWriter) alikeDrift(entries []entry) map[int][]int {
	first := map[string]int{}
	out := map[int][]int{}
	for i, e := range entries {
		f0 := e.fs[0]
		if !driftRules[f0.Rule] || f0.Kind == finding.KindServer || f0.Kind == "" || t.same.of(f0) != nil {
			continue
		}
		sev, acked := f0.Severity, true
		var rules []string
		for _, f := range e.fs {
			sev = max(sev, f.Severity)
			acked = acked && f.Acknowledged
			if !slices.Contains(rules, string(f.Rule)) {
				rules = append(rules, string(f.Rule))
			}
		}
		key := fmt.Sprintf("%s\x00%s\x00%d\x00%v\x00%s", f0.Kind, strings.Join(rules, ","), sev, acked, t.bodyOf(e))
		if j, ok := first[key]; ok {
			out[j] = append(out[j], i)
			continue
		}
		first[key] = i
		out[i] = []int{i}
	}
	for i, g := range out {
		if len(g) < 2 {
			delete(out, i)
		}
	}
	return out
}

// bodyOf is what driftBody writes for e.
func (t *textWriter) bodyOf(e entry) string {
	var b strings.Builder
	c := *t
	c.w = bufio.NewWriter(&b)
	c.driftBody(e.fs)
	c.w.Flush()
	return b.String()
}

// entryGroup writes changed definitions that read alike (alikeDrift) as
// one entry: the kind in the plural and every name in the head, then the
// body once.
func (t *textWriter) entryGroup(entries []entry, idx []int) {
	f0 := entries[idx[0]].fs[0]
	names := make([]string, len(idx))
	for k, i := range idx {
		names[k] = entries[i].fs[0].Subject
	}
	t.entryAs(entries[idx[0]], string(f0.Kind)+"s "+strings.Join(names, ", "))
}

// collapseAfter is how many plain findings of one rule in one section are
// listed one by one; from this many on they are one entry.
const collapseAfter = 4

// sameRule writes plain findings of one rule as one entry: the rule and
// count, the first message whole, then every other subject named.
func (t *textWriter) sameRule(entries []entry, idx []int) {
	first := entries[idx[0]].fs[0]
	sev := first.Severity
	for _, i := range idx {
		sev = max(sev, entries[i].fs[0].Severity)
	}
	top := first
	top.Severity = sev
	mark := severityMark(top)
	if sev >= finding.Error && !top.Acknowledged {
		mark = t.red(mark)
	}
	t.para(mark+" "+t.bold(escape(string(first.Rule)))+" "+t.dim(fmt.Sprintf("— %d subjects", len(idx))), "  ", "      ")
	t.para(inert.Composed(first.Message), "      ", "        ")
	var others []string
	for _, i := range idx[1:] {
		f := entries[i].fs[0]
		s := subjectText(f)
		if s == "" {
			s = f.Server
		}
		others = append(others, escape(s))
	}
	t.para(t.dim("the same for:")+" "+strings.Join(others, ", "), "      ", "        ")
}

// entry writes one entry: a head line (mark, subject, rules, severity),
// the changed fields, then what a reader must see of the values.
func (t *textWriter) entry(e entry) { t.entryAs(e, "") }

// entryAs is entry with the head naming subject ("": the entry's own).
func (t *textWriter) entryAs(e entry, subject string) {
	f0 := e.fs[0]
	sev := f0.Severity
	var rules []string
	seenRule := map[finding.RuleID]bool{}
	acked := true
	for _, f := range e.fs {
		sev = max(sev, f.Severity)
		if !seenRule[f.Rule] {
			seenRule[f.Rule] = true
			rules = append(rules, escape(string(f.Rule)))
		}
		acked = acked && f.Acknowledged
	}
	label := strings.Join(rules, ", ")
	if subject == "" {
		subject = t.same.subjectText(f0)
	}
	if subject == "" {
		subject = f0.Server
		if f0.Server == "" {
			subject = "repository"
		}
	}
	top := f0
	top.Severity = sev
	mark := severityMark(top)
	if !acked && sev >= finding.Error {
		mark = t.red(mark)
	}
	head := mark + " " + t.bold(escape(subject)) + " " + t.dim("— "+label)
	t.para(head, "  ", "      ")
	drift := driftRules[f0.Rule] && f0.Kind != finding.KindServer && f0.Kind != ""
	if drift {
		t.driftBody(e.fs)
		return
	}
	for _, f := range e.fs {
		t.findingBody(f, len(e.fs) > 1 || t.same.of(f) != nil)
	}
}

// driftBody lists a changed definition's fields on one wrapped line, then
// the word diff of each text field and, for other values, the part that
// differs.
func (t *textWriter) driftBody(fs []finding.Finding) {
	type field struct{ path, before, after, phase string }
	var fields []*field
	byPath := map[string]*field{}
	var newInputs []string
	var unstable []string
	for _, f := range fs {
		switch f.Rule {
		case finding.NewInputProperty:
			newInputs = append(newInputs, strings.TrimPrefix(f.Field, "inputSchema/properties/"))
			continue
		case finding.UnstableManifest:
			// The same change across phases: said once, with where.
			if p, ok := byPath[f.Field]; ok && p.before == f.Before && p.after == f.After {
				unstable = append(unstable, f.Phase)
				continue
			}
		}
		key := string(f.Rule) + "\x00" + f.Field
		if p, ok := byPath[key]; ok && p.before == f.Before && p.after == f.After {
			continue
		}
		fl := &field{path: f.Field, before: f.Before, after: f.After, phase: f.Phase}
		byPath[key] = fl
		if _, ok := byPath[f.Field]; !ok {
			byPath[f.Field] = fl
		}
		fields = append(fields, fl)
	}
	var list []string
	for _, fl := range fields {
		if fl.path == "" {
			continue
		}
		mark := "~"
		switch {
		case fl.before == "" && fl.after != "":
			mark = "+"
		case fl.after == "" && fl.before != "":
			mark = "-"
		}
		list = append(list, mark+escape(fl.path))
	}
	if len(list) > 0 {
		t.para(t.dim("fields:")+" "+strings.Join(list, " "), "      ", "        ")
	}
	if len(newInputs) > 0 {
		t.para(t.dim("new inputs (a way for data out):")+" "+escape(strings.Join(newInputs, ", ")), "      ", "        ")
	}
	if len(unstable) > 0 {
		t.para(t.dim("also seen changing during the probe, at:")+" "+escape(strings.Join(unstable, ", ")), "      ", "        ")
	}
	for _, f := range fs {
		if f.Rule == finding.NewInputProperty {
			continue
		}
		if f.Field == "" && len(fs) == 1 {
			t.para(inert.Composed(f.Message), "      ", "        ")
		}
	}
	for _, fl := range fields {
		if fl.path == "title" && fl.before == "" && sameWords(fl.after, fs[0].Subject) {
			// A new title that is the name in words (read_graph:
			// "Read Graph") says nothing the head does not: it is in
			// the field list, and diff shows it.
			continue
		}
		t.valueChange(fl.path, fl.phase, fl.before, fl.after)
	}
	for _, f := range fs {
		if tags, where := hiddenTags(f); tags != "" {
			t.para(t.bold("hidden tag text ("+where+"), decoded:")+" "+escape(tags), "      ", "        ")
		}
	}
}

// sameWords reports whether two texts are the same words, letters and
// digits compared case-insensitively, whatever separates them:
// "List Directory with Sizes" and list_directory_with_sizes. A title with
// any word more ("Read File (Deprecated)") is not.
func sameWords(a, b string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	wa, wb := split(a), split(b)
	return len(wa) > 0 && slices.Equal(wa, wb)
}

// isText reports whether a before/after value is prose (a description, a
// title, a launch command line) rather than a JSON object or array.
func isText(before, after string) bool {
	for _, v := range []string{before, after} {
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
			return false
		}
	}
	return true
}

// valueChange shows what changed in one field: for text on both sides a
// word diff, in full around the change; for a JSON value on both sides the
// part that differs, with an ellipsis either side; a value only added or
// removed is named in the field list and shown in full by diff.
func (t *textWriter) valueChange(path, phase, before, after string) {
	if before == "" || after == "" {
		if isText(before, after) && strings.Contains(before+after, " ") {
			// A new or removed sentence is itself the change.
			if before != "" {
				t.para(t.dim(escape(path)+":")+" "+t.red("[-"+escape(before)+"-]"), "      ", "        ")
			} else {
				t.para(t.dim(escape(path)+":")+" "+t.green("{+"+escape(after)+"+}"), "      ", "        ")
			}
		}
		return
	}
	label := escape(path)
	if label == "" {
		label = "value"
	}
	if phase != "" && phase != "launch-1/initial" {
		label += " at " + escape(phase)
	}
	if isText(before, after) {
		var words []string
		// The whole text, changes marked: the reader sees all of what the
		// model will read, not only the words around the change.
		for _, l := range wordDiffContext(before, after, -1) {
			if l == "" {
				continue
			}
			switch l[0] {
			case '-':
				words = append(words, t.red("[-"+l[1:]+"-]"))
			case '+':
				words = append(words, t.green("{+"+l[1:]+"+}"))
			default:
				words = append(words, l[1:])
			}
		}
		t.para(t.dim(label+":")+" "+strings.Join(words, " "), "      ", "        ")
		return
	}
	t.para(t.dim(label+":"), "      ", "      ")
	b, a := firstDifference(before, after)
	t.para(t.red("- ")+b, "        ", "          ")
	t.para(t.green("+ ")+a, "        ", "          ")
}

// findingBody writes a finding that is not drift of a definition: its
// message, field and phase, the detail, and the hidden text decoded.
func (t *textWriter) findingBody(f finding.Finding, withField bool) {
	msg := inert.Composed(f.Message)
	if withField && f.Field != "" {
		msg = escape(f.Field) + ": " + msg
	}
	if f.Phase != "" && f.Phase != "launch-1/initial" {
		msg += t.dim(" (at " + escape(f.Phase) + ")")
	}
	if f.Acknowledged && f.AckReason != "" {
		msg += t.dim(" acknowledged: " + escape(f.AckReason))
	}
	t.para(msg, "      ", "        ")
	if f.Before != "" && f.After != "" {
		t.valueChange(f.Field, "", f.Before, f.After)
	}
	if tags, where := hiddenTags(f); tags != "" {
		t.para(t.bold("hidden tag text ("+where+"), decoded:")+" "+escape(tags), "      ", "        ")
	}
	if f.Detail != "" {
		t.para(t.dim("detail:")+" "+clip.Fit(inert.Composed(f.Detail), widthDetail), "      ", "        ")
	}
}

// next ends the report with the commands to run next.
func (t *textWriter) next(r *Report, approve, pin string) {
	var drift, unpinned, held []string
	orphaned, changed := false, false
	sep := ""
	for _, s := range r.Servers {
		switch s.Status {
		case StatusDrift:
			if !needsApproval(s.Findings, failThreshold(r)) {
				break
			}
			changed = true
			if !hostile(s.Findings) {
				drift = append(drift, inert.ShellWord(s.Name))
				if strings.HasPrefix(s.Name, "-") {
					sep = "-- "
				}
			}
		case StatusHeld:
			held = append(held, inert.ShellWord(s.Name))
		}
		for _, f := range s.Findings {
			if f.Rule == finding.ServerNotPinned {
				unpinned = append(unpinned, inert.ShellWord(s.Name))
			}
			orphaned = orphaned || f.Rule == finding.LockEntryOrphaned && !f.Acknowledged
		}
	}
	var steps [][2]string
	// What marks a server hostile comes first, as a warning, never as an
	// acknowledgement to run: approving or acknowledging it is not the
	// way out, and such a server is not offered an approve either.
	for _, w := range HostileWarnings(r) {
		steps = append(steps, [2]string{"", w})
	}
	if changed {
		steps = append(steps, [2]string{"mcp-lockcheck diff", "every change in full, word by word"})
	}
	if len(drift) > 0 {
		steps = append(steps, [2]string{approve + " " + sep + strings.Join(drift, " "), "after review: take what the servers show now into the lock"})
	}
	if len(unpinned) > 0 {
		steps = append(steps, [2]string{pin + " --server " + strings.Join(unpinned, " --server "), "pin the servers the lock does not have"})
	}
	if orphaned {
		steps = append(steps, [2]string{pin, "re-pin every configured server: the lock drops the entries no config names"})
	}
	for _, c := range AckCommands(r, approve) {
		steps = append(steps, [2]string{c, "after review: acknowledge the finding, with your reason"})
	}
	if len(held) > 0 {
		steps = append(steps, [2]string{"mcp-lockcheck check --server " + strings.Join(held, " --server ") + " --verbose", "held servers could not be probed: fix the reason above and check again"})
	}
	if len(steps) == 0 {
		return
	}
	t.nl()
	t.line("Next:")
	for _, s := range steps {
		if s[0] == "" {
			t.para(t.dim("# "+s[1]), "  ", "    ")
			continue
		}
		// A command is never wrapped: it must paste as one line. Its
		// comment goes on the next line when both do not fit.
		if visible("  "+s[0]+"   # "+s[1]) <= t.width {
			t.line("  " + t.bold(s[0]) + t.dim("   # "+s[1]))
			continue
		}
		t.line("  " + t.bold(s[0]))
		t.para(t.dim("# "+s[1]), "      ", "        ")
	}
}

// ackOffered reports whether the reports offer to acknowledge f
// (approve --ack): its rule is resolved by acknowledging, and
// acknowledging is a reasonable outcome for it. It is not for what marks
// the server as hostile: a planted secret sent back or tried
// (canary-leak, canary-used), or text at error level that tells the model
// to pass secrets on, send data away, route around other tools or hide it
// (model-instruction's error class). Those can still be acknowledged by
// hand, with a reason, when the text is plainly legitimate; the reports
// say what they are instead.
func ackOffered(f finding.Finding) bool {
	if finding.Resolution(f.Rule) != finding.ResolveAck {
		return false
	}
	switch f.Rule {
	case finding.CanaryLeak, finding.CanaryUsed:
		return false
	case finding.ModelInstruction:
		return f.Severity < finding.Error
	}
	return true
}

// hostile reports whether fs holds an unacknowledged error that ackOffered
// refuses to offer: a server no "Next:" step should approve.
func hostile(fs []finding.Finding) bool {
	for _, f := range fs {
		if !f.Acknowledged && f.Severity >= finding.Error && finding.Resolution(f.Rule) == finding.ResolveAck && !ackOffered(f) {
			return true
		}
	}
	return false
}

// HostileWarnings are the "Next:" lines (pin prints them too) for
// findings that mark a server as hostile, which are not offered an
// acknowledgement (ackOffered): one per server, rule and subject.
func HostileWarnings(r *Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range r.Servers {
		for _, f := range s.Findings {
			if f.Acknowledged || f.Severity < finding.Error || finding.Resolution(f.Rule) != finding.ResolveAck || ackOffered(f) {
				continue
			}
			what := inert.Text(s.Name)
			if f.Kind != "" && f.Kind != finding.KindServer && f.Subject != "" {
				what += "/" + string(f.Kind) + "/" + inert.Text(f.Subject)
			}
			why := "the server read a planted secret and sent it back or used it: treat it as hostile; do not approve it, and remove it from the config"
			if f.Rule == finding.ModelInstruction {
				why = "its text tells the model to pass secrets on, send data away or hide what it does: do not approve or acknowledge it; remove the text at the source, go back to the approved version, or remove the server from the config"
			}
			w := what + " (" + string(f.Rule) + "): " + why
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// needsApproval reports whether a finding among fs at or above threshold
// is resolved by approving what the server shows (drift against the lock).
func needsApproval(fs []finding.Finding, threshold finding.Severity) bool {
	for _, f := range fs {
		if !f.Acknowledged && f.Severity >= threshold && finding.Resolution(f.Rule) == finding.ResolveApprove {
			return true
		}
	}
	return false
}

// failThreshold is the lowest severity that fails r, or error if that is
// lower: an error always asks for a next step, even under --fail-on never.
func failThreshold(r *Report) finding.Severity {
	failOn, err := finding.ParseSeverity(r.Summary.FailOn)
	if err != nil {
		failOn = finding.Error
	}
	return min(failOn, finding.Error)
}

// AckReason is the placeholder reason the printed acknowledgements carry:
// the reviewer replaces it with theirs.
const AckReason = "<why this is acceptable>"

// AckCommands are the commands that acknowledge each finding of r that
// fails it and is resolved by acknowledging where that is a reasonable
// outcome (ackOffered): not
// acknowledged, and at or above the run's fail-on threshold or an error.
// approve is the program and flags to run ("mcp-lockcheck approve ...",
// shell words). One command per rule and subject: an acknowledgement
// covers every finding of that rule on the subject's content. Server and
// subject names are quoted as inert shell words (inert.ShellWord), so a hostile
// name neither runs anything nor rewrites the terminal.
func AckCommands(r *Report, approve string) []string {
	if approve == "" {
		approve = "mcp-lockcheck approve"
	}
	threshold := failThreshold(r)
	var out []string
	seen := map[string]bool{}
	for _, s := range r.Servers {
		for _, f := range s.Findings {
			if f.Acknowledged || f.Severity < threshold || !ackOffered(f) || f.Kind == "" || f.ContentSHA256 == "" {
				continue
			}
			sel := f.Server + "/" + string(f.Kind) + "/" + f.Subject
			c := approve + " --ack " + string(f.Rule) + " --reason " + inert.ShellWord(AckReason) + " " + positional(sel)
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// positional is s as the last, positional argument of a command: a word
// that starts with "-" comes after "--", or it would be read as a flag.
func positional(s string) string {
	if strings.HasPrefix(s, "-") {
		return "-- " + inert.ShellWord(s)
	}
	return inert.ShellWord(s)
}

// subjectText is "tool read_file" (kind and subject), or what there is.
func subjectText(f finding.Finding) string {
	switch {
	case f.Subject == "" && (f.Kind == "" || f.Kind == finding.KindServer):
		return ""
	case f.Kind == "":
		return f.Subject
	}
	return string(f.Kind) + " " + f.Subject
}

// firstDifference renders before and after compactly around their first
// differing region, marked the way `git diff --word-diff` does: [-removed-]
// and {+added+}, with a little shared context on each side. Both lines start
// with the same context, so the eye finds the change at the same column.
func firstDifference(before, after string) (string, string) {
	if before == "" {
		return "(none)", "{+" + clip.Fit(escape(after), diffRegion) + "+}"
	}
	if after == "" {
		return "[-" + clip.Fit(escape(before), diffRegion) + "-]", "(none)"
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
	mid := func(rs []rune) string { return clip.Fit(escape(string(rs)), diffRegion) }
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
		fmt.Fprintf(w, "  %s › %s › %s\n", escape(f.Server), escape(subjectText(f)), clip.Fit(inert.Composed(f.Message), widthDetail))
		if tags, _ := hiddenTags(f); tags != "" {
			fmt.Fprintln(w, "    hidden tag text, decoded: "+clip.Fit(escape(tags), widthDetail))
		}
		if f.Detail != "" {
			fmt.Fprintln(w, "    "+clip.Fit(inert.Composed(f.Detail), widthDetail))
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
		fmt.Fprintf(w, "  %s: %s -> %s (%s)\n", escape(f.Field), clip.Fit(escape(f.Before), widthDetail), clip.Fit(escape(f.After), widthDetail), where)
	}
	if !first {
		fmt.Fprintln(w)
	}
}
