package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// sandboxExec is Apple's Seatbelt front end; it applies a profile and
// execs the command under it (every descendant inherits the profile).
const sandboxExec = "/usr/bin/sandbox-exec"

// ErrNoSeatbelt: sandbox-exec is missing or refuses (inside another
// sandbox, for one).
var ErrNoSeatbelt = errors.New("seatbelt (sandbox-exec) is not available")

func landlockABI() int { return 0 }

// strictSupported runs sandbox-exec once with a trivial profile: strict
// that cannot be applied stops the run, never runs with less.
func strictSupported() error {
	out, err := exec.Command(sandboxExec, "-p", "(version 1)(allow default)", "/usr/bin/true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("sandbox: %w: %s: %v %s; use --sandbox basic to run with less isolation", ErrNoSeatbelt, sandboxExec, err, out)
	}
	return nil
}

// setNamespaces: macOS has none; Seatbelt's deny-default is the network
// deny.
func setNamespaces(*syscall.SysProcAttr, *policy) {}

// writeIDMaps: no user namespaces here.
func writeIDMaps(*idMap) error { return nil }

// strictCause explains a helper that could not start or restrict itself.
func strictCause(startErr error, helperMsg string) error {
	if startErr != nil {
		return fmt.Errorf("sandbox: starting the helper: %w", startErr)
	}
	return fmt.Errorf("sandbox: %w: the helper could not restrict itself: %s", ErrNoSeatbelt, helperMsg)
}

// seatbelt is the profile restrictSelf built for this helper; confine
// applies it to the server's exec.
var seatbelt string

// restrictSelf builds Strict's Seatbelt profile from the policy's grants
// (Landlock's ro and rw, the same lists). The helper itself is not
// confined: sandbox-exec applies the profile before the server's first
// instruction. Basic on macOS has no write restriction.
func restrictSelf(p policy) error {
	if !p.Landlock {
		return nil
	}
	prof, err := seatbeltProfile(p.RO, p.RW)
	if err != nil {
		return err
	}
	if p.SelfTest {
		// The self-test proves the profile applies, not just that it
		// was written.
		if out, err := exec.Command(sandboxExec, "-p", prof, "/usr/bin/true").CombinedOutput(); err != nil {
			return fmt.Errorf("%w: %v %s", ErrNoSeatbelt, err, out)
		}
	}
	seatbelt = prof
	return nil
}

// confine runs the server through sandbox-exec under the profile.
func confine(path string, argv []string) (string, []string) {
	if seatbelt == "" {
		return path, argv
	}
	args := []string{"sandbox-exec", "-p", seatbelt, path}
	if len(argv) > 1 {
		args = append(args, argv[1:]...)
	}
	return sandboxExec, args
}

// rlimitNPROC: macOS counts processes per user across the machine, so no
// per-server cap (as Basic on Linux).
const rlimitNPROC = -1
