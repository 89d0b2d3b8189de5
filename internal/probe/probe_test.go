package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) {
	fakeserver.MaybeRun()
	maybeStderrServer()
	os.Exit(m.Run())
}

// fake returns a stdio target running this test binary as a fake server.
func fake(t *testing.T, scenario string, env ...string) (Stdio, *[]*exec.Cmd) {
	tmp := t.TempDir()
	var cmds []*exec.Cmd
	return Stdio{Command: func(ctx context.Context, _ int) (*exec.Cmd, error) {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "FAKE_SCENARIO="+scenario, "TMPDIR="+tmp)
		c.Env = append(c.Env, env...)
		cmds = append(cmds, c)
		return c, nil
	}}, &cmds
}

func toolNames(o Observation) []string {
	var n []string
	for _, d := range o.Lists[KindTool] {
		n = append(n, d.Key)
	}
	return n
}

func TestProbePhases(t *testing.T) {
	tests := []struct {
		scenario string
		opts     Options
		phases   []string
		errSub   string
	}{
		{"honest", Options{}, []string{"launch-1/initial"}, ""},
		{"honest", Options{WarmupCalls: 2, Launches: 2, Calls: []Call{{Tool: "summarize", Arguments: json.RawMessage(`{"text":"x"}`)}}},
			[]string{"launch-1/initial", "launch-1/after-call-1", "launch-1/after-call-2", "launch-2/initial", "launch-2/after-call-1", "launch-2/after-call-2"}, ""},
		{"list-changed", Options{WarmupCalls: 3, Calls: []Call{{Tool: "summarize"}}},
			[]string{"launch-1/initial", "launch-1/after-call-1", "launch-1/after-list-changed-1", "launch-1/after-call-2", "launch-1/after-call-3"}, ""},
		{"paginated", Options{}, []string{"launch-1/initial"}, ""},
		{"cursor-loop", Options{}, nil, "cursor loop"},
		{"crash-after-init", Options{}, nil, "exit status 3"},
		{"hang-list", Options{RequestTimeout: 300 * time.Millisecond}, nil, "no answer"},
		{"banner", Options{}, []string{"launch-1/initial"}, ""},
		{"stdout-noise", Options{WarmupCalls: 1, Calls: []Call{{Tool: "summarize"}}}, []string{"launch-1/initial", "launch-1/after-call-1"}, ""},
		{"big-message", Options{MaxMessageBytes: 1 << 20}, nil, "exceeded"},
		{"ask-roots", Options{Roots: []string{"file:///tmp"}}, []string{"launch-1/initial"}, ""},
		{"stateless", Options{}, []string{"launch-1/initial"}, ""},
		{"prompts-change", Options{}, []string{"launch-1/initial"}, ""},
		{"stderr-flood", Options{}, []string{"launch-1/initial"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			launch, cmds := fake(t, tt.scenario)
			res := Run(context.Background(), launch, tt.opts)
			if tt.errSub != "" {
				if res.Err == nil || !strings.Contains(res.Err.Error(), tt.errSub) {
					t.Fatalf("err = %v, want it to contain %q", res.Err, tt.errSub)
				}
				// An over-long answer is not quoted as stray stdout: its
				// tail is the end of the answer itself.
				if tt.scenario == "big-message" && strings.Contains(res.Err.Error(), "not JSON-RPC") {
					t.Errorf("err = %.300v", res.Err)
				}
			} else if res.Err != nil {
				t.Fatalf("err = %v (stderr %s)", res.Err, res.Stderr)
			}
			var got []string
			for _, o := range res.Observations {
				got = append(got, o.Phase)
			}
			if tt.errSub == "" && strings.Join(got, ",") != strings.Join(tt.phases, ",") {
				t.Errorf("phases = %v, want %v", got, tt.phases)
			}
			assertGone(t, *cmds)
		})
	}
}

