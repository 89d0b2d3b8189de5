package procgroup

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no process groups a signal can reach: a "group" here is the
// leader pid and every live process whose parent chain reaches it. Parent
// pids on Windows can be stale (a parent's pid reused after it exited), so
// the tree is a best effort; the Job Objects (EnableSubreaper here, the
// sandbox helper's per-server job) are what guarantee nothing outlives us.

// proc is one entry of a Toolhelp snapshot.
type proc struct{ pid, ppid int }

// scan lists every running process with its parent.
func scan() ([]proc, bool) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, false
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	var out []proc
	for err = windows.Process32First(snap, &e); err == nil && len(out) < 1<<20; err = windows.Process32Next(snap, &e) {
		out = append(out, proc{pid: int(e.ProcessID), ppid: int(e.ParentProcessID)})
	}
	return out, true
}

// Live returns the pids of the live processes in the tree led by pgid.
func Live(pgid int) []int {
	procs, ok := scan()
	if !ok {
		return []int{pgid} // cannot tell: assume alive (fail closed)
	}
	var pids []int
	for _, p := range procs {
		if p.pid == pgid {
			pids = append(pids, p.pid)
		}
	}
	return append(pids, descendantsIn(procs, pgid)...)
}

// Descendants lists the live processes whose parent chain reaches pid.
func Descendants(pid int) []int {
	procs, _ := scan()
	return descendantsIn(procs, pid)
}

func descendantsIn(procs []proc, pid int) []int {
	parent := make(map[int]int, len(procs))
	for _, p := range procs {
		parent[p.pid] = p.ppid
	}
	var out []int
	for _, p := range procs {
		for q, hops := p.ppid, 0; q != 0 && q != p.pid && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				out = append(out, p.pid)
				break
			}
		}
	}
	return out
}

// KillDescendants terminates every live descendant of this process except
// those in keep, and returns how many it terminated. A terminated process
// cannot fork, so one pass per round suffices; a few rounds catch children
// created between the snapshot and the kill.
func KillDescendants(keep map[int]bool) int {
	self := os.Getpid()
	killed := map[int]bool{}
	for round := 0; round < 100; round++ {
		n := 0
		for _, pid := range Descendants(self) {
			if keep[pid] || killed[pid] {
				continue
			}
			if Terminate(pid) == nil {
				killed[pid] = true
				n++
			}
		}
		if n == 0 {
			break
		}
	}
	return len(killed)
}

// Terminate ends pid at once (TerminateProcess, exit status 1).
func Terminate(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, 1)
}

// The job's handle is deliberately never closed: the kernel closes it when
// this process exits, and then kills everything in it.
var (
	jobOnce sync.Once
	jobErr  error
)

// EnableSubreaper is Windows' answer to Linux's subreaper and Pdeathsig:
// it puts this process in a Job Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE.
// Every process started afterwards is in the job too (no breakaway is
// allowed), and when this process exits, however it exits, the kernel
// closes the job's last handle and terminates them all: nothing a check or
// a guard session started outlives it.
func EnableSubreaper() error {
	jobOnce.Do(func() {
		h, err := NewKillOnCloseJob()
		if err != nil {
			jobErr = err
			return
		}
		if err := windows.AssignProcessToJobObject(h, windows.CurrentProcess()); err != nil {
			windows.CloseHandle(h)
			jobErr = fmt.Errorf("procgroup: joining the job object: %w", err)
		}
	})
	return jobErr
}

// NewKillOnCloseJob creates an unnamed Job Object whose processes are all
// terminated when its last handle closes.
func NewKillOnCloseJob() (windows.Handle, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("procgroup: creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("procgroup: setting kill-on-close: %w", err)
	}
	return h, nil
}

// Settled reports that no live process is left in group pgid.
func Settled(pgid int) bool { return len(Live(pgid)) == 0 }
