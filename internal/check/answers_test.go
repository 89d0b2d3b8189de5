package check

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// answerCase is one poisoned answer: which answer carries the payload
// (tools/call, resources/read, prompts/get), in which field, what payload,
// written how, and from which call on.
type answerCase struct {
	carrier, field, variant, encoding string
	after                             int
}

func (c answerCase) name() string {
	n := fmt.Sprintf("%s-%s-%s", c.carrier, c.field, c.variant)
	if c.encoding != "" {
		n += "-" + c.encoding
	}
	if c.after > 0 {
		n += fmt.Sprintf("-after%d", c.after)
	}
	return n
}

// rule is the rule the payload is, by class.
func (c answerCase) rule() finding.RuleID {
	switch c.variant {
	case "instruction", "exfil", "beacon":
		return finding.ModelInstruction
	case "ansi", "osc8", "c1":
		return finding.TerminalEscape
	}
	return finding.HiddenCharacters
}

// prefix is where check's findings on the carrier's answers sit.
func (c answerCase) prefix() string {
	return map[string]string{"call": "tools/call result", "resource": "resources/read", "prompt": "prompts/get"}[c.carrier]
}

// answerCases vary every axis the server controls: each field of each
// carrier, the payload's class (hidden text, control sequences,
// instructions, a secret read, a beacon), its encoding (escaped, base64
// in both alphabets, junk a lenient decoder skips, a data: URI) and the
// trigger (from the first answer, or after a number of calls the quick
// profile reaches).
func answerCases() []answerCase {
	variants := []string{"tags", "ansi", "instruction", "zero-width", "exfil", "bidi", "osc8", "tags-escaped", "beacon", "c1"}
	encodings := map[bool][]string{false: {"", "escaped", "data-uri"}, true: {"", "url", "junk"}}
	var out []answerCase
	i := 0
	for _, carrier := range []string{"call", "resource", "prompt"} {
		for _, field := range fakeserver.AnswerFields[carrier] {
			b64 := strings.Contains(field, "blob") || field == "image" || field == "audio"
			out = append(out, answerCase{carrier: carrier, field: field, variant: variants[i%len(variants)], encoding: encodings[b64][i%3]})
			i++
		}
	}
	// The trigger: honest for the pin and the first calls, poisoned from
	// the second on, in each carrier.
	return append(out, []answerCase{
		{carrier: "call", field: "text", variant: "tags", after: 2},
		{carrier: "resource", field: "blob", variant: "instruction", after: 2},
		{carrier: "prompt", field: "text", variant: "ansi", after: 2},
		{carrier: "prompt", field: "resource-blob", variant: "exfil", after: 2},
	}...)
}

// answersServer is the answers fake under name with the case's env; every
// case sets the same variable names, so the launch is the same whatever
// the values (pin and check differ only in them).
func answersServer(name string, c answerCase, poisoned bool) config.Server {
	env := map[string]string{"FAKE_SCENARIO": "answers", "FAKE_CARRIER": "", "FAKE_FIELD": c.field, "FAKE_VARIANT": c.variant, "FAKE_ENCODING": c.encoding, "FAKE_AFTER": fmt.Sprint(c.after)}
	if poisoned {
		env["FAKE_CARRIER"] = c.carrier
	}
	return config.Server{Name: name, Type: "stdio", Command: os.Args[0], Env: env, File: ".mcp.json", Line: 1, Client: "claude-code"}
}

