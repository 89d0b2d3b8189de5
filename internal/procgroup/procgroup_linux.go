package procgroup

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Live returns the pids of the processes in group pgid that can still run
// code: not zombies, and not processes whose every thread the kernel is
// tearing down (PF_EXITING).
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
		if p.pgrp == pgid && p.live() {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// proc is one line of /proc/PID/stat, the fields we use.
type proc struct {
	pid, ppid, pgrp int
	state           string
	flags           uint64
	start           uint64 // start time in clock ticks: pid and start name one process
}

// pfExiting is the kernel's PF_EXITING task flag (include/linux/sched.h),
// the ninth field of /proc/PID/stat. The kernel sets it at the start of
// do_exit, before it frees the memory: a thread that has it never returns
// to user space, so it runs no code, writes nothing and forks nothing,
// while the teardown that follows (tens of milliseconds for a large node
// heap, more on a busy machine) only frees what it held.
const pfExiting = 0x4

// live reports whether the process can still run code: its leader's line
// is enough when the leader is neither a zombie nor exiting; otherwise
// every thread is read, since a leader that ended with a plain exit(2)
// shows as a zombie while the process's other threads run on.
func (p proc) live() bool {
	if !p.settled() {
		return true
	}
	return p.liveThread() != ""
}

// settled reports that the leader thread runs no more code.
func (p proc) settled() bool {
	return p.state == "Z" || p.state == "X" || p.flags&pfExiting != 0
}

// liveThread is the state letter of a thread of p that is neither a zombie
// nor exiting, or "" when there is none (or p is gone). A process found
// with none never has one again (a thread that exits does not come back,
// and one exiting cannot start another), so that is remembered: the sweep
// and Settled ask again every millisecond while a large process is torn
// down, and each asking reads a file per thread.
func (p proc) liveThread() string {
	key := [2]uint64{uint64(p.pid), p.start}
	if p.start != 0 {
		if _, ok := settledProcs.Load(key); ok {
			return ""
		}
	}
	st := liveThread(p.pid)
	if st == "" && p.start != 0 {
		if settledCount.Add(1) > maxSettled {
			settledProcs.Clear() // a fork storm's dead are not kept
			settledCount.Store(0)
		}
		settledProcs.Store(key, true)
	}
	return st
}

// settledProcs holds the processes, by pid and start time, that
// proc.liveThread found without a live thread; settledCount counts them,
// up to maxSettled.
var (
	settledProcs sync.Map
	settledCount atomic.Int64
)

const maxSettled = 4096

// liveThread is the state letter of a thread of pid that is neither a
// zombie nor exiting, or "" when there is none (or pid is gone).
func liveThread(pid int) string {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(base)
	if err != nil {
		return ""
	}
	for _, t := range tasks {
		b, err := os.ReadFile(base + "/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		if th, ok := parseStat(0, b); ok && !th.settled() {
			return th.state
		}
	}
	return ""
}

// parseStat reads the fields of a /proc/PID/stat line that proc holds:
// pid (comm) state ppid pgrp session tty_nr tpgid flags ...; comm may
// hold spaces and parens, so the fields are counted from its last ')'.
func parseStat(pid int, b []byte) (proc, bool) {
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 7 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	p := proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0], flags: flags}
	if len(f) > 19 {
		p.start, _ = strconv.ParseUint(f[19], 10, 64) // field 22, starttime
	}
	return p, true
}

// scan reads every process's state, parent and process group.
func scan() ([]proc, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if p, ok := parseStat(pid, b); ok {
			out = append(out, p)
		}
	}
	return out, true
}

// EnableSubreaper makes this process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER): a server's grandchild that
// calls setsid leaves the process group we kill, but not our tree.
func EnableSubreaper() error {
	err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	if err == nil {
		subreaper.Store(true)
	}
	return err
}

// subreaper records that EnableSubreaper succeeded: every process this
// one started, and every one those started, is then a descendant until it
// is reaped.
var subreaper atomic.Bool

