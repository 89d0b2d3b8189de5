//go:build unix

package sandbox

import (
	"fmt"
	"syscall"
)

// execServer replaces the helper with the server: same pid, same process
// group, the limits and restrictions already in place. On macOS confine
// puts sandbox-exec and the Seatbelt profile in front of it.
func execServer(path string, argv, env []string) error {
	path, argv = confine(path, argv)
	err := syscall.Exec(path, argv, env)
	return fmt.Errorf("exec %s: %w", path, err)
}

// setLimits applies l (soft = hard, so the server cannot raise them back),
// never above the inherited hard limit.
func setLimits(l Limits) error {
	set := func(name string, res int, want, slack uint64) error {
		if want == Unlimited || res < 0 {
			return nil
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(res, &cur); err != nil {
			return fmt.Errorf("getrlimit %s: %w", name, err)
		}
		hard := want + slack
		if hard > cur.Max {
			hard = cur.Max
		}
		soft := min(want, hard)
		// syscall.Setrlimit, not x/sys/unix: for RLIMIT_NOFILE it tells the
		// Go runtime not to restore the soft limit it raised at start-up
		// when it execs the server.
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: soft, Max: hard}); err != nil {
			return fmt.Errorf("setrlimit %s=%d: %w", name, want, err)
		}
		return nil
	}
	// CPU: a few seconds between soft and hard so the server gets SIGXCPU
	// before SIGKILL.
	if err := set("RLIMIT_CPU", syscall.RLIMIT_CPU, l.CPUSeconds, 5); err != nil {
		return err
	}
	if err := set("RLIMIT_DATA", syscall.RLIMIT_DATA, l.DataBytes, 0); err != nil {
		return err
	}
	if err := set("RLIMIT_AS", syscall.RLIMIT_AS, l.AddressSpaceBytes, 0); err != nil {
		return err
	}
	if err := set("RLIMIT_NOFILE", syscall.RLIMIT_NOFILE, l.OpenFiles, 0); err != nil {
		return err
	}
	if err := set("RLIMIT_FSIZE", syscall.RLIMIT_FSIZE, l.FileSizeBytes, 0); err != nil {
		return err
	}
	if err := set("RLIMIT_NPROC", rlimitNPROC, l.Processes, 0); err != nil {
		return err
	}
	return set("RLIMIT_CORE", syscall.RLIMIT_CORE, 0, 0)
}