// TestPoisonedAnswersCheck: a server that poisons what it answers rather
// than what it lists is caught by check, whichever answer carries the
// payload, wherever in it, however written, from the first answer or
// after some calls: each finding names the rule of the payload's class at
// the level it has for a definition, the answer's field path, the tool,
// prompt or resource, and the phase. A poisoned prompt answer is drift
// from the answer pin recorded as well. The same servers answering
// honestly pin and check clean.
func TestPoisonedAnswersCheck(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	cases := answerCases()
	var honest, poisoned []config.Server
	for i, c := range cases {
		honest = append(honest, answersServer(fmt.Sprintf("s%02d", i), c, false))
		poisoned = append(poisoned, answersServer(fmt.Sprintf("s%02d", i), c, true))
	}
	opts := Options{
		Servers: honest, All: true, LockPath: "mcp-lock.json",
		Probe:         probe.Options{Launches: 1, WarmupCalls: 3, RequestTimeout: 20 * time.Second},
		ServerTimeout: 2 * time.Minute,
		Sandbox:       sandbox.Options{Level: sandbox.Basic},
		FailOn:        finding.Error,
		Jobs:          8,
	}
	lk, r := Pin(context.Background(), opts, approval.Approver{By: "test@example.com", At: time.Unix(0, 0)})
	if lk == nil || r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("the honest servers did not pin clean:\n%s", dumpFindings(r))
	}
	for _, s := range honest {
		if a := lk.Servers[s.Name].PromptAnswers["brief"]; a == nil {
			t.Fatalf("%s: the prompt's answer is not pinned by default", s.Name)
		}
	}
	data, _ := lk.Marshal()
	opts.Lock, opts.LockData = lk, data
	if r := Compare(context.Background(), opts); r.Summary.ExitCode != report.ExitOK {
		t.Fatalf("the honest servers did not check clean:\n%s", dumpFindings(r))
	}

	opts.Servers = poisoned
	r = Compare(context.Background(), opts)
	for i, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			srv := serverOf(r, fmt.Sprintf("s%02d", i))
			if srv == nil {
				t.Fatal("not in the report")
			}
			subject := map[string]string{"call": "", "resource": fakeserver.AnswerURI, "prompt": "brief"}[c.carrier]
			field := lock.JoinFieldPaths(c.prefix(), fakeserver.AnswerFieldPath(c.carrier, c.field))
			var got *finding.Finding
			for j, f := range srv.Findings {
				if f.Rule == c.rule() && f.Field == field && (subject == "" || f.Subject == subject) {
					got = &srv.Findings[j]
					break
				}
			}
			if got == nil {
				t.Fatalf("no %s at %s:\n%s", c.rule(), field, dumpFindings(&report.Report{Servers: []report.Server{*srv}}))
			}
			// Every instruction payload asks for an error's action
			// (override and hide, read a key and pass it on, send data
			// away): an error in an answer as in a definition.
			want := finding.DefaultSeverity(c.rule())
			if c.rule() == finding.ModelInstruction {
				want = finding.Error
			}
			if got.Severity != want {
				t.Errorf("severity %s, want %s", got.Severity, want)
			}
			if got.Phase == "" {
				t.Error("no phase")
			}
			for _, f := range srv.Findings {
				// Nothing before the trigger: the honest answers are
				// clean, and the phase says when it came.
				var n int
				fmt.Sscanf(f.Phase[strings.LastIndex(f.Phase, "-")+1:], "%d", &n)
				if f.Rule == c.rule() && c.after > 0 && (!strings.Contains(f.Phase, "after-call-") || n < c.after) {
					t.Errorf("found in phase %q, before call %d poisoned the answers", f.Phase, c.after)
				}
			}
			if c.carrier == "call" && !strings.HasPrefix(got.Subject, "format_text") && !strings.HasPrefix(got.Subject, "summarize") {
				t.Errorf("subject %q: not the tool called", got.Subject)
			}
			if (strings.Contains(c.field, "blob") || c.field == "image" || c.field == "audio") && !strings.Contains(got.Message, "decoded from base64") {
				t.Errorf("message does not say the text was decoded: %s", got.Message)
			}
			wantStatus := report.StatusOK
			if got.Severity >= finding.Error || c.carrier == "prompt" {
				wantStatus = report.StatusDrift
			}
			if srv.Status != wantStatus {
				t.Errorf("status %s, want %s:\n%s", srv.Status, wantStatus, dumpFindings(&report.Report{Servers: []report.Server{*srv}}))
			}
			if c.carrier == "prompt" && !hasRuleOn(srv.Findings, finding.PromptChanged, "brief") {
				t.Errorf("a poisoned prompt answer is not prompt-changed against the pinned one")
			}
		})
	}
}

func serverOf(r *report.Report, name string) *report.Server {
	for i := range r.Servers {
		if r.Servers[i].Name == name {
			return &r.Servers[i]
		}
	}
	return nil
}

func hasRuleOn(fs []finding.Finding, rule finding.RuleID, subject string) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Subject == subject {
			return true
		}
	}
	return false
}
