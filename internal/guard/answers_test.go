package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver/remote"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// answerCase is one poisoned answer a guarded session meets: the answer
// that carries it (tools/call, resources/read, prompts/get), the field,
// the payload, its encoding, and how many tools/call requests come first.
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

// rule is the payload's rule; error says whether it refuses.
func (c answerCase) rule() (finding.RuleID, bool) {
	switch c.variant {
	case "instruction", "exfil", "beacon":
		// Each asks for an error's action: refused, never stripped.
		return finding.ModelInstruction, true
	case "ansi", "osc8", "c1":
		return finding.TerminalEscape, true
	}
	return finding.HiddenCharacters, true
}

// encoded reports whether the payload is encoded in its string (base64,
// a data: URI): sanitize has nothing to strip there, and refuses.
func (c answerCase) encoded() bool {
	return strings.Contains(c.field, "blob") || c.field == "image" || c.field == "audio" || c.encoding == "data-uri"
}

func (c answerCase) env() map[string]string {
	return map[string]string{"FAKE_SCENARIO": "answers", "FAKE_CARRIER": c.carrier, "FAKE_FIELD": c.field, "FAKE_VARIANT": c.variant, "FAKE_ENCODING": c.encoding, "FAKE_AFTER": fmt.Sprint(c.after)}
}

// guardAnswerCases vary the field (every field of every carrier), the
// payload's class (hidden text, control sequences, an instruction, a
// secret read, a beacon), the encoding and the trigger.
func guardAnswerCases() []answerCase {
	refuse := []string{"tags", "ansi", "zero-width", "bidi", "osc8", "tags-escaped", "c1"}
	encodings := map[bool][]string{false: {"", "escaped", "data-uri"}, true: {"", "url", "junk"}}
	var out []answerCase
	i := 0
	for _, carrier := range []string{"call", "resource", "prompt"} {
		for _, field := range fakeserver.AnswerFields[carrier] {
			b64 := strings.Contains(field, "blob") || field == "image" || field == "audio"
			out = append(out, answerCase{carrier: carrier, field: field, variant: refuse[i%len(refuse)], encoding: encodings[b64][i%3]})
			i++
		}
		out = append(out,
			answerCase{carrier: carrier, field: "text", variant: "instruction"},
			answerCase{carrier: carrier, field: "text", variant: "exfil", encoding: "escaped"},
			answerCase{carrier: carrier, field: "text", variant: "tags", after: 3},
			answerCase{carrier: carrier, field: "text", variant: "beacon", after: 3},
		)
	}
	return out
}

var answersLocks struct {
	once             sync.Once
	pinned, unpinned *lock.File
}

// answerLocks pins the answers scenario honest, as "fake": once with the
// default pin-prompts (the prompt's answer pinned) and once with
// pin-prompts: false.
func answerLocks(t *testing.T) (pinned, unpinned *lock.File) {
	t.Helper()
	answersLocks.once.Do(func() {
		answersLocks.pinned = pinFake(t, "fake", "answers")
		no := false
		answersLocks.unpinned = pinFakeWith(t, "fake", "answers", func(string) policy.Settings { return policy.Settings{PinPrompts: &no} })
	})
	if answersLocks.pinned == nil || answersLocks.pinned.Servers["fake"].PromptAnswers["brief"] == nil {
		t.Fatal("the answers scenario's prompt answer was not pinned")
	}
	return answersLocks.pinned, answersLocks.unpinned
}

// request is the request of the case's carrier.
func (c answerCase) request() (string, map[string]any) {
	switch c.carrier {
	case "call":
		return "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}}
	case "resource":
		return "resources/read", map[string]any{"uri": fakeserver.AnswerURI}
	}
	return "prompts/get", map[string]any{"name": "brief", "arguments": map[string]any{}}
}

// subject is what a finding about the case's answer names.
func (c answerCase) subject() string {
	return map[string]string{"call": "summarize", "resource": fakeserver.AnswerURI, "prompt": "brief"}[c.carrier]
}

// poisonBytes are byte strings of the payload that must not reach a client
// when the answer is refused: the encoded value as the server wrote it.
func (c answerCase) poisonBytes(t *testing.T) string {
	raw := fakeserverAnswer(c)
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("the fake's answer is not JSON: %v", err)
	}
	path := fakeserver.AnswerFieldPath(c.carrier, c.field)
	for _, seg := range strings.Split(path, "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			var i int
			fmt.Sscan(seg, &i)
			v = x[i]
		}
	}
	s, _ := v.(string)
	return s
}

// fakeserverAnswer is the poisoned answer the fake writes for c.
func fakeserverAnswer(c answerCase) string {
	return fakeserver.AnswerWith(c.carrier, c.field, c.variant, c.encoding)
}