func TestPaginationCollectsAllPages(t *testing.T) {
	launch, _ := fake(t, "paginated")
	res := Run(context.Background(), launch, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	got := strings.Join(toolNames(res.Observations[0]), ",")
	if got != "alpha,beta,gamma,delta,epsilon,zeta" {
		t.Errorf("tools = %s", got)
	}
}

// TestNoCallsNoPlan: a launch that makes no warm-up call does not ask the
// planner for any (it compiles every tool's schema, which a quick check
// would wait for), and one that makes calls asks once per launch.
func TestNoCallsNoPlan(t *testing.T) {
	launch, _ := fake(t, "honest")
	for _, n := range []int{0, 1} {
		planned := 0
		plan := func([]json.RawMessage, int) []Call { planned++; return nil }
		res := Run(context.Background(), launch, Options{WarmupCalls: n, Launches: 2, Plan: plan})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if want := 2 * n; planned != want {
			t.Errorf("--warmup-calls %d: planner asked %d times, want %d", n, planned, want)
		}
	}
}

func TestRawBytesKept(t *testing.T) {
	launch, _ := fake(t, "reformat")
	res := Run(context.Background(), launch, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	raw := string(res.Observations[0].Lists[KindTool][0].Raw)
	if !strings.Contains(raw, `caf\u00e9`) || !strings.HasPrefix(raw, `{ "annotations"`) {
		t.Errorf("raw definition was rewritten: %s", raw)
	}
}

// TestDefaultIdentityIsOneRealClient: a probe given no identity claims
// config's default client, clientInfo and capabilities together (the
// fake server echoes both), never a clientInfo with some other client's
// capabilities.
func TestDefaultIdentityIsOneRealClient(t *testing.T) {
	launch, _ := fake(t, "echo-identity")
	res := Run(context.Background(), launch, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	name, version := config.ClientInfo(config.ClientUnknown)
	caps, _ := json.Marshal(config.ClientCapabilities(config.ClientUnknown))
	want, _ := json.Marshal(name + "/" + version + " " + string(caps))
	if got := string(res.Observations[0].Instructions); got != string(want) {
		t.Errorf("the server saw %s, want %s", got, want)
	}
}

// TestShutdownKillsAtOnce: after a launch's last phase the server's group
// is killed at once, whatever it does about shutdown. A server that
// ignores EOF and SIGTERM (and a grandchild that does too) would hold a
// graceful close for its whole grace period on every launch; the
// ignore-eof fake leaves a mark for each EOF or SIGTERM it sees, and no
// mark means no graceful sequence was run. Nothing of any launch is left.
func TestShutdownKillsAtOnce(t *testing.T) {
	for _, scenario := range []string{"ignore-term", "ignore-eof"} {
		t.Run(scenario, func(t *testing.T) {
			tmp := t.TempDir()
			var cmds []*exec.Cmd
			launch := func(ctx context.Context, _ int) (*exec.Cmd, error) {
				c := exec.Command(os.Args[0])
				c.Env = append(os.Environ(), "FAKE_SCENARIO="+scenario, "TMPDIR="+tmp)
				cmds = append(cmds, c)
				return c, nil
			}
			res := Run(context.Background(), Stdio{Command: launch}, Options{Launches: 2})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if len(cmds) != 2 {
				t.Fatalf("%d launches, want 2", len(cmds))
			}
			assertGone(t, cmds)
			for _, m := range []string{"fake-saw-eof", "fake-saw-term"} {
				if _, err := os.Stat(filepath.Join(tmp, m)); err == nil {
					t.Errorf("the server saw %s: the graceful sequence was run", strings.TrimPrefix(m, "fake-saw-"))
				}
			}
		})
	}
}

// TestWarmupCallTimeout: a server that counts a call at once but answers
// it only after the client has given up on it, just before its answer to
// the next tools/list, with a result shaped like a tools/list answer.
// The call's time-out is a note, not a hold; the re-list after each call
// is still made, so the counter rug pull after the third call is caught;
// and the late answer is dropped (matched by id to nothing pending), not
// taken as the re-list's answer.
func TestWarmupCallTimeout(t *testing.T) {
	launch, cmds := fake(t, "late-call")
	res := Run(context.Background(), launch, Options{
		WarmupCalls: 4, CallTimeout: 100 * time.Millisecond,
		Calls: []Call{{Tool: "summarize", Arguments: json.RawMessage(`{"text":"x"}`)}},
	})
	if res.Err != nil {
		t.Fatalf("held: %v", res.Err)
	}
	var phases []string
	for _, o := range res.Observations {
		phases = append(phases, o.Phase)
		for _, d := range o.Lists[KindTool] {
			if d.Key == "late_answer" {
				t.Errorf("%s: the late answer to a timed-out call was taken as the tools/list answer", o.Phase)
			}
		}
	}
	if want := "launch-1/initial,launch-1/after-call-1,launch-1/after-call-2,launch-1/after-call-3,launch-1/after-call-4"; strings.Join(phases, ",") != want {
		t.Fatalf("phases = %v, want %s (a re-list after every call)", phases, want)
	}
	for _, c := range res.Calls {
		if c.Outcome != "timeout" {
			t.Errorf("%s: outcome %q, want timeout", c.Phase, c.Outcome)
		}
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], `tools/call "summarize" got no answer within 100ms`) {
		t.Errorf("notes = %q, want one saying the call timed out", res.Notes)
	}
	desc := func(o Observation) string {
		for _, d := range o.Lists[KindTool] {
			if d.Key == "summarize" {
				return string(d.Raw)
			}
		}
		return ""
	}
	if strings.Contains(desc(res.Observations[2]), "IMPORTANT") || !strings.Contains(desc(res.Observations[3]), "IMPORTANT") {
		t.Errorf("the rug pull after the third call was not seen in after-call-3:\n%s\n%s", desc(res.Observations[2]), desc(res.Observations[3]))
	}
	assertGone(t, *cmds)
}

// assertGone checks that no process of any launch's group survives.
func assertGone(t *testing.T, cmds []*exec.Cmd) {
	t.Helper()
	for _, c := range cmds {
		if c.Process == nil {
			continue
		}
		if live := procgroup.Live(c.Process.Pid); len(live) > 0 {
			t.Errorf("process group %d still has live processes %v", c.Process.Pid, live)
		}
	}
}

// TestParallelListsSameObservation: the lists of one phase and the
// prompts/get requests go out together, and a server may answer them in
// any order. An in-memory server that holds every first-page list request
// until all four have arrived (a probe that sent them one by one would
// never get an answer), holds the prompts/get requests the same way, and
// answers each batch last-first, must yield the same observation as one
// that answers in arrival order, pages included.
func TestParallelListsSameObservation(t *testing.T) {
	var got [2]Observation
	for i, reverse := range []bool{false, true} {
		opts := Options{RequestTimeout: 10 * time.Second}
		target := connected(func(ctx context.Context, _ int) (mcp.Connection, func(), error) {
			st, ct := mcp.NewInMemoryTransports()
			sc, err := st.Connect(ctx)
			if err != nil {
				return nil, nil, err
			}
			sctx, cancel := context.WithCancel(ctx)
			go orderServer(sctx, sc, reverse)
			cc, err := ct.Connect(ctx)
			if err != nil {
				cancel()
				return nil, nil, err
			}
			return cc, func() { cancel(); cc.Close(); sc.Close() }, nil
		})
		res := Run(context.Background(), target, opts)
		if res.Err != nil {
			t.Fatalf("reverse=%v: %v", reverse, res.Err)
		}
		if len(res.Observations) != 1 {
			t.Fatalf("reverse=%v: %d observations", reverse, len(res.Observations))
		}
		got[i] = res.Observations[0]
	}
	a, _ := json.Marshal(got[0])
	b, _ := json.Marshal(got[1])
	if string(a) != string(b) {
		t.Errorf("answer order changed the observation:\n%s\n%s", a, b)
	}
	o := got[1]
	if n := len(o.Lists[KindTool]) + len(o.Lists[KindPrompt]) + len(o.Lists[KindResource]) + len(o.Lists[KindTemplate]); n != 8 || len(o.PromptGets) != 3 || len(o.ResourceReads) != 1 {
		t.Errorf("observation incomplete: %s", b)
	}
	if strings.Join(toolNames(o), ",") != "t1,t2,t3" {
		t.Errorf("tools = %v: pages out of order", toolNames(o))
	}
}

// orderServer is the server of TestParallelListsSameObservation.
func orderServer(ctx context.Context, c mcp.Connection, reverse bool) {
	lists := map[string]string{
		"tools/list":               `{"tools":[{"name":"t1","inputSchema":{"type":"object"}},{"name":"t2","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`,
		"tools/list p2":            `{"tools":[{"name":"t3","inputSchema":{"type":"object"}}]}`,
		"prompts/list":             `{"prompts":[{"name":"a"},{"name":"b","arguments":[{"name":"x","required":true}]},{"name":"c"}]}`,
		"resources/list":           `{"resources":[{"uri":"file:///r1","name":"r1"}]}`,
		"resources/templates/list": `{"resourceTemplates":[{"uriTemplate":"file:///{x}","name":"x"}]}`,
	}
	var held []*jsonrpc.Request
	answer := func(r *jsonrpc.Request) {
		var p struct {
			Name   string `json:"name"`
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(r.Params, &p)
		var result string
		switch r.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"order","version":"1"}}`
		case "prompts/get":
			result = fmt.Sprintf(`{"messages":[{"role":"user","content":{"type":"text","text":%q}}]}`, "prompt "+p.Name+" "+string(r.Params))
		case "resources/read":
			result = `{"contents":[{"uri":"file:///r1","text":"r1"}]}`
		default:
			key := r.Method
			if p.Cursor != "" {
				key += " " + p.Cursor
			}
			result = lists[key]
		}
		_ = c.Write(ctx, &jsonrpc.Response{ID: r.ID, Result: json.RawMessage(result)})
	}
	// flush answers a batch once it is complete, in arrival order or
	// last-first.
	flush := func() {
		if reverse {
			slices.Reverse(held)
		}
		for _, r := range held {
			answer(r)
		}
		held = nil
	}
	for {
		m, err := c.Read(ctx)
		if err != nil {
			return
		}
		r, ok := m.(*jsonrpc.Request)
		if !ok || !r.IsCall() {
			continue
		}
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(r.Params, &p)
		switch {
		case strings.HasSuffix(r.Method, "/list") && p.Cursor == "":
			held = append(held, r)
			if len(held) == 4 {
				flush()
			}
		case r.Method == "prompts/get":
			held = append(held, r)
			if len(held) == 3 {
				flush()
			}
		default:
			answer(r)
		}
	}
}

// TestCallGapEndsWithContext: the idle gap between warm-up calls is spent
// under the probe's context, so --deadline and --timeout still bound a
// deep run: with an hour-long gap, cancelling after the first call ends
// the probe with the context's error and only the phases made so far.
func TestCallGapEndsWithContext(t *testing.T) {
	launch, cmds := fake(t, "honest")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := Options{WarmupCalls: 3, CallGap: time.Hour, Calls: []Call{{Tool: "summarize", Arguments: json.RawMessage(`{"text":"x"}`)}}}
	opts.Observed = func(o Observation) {
		if o.Phase == "launch-1/after-call-1" {
			cancel()
		}
	}
	res := Run(ctx, launch, opts)
	if !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", res.Err)
	}
	if len(res.Calls) != 1 {
		t.Errorf("calls = %d, want 1", len(res.Calls))
	}
	assertGone(t, *cmds)
}

// TestCallGapFirstLaunchOnly: the idle gap is spent in the first launch's
// session only (the one a wall-time trigger is given); the other launches
// make the same calls back to back. A gap of 5 s against a fake that
// answers at once: the first launch's calls are at least the gap apart,
// the others' far less.
func TestCallGapFirstLaunchOnly(t *testing.T) {
	launch, cmds := fake(t, "honest")
	const gap = 5 * time.Second
	opts := Options{Launches: 3, WarmupCalls: 2, CallGap: gap, Calls: []Call{{Tool: "summarize", Arguments: json.RawMessage(`{"text":"x"}`)}}}
	at := map[string]time.Time{}
	opts.Observed = func(o Observation) { at[o.Phase] = time.Now() }
	res := Run(context.Background(), launch, opts)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Calls) != 6 {
		t.Fatalf("calls = %d, want 6", len(res.Calls))
	}
	for n := 1; n <= 3; n++ {
		first, second := at[fmt.Sprintf("launch-%d/after-call-1", n)], at[fmt.Sprintf("launch-%d/after-call-2", n)]
		if first.IsZero() || second.IsZero() {
			t.Fatalf("launch %d: phases %v", n, at)
		}
		if d := second.Sub(first); n == 1 && d < gap || n > 1 && d >= gap {
			t.Errorf("launch %d: %s between its calls, gap %s", n, d, gap)
		}
	}
	assertGone(t, *cmds)
}

// TestHelperFailureExplained: a sandbox helper that could not restrict
// itself ends the launch with its own exit status and a reason on stderr
// (basic no longer runs a self-test before the first launch), and the
// held reason quotes that reason, not just the exit status. A server that
// exits 125 without the helper's line is reported as any other exit.
func TestHelperFailureExplained(t *testing.T) {
	for _, tc := range []struct{ script, want, not string }{
		{`echo 'mcp-lockcheck sandbox: landlock (basic, writes): operation not permitted' >&2; exit 125`, "sandbox: landlock (basic, writes): operation not permitted", ""},
		{`echo 'some other failure' >&2; exit 125`, "exit status 125", "sandbox:"},
	} {
		script := tc.script
		res := Run(context.Background(), Stdio{Command: func(ctx context.Context, _ int) (*exec.Cmd, error) {
			return exec.CommandContext(ctx, "/bin/sh", "-c", script), nil
		}}, Options{Launches: 1, RequestTimeout: 5 * time.Second})
		if res.Err == nil || !strings.Contains(res.Err.Error(), tc.want) || tc.not != "" && strings.Contains(res.Err.Error(), tc.not) {
			t.Errorf("%s: err %v, want it to name %q", script, res.Err, tc.want)
		}
	}
}

// TestNextLaunchHeld: with Stdio.Hold, launch 2 is started held while
// launch 1 runs (here before launch 1's first call) and released only at
// its turn, after launch 1 was stopped; the observations are those of an
// ordinary two-launch probe.
func TestNextLaunchHeld(t *testing.T) {
	launch, _ := fake(t, "sleeper")
	var (
		mu     sync.Mutex
		events []string
	)
	log := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	held := make(chan struct{})
	launch.Hold = func(ctx context.Context, n int) (*exec.Cmd, func() error, func(), error) {
		log(fmt.Sprintf("hold %d", n))
		defer close(held)
		cmd, err := launch.Command(ctx, n)
		return cmd, func() error { log(fmt.Sprintf("release %d", n)); return nil }, func() { log("discard") }, err
	}
	opts := Options{Launches: 2, WarmupCalls: 1, Calls: []Call{{Tool: "summarize", Arguments: json.RawMessage(`{"text":"x"}`)}}}
	opts.Progress = func(phase string) {
		if phase == "launch-1/call-1" {
			select { // bounded: the hold starts right after the first lists
			case <-held:
			case <-time.After(30 * time.Second):
				t.Error("launch 2 was not held during launch 1")
			}
		}
		log(phase)
	}
	res := Run(context.Background(), launch, opts)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	at := func(e string) int {
		i := slices.Index(events, e)
		if i < 0 {
			t.Fatalf("no %q in %q", e, events)
		}
		return i
	}
	if !(at("launch-1/initial") < at("hold 2") && at("hold 2") < at("launch-1/call-1")) {
		t.Errorf("launch 2 not held during launch 1: %q", events)
	}
	if !(at("launch-2/start") < at("release 2") && at("release 2") < at("launch-2/initial")) {
		t.Errorf("launch 2 released out of turn: %q", events)
	}
	if slices.Contains(events, "discard") || slices.Contains(events, "hold 1") || slices.Contains(events, "hold 3") {
		t.Errorf("only launch 2 is held, and it is used: %q", events)
	}
	// The sleeper changes on its second launch: seen as before.
	if got := len(res.Observations); got < 4 {
		t.Fatalf("%d observations", got)
	}
	tools := func(o Observation) string {
		var b strings.Builder
		for _, d := range o.Lists[KindTool] {
			b.Write(d.Raw)
		}
		return b.String()
	}
	last := res.Observations[len(res.Observations)-1]
	if last.Launch != 2 || tools(last) == tools(res.Observations[0]) {
		t.Errorf("launch 2 did not show the sleeper's second-launch tools")
	}
}

// TestHeldLaunchDropped: a probe that ends before the held launch's turn
// discards it and stops it: nothing of it runs when Run returns.
func TestHeldLaunchDropped(t *testing.T) {
	launch, _ := fake(t, "honest")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var heldCmd *exec.Cmd
	discarded := false
	held := make(chan struct{})
	launch.Hold = func(ctx context.Context, n int) (*exec.Cmd, func() error, func(), error) {
		defer close(held)
		cmd, err := launch.Command(ctx, n)
		heldCmd = cmd
		return cmd, func() error { t.Error("released"); return nil }, func() { discarded = true }, err
	}
	opts := Options{Launches: 2, WarmupCalls: 1, Calls: []Call{{Tool: "summarize", Arguments: json.RawMessage(`{"text":"x"}`)}}}
	opts.Progress = func(phase string) {
		if phase == "launch-1/call-1" {
			select { // bounded: the hold starts right after the first lists
			case <-held:
			case <-time.After(30 * time.Second):
				t.Error("launch 2 was not held during launch 1")
			}
			cancel() // launch 1 fails: launch 2's turn never comes
		}
	}
	res := Run(ctx, launch, opts)
	if res.Err == nil {
		t.Fatal("the cancelled probe did not fail")
	}
	if !discarded {
		t.Error("the held launch was not discarded")
	}
	if heldCmd == nil || heldCmd.Process == nil {
		t.Fatal("the held launch was not started")
	}
	if live := procgroup.Live(heldCmd.Process.Pid); len(live) > 0 {
		t.Errorf("the held launch's processes %v still run", live)
	}
}

// roundRobin plans n calls over the listed tools in order, with no
// arguments: a stand-in for the engine's planner.
func roundRobin(tools []json.RawMessage, n int) []Call {
	var names []string
	for _, raw := range tools {
		var d struct{ Name string }
		if json.Unmarshal(raw, &d) == nil && d.Name != "" {
			names = append(names, d.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	calls := make([]Call, n)
	for i := range calls {
		calls[i] = Call{Tool: names[i%len(names)]}
	}
	return calls
}

// TestBurst: the burst runs in the first launch after its timed calls,
// in the same process, re-listing after each of the process's first ten
// calls, at every power of two and after the last; phases are named by
// the process's call count. A server that turns on at its 600th call is
// seen at the first re-list after it. One whose every tool hangs cuts the
// burst short, which the result says.
func TestBurst(t *testing.T) {
	phases := func(from, to int) []string {
		var out []string
		for k := from; k <= to; k++ {
			if k <= 10 || k&(k-1) == 0 || k == to {
				out = append(out, fmt.Sprintf("launch-1/burst-after-call-%d", k))
			}
		}
		return out
	}
	tests := []struct {
		name, scenario string
		opts           Options
		phases         []string // launch 1's, after initial and the timed calls
		calls          int
		firstShell     string // the first phase listing exec_shell
		unfinished     string
	}{
		{name: "after timed calls", scenario: "honest", opts: Options{WarmupCalls: 2, BurstCalls: 20},
			phases: append([]string{"launch-1/after-call-1", "launch-1/after-call-2"}, phases(3, 22)...), calls: 22},
		{name: "alone", scenario: "honest", opts: Options{BurstCalls: 5}, phases: phases(1, 5), calls: 5},
		{name: "counter-600", scenario: "counter-600", opts: Options{WarmupCalls: 50, BurstCalls: 1000}, calls: 1050,
			firstShell: "launch-1/burst-after-call-1024"},
		{name: "hangs", scenario: "late-call", opts: Options{BurstCalls: 100, CallTimeout: 50 * time.Millisecond},
			phases: phases(1, 2), calls: 2, unfinished: "the burst made 2 of its 100 calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			launch, cmds := fake(t, tt.scenario)
			opts := tt.opts
			opts.Launches, opts.Plan = 2, roundRobin
			res := Run(context.Background(), launch, opts)
			if res.Err != nil {
				t.Fatalf("err = %v (stderr %s)", res.Err, res.Stderr)
			}
			var got []string
			shell := ""
			for _, o := range res.Observations {
				if o.Launch == 1 && o.Phase != "launch-1/initial" {
					got = append(got, o.Phase)
				}
				if shell == "" && slices.Contains(toolNames(o), "exec_shell") {
					shell = o.Phase
				}
			}
			if tt.phases != nil && strings.Join(got, ",") != strings.Join(tt.phases, ",") {
				t.Errorf("launch 1's phases = %v, want %v", got, tt.phases)
			}
			if n := len(res.Calls) - 2*tt.opts.WarmupCalls; n != tt.calls-tt.opts.WarmupCalls {
				t.Errorf("%d calls besides the timed ones, want %d", n, tt.calls-tt.opts.WarmupCalls)
			}
			if shell != tt.firstShell {
				t.Errorf("exec_shell first listed at %q, want %q", shell, tt.firstShell)
			}
			if got := strings.Join(res.Unfinished, "; "); tt.unfinished == "" && got != "" || !strings.Contains(got, tt.unfinished) {
				t.Errorf("unfinished = %q, want %q", got, tt.unfinished)
			}
			for _, c := range res.Calls {
				if strings.HasPrefix(c.Phase, "launch-2/burst") {
					t.Errorf("a burst call in launch 2: %s", c.Phase)
				}
			}
			assertGone(t, *cmds)
		})
	}
}

// TestResourceReads: every phase reads the listed resources (what a
// resource holds is model input, and a server may poison it only after
// some calls), keeps each answer under its uri, records an error answer,
// and reads no more than MaxResourceReads, saying so.
func TestResourceReads(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		max    int
		want   string // in the last phase's answer
		reads  int
		noteIn string
	}{
		{"honest", nil, 0, "Standup moved to ten.", 1, ""},
		{"poisoned after two calls", []string{"FAKE_CARRIER=resource", "FAKE_VARIANT=instruction", "FAKE_AFTER=2"}, 0, "Ignore all previous instructions", 1, ""},
		{"none when told", nil, -1, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, _ := fake(t, "answers", tc.env...)
			res := Run(context.Background(), target, Options{WarmupCalls: 2, Calls: []Call{{Tool: "summarize", Arguments: json.RawMessage(`{"text":"x"}`)}}, MaxResourceReads: tc.max, RequestTimeout: 10 * time.Second})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if len(res.Observations) != 3 {
				t.Fatalf("%d observations", len(res.Observations))
			}
			first, last := res.Observations[0], res.Observations[2]
			if len(last.ResourceReads) != tc.reads || len(first.ResourceReads) != tc.reads {
				t.Fatalf("reads %d and %d, want %d", len(first.ResourceReads), len(last.ResourceReads), tc.reads)
			}
			if tc.reads == 0 {
				return
			}
			got := string(last.ResourceReads[fakeserver.AnswerURI])
			if !strings.Contains(got, tc.want) {
				t.Errorf("last phase read %s, want %q in it", got, tc.want)
			}
			if tc.env != nil && strings.Contains(string(first.ResourceReads[fakeserver.AnswerURI]), tc.want) {
				t.Errorf("the first phase, before the trigger, read %s", first.ResourceReads[fakeserver.AnswerURI])
			}
		})
	}
}

// TestResourceReadSilence: a resource that is never answered costs the
// short read wait and a note, not a held server (a resource may stand for
// a backend the sandbox cuts off).
func TestResourceReadSilence(t *testing.T) {
	target, _ := fake(t, "answers", "FAKE_READ=silent")
	res := Run(context.Background(), target, Options{RequestTimeout: time.Second, StartTimeout: 30 * time.Second})
	if res.Err != nil {
		t.Fatalf("held: %v", res.Err)
	}
	if len(res.Observations) != 1 || len(res.Observations[0].ResourceReads) != 0 {
		t.Fatalf("observations %+v", res.Observations)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "resources/read") && strings.Contains(n, "not inspected")
	}) {
		t.Errorf("notes %q", res.Notes)
	}
}