// Settled reports that no process of group pgid can run code any more:
// each is gone, a zombie, or exiting (PF_EXITING on every thread). Call it
// after the group was SIGKILLed: the processes the kernel is tearing down
// count as settled, so it does not wait for a large heap to be freed.
//
// As subreaper it looks only at this process's descendants, by the
// children lists (a few small files): every member of a group we started
// is one, since a member is forked by a member (or joins by its own
// setpgid) and an orphan comes back to us. Otherwise it scans all of
// /proc, which on a busy machine costs milliseconds a time.
func Settled(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return true
	}
	// The leader first: while one of its threads still runs code (the
	// common case, polled every millisecond just after the kill) the group
	// is not settled, and the leader's own files say so, where the walk
	// below reads a file per thread of ours and of each descendant. A
	// leader that left its group proves nothing either way.
	if p, ok := procOf(pgid); ok && p.pgrp == pgid && p.live() {
		return false
	}
	self := os.Getpid()
	if _, ok := childrenOf(self); !ok || !subreaper.Load() {
		return len(Live(pgid)) == 0
	}
	for pid := range liveDescendants(self) {
		if p, ok := procOf(pid); ok && p.pgrp == pgid {
			return false
		}
	}
	return true
}

// KillDescendants SIGKILLs every live descendant of this process except
// those in keep (pids of children still in use), then reaps the orphans
// it was given as subreaper. It returns how many it killed. Call it when no
// server of ours should be running any more.
//
// A process that keeps forking a copy of itself and exiting changes its
// PID faster than a scan-then-kill sweep can follow: every round kills the
// PIDs of a moment ago. So the sweep freezes first: it SIGSTOPs every
// descendant it finds and scans again until a scan finds none it has not
// stopped (a stopped process cannot fork), then kills them all. As
// subreaper, the orphans of a process that exited between two scans are
// still ours to find. The sweep is bounded by sweepLimit.
func KillDescendants(keep map[int]bool) int {
	self := os.Getpid()
	kids, ok := childrenOf(self)
	if ok && len(kids) == 0 {
		// No child at all, not even a zombie: there are no descendants,
		// and none can appear, since only a descendant's orphan is ever
		// handed to a subreaper. The quiet rounds below are for races
		// that need a process to happen.
		return 0
	}
	if ok && nothingLiveFrom(self, kids) {
		reapOrphans(keep)
		return 0
	}
	deadline := time.Now().Add(sweepLimit)
	stopped := freeze(keep, deadline, func() map[int]bool {
		m := map[int]bool{}
		for pid, state := range liveDescendants(self) {
			m[pid] = state == "T" || state == "t"
		}
		return m
	})
	// Whatever was missed (the deadline passed mid-sweep) gets plain
	// kill rounds until none is left. They run even after a freeze that
	// ended on three quiet scans: skipping them let a shell chain that
	// re-forks every millisecond outlive the sweep under -race
	// (TestSweepCatchesReforker).
	quiet := 0
	for round := 0; round < 1000 && quiet < 3 && time.Now().Before(deadline.Add(time.Second)); round++ {
		reapOrphans(keep)
		n := 0
		for pid := range liveDescendants(self) {
			if keep[pid] || stopped[pid] {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				stopped[pid] = true
				n++
			}
		}
		if n == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(time.Millisecond)
	}
	reapOrphans(keep)
	// A SIGKILLed process is not gone at once: the kernel tears it down,
	// which for a big heap takes milliseconds, and more on a loaded
	// machine. Wait, bounded, until nothing killed is still a live
	// descendant, so that what the sweep returns is really over. Nothing
	// killed: no wait.
	for end := time.Now().Add(2 * time.Second); len(stopped) > 0 && time.Now().Before(end); {
		left := false
		for pid := range liveDescendants(self) {
			if stopped[pid] {
				left = true
				break
			}
		}
		if !left {
			break
		}
		time.Sleep(time.Millisecond)
		reapOrphans(keep)
	}
	return len(stopped)
}

// nothingLive reports that no descendant of self can run code, so none
// can appear either: only a descendant running code forks. This is the
// common end of a run, where every server was killed by its launch and is
// a zombie or still being torn down, and it lets the sweep skip its quiet
// rounds (several milliseconds of sleeps) and return at once.
//
// One walk is not proof by itself: a live orphan moving from an exiting
// parent to us (we are the subreaper, and an exiting process is never
// chosen as a reaper) can be read in neither list if it moves after our
// own list was read and before its old parent's was. Reading our own list
// again after the walk closes that: a child that arrived in between is new
// in the second read, and then the full sweep runs.
func nothingLive(self int) bool {
	before, ok := childrenOf(self)
	return ok && nothingLiveFrom(self, before)
}

