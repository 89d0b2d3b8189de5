package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// payload tries every way out of inert text: a fence break (backticks and
// tildes), <details>/<summary> break-outs, a mention, an image, links (inline,
// bare, www), raw HTML, an HTML comment, a heading and task item after a
// newline, table pipes, a bidi override, tag characters spelling a mention,
// and an ANSI escape.
var payload = "x`````````` ~~~~ ` @someone ` `` ``` ~~~ </details> </summary> @someone ![x](https://evil.example/x.png) " +
	"[link](https://evil.example) <img src=x onerror=alert(1)> <!-- --> \u202Eevil\u202C " +
	tagged("@someone") + " \x1b[31mred | a \\| b https://evil.example/bare www.evil.example #1 " +
	"\n``````````\n</details>\n<details>\n# heading\n- [ ] @someone\n| --- |\n<script>alert(1)</script>\n&#64;someone"

// payloadReport puts the payload in every piece of server text a finding or
// server carries.
func payloadReport() *Report {
	mk := func(rule finding.RuleID) finding.Finding {
		f := finding.New(rule, payload)
		f.Kind = finding.KindTool
		f.Subject = payload
		f.Field = payload
		f.Phase = payload
		f.Message = payload
		f.Before = "Read a file. " + payload
		f.After = "Read a file. " + payload + " Then " + payload
		f.Detail = payload
		return f
	}
	acked := mk(finding.ModelInstruction)
	acked.Acknowledged, acked.AckReason = true, payload
	fs := []finding.Finding{mk(finding.ToolChanged), mk(finding.HiddenCharacters), acked, mk(finding.ApprovalChanged)}
	unknown := mk(finding.RuleID(payload)) // an unregistered rule id must be inert too
	fs = append(fs, unknown)
	// A diff line that starts with a backtick run: it closes any fence that
	// is not longer than the run.
	fence := mk(finding.ToolAdded)
	fence.Before, fence.After = "```````````` x\n~~~~", "```````````` y\n~~~~"
	// Enough findings that the summary folds the section into <details>.
	fs = append(fs, fence, mk(finding.ToolRemoved))
	return &Report{
		LockfileVersion: 1,
		Servers: []Server{
			{Name: payload, Status: StatusDrift, Phases: []string{payload}, Notes: []string{"network: the server tried 1 destination(s): " + payload, payload}, Findings: fs},
			{Name: payload + "2", Status: StatusHeld, Reason: payload, Findings: []finding.Finding{mk(finding.ServerUnavailable)}},
			{Name: "fine", Status: StatusOK, Phases: []string{"launch-1/initial"}},
		},
		Summary: Summary{Servers: 3, OK: 1, Drift: 1, Held: 1, Findings: 8, FailOn: payload, ExitCode: 1},
	}
}

var allowedHTMLLine = regexp.MustCompile(`^(<!-- mcp-lockcheck -->|<!-- mcp-lockcheck:status-end -->|<!-- mcp-lockcheck:deep-drift lock=[A-Za-z0-9._/-]+ -->|<details>|</details>|<summary>[^<>&]*</summary>)$`)

