//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

func prctlSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// TestBasicPrivileges: a Basic server runs with no_new_privs (a setuid
// binary gains it nothing) and untraced, however it was started.
func TestBasicPrivileges(t *testing.T) {
	for _, s := range starts {
		t.Run(s.name, func(t *testing.T) {
			r := newRun(t, Basic, Options{})
			out, err := launchWith(t, r, s.start, "status")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "NoNewPrivs: 1\n") || !strings.Contains(out, "TracerPid: 0\n") {
				t.Errorf("the server's status:\n%s", out)
			}
		})
	}
}

// TestDirectStart: where the kernel allows it, Run.Start runs a Basic
// server without the helper, and runs the helper for everything the
// direct start cannot do: a held launch, a cmd with a parent-death signal.
func TestDirectStart(t *testing.T) {
	if !directSupported() {
		t.Skip("this machine refuses a traced start: Run.Start runs the helper")
	}
	r := newRun(t, Basic, Options{})
	ctx := context.Background()
	cmd, err := r.Command(ctx, testExe(t), nil, map[string]string{modeEnv: "true"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if cmd.Path != testExe(t) || cmd.Args[0] != testExe(t) {
		t.Errorf("Run.Start ran %s %q, want the server itself", cmd.Path, cmd.Args)
	}
	for _, c := range cmd.Env {
		if strings.HasPrefix(c, envPolicy+"=") {
			t.Errorf("the helper's policy is in the server's environment")
		}
	}

	pd, err := r.Command(ctx, testExe(t), nil, map[string]string{modeEnv: "true"}, "")
	if err != nil {
		t.Fatal(err)
	}
	pd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	held, gate, err := r.HeldCommand(ctx, testExe(t), nil, map[string]string{modeEnv: "true"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*exec.Cmd{pd, held} {
		if err := r.Start(c); err != nil {
			t.Fatal(err)
		}
		if c == held {
			if err := gate.Open(); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
		if c.Args[0] != helperArg0 {
			t.Errorf("Run.Start ran %q without the helper", c.Args)
		}
	}
}

// TestDirectRestrictionsStayOnTheirThread: the direct start restricts a
// thread of the checker's own (no_new_privs, the Landlock write rules).
// After many launches, no thread of the checker keeps those restrictions
// and the checker still writes where its servers may not.
func TestDirectRestrictionsStayOnTheirThread(t *testing.T) {
	if !directSupported() {
		t.Skip("this machine refuses a traced start: Run.Start runs the helper")
	}
	r := newRun(t, Basic, Options{})
	outside := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd, err := r.Command(ctx, testExe(t), nil, map[string]string{modeEnv: "true"}, "")
			if err == nil {
				if err = r.Start(cmd); err == nil {
					err = cmd.Wait()
				}
			}
			if err != nil {
				errs <- err
			}
		}()
		go func() {
			// The checker's own work meanwhile, on whatever thread the
			// runtime gives it.
			defer wg.Done()
			for j := range 20 {
				if err := os.WriteFile(filepath.Join(outside, fmt.Sprintf("%d-%d", i, j)), []byte("x"), 0o600); err != nil {
					errs <- fmt.Errorf("the checker could not write: %w", err)
					return
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A launching thread ends when its goroutine returns, which the
	// runtime finishes shortly after: wait for it, boundedly.
	// No event tells a thread's end: poll /proc.
	var restricted []string
	testproc.Poll(2*time.Second, func() bool {
		restricted = restrictedThreads(t)
		return len(restricted) == 0
	})
	if len(restricted) > 0 {
		t.Errorf("threads of the checker with no_new_privs after the launches: %v (pid %d)", restricted, os.Getpid())
	}
	if err := os.WriteFile(filepath.Join(outside, "after"), []byte("x"), 0o600); err != nil {
		t.Errorf("the checker could not write after the launches: %v", err)
	}
}

// restrictedThreads lists this process's threads that have no_new_privs.
func restrictedThreads(t *testing.T) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue // ended meanwhile
		}
		if strings.Contains(string(b), "\nNoNewPrivs:\t1\n") {
			out = append(out, task.Name())
		}
	}
	return out
}

// BenchmarkBasicLaunch is one Basic launch of a server that exits at once,
// from Command to its exit, started each way: Run.Start (without the
// helper, where the machine allows) and through the helper.
func BenchmarkBasicLaunch(b *testing.B) {
	for _, s := range starts {
		b.Run(s.name, func(b *testing.B) {
			r := newRun(b, Basic, Options{})
			for b.Loop() {
				cmd, err := r.Command(context.Background(), "/bin/true", nil, nil, "")
				if err != nil {
					b.Fatal(err)
				}
				if err := s.start(r, cmd); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