// TestGuardPoisonedAnswers: through the stdio guard, an answer that
// carries an error-level finding (hidden text, control sequences) is
// never forwarded as it came, whichever answer, field, encoding or
// trigger: in enforce mode it is refused with -32001 naming the rule, the
// tool, prompt or uri, the field and the request's place in the session;
// in sanitize mode it is cleaned when the text sits in a JSON string and
// refused when it is encoded in one (nothing to strip there). An answer
// with only warnings (an instruction, a secret read, a beacon) is
// forwarded and logged, naming the same. A prompt answer is also held to
// the answer pinned in the lock, the session's first included; without a
// pinned answer, its first answer still gets every rule.
func TestGuardPoisonedAnswers(t *testing.T) {
	pinned, unpinned := answerLocks(t)
	type run struct {
		c     answerCase
		mode  Mode
		lk    *lock.File
		lockN string
	}
	var runs []run
	for _, c := range guardAnswerCases() {
		for _, mode := range []Mode{Enforce, Sanitize} {
			runs = append(runs, run{c, mode, pinned, "default"})
			if c.carrier == "prompt" {
				runs = append(runs, run{c, mode, unpinned, "pin-prompts-false"})
			}
		}
	}
	for _, r := range runs {
		c := r.c
		t.Run(fmt.Sprintf("%s/%s/%s", c.name(), r.mode, r.lockN), func(t *testing.T) {
			t.Parallel()
			cl := startGuard(t, guardSpec{lock: r.lk, server: "fake", mode: r.mode, env: c.env()})
			cl.initialize()
			for i := 1; i <= c.after; i++ {
				cl.result(100+i, "tools/call", map[string]any{"name": "format_text", "arguments": map[string]any{"text": "x"}})
			}
			method, params := c.request()
			cl.call(1, method, params)
			resp, ok := cl.response()
			if !ok {
				t.Fatalf("the guard closed the session without answering; stderr:\n%s", cl.stderr.String())
			}
			rule, refuses := c.rule()
			drift := c.carrier == "prompt" && r.lockN == "default"
			stripped := r.mode == Sanitize && refuses && !drift && !c.encoded() && rule != finding.ModelInstruction
			switch {
			case drift || refuses && !stripped:
				var we *jsonrpc.Error
				if resp.Error == nil || !asWire(resp.Error, &we) || we.Code != CodeRefused {
					t.Fatalf("got %v %s, want -32001; stderr:\n%s", resp.Error, resp.Result, cl.stderr.String())
				}
				want := string(rule)
				if drift {
					want = "prompt-changed"
				}
				if !strings.Contains(we.Message, want) && !strings.Contains(string(we.Data), want) {
					t.Errorf("the refusal does not name %s: %s %s", want, we.Message, we.Data)
				}
				if !drift {
					var d struct {
						Refused []struct {
							Rule    string   `json:"rule"`
							Subject string   `json:"subject"`
							Fields  []string `json:"fields"`
							Phase   string   `json:"phase"`
						} `json:"refused"`
					}
					json.Unmarshal(we.Data, &d)
					if len(d.Refused) == 0 || d.Refused[0].Rule != string(rule) || d.Refused[0].Subject != c.subject() ||
						len(d.Refused[0].Fields) == 0 || d.Refused[0].Fields[0] != fakeserver.AnswerFieldPath(c.carrier, c.field) ||
						!strings.Contains(d.Refused[0].Phase, "of the session") {
						t.Errorf("the refusal's data does not say where: %s", we.Data)
					}
				}
			case stripped:
				if resp.Error != nil {
					t.Fatalf("sanitize refused: %v; stderr:\n%s", resp.Error, cl.stderr.String())
				}
				if _, removed := stripAll(resp.Result); removed {
					t.Errorf("sanitize forwarded hidden text or escapes: %s", resp.Result)
				}
				if !strings.Contains(cl.stderr.String(), "sanitized") {
					t.Errorf("stderr does not say what was stripped:\n%s", cl.stderr.String())
				}
			default: // warnings only
				if resp.Error != nil {
					t.Fatalf("a warning refused the answer: %v; stderr:\n%s", resp.Error, cl.stderr.String())
				}
			}
			if refuses || drift {
				if p := c.poisonBytes(t); p != "" && strings.Contains(cl.raw.String(), mustJSON(p)) {
					t.Errorf("the poisoned value reached the client as it came")
				}
			}
			code := cl.close()
			if !refuses && !drift {
				// Warnings are logged by the time the session ends
				// (they are looked for beside forwarding).
				log := cl.stderr.String()
				if !strings.Contains(log, "warning (forwarded)") || !strings.Contains(log, string(rule)) || !strings.Contains(log, fakeserver.AnswerFieldPath(c.carrier, c.field)) ||
					!strings.Contains(log, "of the session") || !strings.Contains(log, c.subject()) {
					t.Errorf("stderr does not log the warning with where it was found:\n%s", log)
				}
			}
			wantCode := ExitOK
			if refuses || drift {
				wantCode = ExitRefused
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, wantCode, cl.stderr.String())
			}
		})
	}
}