// assertInert parses md as CommonMark and as GitHub-flavoured markdown and
// fails on anything live that server text could have made.
func assertInert(t *testing.T, name, md string, allowLink string) {
	t.Helper()
	for _, p := range []struct {
		name string
		md   goldmark.Markdown
	}{
		{"commonmark", goldmark.New()},
		{"gfm", goldmark.New(goldmark.WithExtensions(extension.GFM))},
	} {
		src := []byte(md)
		doc := p.md.Parser().Parse(text.NewReader(src))
		details := 0
		err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			where := fmt.Sprintf("%s/%s: %s node", name, p.name, n.Kind())
			switch n := n.(type) {
			case *ast.Link:
				if allowLink == "" || string(n.Destination) != allowLink {
					return ast.WalkStop, fmt.Errorf("%s to %q", where, n.Destination)
				}
			case *ast.Image:
				return ast.WalkStop, fmt.Errorf("%s of %q", where, n.Destination)
			case *ast.AutoLink:
				return ast.WalkStop, fmt.Errorf("%s to %q", where, n.URL(src))
			case *ast.RawHTML:
				return ast.WalkStop, fmt.Errorf("%s %q", where, n.Segments.Value(src))
			case *ast.HTMLBlock:
				lines := []string{}
				for i := 0; i < n.Lines().Len(); i++ {
					seg := n.Lines().At(i)
					lines = append(lines, strings.TrimRight(string(seg.Value(src)), "\n"))
				}
				if n.HasClosure() {
					lines = append(lines, strings.TrimRight(string(n.ClosureLine.Value(src)), "\n"))
				}
				for _, l := range lines {
					if !allowedHTMLLine.MatchString(l) {
						return ast.WalkStop, fmt.Errorf("%s line %q", where, l)
					}
					if strings.Contains(l, "@someone") {
						return ast.WalkStop, fmt.Errorf("%s: mention in HTML %q", where, l)
					}
					switch l {
					case "<details>":
						details++
					case "</details>":
						details--
					}
				}
			case *ast.Text:
				if inCode(n) {
					break
				}
				s := string(n.Segment.Value(src))
				// "heading" outside code would be the payload's "# heading"
				// made into a heading of its own.
				for _, bad := range []string{"@someone", "evil.example", "<img", "</details>", "heading", "alert"} {
					if strings.Contains(s, bad) {
						return ast.WalkStop, fmt.Errorf("%s outside code holds %q: %q", where, bad, s)
					}
				}
			case *ast.FencedCodeBlock:
				for i := 0; i < n.Lines().Len(); i++ {
					seg := n.Lines().At(i)
					l := seg.Value(src)
					if len(l) > 0 && !bytes.ContainsAny(l[:1], " -+…") {
						return ast.WalkStop, fmt.Errorf("%s holds a line we did not write: %q", where, l)
					}
				}
			}
			if n.Kind() == extast.KindTableRow || n.Kind() == extast.KindTableHeader {
				if n.ChildCount() != 4 {
					return ast.WalkStop, fmt.Errorf("%s with %d cells, want 4: a pipe split a cell", where, n.ChildCount())
				}
			}
			if n.Kind() == extast.KindTaskCheckBox {
				return ast.WalkStop, fmt.Errorf("%s made by the payload", where)
			}
			return ast.WalkContinue, nil
		})
		if err != nil {
			t.Errorf("%v\n--- markdown ---\n%s", err, md)
			return
		}
		if details != 0 {
			t.Errorf("%s/%s: <details> and </details> do not balance (%+d)", name, p.name, details)
		}
		// The document must end with our footer: a fence or <details> left
		// open by the payload would swallow it.
		last := doc.LastChild()
		if last == nil || last.Kind() != ast.KindParagraph || !strings.HasPrefix(string(last.Lines().Value(src)), "— mcp-lockcheck") {
			t.Errorf("%s/%s: document does not end with the footer paragraph", name, p.name)
		}
	}
	if strings.ContainsAny(md, "\u202E\x1b") || strings.ContainsRune(md, 0xE0040) {
		t.Errorf("%s: bidi override, ESC or a tag character reached the markdown", name)
	}
}

// inCode reports whether n sits inside a code span.
func inCode(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindCodeSpan {
			return true
		}
	}
	return false
}

func TestMarkdownInert(t *testing.T) {
	t.Parallel()
	r := payloadReport()
	for _, f := range []Format{FormatMarkdown, FormatSummary} {
		var buf bytes.Buffer
		if err := Write(&buf, f, r, Options{}); err != nil {
			t.Fatal(err)
		}
		md := buf.String()
		if f == FormatSummary && !strings.Contains(md, "<details>") {
			t.Errorf("summary did not fold the long section into <details>")
		}
		if !strings.HasPrefix(md, Marker+"\n") {
			t.Errorf("%s does not start with the marker", f)
		}
		if !strings.Contains(md, "hidden tag text (live), decoded: `@someone@someone`") {
			t.Errorf("%s does not show the decoded tag text in a code span", f)
		}
		assertInert(t, string(f), md, "")
	}
}

// TestMarkdownInertWhenCut checks the payload stays inert when the cap cuts
// the document, and that the note links to the job summary.
func TestMarkdownInertWhenCut(t *testing.T) {
	t.Parallel()
	r := payloadReport()
	url := "https://github.com/acme/agents/actions/runs/42"
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, r, Options{MarkdownLimit: 6000, SummaryURL: url}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if !strings.Contains(md, "cut to fit") || !strings.Contains(md, "]("+url+")") {
		t.Fatalf("cut comment lacks the note or its link:\n%s", md)
	}
	assertInert(t, "cut markdown", md, url)
	buf.Reset()
	if err := writeSummary(&buf, r, Options{SummaryLimit: 6000}); err != nil {
		t.Fatal(err)
	}
	assertInert(t, "cut summary", buf.String(), "")
}

func TestSafeURL(t *testing.T) {
	t.Parallel()
	for u, ok := range map[string]bool{
		"https://github.com/o/r/actions/runs/1": true,
		"http://github.com/x":                   false,
		"javascript:alert(1)":                   false,
		"https://x.example/a)b":                 false,
		"https://x.example/a b":                 false,
		"":                                      false,
	} {
		if got := safeURL(u) != ""; got != ok {
			t.Errorf("safeURL(%q) ok = %v, want %v", u, got, ok)
		}
	}
}

