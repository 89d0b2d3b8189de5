package procgroup

import (
	"os"
	"slices"
	"syscall"
	"testing"
	"time"
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
	var zs []int
	for i := 0; i < 500; i++ { // both exit at once; bounded wait for the kernel to show it
		if zs = zombieChildren(os.Getpid()); slices.Contains(zs, orphan) && slices.Contains(zs, kept) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
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
