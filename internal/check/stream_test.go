package check

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestStreamedPhasesSameFindings: canonicalizing and inspecting each phase
// while the server is still driven gives the snapshots and inspection
// findings that processing every phase afterwards gives, for servers whose
// phases differ (a counter rug pull, a poisoned tool result, prompts).
func TestStreamedPhasesSameFindings(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	for _, scenario := range []string{"counter", "poisoned-result", "prompt-get-change", "list-changed"} {
		t.Run(scenario, func(t *testing.T) {
			s := config.Server{Name: "s", Type: "stdio", Command: os.Args[0], Env: map[string]string{"FAKE_SCENARIO": scenario}, File: ".mcp.json", Line: 1, Client: "claude-code"}
			opts := &Options{Servers: []config.Server{s}, LockPath: "mcp-lock.json",
				Probe:   probe.Options{Launches: 2, WarmupCalls: 4, RequestTimeout: 10 * time.Second},
				Sandbox: sandbox.Options{Level: sandbox.Basic}, FailOn: finding.Error, Jobs: 1}
			run := probeServer(context.Background(), s, opts)
			if run.held != "" {
				t.Fatalf("held: %s", run.held)
			}
			if len(run.snaps) != len(run.res.Observations) || len(run.snaps) < 5 {
				t.Fatalf("%d snapshots streamed for %d observations", len(run.snaps), len(run.res.Observations))
			}
			after := &serverRun{cfg: run.cfg, res: run.res}
			after.snapshot(opts.Redactor)
			// The clock each phase is held to is read when its snapshot
			// is made: the only field that may differ.
			for _, s := range append(slices.Clone(run.snaps), after.snaps...) {
				if s.at.IsZero() {
					t.Fatal("a snapshot without the clock it was seen at")
				}
			}
			for i := range min(len(run.snaps), len(after.snaps)) {
				run.snaps[i].at = after.snaps[i].at
			}
			if !reflect.DeepEqual(run.snaps, after.snaps) {
				t.Error("streamed snapshots differ from those made afterwards")
			}
			streamed := inspectRun(run)
			if run.inspector != nil {
				t.Fatal("inspectRun left the streamed inspector in place")
			}
			if got := inspectRun(after); !reflect.DeepEqual(streamed, got) {
				t.Errorf("streamed inspection differs:\n%v\n%v", streamed, got)
			}
			if len(streamed) == 0 && scenario == "poisoned-result" {
				t.Error("the poisoned tool result was not inspected")
			}
		})
	}
}
