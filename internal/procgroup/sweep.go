//go:build linux || darwin

package procgroup

import (
	"syscall"
	"time"
)

// sweepLimit bounds the freezing sweep of KillDescendants.
const sweepLimit = 10 * time.Second

// freeze SIGSTOPs every descendant that snapshot reports (pid -> whether
// the kernel shows it stopped yet), except those in keep, and returns the
// set it stopped. A process that keeps forking a copy of itself and
// exiting changes its PID faster than a scan-then-kill sweep can follow;
// a stopped process cannot fork. A SIGSTOP takes effect when the target
// next returns to user space, so until every pid stopped shows as stopped
// one may still be finishing a fork. And one quiet scan is not proof: a
// process that exits between two reads hides its child for a moment; once
// everything seen is stopped nothing exits, so ten quiet scans in a row
// see every orphan, reparented to us. Bounded by deadline.
func freeze(keep map[int]bool, deadline time.Time, snapshot func() map[int]bool) map[int]bool {
	stopped := map[int]bool{}
	quiet := 0
	for round := 0; round < 10000 && time.Now().Before(deadline); round++ {
		fresh, running := 0, 0
		for pid, isStopped := range snapshot() {
			if keep[pid] {
				continue
			}
			if stopped[pid] {
				if !isStopped {
					running++
				}
				continue
			}
			if syscall.Kill(pid, syscall.SIGSTOP) == nil {
				stopped[pid] = true
				fresh++
			}
		}
		if fresh == 0 && running == 0 {
			quiet++
			// Ten quiet rounds, each a millisecond apart: under load a
			// chain that re-forks every millisecond can be between a fork
			// and its child's entry in /proc for a round or two.
			if quiet >= 10 {
				break
			}
		} else {
			quiet = 0
		}
		if fresh == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	for pid := range stopped {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return stopped
}

// walkDescendants maps the live processes of procs whose parent chain
// reaches pid to state(process); chains are followed at most 64 hops.
func walkDescendants[S any](procs []proc, pid int, state func(proc) S) map[int]S {
	parent := map[int]int{}
	byPID := map[int]proc{}
	// Every process is a link in the chains, an exiting one too (its
	// children are not ours until it is gone); only live ones are listed.
	for _, p := range procs {
		parent[p.pid] = p.ppid
		byPID[p.pid] = p
	}
	out := map[int]S{}
	for p := range parent {
		for q, hops := parent[p], 0; q != 0 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				if byPID[p].live() {
					out[p] = state(byPID[p])
				}
				break
			}
		}
	}
	return out
}
