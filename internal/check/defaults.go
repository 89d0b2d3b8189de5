package check

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// Probe profiles: one named set of probe settings each, documented in
// docs/profiles.md. quick is what a pull-request check can afford; deep is
// what a nightly run can, and baits what quick cannot reach (a server that
// waits for its 40th call, a later launch, a later date, another client, a
// non-default tool or argument).
const (
	ProfileQuick = "quick"
	ProfileDeep  = "deep"
)

// The quick profile's settings, the defaults of every caller.
const (
	DefaultWarmupCalls     = 5
	DefaultLaunches        = 2
	DefaultRequestTimeout  = 30 * time.Second
	DefaultMaxMessageBytes = 16 << 20
)

// Deep profile settings. A setting a caller fixes overrides each.
const (
	deepWarmupCalls = 50
	deepLaunches    = 5
	deepCallGap     = 2 * time.Second
	// deepBurstCalls reaches a counter of about a thousand in one process
	// (the first launch's 50 timed calls come first) for a few seconds on
	// a fast server, where the timed calls, with their gaps, stop at 50.
	deepBurstCalls = 1000
)

// MaxBurstCalls bounds a burst: every call is recorded for the report, and
// a million would hold the server past any deadline anyway.
const MaxBurstCalls = 100000

// deepClockOffsets are the clock shifts of the deep profile: a day, a week
// and a month ahead.
var deepClockOffsets = []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

// DeepProfile is the deep profile's settings: more calls and launches,
// idle gaps, a burst, clock shifts, and every known client's identity.
func DeepProfile() Profile {
	var ids []probe.Identity
	for _, ci := range config.KnownClientInfos() {
		ids = append(ids, probe.Identity{Name: ci[0], Version: ci[1]})
	}
	return Profile{WarmupCalls: deepWarmupCalls, Launches: deepLaunches, BurstCalls: deepBurstCalls,
		ExtraIdentities: ids, CallGap: deepCallGap, ClockOffsets: slices.Clone(deepClockOffsets)}
}

// DefaultJobs is how many servers are probed at once by default. A probe
// mostly waits on its server (start-up, answers, shutdown grace), so tying
// it to the CPU count would leave the machine idle: on 2 CPUs, 16 servers
// would take four times as long as 4. Eight per CPU, between 16 and 64,
// keeps the CPUs busy without starting every server of a large config at
// once.
func DefaultJobs() int { return min(max(8*runtime.NumCPU(), 16), 64) }

// DefaultCacheDir is the package cache strict servers use when none is
// given: mcp-lockcheck's own, under the user's cache directory, never the
// caches the user's own tools read. Strict cannot use the user's caches
// read-write (a server must not poison what the user later runs
// unsandboxed) and npm cannot run from a read-only one.
func DefaultCacheDir(getenv func(string) (string, bool)) string {
	if v, ok := getenv("XDG_CACHE_HOME"); ok && filepath.IsAbs(v) {
		return filepath.Join(v, "mcp-lockcheck", "sandbox")
	}
	if home, ok := getenv("HOME"); ok && filepath.IsAbs(home) {
		return filepath.Join(home, ".cache", "mcp-lockcheck", "sandbox")
	}
	return filepath.Join(os.TempDir(), "mcp-lockcheck-sandbox-cache")
}

// DefaultOptions are the options of a run in this process whose caller
// chose only the profile (ProfileQuick or ProfileDeep) and the sandbox
// level: every other setting is the command line's default, the
// environment is the process's (os.LookupEnv, redacted from everything
// reported), the clock is time.Now. A deep run gets the deep profile's
// settings; a quick one keeps them in Deep, for the servers a policy
// makes deep.
func DefaultOptions(profile string, level sandbox.Level) Options {
	deep := DeepProfile()
	o := Options{
		Probe: probe.Options{
			WarmupCalls: DefaultWarmupCalls, Launches: DefaultLaunches, Protocol: "auto",
			RequestTimeout: DefaultRequestTimeout, CallTimeout: probe.DefaultCallTimeout, MaxMessageBytes: DefaultMaxMessageBytes,
		},
		ProfileName: ProfileQuick,
		Sandbox:     sandbox.Options{Level: level, Getenv: os.LookupEnv},
		FailOn:      finding.Error,
		Getenv:      os.LookupEnv,
		Jobs:        DefaultJobs(),
		Now:         time.Now,
		Redactor:    redact.New(os.Environ()),
		Deep:        &deep,
	}
	if level == sandbox.Strict {
		o.Sandbox.CacheDir = DefaultCacheDir(os.LookupEnv)
	}
	if profile == ProfileDeep {
		o.Probe.WarmupCalls, o.Probe.Launches, o.Probe.BurstCalls, o.Probe.CallGap = deep.WarmupCalls, deep.Launches, deep.BurstCalls, deep.CallGap
		o.Probe.ExtraIdentities, o.ClockOffsets, o.ProfileName, o.Deep = deep.ExtraIdentities, deep.ClockOffsets, ProfileDeep, nil
	}
	return o
}
