package probe

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
)

func TestMain(m *testing.M) {
	fakeserver.MaybeRun()
	os.Exit(m.Run())
}

// fake returns a launcher running this test binary as a fake server.
func fake(t *testing.T, scenario string, env ...string) (Launcher, *[]*exec.Cmd) {
	tmp := t.TempDir()
	var cmds []*exec.Cmd
	return func(ctx context.Context, _ int) (*exec.Cmd, error) {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "FAKE_SCENARIO="+scenario, "TMPDIR="+tmp)
		c.Env = append(c.Env, env...)
		cmds = append(cmds, c)
		return c, nil
	}, &cmds
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
		{"banner", Options{}, nil, "not JSON-RPC"},
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

func TestIgnoresTermLeavesNothing(t *testing.T) {
	launch, cmds := fake(t, "ignore-term")
	start := time.Now()
	res := Run(context.Background(), launch, Options{ShutdownGrace: 200 * time.Millisecond})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("shutdown took %v", d)
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
