//go:build unix

package sandbox

import (
	"errors"
	"os/exec"
	"testing"
)

// TestKilledSelfTestNotCached: a self-test the end-of-run sweep killed
// half-way says nothing of the machine and must not be cached as the
// level's verdict (the CLI starts it beside the repository scan, and a
// run whose servers all ran at another level sweeps it away); a helper
// that failed on its own must be.
func TestKilledSelfTestNotCached(t *testing.T) {
	run := func(script string) error { return exec.Command("/bin/sh", "-c", script).Run() }
	for _, tc := range []struct {
		name   string
		err    error
		killed bool
	}{
		{"killed by the sweep", run("kill -9 $$"), true},
		{"stopped by a signal", run("kill -TERM $$"), true},
		{"helper refused", run("exit 125"), false},
		{"not an exit", errors.New("starting the helper: no such file"), false},
		{"passed", nil, false},
	} {
		if got := killed(tc.err); got != tc.killed {
			t.Errorf("%s: killed(%v) = %v, want %v", tc.name, tc.err, got, tc.killed)
		}
	}
}
