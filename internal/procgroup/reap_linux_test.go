package procgroup

import (
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestReapOrphansFindsZombies: an exited child that no exec.Cmd waits for
// is found through the children lists and reaped, and a child in keep is
// left alone for its owner.
func TestReapOrphansFindsZombies(t *testing.T) {
	start := func() int {
		pid, err := syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{})
		if err != nil {
			t.Fatal(err)
		}
		return pid
	}
	orphan, kept := start(), start()
	defer syscall.Wait4(kept, nil, 0, nil)
	// Both exit at once; no event (we must not wait for them: that would
	// reap them) says they are zombies, so poll /proc, boundedly.
	var zs []int
	testproc.Poll(5*time.Second, func() bool {
		zs = zombieChildren(os.Getpid())
		return slices.Contains(zs, orphan) && slices.Contains(zs, kept)
	})
	if !slices.Contains(zs, orphan) || !slices.Contains(zs, kept) {
		t.Fatalf("zombieChildren = %v, want %d and %d", zs, orphan, kept)
	}
	reapOrphans(map[int]bool{kept: true})
	zs = zombieChildren(os.Getpid())
	if slices.Contains(zs, orphan) {
		t.Errorf("zombie %d not reaped: %v", orphan, zs)
	}
	if !slices.Contains(zs, kept) {
		t.Errorf("kept child %d was reaped: %v", kept, zs)
	}
}

// TestNothingLive: the sweep's shortcut holds only when no descendant can
// run code. A zombie child leaves nothing live, and the sweep reaps it; a
// live child, or a live orphan handed to us by a parent that exited, is
// seen, and the sweep kills it.
func TestNothingLive(t *testing.T) {
	if err := EnableSubreaper(); err != nil {
		t.Skip("no subreaper:", err)
	}
	self := os.Getpid()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		// /proc states, which no event announces: a bounded poll.
		if !testproc.Poll(5*time.Second, ok) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}

	dead, err := syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor("the zombie", func() bool { return slices.Contains(zombieChildren(self), dead) })
	if !nothingLive(self) {
		t.Fatalf("a zombie child is not live, but nothingLive = false")
	}
	if n := KillDescendants(nil); n != 0 {
		t.Errorf("KillDescendants killed %d, want 0", n)
	}
	if slices.Contains(zombieChildren(self), dead) {
		t.Errorf("the zombie %d was not reaped", dead)
	}

	live, err := syscall.ForkExec("/bin/sleep", []string{"sleep", "30"}, &syscall.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	if nothingLive(self) {
		t.Errorf("a sleeping child is live, but nothingLive = true")
	}
	if n := KillDescendants(nil); n != 1 {
		t.Errorf("KillDescendants killed %d, want the sleeping child", n)
	}
	syscall.Wait4(live, nil, 0, nil)

	// sh leaves sleep behind and exits: sleep is an orphan, handed to us.
	sh, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "sleep 30 & exit 0"}, &syscall.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	syscall.Wait4(sh, nil, 0, nil)
	if nothingLive(self) {
		t.Errorf("an orphaned grandchild is live, but nothingLive = true")
	}
	if n := KillDescendants(nil); n != 1 {
		t.Errorf("KillDescendants killed %d, want the orphan", n)
	}
}
