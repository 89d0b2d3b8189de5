//go:build unix

package sandbox

import (
	"syscall"
	"testing"
)

// TestHelperPolicyZeroLimits: a policy that leaves a limit out gets the
// default, never a limit of zero. With RLIMIT_DATA at 0 the helper's own
// runtime died at its first collection ("fatal error: runtime: cannot
// allocate memory"), as a crash that says nothing of the machine.
func TestHelperPolicyZeroLimits(t *testing.T) {
	for _, raw := range []string{
		`{"SelfTest":true}`,
		`{"SelfTest":true,"Limits":{"OpenFiles":64}}`,
		`{"Path":"/bin/true","Limits":{"CPUSeconds":0,"DataBytes":0}}`,
	} {
		p, err := decodePolicy(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		rls, err := rlimitsFor(p.Limits)
		if err != nil {
			t.Fatal(err)
		}
		for _, rl := range rls {
			if rl.res != syscall.RLIMIT_CORE && rl.lim.Cur == 0 {
				t.Errorf("%s: %s set to 0", raw, rl.name)
			}
		}
	}
	if p, _ := decodePolicy(`{"Limits":{"OpenFiles":64}}`); p.Limits.OpenFiles != 64 {
		t.Errorf("a limit the policy sets was replaced: OpenFiles %d", p.Limits.OpenFiles)
	}
	if _, err := decodePolicy(`{"Limits":`); err == nil {
		t.Error("a broken policy was accepted")
	}
}
