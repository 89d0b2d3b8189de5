package cli

import (
	"flag"
	"io"
	"slices"
	"testing"
	"time"
)

// TestProfile: deep raises every bait, a flag given on the command line
// wins over the profile, quick keeps the defaults, and an unknown profile
// is a usage error.
func TestProfile(t *testing.T) {
	tests := []struct {
		args               []string
		warmup, launches   int
		gap                time.Duration
		clocks, identities int
		wantErr            bool
	}{
		{args: nil, warmup: 5, launches: 2},
		{args: []string{"--profile", "quick"}, warmup: 5, launches: 2},
		{args: []string{"--profile", "deep"}, warmup: 50, launches: 5, gap: 2 * time.Second, clocks: 3, identities: 14},
		{args: []string{"--profile", "deep", "--warmup-calls", "7", "--call-gap", "0", "--clock-offset", "168h", "--client-identity", "x/1"}, warmup: 7, launches: 5, clocks: 1, identities: 1},
		{args: []string{"--profile", "slow"}, wantErr: true},
	}
	for _, tt := range tests {
		var c probing
		fs := flag.NewFlagSet("check", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.register(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := c.applyProfile()
		if (err != nil) != tt.wantErr {
			t.Errorf("%v: err %v", tt.args, err)
			continue
		}
		if tt.wantErr {
			continue
		}
		if c.warmup != tt.warmup || c.launches != tt.launches || c.callGap != tt.gap || len(c.clockOffsets) != tt.clocks || len(c.identities) != tt.identities {
			t.Errorf("%v: warmup %d launches %d gap %s clocks %v identities %d", tt.args, c.warmup, c.launches, c.callGap, c.clockOffsets, len(c.identities))
		}
		if tt.clocks == 3 && !slices.Equal(c.clockOffsets, deepClockOffsets) {
			t.Errorf("deep clocks %v", c.clockOffsets)
		}
	}
}