// nothingLiveFrom is nothingLive for before, self's children as just read:
// the walk starts from them, and self's list is read once more after it.
func nothingLiveFrom(self int, before []int) bool {
	if len(liveFrom(before)) > 0 {
		return false
	}
	after, ok := childrenOf(self)
	if !ok {
		return false
	}
	had := make(map[int]bool, len(before))
	for _, p := range before {
		had[p] = true
	}
	for _, p := range after {
		if !had[p] {
			return false
		}
	}
	return true
}

// Descendants lists the live processes whose parent chain reaches pid.
func Descendants(pid int) []int { return descendants(pid) }

// descendants lists the live processes whose parent chain reaches pid.
func descendants(pid int) []int {
	states := descendantStates(pid)
	out := make([]int, 0, len(states))
	for p := range states {
		out = append(out, p)
	}
	return out
}

// liveDescendants maps the live descendants of pid to their state letter.
// It walks the kernel's children lists (/proc/PID/task/TID/children) from
// pid down, which reads a few small files: a scan of all of /proc takes
// long enough on a busy machine that a process re-forking every
// millisecond is gone, and its successor not yet listed, by the time the
// scan reads it. Without children lists it falls back to the full scan.
func liveDescendants(pid int) map[int]string {
	kids, ok := childrenOf(pid)
	if !ok {
		return descendantStates(pid)
	}
	return liveFrom(kids)
}

// liveFrom walks the children lists down from kids (a children list just
// read) and maps the live processes it finds to their state letter.
func liveFrom(kids []int) map[int]string {
	kids = slices.Clone(kids) // the walk appends: the caller's list stays as read
	out := map[int]string{}
	seen := map[int]bool{}
	for i := 0; i < len(kids) && i < 100000; i++ {
		k := kids[i]
		if seen[k] {
			continue
		}
		seen[k] = true
		p, ok := procOf(k)
		if !ok {
			continue
		}
		st := p.state
		if p.settled() {
			// An exiting process is not listed (it runs no code), but
			// its children, not yet handed to us, are still walked.
			st = p.liveThread()
		}
		if st != "" {
			out[k] = st
		}
		more, _ := childrenOf(k)
		kids = append(kids, more...)
	}
	return out
}

// childrenOf lists the children of every thread of pid; ok is false when
// the kernel has no children lists.
func childrenOf(pid int) ([]int, bool) {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(base)
	if err != nil {
		return nil, false
	}
	var out []int
	ok := false
	for _, t := range tasks {
		b, err := os.ReadFile(base + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		ok = true
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, ok
}

// procOf reads pid's /proc/PID/stat; ok is false when it is gone.
func procOf(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	return parseStat(pid, b)
}

// stateOf is the state letter of pid, "" when it is gone.
func stateOf(pid int) string {
	p, _ := procOf(pid)
	return p.state
}

// descendantStates maps the live processes whose parent chain reaches pid
// to their state letter (R, S, D, T, ...).
func descendantStates(pid int) map[int]string {
	procs, _ := scan()
	return walkDescendants(procs, pid, func(p proc) string {
		if p.settled() {
			return p.liveThread() // a zombie leader's live thread
		}
		return p.state
	})
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

// zombieChildren lists the exited, unreaped children of self. It reads
// self's children lists, as liveDescendants does, and falls back to a scan
// of all of /proc only without them: the sweep calls it every round, and a
// full scan on a busy machine costs tens of milliseconds a time.
func zombieChildren(self int) []int {
	var out []int
	if kids, ok := childrenOf(self); ok {
		for _, k := range kids {
			if stateOf(k) == "Z" {
				out = append(out, k)
			}
		}
		return out
	}
	procs, _ := scan()
	for _, p := range procs {
		if p.state == "Z" && p.ppid == self {
			out = append(out, p.pid)
		}
	}
	return out
}
