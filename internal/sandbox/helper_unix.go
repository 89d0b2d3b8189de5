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

// setLimits applies l to this process (the helper, before its exec).
func setLimits(l Limits) error {
	rls, err := rlimitsFor(l)
	if err != nil {
		return err
	}
	for _, rl := range rls {
		// syscall.Setrlimit, not x/sys/unix: for RLIMIT_NOFILE it tells the
		// Go runtime not to restore the soft limit it raised at start-up
		// when it execs the server.
		if err := syscall.Setrlimit(rl.res, &rl.lim); err != nil {
			return fmt.Errorf("setrlimit %s=%d: %w", rl.name, rl.lim.Cur, err)
		}
	}
	return nil
}

// rlimit is one resource limit the sandbox sets on a server.
type rlimit struct {
	name string
	res  int
	lim  syscall.Rlimit
}

// rlimitsFor works l out against this process's own limits, which a
// server started from it inherits: soft = the wanted value, hard = soft
// (plus a slack for CPU), so the server cannot raise them back; never
// above the inherited hard limit.
func rlimitsFor(l Limits) ([]rlimit, error) {
	var out []rlimit
	for _, a := range []struct {
		name        string
		res         int
		want, slack uint64
	}{
		// CPU: a few seconds between soft and hard so the server gets
		// SIGXCPU before SIGKILL.
		{"RLIMIT_CPU", syscall.RLIMIT_CPU, l.CPUSeconds, 5},
		{"RLIMIT_DATA", syscall.RLIMIT_DATA, l.DataBytes, 0},
		{"RLIMIT_AS", syscall.RLIMIT_AS, l.AddressSpaceBytes, 0},
		{"RLIMIT_NOFILE", syscall.RLIMIT_NOFILE, l.OpenFiles, 0},
		{"RLIMIT_FSIZE", syscall.RLIMIT_FSIZE, l.FileSizeBytes, 0},
		{"RLIMIT_NPROC", rlimitNPROC, l.Processes, 0},
		{"RLIMIT_CORE", syscall.RLIMIT_CORE, 0, 0},
	} {
		if a.want == Unlimited || a.res < 0 {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(a.res, &cur); err != nil {
			return nil, fmt.Errorf("getrlimit %s: %w", a.name, err)
		}
		hard := min(a.want+a.slack, cur.Max)
		out = append(out, rlimit{a.name, a.res, syscall.Rlimit{Cur: min(a.want, hard), Max: hard}})
	}
	return out, nil
}
