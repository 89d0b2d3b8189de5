package check

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
)

// TestPlanDeadline: a plan's estimate is its idle gaps plus the typical
// cost of each launch, timed call and burst call; the default deadline is
// twice that plus a minute, never below 2m; a set time-out fits when it
// is at least the estimate.
func TestPlanDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		plan     Plan
		estimate time.Duration
		deadline time.Duration
		text     string
	}{
		{"nothing", Plan{Launches: 1}, 3 * time.Second, 2 * time.Minute, "1 launch × 0 calls"},
		// quick: 2 launches of 5 calls, no gap.
		{"quick", Plan{Launches: 2, Calls: 5}, 6*time.Second + 2*time.Second, 2 * time.Minute, "2 launches × 5 calls"},
		// One call per launch: no gap is ever waited.
		{"one call", Plan{Launches: 3, Calls: 1, Gap: time.Hour}, 9*time.Second + 600*time.Millisecond, 2 * time.Minute, "3 launches × 1 call"},
		// deep as the issue names it: 5 launches of 50 calls, 2s gaps in
		// the first: 49 × 2s = 1m38s idle, 15s of launches, 50s of
		// calls, 20s of burst.
		{"deep, five launches", Plan{Launches: 5, Calls: 50, Gap: 2 * time.Second, Burst: 1000},
			98*time.Second + 15*time.Second + 50*time.Second + 20*time.Second,
			2*(3*time.Minute+3*time.Second) + time.Minute, "5 launches × 50 calls with a 2s gap in the first, and a burst of 1000 calls"},
		// deep's defaults: 5 launches, 13 extra identities, 3 clock
		// shifts: 49 × 2s = 1m38s idle (the first launch's; 34m18s when
		// every launch had gaps), 1m3s of launches, 3m30s of calls, 20s
		// of burst: 6m31s.
		{"deep defaults", Plan{Launches: 21, Calls: 50, Gap: 2 * time.Second, Burst: 1000},
			98*time.Second + 63*time.Second + 210*time.Second + 20*time.Second,
			2*(6*time.Minute+31*time.Second) + time.Minute, "21 launches × 50 calls with a 2s gap in the first, and a burst of 1000 calls"},
		// One launch: its gaps are all the plan's.
		{"one launch", Plan{Launches: 1, Calls: 3, Gap: time.Minute}, 2*time.Minute + 3*time.Second + 600*time.Millisecond,
			2*(2*time.Minute+3600*time.Millisecond) + time.Minute, "1 launch × 3 calls with a 1m0s gap"},
		// The nightly workflow's test budget: no gap, one extra identity.
		{"deep, no gap", Plan{Launches: 9, Calls: 50, Burst: 1000},
			27*time.Second + 90*time.Second + 20*time.Second,
			2*(137*time.Second) + time.Minute, "9 launches × 50 calls, and a burst of 1000 calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.plan.Estimate(); got != tt.estimate {
				t.Errorf("Estimate() = %s, want %s", got, tt.estimate)
			}
			if got := tt.plan.Deadline(); got != tt.deadline {
				t.Errorf("Deadline() = %s, want %s", got, tt.deadline)
			}
			if got := tt.plan.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			if !tt.plan.Fits(tt.plan.Deadline()) || !tt.plan.Fits(tt.estimate) || tt.plan.Fits(tt.estimate-time.Millisecond) {
				t.Errorf("Fits: the deadline and the estimate fit, less does not")
			}
		})
	}
}

