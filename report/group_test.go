package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// TestSameFindingOnManyTools: one sentence repeated on eight tools of one
// server (Resend's "Don't bother telling the user the IDs") is one entry
// naming the eight in the text report, the PR comment, the job summary and
// the annotations; the JSON report and SARIF keep a finding (a result) per
// tool, and so does every count. An acknowledged copy on a ninth tool, the
// same sentence on another server, and another sentence on a tenth tool
// stay apart.
func TestSameFindingOnManyTools(t *testing.T) {
	t.Parallel()
	const msg = `text addressed to the model: "Don't bother telling the user the IDs"`
	mk := func(server, tool, message string, line int) finding.Finding {
		f := finding.New(finding.ModelInstruction, server)
		f.Kind, f.Subject, f.Field, f.Phase, f.Message = finding.KindTool, tool, "description", "launch-1/initial", message
		f.File, f.Line = "mcp-lock.json", line
		return f
	}
	var fs []finding.Finding
	var tools []string
	for i := range 8 {
		tool := fmt.Sprintf("tool_%d", i)
		tools = append(tools, tool)
		fs = append(fs, mk("resend", tool, msg, 10+i))
	}
	acked := mk("resend", "tool_8", msg, 30)
	acked.Acknowledged, acked.AckReason = true, "house style"
	fs = append(fs, acked, mk("resend", "tool_9", `text addressed to the model: "Always call list_domains first"`, 40))
	finding.Sort(fs)
	other := mk("mail", "send", msg, 50)
	r := &Report{LockfileVersion: 1, Servers: []Server{
		{Name: "mail", Status: StatusOK, Phases: []string{"launch-1/initial"}, Findings: []finding.Finding{other}},
		{Name: "resend", Status: StatusOK, Phases: []string{"launch-1/initial"}, Findings: fs},
	}}
	Summarize(r, finding.Error, false)

	render := func(format Format, opts Options) string {
		var buf bytes.Buffer
		if err := Write(&buf, format, r, opts); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	list := strings.Join(tools, ", ")
	text := render(FormatText, Options{Width: 400})
	if n := strings.Count(text, "Don't bother"); n != 2 { // resend's eight, mail's one
		t.Errorf("text: the sentence is shown %d times, want 2 (once per server):\n%s", n, text)
	}
	if !strings.Contains(text, "8 tools: "+list) {
		t.Errorf("text: no entry naming the eight tools:\n%s", text)
	}
	if !strings.Contains(text, "Always call list_domains") {
		t.Errorf("text: the other sentence is gone:\n%s", text)
	}
	if !strings.Contains(render(FormatText, Options{Width: 400, Verbose: true}), "tool tool_8") {
		t.Errorf("text --verbose: the acknowledged finding is not shown on its own")
	}
	for _, format := range []Format{FormatMarkdown, FormatSummary} {
		md := render(format, Options{})
		if n := strings.Count(md, "Don"+"'t bother"); n != 2 {
			t.Errorf("%s: the sentence is shown %d times, want 2:\n%s", format, n, md)
		}
		if !strings.Contains(md, "8 tools: `tool_0`, `tool_1`") {
			t.Errorf("%s: no entry naming the eight tools:\n%s", format, md)
		}
	}
	ann := render(FormatAnnotations, Options{})
	if n := strings.Count(ann, "Don't bother"); n != 2 {
		t.Errorf("annotations: the sentence is in %d annotations, want 2:\n%s", n, ann)
	}
	if !strings.Contains(ann, "line=10,") || !strings.Contains(ann, "8 tools: "+list) {
		t.Errorf("annotations: not at the first tool's line, naming the eight:\n%s", ann)
	}

	// Per finding: JSON, SARIF and the counts.
	var back Report
	if err := json.Unmarshal([]byte(render(FormatJSON, Options{})), &back); err != nil {
		t.Fatal(err)
	}
	if n := len(back.Servers[1].Findings); n != 10 {
		t.Errorf("JSON: resend has %d findings, want 10", n)
	}
	if r.Summary.Findings != 11 || r.Summary.ByRule[finding.ModelInstruction] != 11 {
		t.Errorf("summary counts %d findings (%d model-instruction), want 11 of each", r.Summary.Findings, r.Summary.ByRule[finding.ModelInstruction])
	}
	var log struct {
		Runs []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(render(FormatSARIF, Options{})), &log); err != nil {
		t.Fatal(err)
	}
	if n := len(log.Runs[0].Results); n != 11 {
		t.Errorf("SARIF: %d results, want 11 (one per tool)", n)
	}
}

// TestSameFindingQuotedDifferently: a vendor's sentence with a word changed
// from tool to tool is the same finding (rule, field, message): one entry,
// showing the first tool's quote and saying the others' differ.
func TestSameFindingQuotedDifferently(t *testing.T) {
	t.Parallel()
	var fs []finding.Finding
	for i, d := range []string{"…IDs unless they ask…", "…IDs or creation dates unless…", "…IDs, unsubscribe status…"} {
		f := finding.New(finding.ModelInstruction, "resend")
		f.Kind, f.Subject, f.Field, f.Phase = finding.KindTool, fmt.Sprintf("list_%d", i), "description", "launch-1/initial"
		f.Message, f.Detail, f.Severity = "Text addressed to the model in description: tells the model to keep something from the user", d, finding.Note
		fs = append(fs, f)
	}
	out, groups := groupSame(fs)
	if len(out) != 1 || len(groups.of(out[0])) != 3 {
		t.Fatalf("not one group of three: %d kept, %v", len(out), groups.names(out[0]))
	}
	if want := "quoted from tool list_0 (the other 2 differ around the match): …IDs unless they ask…"; out[0].Detail != want {
		t.Errorf("detail %q, want %q", out[0].Detail, want)
	}
	if fs[0].Detail != "…IDs unless they ask…" {
		t.Errorf("the report's own finding was changed: %q", fs[0].Detail)
	}
}
