package procgroup

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// zombieLeaderEnv makes the test binary, re-executed, end its main thread
// with a plain exit(2) while its other threads run on: the leader shows as
// a zombie ("Z") in /proc/PID/stat, yet the process lives and can fork.
const zombieLeaderEnv = "PROCGROUP_TEST_ZOMBIE_LEADER"

func init() {
	if os.Getenv(zombieLeaderEnv) == "1" {
		runtime.LockOSThread() // keep the main goroutine on the main thread
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(zombieLeaderEnv) == "1" {
		// A thread that lives on until the test kills the process.
		go testproc.BlockForever()
		syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0) // this thread only
	}
	os.Exit(m.Run())
}

// TestZombieLeaderIsLive: a process whose leader thread has exited but
// whose other threads run is live: Live lists it, the sweep's walk sees it
// and KillDescendants kills it. Read by its leader's state alone it looked
// like a zombie, and the sweep passed it (and its children) over.
func TestZombieLeaderIsLive(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), zombieLeaderEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer syscall.Kill(-pid, syscall.SIGKILL)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	// The leader's state is read from /proc; no event announces it.
	testproc.Poll(5*time.Second, func() bool { return stateOf(pid) == "Z" })
	if st := stateOf(pid); st != "Z" {
		t.Fatalf("leader state %q, want Z", st)
	}
	if liveThread(pid) == "" {
		t.Fatal("no live thread left in the test process")
	}
	if live := Live(pid); !slices.Contains(live, pid) {
		t.Errorf("Live(%d) = %v: a process with running threads is not live", pid, live)
	}
	if ds := Descendants(os.Getpid()); !slices.Contains(ds, pid) {
		t.Errorf("Descendants = %v, missing %d", ds, pid)
	}
	if _, ok := liveDescendants(os.Getpid())[pid]; !ok {
		t.Errorf("liveDescendants misses %d", pid)
	}
	for _, asSubreaper := range []bool{false, true} {
		subreaper.Store(asSubreaper)
		if Settled(pid) {
			t.Errorf("Settled(%d) (subreaper %v): a process with running threads counts as settled", pid, asSubreaper)
		}
	}
	subreaper.Store(false)
	if n := KillDescendants(nil); n < 1 {
		t.Errorf("KillDescendants killed %d, want the process", n)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the process outlived the sweep")
	}
	if !WaitSettled(pid, 5*time.Second) {
		t.Errorf("group %d not settled after the sweep", pid)
	}
}

// TestExitingIsSettled: the kernel's PF_EXITING flag on every thread
// means the process runs no more code: it is not live, though its leader
// is neither a zombie nor reaped.
func TestExitingIsSettled(t *testing.T) {
	for _, tc := range []struct {
		line    string
		settled bool
	}{
		{"42 (node) R 1 42 42 0 -1 4194560 100 0 0 0", false},
		{"42 (node) R 1 42 42 0 -1 4194564 100 0 0 0", true}, // PF_EXITING
		{"42 (a) (b)) D 1 42 42 0 -1 4 100 0 0 0", true},
		{"42 (node) Z 1 42 42 0 -1 4194560 100 0 0 0", true},
		{"42 (node) S 1 42 42 0 -1 0 100 0 0 0", false},
	} {
		p, ok := parseStat(42, []byte(tc.line))
		if !ok {
			t.Fatalf("parseStat(%q) failed", tc.line)
		}
		if p.pgrp != 42 || p.ppid != 1 {
			t.Errorf("parseStat(%q) = %+v", tc.line, p)
		}
		if p.settled() != tc.settled {
			t.Errorf("settled(%q) = %v, want %v", tc.line, p.settled(), tc.settled)
		}
	}
	full := "42 (node) R 1 42 42 0 -1 4194564 100 0 0 0 5 6 0 0 20 0 11 0 3393305 1000 100"
	if p, ok := parseStat(42, []byte(full)); !ok || p.start != 3393305 {
		t.Errorf("parseStat(%q) = %+v, want start 3393305", full, p)
	}
	if _, ok := parseStat(1, []byte("1 (x")); ok {
		t.Error("a cut line parsed")
	}
}