// stripAll reports whether any string of a result (keys included) still
// holds what sanitize strips.
func stripAll(result json.RawMessage) (string, bool) {
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			if _, rm := inspect.Strip(x); len(rm) > 0 {
				return true
			}
		case map[string]any:
			for k, e := range x {
				if walk(k) || walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	var v any
	json.Unmarshal(result, &v)
	return "", walk(v)
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// TestRemoteGuardPoisonedAnswers: the same answers through the guard as a
// stdio↔HTTP bridge, with the Go SDK's client: an error-level finding
// refuses the answer (-32001 naming the rule), a warning is logged and the
// answer forwarded, from the first answer or after calls.
func TestRemoteGuardPoisonedAnswers(t *testing.T) {
	honest := httptest.NewServer(remote.Answers("", "", "", "", 0))
	t.Cleanup(honest.Close)
	lk := pinURL(t, honest.URL)
	if lk.Servers["remote"].PromptAnswers["brief"] == nil {
		t.Fatal("the remote prompt's answer was not pinned")
	}
	for _, c := range []answerCase{
		{carrier: "call", field: "text", variant: "tags"},
		{carrier: "call", field: "embedded-blob", variant: "ansi", encoding: "junk"},
		{carrier: "call", field: "structured", variant: "zero-width", after: 2},
		{carrier: "call", field: "text", variant: "instruction"},
		{carrier: "call", field: "link", variant: "exfil", after: 2},
		{carrier: "resource", field: "text", variant: "osc8"},
		{carrier: "resource", field: "blob", variant: "bidi", encoding: "url", after: 2},
		{carrier: "resource", field: "text", variant: "beacon"},
		{carrier: "prompt", field: "text", variant: "tags-escaped"},
		{carrier: "prompt", field: "resource-blob", variant: "c1", after: 2},
	} {
		t.Run(c.name(), func(t *testing.T) {
			t.Parallel()
			hs := httptest.NewServer(remote.Answers(c.carrier, c.field, c.variant, c.encoding, c.after))
			t.Cleanup(hs.Close)
			b, err := startBridge(t, lk, hs.URL, false, nil)
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, b.stderr.String())
			}
			ctx := ctx10(t)
			for i := 0; i < c.after; i++ {
				if _, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "format_text", Arguments: map[string]any{"text": "x"}}); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			switch c.carrier {
			case "call":
				_, err = b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{"text": "x"}})
			case "resource":
				_, err = b.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: fakeserver.AnswerURI})
			default:
				_, err = b.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "brief"})
			}
			rule, refuses := c.rule()
			switch {
			case refuses || c.carrier == "prompt":
				want := string(rule)
				if c.carrier == "prompt" {
					want = "brief"
				}
				if !refusedCode(err) || !strings.Contains(err.Error(), want) {
					t.Fatalf("got %v, want -32001 naming %s; stderr:\n%s", err, want, b.stderr.String())
				}
			default:
				if err != nil {
					t.Fatalf("a warning refused the answer: %v", err)
				}
			}
			code := b.exit(t)
			if log := b.stderr.String(); !refuses && c.carrier != "prompt" && (!strings.Contains(log, "warning (forwarded)") || !strings.Contains(log, string(rule))) {
				t.Errorf("stderr does not log the warning:\n%s", log)
			}
			if want := map[bool]int{true: ExitRefused, false: ExitOK}[refuses || c.carrier == "prompt"]; code != want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, want, b.stderr.String())
			}
		})
	}
}

// pinURL pins the remote server at url, with no headers, as "remote".
func pinURL(t *testing.T, url string) *lock.File {
	t.Helper()
	srv := config.Server{Name: "remote", Type: config.TypeHTTP, URL: url, File: ".mcp.json", Line: 1, Client: "claude-code"}
	lk, r := check.Pin(context.Background(), check.Options{
		Servers: []config.Server{srv}, All: true, LockPath: "mcp-lock.json",
		Probe:         probe.Options{Launches: 1, RequestTimeout: 10 * time.Second},
		ServerTimeout: time.Minute,
		Sandbox:       sandbox.Options{Level: sandbox.Off},
		FailOn:        finding.Error, Jobs: 1,
	}, approval.Approver{By: "test@example.com", At: time.Unix(0, 0)})
	if lk == nil {
		var b strings.Builder
		for _, f := range r.Findings() {
			b.WriteString(string(f.Rule) + " " + f.Subject + " " + f.Message + "\n")
		}
		t.Fatalf("pin of the remote server wrote nothing:\n%s", b.String())
	}
	return lk
}
