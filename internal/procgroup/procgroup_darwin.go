package procgroup

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// macOS process states (sys/proc.h): a stopped process cannot fork, a
// zombie runs no code.
const (
	sStop = 4
	sZomb = 5
)

// proc is one process as kern.proc.all reports it.
type proc struct {
	pid, ppid, pgrp int
	stat            int8
}

func (p proc) live() bool { return p.stat != sZomb }

// scan lists every process with its parent, group and state.
func scan() ([]proc, bool) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, false
	}
	out := make([]proc, 0, len(kps))
	for i := range kps {
		k := &kps[i]
		out = append(out, proc{pid: int(k.Proc.P_pid), ppid: int(k.Eproc.Ppid), pgrp: int(k.Eproc.Pgid), stat: k.Proc.P_stat})
	}
	return out, true
}

// Live returns the pids of live (non-zombie) processes in group pgid.
func Live(pgid int) []int {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return nil
	}
	procs, ok := scan()
	if !ok {
		return []int{pgid} // cannot tell: assume alive (fail closed)
	}
	var pids []int
	for _, p := range procs {
		if p.live() && p.pgrp == pgid {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// EnableSubreaper: macOS has no subreaper. An orphan goes to launchd, out
// of reach of the descendant sweep; the process group (and in strict the
// Seatbelt profile, which every descendant inherits) still holds it.
func EnableSubreaper() error {
	return errors.New("procgroup: macOS has no child subreaper")
}

// Descendants lists the live processes whose parent chain reaches pid.
func Descendants(pid int) []int {
	states := descendantStates(pid)
	out := make([]int, 0, len(states))
	for p := range states {
		out = append(out, p)
	}
	return out
}

// KillDescendants SIGKILLs every live descendant of this process except
// those in keep, and returns how many it killed. Like the Linux sweep it
// freezes first (SIGSTOP every descendant until a scan finds none it has
// not stopped, so a fork loop cannot outrun it), then kills them all. It
// is bounded by sweepLimit.
func KillDescendants(keep map[int]bool) int {
	self := os.Getpid()
	stopped := freeze(keep, time.Now().Add(sweepLimit), func() map[int]bool {
		m := map[int]bool{}
		for pid, st := range descendantStates(self) {
			m[pid] = st == sStop
		}
		return m
	})
	return len(stopped)
}

// descendantStates maps the live processes whose parent chain reaches pid
// to their state.
func descendantStates(pid int) map[int]int8 {
	procs, _ := scan()
	return walkDescendants(procs, pid, func(p proc) int8 { return p.stat })
}

// Settled reports that no live process is left in group pgid (macOS shows
// no exiting state to tell a dying process from a live one).
func Settled(pgid int) bool { return len(Live(pgid)) == 0 }
