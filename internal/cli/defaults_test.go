package cli

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
)

// TestDefaultsAreTheEngines: a probing command given no flags probes as
// package check's Run does with a zero Config (check.DefaultOptions), for
// each profile: one set of defaults, whichever way the engine is called.
func TestDefaultsAreTheEngines(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{ProfileQuick, ProfileDeep} {
		var c checkFlags
		fs := newFlagSet("check", Env{Stdout: io.Discard, Stderr: io.Discard})
		c.register(fs)
		if err := parse(fs, []string{"--profile", profile, "--quiet"}); err != nil {
			t.Fatal(err)
		}
		got, err := c.options(Env{Getenv: os.LookupEnv, Stderr: io.Discard}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		want := check.DefaultOptions(profile, sandbox.Basic)
		for _, f := range []struct {
			name      string
			got, want any
		}{
			{"probe", got.Probe, want.Probe},
			{"profile", got.ProfileName, want.ProfileName},
			{"sandbox level", got.Sandbox.Level, want.Sandbox.Level},
			{"cache dir", got.Sandbox.CacheDir, want.Sandbox.CacheDir},
			{"jobs", got.Jobs, want.Jobs},
			{"server time-out", got.ServerTimeout, want.ServerTimeout},
			{"clock offsets", fmt.Sprint(got.ClockOffsets), fmt.Sprint(want.ClockOffsets)},
			{"deep", got.Deep, want.Deep},
			{"fail-on", got.FailOn, want.FailOn},
		} {
			if !reflect.DeepEqual(f.got, f.want) {
				t.Errorf("%s: %s: flags give %+v, the engine's defaults %+v", profile, f.name, f.got, f.want)
			}
		}
	}
}
