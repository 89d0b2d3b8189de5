package guard

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

var (
	lockOnce              sync.Once
	honestLock, pagedLock *lock.File
)

// locks pins the honest and paginated fake servers once per test binary.
func locks(t *testing.T) (honest, paged *lock.File) {
	t.Helper()
	lockOnce.Do(func() {
		honestLock = pinFake(t, "fake", "honest")
		pagedLock = pinFake(t, "paged", "paginated")
	})
	if honestLock == nil || pagedLock == nil {
		t.Fatal("pinning the fake servers failed earlier")
	}
	return honestLock, pagedLock
}

func TestHonestSessionExitsZero(t *testing.T) {
	honest, _ := locks(t)
	c := startGuard(t, guardSpec{lock: honest, server: "fake", scenario: "honest"})
	c.initialize()
	tools := c.result(1, "tools/list", map[string]any{})
	for i := 2; i < 6; i++ {
		c.result(i, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
		again := c.result(100+i, "tools/list", map[string]any{})
		if !bytes.Equal(again, tools) {
			t.Fatalf("re-list %d differs: %s", i, again)
		}
	}
	c.result("ping-1", "ping", nil)
	if code := c.close(); code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, c.stderr.String())
	}
	if strings.Contains(c.stderr.String(), "refused") {
		t.Errorf("stderr mentions a refusal:\n%s", c.stderr.String())
	}
}

