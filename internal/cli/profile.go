package cli

import (
	"fmt"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
)

// Probe profiles (--profile): one named set of probe settings each,
// documented in docs/profiles.md. quick is what a pull-request check can
// afford; deep is what a nightly run can, and baits what quick cannot reach
// (a server that waits for its 40th call, a later launch, a later date,
// another client, a non-default tool or argument).
const (
	ProfileQuick = "quick"
	ProfileDeep  = "deep"
)

// Deep profile settings. A flag given on the command line overrides each.
const (
	deepWarmupCalls = 50
	deepLaunches    = 5
	deepCallGap     = 2 * time.Second
	// deepBurstCalls reaches a counter of about a thousand in one process
	// (the first launch's 50 timed calls come first) for a few seconds on
	// a fast server, where the timed calls, with their gaps, stop at 50.
	deepBurstCalls = 1000
)

// maxBurstCalls bounds --burst-calls: every call is recorded for the
// report, and a million would hold the server past any deadline anyway.
const maxBurstCalls = 100000

// deepClockOffsets are the clock shifts of the deep profile: a day, a week
// and a month ahead.
var deepClockOffsets = durations{24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

// applyProfile checks --profile and, for deep, raises every probe setting
// the command line did not give explicitly.
func (c *probing) applyProfile() error {
	switch c.profile {
	case ProfileQuick, "":
		return nil
	case ProfileDeep:
	default:
		return usageErr("--profile %q: want %s or %s", c.profile, ProfileQuick, ProfileDeep)
	}
	explicit := c.explicit()
	if !explicit("warmup-calls") {
		c.warmup = deepWarmupCalls
	}
	if !explicit("launches") {
		c.launches = deepLaunches
	}
	if !explicit("clock-offset") {
		c.clockOffsets = append(durations(nil), deepClockOffsets...)
	}
	if !explicit("call-gap") {
		c.callGap = deepCallGap
	}
	if !explicit("burst-calls") {
		c.burst = deepBurstCalls
	}
	if !explicit("client-identity") {
		c.identities = nil
		for _, ci := range config.KnownClientInfos() {
			c.identities = append(c.identities, ci[0]+"/"+ci[1])
		}
	}
	return nil
}

// durations is a repeatable duration flag.
type durations []time.Duration

func (d *durations) String() string {
	if d == nil {
		return ""
	}
	return fmt.Sprint([]time.Duration(*d))
}

func (d *durations) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if v <= 0 {
		return fmt.Errorf("%q: want a duration above zero", s)
	}
	*d = append(*d, v)
	return nil
}
