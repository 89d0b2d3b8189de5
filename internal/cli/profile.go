package cli

import (
	"fmt"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
)

// Probe profiles (--profile): the engine's (check.ProfileQuick,
// check.ProfileDeep), documented in docs/profiles.md.
const (
	ProfileQuick = check.ProfileQuick
	ProfileDeep  = check.ProfileDeep
)

// maxBurstCalls bounds --burst-calls (check.MaxBurstCalls).
const maxBurstCalls = check.MaxBurstCalls

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
	explicit, deep := c.explicit(), check.DeepProfile()
	if !explicit("warmup-calls") {
		c.warmup = deep.WarmupCalls
	}
	if !explicit("launches") {
		c.launches = deep.Launches
	}
	if !explicit("clock-offset") {
		c.clockOffsets = durations(deep.ClockOffsets)
	}
	if !explicit("call-gap") {
		c.callGap = deep.CallGap
	}
	if !explicit("burst-calls") {
		c.burst = deep.BurstCalls
	}
	if !explicit("client-identity") {
		c.identities = nil
		for _, id := range deep.ExtraIdentities {
			c.identities = append(c.identities, id.Name+"/"+id.Version)
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

// deepClockOffsets are the deep profile's clock shifts, as --clock-offset
// holds them.
var deepClockOffsets = durations(check.DeepProfile().ClockOffsets)
