package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// Plan is what one server's probe is planned to do, counted before
// anything is launched: the numbers its deadline follows from, and what
// the report holds the probe to (coverage's planned counts).
type Plan struct {
	// Profile names the plan in messages ("deep"); "" for none.
	Profile string
	// Launches counts every launch: --launches, one per extra client
	// identity, one per clock shift.
	Launches    int
	Identities  int // distinct clientInfo identities presented
	ClockShifts int // launches with a moved clock (libfaketime)
	// Calls is the timed warm-up calls of each launch, Gap the idle time
	// before each one after the first, in the first launch only
	// (probe.Options.CallGap).
	Calls int
	Gap   time.Duration
	// Burst is the calls of the burst (first launch, no gaps).
	Burst int
}

// What the estimate allows besides the idle gaps, which are certain. They
// are typical costs, measured on real servers (docs/profiles.md has the
// figures), not bounds: the default deadline doubles the estimate and
// adds a minute for a server slower than typical.
const (
	// launchCost is one launch's start-up, handshake, first lists and
	// shutdown: 0.3 to 2.5 s for the npm servers measured, in the sandbox.
	launchCost = 3 * time.Second
	// callCost is one timed call and the re-list after it: a few ms on a
	// fast server, about 200 ms for a server whose tools reach for a
	// browser or a cluster that is not there.
	callCost = 200 * time.Millisecond
	// burstCallCost is one burst call (the re-lists are a dozen for a
	// thousand calls): 1 to 3 ms measured on fast servers.
	burstCallCost = 20 * time.Millisecond
)

// MinServerTimeout is the least default deadline of one server, whatever
// its plan: the deadline every server had before it followed the plan.
const MinServerTimeout = 2 * time.Minute

// Idle is the time the plan spends waiting between calls, for certain:
// the gaps of the first launch's timed calls.
func (p Plan) Idle() time.Duration {
	if p.Launches < 1 {
		return 0
	}
	return time.Duration(max(p.Calls-1, 0)) * p.Gap
}

// Estimate is how long the plan is expected to take on a server of
// typical speed: the idle gaps, and the typical cost of each launch, each
// timed call and each burst call.
func (p Plan) Estimate() time.Duration {
	return p.Idle() +
		time.Duration(p.Launches)*launchCost +
		time.Duration(p.Launches*p.Calls)*callCost +
		time.Duration(p.Burst)*burstCallCost
}

// Deadline is the server time-out a plan gets when none is set: twice its
// estimate plus a minute, for a server slower than typical, and never
// less than MinServerTimeout. A deadline the plan fits in by construction
// means a server is held only when it is slow or stalls, never because
// the profile asked more than its own default allows.
func (p Plan) Deadline() time.Duration {
	return max(MinServerTimeout, 2*p.Estimate()+time.Minute)
}

// Fits reports whether a deadline d leaves the plan its estimated time. A
// shorter one would hold the server half-way through, every time.
func (p Plan) Fits(d time.Duration) bool { return d >= p.Estimate() }

// String says what the plan is, for a message that gives its estimate:
// "21 launches × 50 calls with a 2s gap in the first, and a burst of 1000
// calls".
func (p Plan) String() string {
	s := fmt.Sprintf("%d %s × %d %s", p.Launches, plural(p.Launches, "launch", "launches"), p.Calls, plural(p.Calls, "call", "calls"))
	if p.Gap > 0 && p.Calls > 1 {
		s += " with a " + p.Gap.String() + " gap"
		if p.Launches > 1 {
			s += " in the first"
		}
	}
	if p.Burst > 0 {
		s += fmt.Sprintf(", and a burst of %d calls", p.Burst)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// About writes a duration the way an estimate is said: whole minutes from
// a minute up (rounded up, "9m", "1h15m"), whole seconds below.
func About(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int((d+time.Second-1)/time.Second))
	}
	m := int((d + time.Minute - 1) / time.Minute)
	if m < 60 {
		return fmt.Sprintf("%dm", m)
	}
	if m%60 == 0 {
		return fmt.Sprintf("%dh", m/60)
	}
	return fmt.Sprintf("%dh%dm", m/60, m%60)
}

// planFor is server s's plan under opts (already resolved for s by
// forServer): the launches probeServer will make, counted the way it makes
// them. A clock shift is counted only where one can be made: a local
// server, with libfaketime installed.
func (opts *Options) planFor(s config.Server) Plan {
	popts := probeOptions(s, opts)
	p := Plan{
		Profile:    opts.ProfileName,
		Launches:   max(popts.Launches, 1) + len(popts.ExtraIdentities),
		Identities: countIdentities(popts),
		Calls:      max(popts.WarmupCalls, 0),
		Gap:        popts.CallGap,
		Burst:      max(popts.BurstCalls, 0),
	}
	if !isRemote(s) && len(opts.ClockOffsets) > 0 && sandbox.FakeTimeLib(opts.FakeTimeLib) != "" {
		p.ClockShifts = len(opts.ClockOffsets)
		p.Launches += p.ClockShifts
	}
	return p
}

// isRemote reports a server reached over HTTP rather than launched.
func isRemote(s config.Server) bool {
	return s.Type == "http" || s.Type == "sse" || s.URL != ""
}

// serverTimeout is the deadline of server s's whole probe: the one set
// (--timeout, the policy's), else the plan's own (Plan.Deadline).
// derived says which.
func (opts *Options) serverTimeout(p Plan) (d time.Duration, derived bool) {
	if opts.ServerTimeout > 0 {
		return opts.ServerTimeout, false
	}
	return p.Deadline(), true
}

// FitPlans refuses a run in which a time-out that was set cannot hold a
// server's plan: --timeout or a policy's timeout shorter than the plan's
// estimate, or a run deadline (--deadline, given as runDeadline; 0: none)
// shorter than one server's. Such a run would hold the server half-way
// through every time: it is refused before anything is launched, with the
// numbers. A time-out left unset follows the plan and always fits.
func (opts *Options) FitPlans(runDeadline time.Duration) error {
	type miss struct {
		text    string
		servers []string
	}
	var misses []*miss
	add := func(text, server string) {
		for _, m := range misses {
			if m.text == text {
				m.servers = append(m.servers, server)
				return
			}
		}
		misses = append(misses, &miss{text, []string{server}})
	}
	for _, s := range opts.Servers {
		o := opts.forServer(s.Name)
		p := o.planFor(s)
		need := p.Estimate()
		who := p.Profile
		if who == "" {
			who = "the probe plan"
		}
		head := fmt.Sprintf("%s needs about %s per server (%s)", who, About(need), p)
		if o.ServerTimeout > 0 && !p.Fits(o.ServerTimeout) {
			src := "--timeout is " + o.ServerTimeout.String()
			if opts.settings(s.Name).Timeout > 0 {
				src = "the policy's timeout for it is " + o.ServerTimeout.String()
			}
			add(head+"; "+src, s.Name)
		}
		if runDeadline > 0 && !p.Fits(runDeadline) {
			add(head+"; --deadline is "+runDeadline.String(), s.Name)
		}
	}
	if len(misses) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("the time given cannot hold the probe's plan, so every server would be held half-way:")
	for _, m := range misses {
		slices.Sort(m.servers)
		fmt.Fprintf(&b, "\n  %s (server %s)", m.text, strings.Join(m.servers, ", "))
	}
	b.WriteString("\nleave --timeout unset (the default follows the plan), give more time, or plan less (--launches, --warmup-calls, --call-gap, --client-identity, --clock-offset, --burst-calls)")
	return errors.New(b.String())
}
