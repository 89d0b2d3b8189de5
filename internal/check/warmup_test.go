package check

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// warmupRun probes a fake warm-up scenario with the quick profile's
// numbers (5 calls a launch, 2 launches) and the given explicit calls.
func warmupRun(t *testing.T, scenario string, calls ...probe.Call) *serverRun {
	t.Helper()
	s := config.Server{Name: "w", Type: "stdio", Command: os.Args[0], Env: map[string]string{"FAKE_SCENARIO": scenario}, File: ".mcp.json", Line: 1, Client: "claude-code"}
	opts := &Options{Servers: []config.Server{s}, LockPath: "mcp-lock.json",
		Probe:   probe.Options{Launches: 2, WarmupCalls: 5, Calls: calls, RequestTimeout: 10 * time.Second},
		Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1}
	run := probeServer(context.Background(), s, opts)
	if run.held != "" {
		t.Fatalf("held: %s", run.held)
	}
	return run
}

// writesCalled is what the server itself says was called among its
// writes: each such call adds a "called_<tool>" tool to its later lists.
func writesCalled(run *serverRun) []string {
	var out []string
	for _, o := range run.res.Observations {
		for _, d := range o.Lists[probe.KindTool] {
			var def struct{ Name string }
			_ = json.Unmarshal(d.Raw, &def)
			if n, ok := strings.CutPrefix(def.Name, "called_"); ok && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func calledTools(run *serverRun) map[string]int {
	m := map[string]int{}
	for _, c := range run.res.Calls {
		m[c.Tool]++
	}
	return m
}

// TestWarmupNeverCallsWrites: a server whose write tools carry no
// annotations (Redis, LaunchDarkly, GitLab, Slack, server-memory 0.6.2)
// gets its warm-up calls on its reads only, spread over all of them, with
// non-empty arguments; the note names the skipped writes compactly.
func TestWarmupNeverCallsWrites(t *testing.T) {
	run := warmupRun(t, "write-tools")
	if w := writesCalled(run); len(w) > 0 {
		t.Fatalf("the warm-up called writes: %v", w)
	}
	got := calledTools(run)
	for _, r := range []string{"get", "read_graph", "list_merge_requests"} {
		if got[r] == 0 {
			t.Errorf("read %s was not called (calls %v)", r, got)
		}
	}
	for _, c := range run.res.Calls {
		if strings.Contains(string(c.Arguments), `""`) || string(c.Arguments) == "{}" {
			t.Errorf("call %s with empty arguments %s", c.Tool, c.Arguments)
		}
	}
	var note string
	for _, n := range run.notes {
		if strings.HasPrefix(n, "warm-up:") {
			note = n
		}
	}
	want := "warm-up: 3 of 16 tools eligible; not called: 13 whose name reads as a write (add_reaction, create-feature-flag, create_repository and 10 more); name a tool under calls in the policy file to call it"
	if note != want {
		t.Errorf("note %q\nwant %q\n(all notes %q)", note, want, run.notes)
	}
}

// TestWarmupPolicyCallsWrite: a call the policy names is made, write or
// not, and its tool is not reported skipped.
func TestWarmupPolicyCallsWrite(t *testing.T) {
	run := warmupRun(t, "write-tools", probe.Call{Tool: "set", Arguments: json.RawMessage(`{"key":"k"}`)})
	if w := writesCalled(run); !slices.Equal(w, []string{"set"}) {
		t.Fatalf("writes called: %v, want the policy's set only", w)
	}
	for _, n := range run.notes {
		if strings.Contains(n, "(add_reaction, create-feature-flag, create_repository and 9 more)") {
			return
		}
	}
	t.Errorf("the note should skip 12 writes, not the policy's set: %q", run.notes)
}

// TestWarmupMCPGoDefaults: mark3labs/mcp-go marks every tool destructive
// unless told otherwise; that blanket default is no annotation, so the
// reads get warm-up calls and the writes do not, and the note does not
// blame argument synthesis.
func TestWarmupMCPGoDefaults(t *testing.T) {
	run := warmupRun(t, "mcp-go")
	if w := writesCalled(run); len(w) > 0 {
		t.Fatalf("the warm-up called writes: %v", w)
	}
	got := calledTools(run)
	if got["get_pods"] == 0 || got["list_namespaces"] == 0 || got["pod_status"] == 0 || len(got) != 3 || len(run.res.Calls) != 10 {
		t.Errorf("calls %v, want 10 over get_pods, list_namespaces and pod_status", got)
	}
	for _, n := range run.notes {
		if strings.Contains(n, "synthesized") || strings.Contains(n, "no warm-up call") {
			t.Errorf("wrong reason in note %q", n)
		}
	}
}

// TestWarmupDecoyNonEmpty: one read-only decoy no longer absorbs every
// call, and the first call to the other tool carries a non-empty query:
// a rug pull on a non-empty argument shows in the quick profile.
func TestWarmupDecoyNonEmpty(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	run := warmupRun(t, "decoy-nonempty")
	got := calledTools(run)
	if got["search_notes"] == 0 {
		t.Fatalf("the decoy absorbed the calls: %v", got)
	}
	pulled := false
	for _, o := range run.res.Observations {
		for _, d := range o.Lists[probe.KindTool] {
			pulled = pulled || strings.Contains(string(d.Raw), "<IMPORTANT>")
		}
	}
	if !pulled {
		t.Errorf("the rug pull after a non-empty query was not observed (calls %+v)", run.res.Calls)
	}
}

// TestWarmupRealMemory062: @modelcontextprotocol/server-memory 0.6.2
// carries no annotations; a check once called its delete_entities. Its
// warm-up calls now go to read_graph and search_nodes only, and the
// memory file it would write stays absent.
func TestWarmupRealMemory062(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	if testing.Short() {
		t.Skip("real npm server")
	}
	d := npmtest.Servers(t)
	bin, err := d.PackageBin("memory-062", "mcp-server-memory")
	if err != nil {
		t.Fatal(err)
	}
	// 0.6.2 ignores MEMORY_FILE_PATH: it writes memory.json beside its
	// own code (in basic mode Landlock would refuse that write; the calls
	// themselves are what this test checks).
	mem := filepath.Join(filepath.Dir(bin), "memory.json")
	if _, err := os.Stat(mem); !os.IsNotExist(err) {
		t.Fatalf("%s exists before the run: %v", mem, err)
	}
	s := config.Server{Name: "memory", Type: "stdio", Command: bin, File: ".mcp.json", Line: 1, Client: "claude-code"}
	opts := realOptions(s)
	run := probeServer(context.Background(), s, &opts)
	if run.held != "" {
		t.Fatalf("held: %s", run.held)
	}
	got := calledTools(run)
	if len(run.res.Calls) != 10 || got["read_graph"] == 0 || got["search_nodes"] == 0 || len(got) != 2 {
		t.Errorf("calls %v, want 10 over read_graph and search_nodes", got)
	}
	for _, c := range run.res.Calls {
		if c.Tool == "search_nodes" && !strings.Contains(string(c.Arguments), `"query":"`) || strings.Contains(string(c.Arguments), `""`) {
			t.Errorf("call %s %s: want a non-empty query", c.Tool, c.Arguments)
		}
	}
	if _, err := os.Stat(mem); !os.IsNotExist(err) {
		t.Errorf("the memory file was written: %v", err)
	}
	want := "warm-up: 2 of 9 tools eligible; not called: 6 whose name reads as a write (add_observations, create_entities, create_relations and 3 more); 1 with no annotation and no read-like name (open_nodes); name a tool under calls in the policy file to call it"
	if !slices.Contains(run.notes, want) {
		t.Errorf("notes %q\nwant %q", run.notes, want)
	}
}
