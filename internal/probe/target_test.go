package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lifecycle records what the probe did with each launch of a target.
type lifecycle struct {
	mu     sync.Mutex
	events map[int][]string // launch -> "stop", "wait", "explain" in order
}

func (lc *lifecycle) add(n int, ev string) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.events[n] = append(lc.events[n], ev)
}

// recordingTarget serves every launch from a fresh scripted server and
// records the launch's lifecycle; launch failAt cannot start.
type recordingTarget struct {
	script string
	failAt int
	lc     *lifecycle
}

func (r *recordingTarget) Start(ctx context.Context, spec LaunchSpec) (Launch, error) {
	if spec.N == r.failAt {
		return nil, errors.New("the launch could not start")
	}
	srv := &scriptedServer{lines: bytes.Split([]byte(r.script), []byte("\n"))}
	l, err := connected(srv.connect).Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	r.lc.add(spec.N, "start")
	return &recordedLaunch{Launch: l, n: spec.N, lc: r.lc}, nil
}

type recordedLaunch struct {
	Launch
	n  int
	lc *lifecycle
}

func (l *recordedLaunch) Stop() { l.lc.add(l.n, "stop"); l.Launch.Stop() }
func (l *recordedLaunch) Wait() string {
	l.lc.add(l.n, "wait")
	return l.Launch.Wait()
}
func (l *recordedLaunch) Explain(err error) error {
	l.lc.add(l.n, "explain")
	return l.Launch.Explain(err)
}

// TestEveryLaunchEnds: whatever ends a probe (its last phase, a server
// that breaks the handshake or a list, a launch that cannot start, the
// deadline), every launch a target started is stopped and then waited for,
// once each and before Run returns; only the launch that failed is asked
// to explain the error. A launch left running is a hostile server left
// running.
func TestEveryLaunchEnds(t *testing.T) {
	stateless := fuzzSeeds[1]
	for _, tc := range []struct {
		name     string
		script   string
		failAt   int
		launches int
		cancelAt string // cancel the probe's context when this phase is observed
		wantErr  string // "" : the probe finishes
		failed   int    // the launch that failed (explains)
	}{
		{name: "finishes", script: stateless, launches: 3},
		{name: "handshake refused", script: `initialize {"jsonrpc":"2.0","id":"$id","error":{"code":-32000,"message":"no"}}`, launches: 2, wantErr: "no", failed: 1},
		{name: "list not an object", script: strings.Replace(stateless, `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`, `"tools"`, 1), launches: 2, wantErr: "result is not an object", failed: 1},
		{name: "second launch cannot start", script: stateless, launches: 3, failAt: 2, wantErr: "could not start"},
		{name: "cancelled", script: stateless, launches: 3, cancelAt: "launch-2/initial", wantErr: "context canceled", failed: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := &lifecycle{events: map[int][]string{}}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			opts := Options{Launches: tc.launches, RequestTimeout: 5 * time.Second, NoPromptGets: true}
			if tc.cancelAt != "" {
				opts.Observed = func(o Observation) {
					if o.Phase == tc.cancelAt {
						cancel()
					}
				}
				// The next request after the cancel fails; make sure
				// there is one (a follow-up list after the call).
				opts.WarmupCalls = 1
				opts.Calls = []Call{{Tool: "t"}}
			}
			res := Run(ctx, &recordingTarget{script: tc.script, failAt: tc.failAt, lc: lc}, opts)
			switch {
			case tc.wantErr == "" && res.Err != nil:
				t.Fatalf("err = %v", res.Err)
			case tc.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want %q", res.Err, tc.wantErr)
			}
			lc.mu.Lock()
			defer lc.mu.Unlock()
			if len(lc.events) == 0 {
				t.Fatal("no launch started")
			}
			for n, evs := range lc.events {
				want := "start stop wait"
				if n == tc.failed {
					want += " explain"
				}
				if got := strings.Join(evs, " "); got != want {
					t.Errorf("launch %d: %s, want %s", n, got, want)
				}
			}
			if tc.wantErr == "" && len(lc.events) != tc.launches {
				t.Errorf("%d launches started, want %d", len(lc.events), tc.launches)
			}
			if tc.failAt > 0 {
				if _, ok := lc.events[tc.failAt]; ok || len(lc.events) != tc.failAt-1 {
					t.Errorf("launches: %s", fmt.Sprint(lc.events))
				}
			}
		})
	}
}