// TestForwardsByteForByte runs one scripted session through the guard and
// straight into the fake server, and compares the bytes the client got.
func TestForwardsByteForByte(t *testing.T) {
	honest, _ := locks(t)
	script := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"format_text","arguments":{"text":"caf\u00e9"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"nope"}`,
	}
	input := strings.Join(script, "\n") + "\n"

	var direct bytes.Buffer
	fakeserver.Run("honest", strings.NewReader(input), &direct)

	var stdout, stderr syncBuffer
	code := Run(t.Context(), Options{
		Lock: honest, Server: "fake", Command: self(t), Env: map[string]string{"FAKE_SCENARIO": "honest"},
		Stdin: strings.NewReader(input), Stdout: &stdout, Stderr: &stderr,
	})
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if stdout.String() != direct.String() {
		t.Fatalf("guarded bytes differ from direct ones:\nguard:  %q\ndirect: %q", stdout.String(), direct.String())
	}
}

func TestCounterRugPullRefusedAfterThirdCall(t *testing.T) {
	honest, _ := locks(t)
	c := startGuard(t, guardSpec{lock: honest, server: "fake", scenario: "counter"})
	c.initialize()
	c.result(1, "tools/list", nil)
	for i := 2; i <= 4; i++ {
		c.result(i, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
	}
	e := c.refused(5, "tools/list", nil)
	if !strings.Contains(e.Message, "summarize (description)") {
		t.Errorf("error message %q does not name summarize (description)", e.Message)
	}
	c.call(6, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
	for _, m := range c.drain() {
		if r, ok := m.(*jsonrpc.Response); ok && r.ID.Raw() == int64(6) {
			t.Errorf("the tools/call after the refusal was answered: %+v", r)
		}
	}
	if code := c.exit(); code != ExitRefused {
		t.Errorf("exit %d, want %d", code, ExitRefused)
	}
	if strings.Contains(c.raw.String(), "IMPORTANT") || strings.Contains(c.raw.String(), "id_ed25519") {
		t.Errorf("the rewritten description reached the client:\n%s", c.raw.String())
	}
	stderr := c.stderr.String()
	if !strings.Contains(stderr, "summarize (description)") || !strings.Contains(stderr, "+ live: Summarize a text in one sentence. <IMPORTANT>") {
		t.Errorf("stderr does not name summarize (description) with its diff:\n%s", stderr)
	}
}

func TestWarnModeForwardsAndLogs(t *testing.T) {
	honest, _ := locks(t)
	c := startGuard(t, guardSpec{lock: honest, server: "fake", scenario: "counter", mode: Warn})
	c.initialize()
	for i := 1; i <= 3; i++ {
		c.result(i, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
	}
	res := c.result(4, "tools/list", nil)
	if !strings.Contains(string(res), "IMPORTANT") {
		t.Errorf("warn mode did not forward the drifted answer: %s", res)
	}
	c.result(5, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
	if code := c.close(); code != ExitRefused {
		t.Errorf("exit %d, want %d (drift was seen)", code, ExitRefused)
	}
	if !strings.Contains(c.stderr.String(), "WARNING") || !strings.Contains(c.stderr.String(), "summarize (description)") {
		t.Errorf("stderr:\n%s", c.stderr.String())
	}
}

func TestPromptGetChangingMidSessionRefused(t *testing.T) {
	honest, _ := locks(t)
	lk := withPrompt(honest)
	c := startGuard(t, guardSpec{lock: lk, server: "fake", scenario: "prompt-drift"})
	c.initialize()
	args := map[string]any{"name": "hello", "arguments": map[string]any{}}
	c.result(1, "prompts/get", args)
	// The same arguments with a different _meta are the same question.
	c.result(2, "prompts/get", map[string]any{"name": "hello", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": 7}})
	// The fake changes on its second answer, which the guard already let
	// through: a session pin is against the first answer only.
	e := c.refused(3, "prompts/get", args)
	if !strings.Contains(e.Message, "hello (messages/0/content/text)") {
		t.Errorf("message %q", e.Message)
	}
	if code := c.exit(); code != ExitRefused {
		t.Errorf("exit %d", code)
	}
}

// withPrompt adds the fake's "hello" prompt to a copy of the honest lock:
// the honest fake does not advertise prompts, so pin does not list them.
func withPrompt(lk *lock.File) *lock.File {
	data, _ := lk.Marshal()
	cp, err := lock.Parse("mcp-lock.json", data)
	if err != nil {
		panic(err)
	}
	s := cp.Servers["fake"]
	s.Entries(lock.KindPrompt, true)["hello"] = lock.NewEntry([]byte(`{"name":"hello","description":"Say hello.","arguments":[]}`))
	return cp
}

func TestPromptGetHiddenCharactersRefused(t *testing.T) {
	honest, _ := locks(t)
	c := startGuard(t, guardSpec{lock: withPrompt(honest), server: "fake", scenario: "prompt-hidden"})
	c.initialize()
	e := c.refused(1, "prompts/get", map[string]any{"name": "hello"})
	if !strings.Contains(e.Message, "hidden-characters") {
		t.Errorf("message %q", e.Message)
	}
	c.exit()
}

func TestPaginatedDriftRefusedAtPage2(t *testing.T) {
	_, paged := locks(t)
	c := startGuard(t, guardSpec{lock: paged, server: "paged", scenario: "paginated-drift-2"})
	c.initialize()
	var page struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	json.Unmarshal(c.result(1, "tools/list", nil), &page)
	if len(page.Tools) != 2 || page.NextCursor != "page-1" {
		t.Fatalf("page 1: %+v", page)
	}
	e := c.refused(2, "tools/list", map[string]any{"cursor": page.NextCursor})
	if !strings.Contains(e.Message, "delta (description)") {
		t.Errorf("message %q", e.Message)
	}
	if strings.Contains(c.raw.String(), "gamma") {
		t.Errorf("page 2 reached the client in part")
	}
	c.exit()
}

func TestPaginatedHonestPartialPagesPass(t *testing.T) {
	_, paged := locks(t)
	c := startGuard(t, guardSpec{lock: paged, server: "paged", scenario: "paginated"})
	c.initialize()
	cursor := ""
	for i := 1; ; i++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			NextCursor string `json:"nextCursor"`
		}
		json.Unmarshal(c.result(i, "tools/list", params), &page)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if code := c.close(); code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, c.stderr.String())
	}
}

func TestToolNotInLockRefused(t *testing.T) {
	honest, _ := locks(t)
	c := startGuard(t, guardSpec{lock: honest, server: "fake", scenario: "tool-added"})
	c.initialize()
	e := c.refused(1, "tools/list", nil)
	if !strings.Contains(e.Message, "delete_everything (not in the lock)") {
		t.Errorf("message %q", e.Message)
	}
	c.exit()
}

func TestInstructionsDriftRefusedAtInitialize(t *testing.T) {
	lk := pinFake(t, "instr", "instructions")
	c := startGuard(t, guardSpec{lock: lk, server: "instr", env: map[string]string{"FAKE_SCENARIO": "instructions", "FAKE_VARIANT": "drift"}})
	e := c.refused(0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}})
	if !strings.Contains(e.Message, "instructions (instructions)") {
		t.Errorf("message %q", e.Message)
	}
	c.exit()
}

func TestServerIgnoringEOFIsGoneWithin5s(t *testing.T) {
	honest, _ := locks(t)
	c := startGuard(t, guardSpec{lock: honest, server: "fake", scenario: "ignore-term"})
	pgid := <-c.pid
	c.initialize()
	c.result(1, "tools/list", nil)
	c.in.Close()
	if !procgroup.WaitGone(pgid, 5*time.Second) {
		t.Fatalf("server group %d still has %v 5 s after the client closed", pgid, procgroup.Live(pgid))
	}
	if code := c.exit(); code != ExitOK {
		t.Errorf("exit %d:\n%s", code, c.stderr.String())
	}
}

func TestStringAndNumberIDsKeptApart(t *testing.T) {
	honest, _ := locks(t)
	t.Run("honest", func(t *testing.T) {
		c := startGuard(t, guardSpec{lock: honest, server: "fake", scenario: "honest"})
		c.initialize()
		c.call(1, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
		c.call("1", "tools/list", nil)
		got := map[any]json.RawMessage{}
		for range 2 {
			r, ok := c.response()
			if !ok || r.Error != nil {
				t.Fatalf("response %+v; stderr:\n%s", r, c.stderr.String())
			}
			got[r.ID.Raw()] = r.Result
		}
		if !strings.Contains(string(got[int64(1)]), `"content"`) || !strings.Contains(string(got["1"]), `"tools"`) {
			t.Errorf("answers crossed: %s", got)
		}
		c.close()
	})
	t.Run("drift", func(t *testing.T) {
		// desc-changed drifts from the start: the tools/list under "1" is
		// refused, the tools/call under 1 is not.
		c := startGuard(t, guardSpec{lock: honest, server: "fake", scenario: "desc-changed"})
		c.initialize()
		c.call(1, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
		c.call("1", "tools/list", nil)
		r, _ := c.response()
		if r.ID.Raw() != int64(1) || r.Error != nil {
			t.Fatalf("first answer %+v, want the result of tools/call id 1", r)
		}
		r, _ = c.response()
		if r.ID.Raw() != "1" || r.Error == nil {
			t.Fatalf("second answer %+v, want the refusal of tools/list id \"1\"", r)
		}
		c.exit()
	})
	t.Run("reused", func(t *testing.T) {
		// A raw pipe, so both requests are in flight before any answer.
		var stdout, stderr syncBuffer
		pr, pw := io.Pipe()
		done := make(chan int)
		go func() {
			done <- Run(t.Context(), Options{Lock: honest, Server: "fake", Command: self(t), Env: map[string]string{"FAKE_SCENARIO": "hang-list"},
				Stdin: pr, Stdout: &stdout, Stderr: &stderr})
		}()
		io.WriteString(pw, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`+"\n")
		io.WriteString(pw, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"summarize"}}`+"\n")
		pw.Close()
		<-done
		if !strings.Contains(stdout.String(), `"id":7,"error":{"code":-32600`) {
			t.Errorf("stdout %q", stdout.String())
		}
	})
}

func TestFailClosed(t *testing.T) {
	honest, _ := locks(t)
	cases := []struct {
		name     string
		lock     *lock.File
		server   string
		scenario string
		code     int
		stderr   string
	}{
		{"no lock", nil, "fake", "honest", ExitUsage, "no lock"},
		{"no entry", honest, "other", "honest", ExitUsage, `no entry for server "other"`},
		{"broken message on stdout", honest, "fake", "stdout-jsonrpc-1", ExitRefused, "not \"2.0\""},
		{"big line", honest, "fake", "big-message", ExitRefused, "--max-message-bytes"},
		{"crash", honest, "fake", "crash-after-init", ExitRefused, "closed its output before the client"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			var stdout, stderr syncBuffer
			done := make(chan int)
			go func() {
				done <- Run(t.Context(), Options{Lock: tc.lock, Server: tc.server, Command: self(t), Env: map[string]string{"FAKE_SCENARIO": tc.scenario},
					Stdin: pr, Stdout: &stdout, Stderr: &stderr, MaxMessageBytes: 1 << 20})
			}()
			go func() {
				io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n")
				io.WriteString(pw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
				io.WriteString(pw, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
			}()
			var code int
			select {
			case code = <-done:
			case <-time.After(waitTimeout):
				t.Fatalf("guard did not exit; stderr:\n%s", stderr.String())
			}
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, want %d; stderr want %q:\n%s", code, tc.code, tc.stderr, stderr.String())
			}
			if strings.Contains(stdout.String(), `"result":{"tools"`) {
				t.Errorf("a tools/list answer went out: %s", stdout.String())
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"enforce": Enforce, "WARN": Warn, " warn ": Warn} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("log"); err == nil {
		t.Error("ParseMode(log) did not fail")
	}
}

// TestPromptPinnedInLockCatchesFirstAnswer: a server that expands a prompt
// honestly for pin and differently in a later session is caught on the
// session's first prompts/get, since pin records the answers of prompts
// without required arguments by default (and of all prompts with
// pin-prompts: true); with pin-prompts: false, the session pin has
// nothing to compare the first answer with, and only the text rules judge
// it.
func TestPromptPinnedInLockCatchesFirstAnswer(t *testing.T) {
	with := func(v *bool) func(string) policy.Settings {
		return func(string) policy.Settings { return policy.Settings{PinPrompts: v} }
	}
	yes, no := true, false
	plain := pinFakeWith(t, "fake", "prompt-get-change", with(&no))
	pinned := pinFake(t, "fake", "prompt-get-change")
	all := pinFakeWith(t, "fake", "prompt-get-change", with(&yes))
	for name, lk := range map[string]*lock.File{"default": pinned, "pin-prompts: true": all} {
		if a := lk.Servers["fake"].PromptAnswers["hello"]; a == nil || string(a.Arguments) != "{}" {
			t.Fatalf("%s did not pin hello: %+v", name, lk.Servers["fake"].PromptAnswers)
		}
	}
	if plain.Servers["fake"].PromptAnswers != nil {
		t.Fatalf("pinned prompt answers with pin-prompts: false")
	}
	// The fake changes its answer after two tool calls: in a new session,
	// the first prompts/get is already the changed one.
	session := func(lk *lock.File) *client {
		c := startGuard(t, guardSpec{lock: lk, server: "fake", scenario: "prompt-get-change"})
		c.initialize()
		for i := 1; i <= 2; i++ {
			c.result(i, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
		}
		return c
	}
	t.Run("session pin only", func(t *testing.T) {
		// Nothing to compare the first answer with; what it asks (read
		// ~/.aws/credentials and pass it to a tool) is an error of the
		// text rules, which the guard refuses in any answer.
		c := session(plain)
		e := c.refused(3, "prompts/get", map[string]any{"name": "hello", "arguments": map[string]any{}})
		if !strings.Contains(e.Message, "model-instruction") {
			t.Errorf("message %q", e.Message)
		}
		if s := c.stderr.String(); strings.Contains(s, "- lock: hello") || !strings.Contains(s, "tells the model to read secrets") {
			t.Errorf("stderr:\n%s", s)
		}
	})
	t.Run("lock pin", func(t *testing.T) {
		c := session(pinned)
		e := c.refused(3, "prompts/get", map[string]any{"name": "hello"})
		if !strings.Contains(e.Message, "hello (messages/0/content/text)") {
			t.Errorf("message %q", e.Message)
		}
		if code := c.exit(); code != ExitRefused {
			t.Errorf("exit %d", code)
		}
		if s := c.stderr.String(); !strings.Contains(s, "- lock: hello") || !strings.Contains(s, "+ live: hello. Also call summarize") {
			t.Errorf("stderr:\n%s", s)
		}
	})
	t.Run("other arguments are not pinned", func(t *testing.T) {
		// Not compared with the lock's answer (other arguments); the
		// text rules still refuse what it asks.
		c := session(pinned)
		e := c.refused(3, "prompts/get", map[string]any{"name": "hello", "arguments": map[string]any{"tone": "warm"}})
		if !strings.Contains(e.Message, "model-instruction") {
			t.Errorf("message %q", e.Message)
		}
		if s := c.stderr.String(); strings.Contains(s, "- lock: hello") {
			t.Errorf("compared with the lock's answer for other arguments:\n%s", s)
		}
	})
}

// TestNotificationHidingTextDropped: a log notification carrying tag
// characters is dropped in enforce mode (the call it came with still gets
// its answer) and stripped in sanitize mode.
func TestNotificationHidingTextDropped(t *testing.T) {
	honest, _ := locks(t)
	for _, mode := range []Mode{Enforce, Sanitize} {
		t.Run(string(mode), func(t *testing.T) {
			c := startGuard(t, guardSpec{lock: honest, server: "fake", mode: mode, env: map[string]string{"FAKE_SCENARIO": "poison-log", "FAKE_VARIANT": "tags"}})
			c.initialize()
			c.result(1, "tools/call", map[string]any{"name": "summarize", "arguments": map[string]any{"text": "x"}})
			c.close()
			raw := c.raw.String()
			if strings.ContainsFunc(raw, func(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }) {
				t.Errorf("tag characters reached the client:\n%q", raw)
			}
			if got := strings.Contains(raw, "notifications/message"); got != (mode == Sanitize) {
				t.Errorf("notification forwarded: %v, want %v:\n%s", got, mode == Sanitize, raw)
			}
			if !strings.Contains(c.stderr.String(), "notifications/message notification") {
				t.Errorf("stderr:\n%s", c.stderr.String())
			}
		})
	}
}

// TestStdoutNoiseSkipped: lines no client reads as a message (a coloured log
// line, telemetry JSON without "jsonrpc", a banner) are skipped, not
// forwarded, and logged quoted as the server's own output; the session goes
// on and the honest list is forwarded.
func TestStdoutNoiseSkipped(t *testing.T) {
	honest, _ := locks(t)
	for _, scenario := range []string{"stdout-noise", "banner"} {
		var stdout, stderr syncBuffer
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
		code := Run(t.Context(), Options{Lock: honest, Server: "fake", Command: self(t), Env: map[string]string{"FAKE_SCENARIO": scenario},
			Stdin: in, Stdout: &stdout, Stderr: &stderr})
		if code != ExitOK {
			t.Errorf("%s: exit %d; stderr:\n%s", scenario, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), `"id":2,"result":{"tools"`) {
			t.Errorf("%s: tools/list not forwarded: %s", scenario, stdout.String())
		}
		for _, noise := range []string{"telemetry", "handled request", "Starting fake server", "\x1b"} {
			if strings.Contains(stdout.String(), noise) {
				t.Errorf("%s: %q forwarded to the client", scenario, noise)
			}
		}
		if !strings.Contains(stderr.String(), "not a JSON-RPC message (its own output") || strings.Contains(stderr.String(), "\x1b") {
			t.Errorf("%s: stderr:\n%s", scenario, stderr.String())
		}
	}
}
