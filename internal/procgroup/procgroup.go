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
