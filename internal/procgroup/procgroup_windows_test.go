package procgroup

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// The test binary re-executed with this variable set is a process that
// reads a line from stdin, starts one more copy of itself and then sleeps:
// a child with a grandchild, born when the test says so.
const envTreeDepth = "PROCGROUP_TEST_TREE"

func TestMain(m *testing.M) {
	if d := os.Getenv(envTreeDepth); d != "" {
		if d == "2" {
			_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
			self, _ := os.Executable()
			c := exec.Command(self)
			c.Env = append(os.Environ(), envTreeDepth+"=1")
			_ = c.Start()
		}
		testproc.BlockForever() // until the test kills it
	}
	os.Exit(m.Run())
}

func startTree(t *testing.T) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(self)
	c.Env = append(os.Environ(), envTreeDepth+"=2")
	c.Stdin = strings.NewReader("go\n")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	// The grandchild's start shows only in the process snapshot: poll it.
	testproc.Poll(5*time.Second, func() bool { return len(Live(c.Process.Pid)) >= 2 })
	if live := Live(c.Process.Pid); len(live) < 2 {
		t.Fatalf("Live(%d) = %v, want the child and its grandchild", c.Process.Pid, live)
	}
	return c
}

// TestKillDescendantsTree: the snapshot walk finds and ends a grandchild
// whose parent is still running.
func TestKillDescendantsTree(t *testing.T) {
	c := startTree(t)
	if n := KillDescendants(nil); n < 2 {
		t.Errorf("KillDescendants ended %d processes, want 2", n)
	}
	if !WaitGone(c.Process.Pid, 5*time.Second) {
		t.Errorf("tree of %d still has %v", c.Process.Pid, Live(c.Process.Pid))
	}
}

// TestKillOnCloseJob: closing the job's last handle ends every process in
// it, grandchildren included, with nobody killing them one by one.
func TestKillOnCloseJob(t *testing.T) {
	job, err := NewKillOnCloseJob()
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	c := exec.Command(self)
	c.Env = append(os.Environ(), envTreeDepth+"=2")
	// It starts its child only once it is in the job, so the child is
	// born inside.
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(c.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	// The grandchild's start shows only in the process snapshot: poll it.
	testproc.Poll(5*time.Second, func() bool { return len(Live(c.Process.Pid)) >= 2 })
	if live := Live(c.Process.Pid); len(live) < 2 {
		t.Fatalf("Live(%d) = %v, want the child and its grandchild", c.Process.Pid, live)
	}
	kids := Descendants(c.Process.Pid)
	windows.CloseHandle(job)
	if !WaitGone(c.Process.Pid, 5*time.Second) {
		t.Errorf("closing the job left %v", Live(c.Process.Pid))
	}
	for _, pid := range kids {
		if h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid)); err == nil {
			ev, _ := windows.WaitForSingleObject(h, 5000)
			windows.CloseHandle(h)
			if ev != windows.WAIT_OBJECT_0 {
				t.Errorf("grandchild %d outlived the job", pid)
			}
		}
	}
}