func TestAbout(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0:                                "0s",
		1500 * time.Millisecond:          "2s",
		59 * time.Second:                 "59s",
		time.Minute:                      "1m",
		9*time.Minute + 35*time.Second:   "10m",
		39*time.Minute + 11*time.Second:  "40m",
		time.Hour:                        "1h",
		79*time.Minute + 22*time.Second:  "1h20m",
		2*time.Hour + 30*time.Second:     "2h1m",
		-time.Second + 1*time.Nanosecond: "0s",
	} {
		if got := About(d); got != want {
			t.Errorf("About(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestPlanFor: a server's plan counts the launches the probe will make:
// --launches, each extra identity but the server's own client's, and each
// clock shift where one can be made (a local server, libfaketime there).
func TestPlanFor(t *testing.T) {
	t.Parallel()
	lib := filepath.Join(t.TempDir(), "libfaketime.so.1")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	name, version := config.ClientInfo(config.ClientClaudeCode)
	ids := []probe.Identity{{Name: name, Version: version}, {Name: "Zed", Version: "1"}, {Name: "Cursor", Version: "2"}}
	local := config.Server{Name: "l", Command: "x", Client: config.ClientClaudeCode}
	remote := config.Server{Name: "r", URL: "https://example.invalid/mcp", Client: config.ClientClaudeCode}
	tests := []struct {
		name   string
		server config.Server
		lib    string
		want   Plan
	}{
		{"local", local, lib, Plan{Launches: 5 + 2 + 3, Identities: 3, ClockShifts: 3, Calls: 50, Gap: time.Second, Burst: 1000}},
		{"no libfaketime", local, lib + ".absent", Plan{Launches: 5 + 2, Identities: 3, Calls: 50, Gap: time.Second, Burst: 1000}},
		{"remote", remote, lib, Plan{Launches: 5 + 2, Identities: 3, Calls: 50, Gap: time.Second, Burst: 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &Options{
				Probe:        probe.Options{Launches: 5, WarmupCalls: 50, CallGap: time.Second, BurstCalls: 1000, ExtraIdentities: ids},
				ClockOffsets: []time.Duration{24 * time.Hour, 48 * time.Hour, 72 * time.Hour},
				FakeTimeLib:  tt.lib,
			}
			if got := opts.planFor(tt.server); got != tt.want {
				t.Errorf("planFor = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestFitPlans: a time-out that is set (--timeout, a policy's, --deadline)
// and shorter than a server's plan refuses the run with the numbers; one
// left unset, or long enough, does not.
func TestFitPlans(t *testing.T) {
	t.Parallel()
	deep := &Profile{WarmupCalls: 50, Launches: 5, CallGap: 2 * time.Second, BurstCalls: 1000}
	servers := []config.Server{{Name: "a", Command: "x"}, {Name: "b", Command: "x"}}
	pol := func(src string) Policy {
		p, err := policy.Parse("p.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name      string
		probe     probe.Options
		profile   string
		timeout   time.Duration
		deadline  time.Duration
		perServer Policy
		want      []string // "" : fits
	}{
		{name: "quick, unset", probe: probe.Options{Launches: 2, WarmupCalls: 5}, profile: "quick"},
		{name: "quick, 2m", probe: probe.Options{Launches: 2, WarmupCalls: 5}, profile: "quick", timeout: 2 * time.Minute},
		{name: "deep, unset", probe: probe.Options{Launches: 5, WarmupCalls: 50, CallGap: 2 * time.Second, BurstCalls: 1000}, profile: "deep"},
		{name: "deep, --timeout 2m", probe: probe.Options{Launches: 5, WarmupCalls: 50, CallGap: 2 * time.Second, BurstCalls: 1000}, profile: "deep", timeout: 2 * time.Minute,
			want: []string{"deep needs about 4m per server (5 launches × 50 calls with a 2s gap in the first, and a burst of 1000 calls); --timeout is 2m0s (server a, b)", "leave --timeout unset"}},
		{name: "deep, --timeout 10m", probe: probe.Options{Launches: 5, WarmupCalls: 50, CallGap: 2 * time.Second, BurstCalls: 1000}, profile: "deep", timeout: 10 * time.Minute},
		{name: "deep, --deadline 3m", probe: probe.Options{Launches: 5, WarmupCalls: 50, CallGap: 2 * time.Second, BurstCalls: 1000}, profile: "deep", deadline: 3 * time.Minute,
			want: []string{"deep needs about 4m per server (5 launches × 50 calls with a 2s gap in the first, and a burst of 1000 calls); --deadline is 3m0s (server a, b)"}},
		{name: "a policy's timeout", probe: probe.Options{Launches: 2, WarmupCalls: 5}, profile: "quick",
			perServer: pol("version: 1\nservers:\n  b:\n    timeout: 5s\n"),
			want:      []string{"quick needs about 8s per server (2 launches × 5 calls); the policy's timeout for it is 5s (server b)"}},
		{name: "a server the policy makes deep", probe: probe.Options{Launches: 2, WarmupCalls: 5}, profile: "quick",
			perServer: pol("version: 1\nservers:\n  a:\n    profile: deep\n    timeout: 3m\n"),
			want:      []string{"deep needs about 4m per server (5 launches × 50 calls with a 2s gap in the first, and a burst of 1000 calls); the policy's timeout for it is 3m0s (server a)"}},
		{name: "--timeout over the policy's deep", probe: probe.Options{Launches: 2, WarmupCalls: 5}, profile: "quick", timeout: 5 * time.Second,
			perServer: pol("version: 1\nservers:\n  a:\n    profile: deep\n"),
			want:      []string{"deep needs about 4m per server", "--timeout is 5s (server a)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &Options{Servers: servers, Probe: tt.probe, ProfileName: tt.profile, ServerTimeout: tt.timeout, Policy: tt.perServer, Deep: deep}
			err := opts.FitPlans(tt.deadline)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("FitPlans: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("FitPlans: nil, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("FitPlans:\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestHeldReason: a probe its own time-out stopped says which time-out it
// was; the plan's says how it was reached and how to give more.
func TestHeldReason(t *testing.T) {
	t.Parallel()
	quick := Plan{Launches: 2, Calls: 5}
	err := errors.New("tools/list: no answer")
	tests := []struct {
		name    string
		timeout time.Duration
		derived bool
		cold    time.Duration
		expired bool
		want    string
	}{
		{"not expired", 2 * time.Minute, true, 0, false, "tools/list: no answer"},
		{"set", 9 * time.Second, false, 0, true, "tools/list: no answer (server time-out 9s)"},
		{"the plan's", 2 * time.Minute, true, 0, true, "tools/list: no answer (server time-out 2m0s, its plan's: twice the estimate of 8s for 2 launches × 5 calls plus 1m, at least 2m0s; a server slower than that needs --timeout or the policy's timeout)"},
		{"the plan's, cold", 4 * time.Minute, true, 2 * time.Minute, true, "tools/list: no answer (server time-out 4m0s, its plan's: twice the estimate of 8s for 2 launches × 5 calls plus 1m, at least 2m0s, and 2m0s for a first start that installs the package; a server slower than that needs --timeout or the policy's timeout)"},
	}
	for _, tt := range tests {
		if got := heldReason(err, tt.timeout, tt.derived, quick, tt.cold, tt.expired); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