// bigReport has n drifted tools with long before/after texts.
func bigReport(n int) *Report {
	var fs []finding.Finding
	for i := range n {
		f := finding.New(finding.ToolChanged, "big")
		f.Kind, f.Subject, f.Field = finding.KindTool, fmt.Sprintf("tool_%04d", i), "description"
		f.Message = "description changed"
		f.Before = strings.Repeat("lorem ipsum dolor ", 60)
		f.After = strings.Repeat("lorem ipsum ```` dolor ", 60)
		fs = append(fs, f)
	}
	return &Report{
		LockfileVersion: 1,
		Servers:         []Server{{Name: "big", Status: StatusDrift, Findings: fs}, {Name: "after", Status: StatusHeld, Reason: "x", Findings: []finding.Finding{finding.New(finding.ServerUnavailable, "after")}}},
		Summary:         Summary{Servers: 2, Drift: 1, Held: 1, Findings: n + 1, ExitCode: 1},
	}
}

func TestMarkdownCap(t *testing.T) {
	t.Parallel()
	r := bigReport(400)
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, r, Options{SummaryURL: "https://github.com/acme/agents/actions/runs/42"}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if len(md) > MarkdownLimit {
		t.Fatalf("comment is %d bytes, over the %d cap", len(md), MarkdownLimit)
	}
	if len(md) < MarkdownLimit-10000 {
		t.Errorf("comment is %d bytes: the cap wastes too much room", len(md))
	}
	if !strings.Contains(md, "more findings are not shown here") || !strings.Contains(md, "job summary") {
		t.Errorf("cut comment does not say what was cut and where to read it")
	}
	checkFencesClosed(t, md)
	// Every finding block is whole: the number of finding headers equals
	// the number of diff blocks.
	if h, d := strings.Count(md, "**✖ error** `tool-changed`"), strings.Count(md, "`````diff\n"); h != d || h == 0 {
		t.Errorf("%d findings but %d diff blocks: a finding was cut in half", h, d)
	}

	buf.Reset()
	if err := writeSummary(&buf, r, Options{SummaryLimit: 100000}); err != nil {
		t.Fatal(err)
	}
	sum := buf.String()
	if len(sum) > 100000 {
		t.Fatalf("summary is %d bytes, over its cap", len(sum))
	}
	if strings.Count(sum, "<details>") != strings.Count(sum, "</details>") {
		t.Errorf("cut summary leaves <details> open")
	}
	checkFencesClosed(t, sum)

	// The default summary cap holds under GitHub's 1 MiB.
	buf.Reset()
	if err := writeSummary(&buf, bigReport(2000), Options{}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 1<<20 {
		t.Errorf("summary is %d bytes, over 1 MiB", buf.Len())
	}
}

// checkFencesClosed walks the lines: every opening fence has its closing
// fence before the document ends.
func checkFencesClosed(t *testing.T, md string) {
	t.Helper()
	open := ""
	for _, l := range strings.Split(md, "\n") {
		switch {
		case open == "" && strings.HasPrefix(l, "```"):
			open = l[:longestRun(l, '`')]
		case open != "" && l == open:
			open = ""
		}
	}
	if open != "" {
		t.Errorf("a fence (%s) is never closed", open)
	}
}

func TestApprovalsFirst(t *testing.T) {
	t.Parallel()
	r := loadFixture(t)
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	a, s := strings.Index(md, "This pull request approves:"), strings.Index(md, "### Servers")
	if a < 0 || s < 0 || a > s {
		t.Errorf("approvals section missing or after the live results")
	}
	if strings.Count(md, "`approval-changed`") != 1 {
		t.Errorf("an approval finding is listed more than once")
	}
}

// TestMarkdownNotes: the PR comment and the job summary list each server's
// notes, a network refusal among them, so a failed strict run says in the
// pull request what to allow; a long note is shortened, and notes never
// take the room the findings are kept.
func TestMarkdownNotes(t *testing.T) {
	t.Parallel()
	refused := "network: the server tried 2 destination(s) its allowance does not name, and was refused: " +
		"telemetry.example.com (name not allowed), api.example.com:8443 (not allowed); to let it reach one, add HOST:PORT to servers.api.network in the policy file"
	r := &Report{LockfileVersion: 1, Servers: []Server{
		{Name: "api", Status: StatusHeld, Reason: "tools/list: fetch failed", Isolation: "strict", Notes: []string{refused}},
		{Name: "chatty", Status: StatusOK, Notes: []string{strings.Repeat("a long note ", 200)}},
		{Name: "quiet", Status: StatusOK},
	}}
	for _, f := range []Format{FormatMarkdown, FormatSummary} {
		var buf bytes.Buffer
		if err := Write(&buf, f, r, Options{}); err != nil {
			t.Fatal(err)
		}
		md := buf.String()
		if !strings.Contains(md, "**Notes**\n\n- `api`: `"+refused+"`\n") {
			t.Errorf("%s does not list the refused destinations:\n%s", f, md)
		}
		long := regexp.MustCompile("- `chatty`: `(a long note ?)+[^`]*\\.\\.\\.`\n").FindString(md)
		if long == "" || len(long) > noteLimit+40 {
			t.Errorf("%s: the long note is not shortened to about %d bytes (%d):\n%s", f, noteLimit, len(long), md)
		}
		if strings.Contains(md, "`quiet`:") {
			t.Errorf("%s lists a note for a server without one", f)
		}
		if n, s := strings.Index(md, "**Notes**"), strings.Index(md, "### Servers"); n < s {
			t.Errorf("%s: the notes come before the table of servers", f)
		}
	}
	// Notes fill only room the findings leave: a comment cut to fit shows
	// every finding it showed without them.
	fix := loadFixture(t)
	var without, with bytes.Buffer
	if err := writeMarkdown(&without, fix, Options{MarkdownLimit: 6000}); err != nil {
		t.Fatal(err)
	}
	fix.Servers[0].Notes = []string{refused, refused + " again", refused + " and again"}
	if err := writeMarkdown(&with, fix, Options{MarkdownLimit: 6000}); err != nil {
		t.Fatal(err)
	}
	count := func(s string) int { return strings.Count(s, "**✖ error**") + strings.Count(s, "**⚠ warning**") }
	if count(with.String()) != count(without.String()) || with.Len() > 6000 {
		t.Errorf("notes took the findings' room: %d findings shown with notes, %d without; %d bytes",
			count(with.String()), count(without.String()), with.Len())
	}
}

// TestMarkdownCutInTable: with more servers than fit, the table itself is cut
// at a row and the note still follows as its own block.
func TestMarkdownCutInTable(t *testing.T) {
	t.Parallel()
	r := &Report{LockfileVersion: 1}
	for i := range 3000 {
		r.Servers = append(r.Servers, Server{Name: fmt.Sprintf("server-%04d", i), Status: StatusOK})
	}
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if len(md) > MarkdownLimit || !strings.Contains(md, "the rest of the servers are not shown") {
		t.Errorf("table cut: %d bytes, note present %v", len(md), strings.Contains(md, "cut to fit"))
	}
	assertInert(t, "cut table", md, "")
}

// TestMarkdownCell puts hostile text in the middle cell of a GFM table row
// and reads the row back with goldmark's GFM tables, which split a row as
// GitHub's cmark-gfm does (a pipe right after a backslash is not a cell
// break, and the table drops that backslash): the row keeps its three
// cells, and the middle one is one code span that shows the inert text.
func TestMarkdownCell(t *testing.T) {
	t.Parallel()
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a|b", "a|b"},
		{`a\|b`, `a\|b`},
		{`a\\|b`, `a\\\|b`}, // inert doubles a backslash before a backslash
		{"|", "|"},
		{"||lead and trail||", "||lead and trail||"},
		{"`|`", "`|`"},
		{"a` | `b", "a` | `b"},
		{`ends in \`, `ends in \`},
		{"tab\there|\n", inert.Text("tab\there|\n")},
		{"new\nline | x", `new\nline | x`},
		{"\u202E|evil", `\u{202E}|evil`},
		{"", "(empty)"},
	} {
		cell := MarkdownCell(tc.in)
		src := []byte("| a | b | c |\n|---|---|---|\n| x | " + cell + " | y |\n")
		doc := md.Parser().Parse(text.NewReader(src))
		var rows []ast.Node
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if entering && n.Kind() == extast.KindTableRow {
				rows = append(rows, n)
			}
			return ast.WalkContinue, nil
		})
		if len(rows) != 1 || rows[0].ChildCount() != 3 {
			t.Errorf("MarkdownCell(%q) = %q: the row does not have 3 cells\n%s", tc.in, cell, src)
			continue
		}
		mid := rows[0].FirstChild().NextSibling()
		var got strings.Builder
		spans := 0
		_ = ast.Walk(mid, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.CodeSpan:
				spans++
			case *ast.Text:
				got.Write(n.Segment.Value(src))
			case *ast.String:
				got.Write(n.Value)
			}
			return ast.WalkContinue, nil
		})
		if got.String() != tc.want || (tc.in != "" && spans != 1) {
			t.Errorf("MarkdownCell(%q) = %q: the cell reads %q in %d code spans, want %q in one", tc.in, cell, got.String(), spans, tc.want)
		}
	}
}
