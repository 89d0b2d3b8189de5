//go:build linux || darwin

package procgroup

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestGroupAndSweep: a shell in its own process group leaves a background
// grandchild. Live sees the group, KillDescendants ends both, and nothing of
// the group is left (Linux: /proc; macOS: sysctl kern.proc.all).
func TestGroupAndSweep(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	pgid := cmd.Process.Pid
	// sh and two sleeps; a process's start announces itself to no one
	// but the process table, so poll it.
	var live []int
	testproc.Poll(5*time.Second, func() bool { live = Live(pgid); return len(live) >= 3 })
	if len(live) < 3 {
		t.Fatalf("Live(%d) = %v, want sh and two sleeps", pgid, live)
	}
	if n := len(Descendants(pgid)); n < 2 {
		t.Errorf("Descendants(%d) has %d processes, want the two sleeps", pgid, n)
	}
	if n := KillDescendants(nil); n < 3 {
		t.Errorf("KillDescendants killed %d, want at least 3", n)
	}
	<-done
	if !WaitGone(pgid, 5*time.Second) {
		t.Errorf("group %d still has %v after the sweep", pgid, Live(pgid))
	}
}
