// Package procgroup answers whether any live process is left in a process
// group. Zombies do not count: they run no code, and whether they are
// reaped depends on the machine's init, not on us.
package procgroup

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Live returns the pids of live (non-zombie) processes in group pgid.
func Live(pgid int) []int {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return []int{pgid} // cannot tell: assume alive (fail closed)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitGone polls until no live process is left in the group or d passes.
func WaitGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if len(Live(pgid)) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// EnableSubreaper makes this process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER): a server's grandchild that
// calls setsid leaves the process group we kill, but not our tree.
func EnableSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// KillDescendants SIGKILLs every live descendant of this process except
// those in keep (pids of children still in use), then reaps the orphans
// it was given as subreaper. It returns how many it killed. Call it when no
// server of ours should be running any more.
func KillDescendants(keep map[int]bool) int {
	self := os.Getpid()
	killed := 0
	for round := 0; round < 5; round++ {
		kids := descendants(self)
		n := 0
		for _, pid := range kids {
			if keep[pid] {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		killed += n
		reapOrphans(keep)
		if n == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return killed
}

// descendants lists the live processes whose parent chain reaches pid.
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p] = pp
	}
	var out []int
	for p := range parent {
		for q, hops := parent[p], 0; q != 0 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// reapOrphans waits for exited children that no exec.Cmd owns (orphans
// reparented to us as subreaper), without blocking and without touching
// the children in keep.
func reapOrphans(keep map[int]bool) {
	for _, pid := range zombieChildren(os.Getpid()) {
		if keep[pid] {
			continue
		}
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

func zombieChildren(self int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] != "Z" {
			continue
		}
		if pp, _ := strconv.Atoi(f[1]); pp == self {
			out = append(out, p)
		}
	}
	return out
}
