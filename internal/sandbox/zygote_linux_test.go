package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The zygote tests share the one zygote a process can hold, so none of
// them runs in parallel with another.

// prestartFor starts a zygote for one test and waits for its start;
// whatever the test leaves of it is discarded at the end.
func prestartFor(t *testing.T, level Level) *zygote {
	t.Helper()
	Prestart(level)
	t.Cleanup(DiscardZygote)
	<-zygotes.started
	if zygotes.z == nil {
		t.Fatalf("the %s zygote did not start", level)
	}
	return zygotes.z
}

// launchByZygote has a fresh zygote make one launch of the test binary in
// mode under r, and returns its stdout; err is the exit error, with
// stderr in the message.
func launchByZygote(t *testing.T, r *Run, mode string, args ...string) (string, error) {
	t.Helper()
	prestartFor(t, r.opts.Level)
	s, err := r.Prestarted(testExe(t), args, map[string]string{modeEnv: mode}, "")
	if err != nil || s == nil {
		t.Fatalf("Prestarted = %v, %v; want a launch", s, err)
	}
	s.Stdin.Close()
	stderr := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(s.Stderr)
		stderr <- b
	}()
	stdout, _ := io.ReadAll(s.Stdout)
	errOut := <-stderr
	s.Stderr.Close()
	if err := s.Cmd.Wait(); err != nil {
		return string(stdout), fmt.Errorf("%w: stdout %q stderr %q", err, stdout, errOut)
	}
	return string(stdout), nil
}

// TestZygoteLaunchIsTheHelpersLaunch: a launch the zygote makes gets what
// the same launch gets through its own helper, byte for byte, in basic and
// in strict: the environment (no secret of the checker's, not even one set
// in the checker's own environment before the zygote started), the
// rlimits, the working directory, the write restriction, the open files,
// and in strict the namespaces (network interfaces, visible processes).
func TestZygoteLaunchIsTheHelpersLaunch(t *testing.T) {
	t.Setenv("MLC_CHECKER_SECRET", "ghp_ZYGOTEZYGOTEZYGOTEZYGOTEZYGOTE0001")
	for _, level := range []Level{Basic, Strict} {
		t.Run(string(level), func(t *testing.T) {
			r := newRun(t, level, Options{})
			outside := filepath.Join(t.TempDir(), "outside")
			inside := filepath.Join(r.Dir(), "tmp", "inside")
			cases := []struct {
				mode string
				args []string
			}{
				{"env", nil},
				{"rlimits", nil},
				{"pwd", nil},
				{"write", []string{outside}},
				{"write", []string{inside}},
				{"write-fds", []string{inside}},
			}
			if level == Strict {
				cases = append(cases, struct {
					mode string
					args []string
				}{"netif", nil}, struct {
					mode string
					args []string
				}{"procs", nil})
			}
			for _, tc := range cases {
				t.Run(tc.mode, func(t *testing.T) {
					want, wantErr := launch(t, r, tc.mode, tc.args...)
					os.Remove(inside)
					os.Remove(outside)
					got, err := launchByZygote(t, r, tc.mode, tc.args...)
					if (err == nil) != (wantErr == nil) || got != want {
						t.Errorf("by the zygote: %q, %v\nby its own helper: %q, %v", got, err, want, wantErr)
					}
					if strings.Contains(got, "MLC_CHECKER_SECRET") || strings.Contains(got, realGitHubToken) || strings.Contains(got, envPolicy) {
						t.Errorf("the server saw the checker's environment or the zygote's marker:\n%s", got)
					}
				})
			}
			if level == Strict || r.abi > 0 {
				if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a server the zygote started wrote outside its run directory (%v)", err)
				}
			}
		})
	}
}

// TestZygoteDiscarded: a zygote nobody takes runs nothing and is reaped by
// DiscardZygote; after it there is no zygote to take.
func TestZygoteDiscarded(t *testing.T) {
	pid := prestartFor(t, Basic).cmd.Process.Pid
	DiscardZygote()
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the discarded zygote %d is still there (%v)", pid, err)
	}
	r := newRun(t, Basic, Options{})
	if s, err := r.Prestarted(testExe(t), nil, map[string]string{modeEnv: "true"}, ""); s != nil || err != nil {
		t.Errorf("Prestarted with no zygote = %v, %v; want nil, nil", s, err)
	}
}

// TestZygoteLevel: a zygote is taken only by a launch at the level it was
// started for (Strict's namespaces are made at clone), never by Off, which
// has no helper; a launch at another level leaves it waiting.
func TestZygoteLevel(t *testing.T) {
	for _, tc := range []struct{ zygote, launch Level }{{Basic, Strict}, {Basic, Off}, {Strict, Basic}, {Strict, Off}} {
		prestartFor(t, tc.zygote)
		r := newRun(t, tc.launch, Options{})
		if s, err := r.Prestarted(testExe(t), nil, map[string]string{modeEnv: "true"}, ""); s != nil || err != nil {
			t.Errorf("%s zygote, %s launch: Prestarted = %v, %v; want nil, nil", tc.zygote, tc.launch, s, err)
		}
		if zygotes.z == nil {
			t.Errorf("%s zygote: taken by a %s launch", tc.zygote, tc.launch)
		}
		DiscardZygote()
	}
}

// TestZygoteRefusesIncompleteLaunch: what comes through the gate is run
// only when it is a whole launch. A cut-off message, or one asking for a
// self-test or a second gate, ends the zygote with the helper's failure
// status and nothing started.
func TestZygoteRefusesIncompleteLaunch(t *testing.T) {
	for _, msg := range []string{
		`{"Policy":{"Path":"/bin/true"`,
		`{"Policy":{"Path":"/bin/true"},"Argv":[]}`,
		`{"Policy":{"Path":"/bin/true","SelfTest":true},"Argv":["true"]}`,
		`{"Policy":{"Path":"/bin/true","Gate":true},"Argv":["true"]}`,
	} {
		prestartFor(t, Basic)
		z := takeZygote(Basic)
		z.stdin.Close()
		var stderr bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&stderr, z.stderr); close(done) }()
		z.gate.Write([]byte(msg))
		z.gate.Close()
		err := z.cmd.Wait()
		<-done
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != HelperExitStatus || !strings.Contains(stderr.String(), "mcp-lockcheck sandbox: zygote:") {
			t.Errorf("launch %s: %v, stderr %q; want exit %d and the zygote's reason", msg, err, stderr.String(), HelperExitStatus)
		}
	}
}

// TestZygoteEndsWithItsChecker: a checker that dies with its zygote
// waiting leaves nothing running: the gate's write end closes with it, and
// the zygote exits on EOF.
func TestZygoteEndsWithItsChecker(t *testing.T) {
	cmd := exec.Command(testExe(t))
	cmd.Env = append(os.Environ(), modeEnv+"=prestart-and-exit")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("no pid: %q", out)
	}
	// Bounded: the zygote reads EOF as soon as it reaches its gate.
	for i := 0; i < 1000; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return // gone
		}
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil) // ours only if we are its reaper
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("the zygote %d outlived its checker by 10 s", pid)
}

// TestZygoteHeldNotRun: until its launch comes, the zygote runs nothing
// of a server: it waits in read(2) on its gate.
func TestZygoteHeldNotRun(t *testing.T) {
	pid := prestartFor(t, Basic).cmd.Process.Pid
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, task := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/syscall", pid, task.Name()))
			if strings.HasPrefix(string(b), fmt.Sprintf("%d 0x%x ", syscall.SYS_READ, gateFD)) {
				if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe != testExe(t) {
					t.Errorf("the waiting zygote runs %q, want the checker's own binary", exe)
				}
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the zygote did not wait at its gate")
}

// TestZygoteGateTakesNoOtherWriter: another process of the user (a
// server without Landlock) cannot hand the waiting zygote a launch of its
// own. A pipe can be opened again through /proc/PID/fd by anyone allowed
// to read the process's /proc entry, which for the zygote's first
// milliseconds (before it makes itself non-dumpable) is every process of
// the same user; a socket cannot be opened that way at all. The test runs
// as a user who may read every /proc entry and still must fail.
func TestZygoteGateTakesNoOtherWriter(t *testing.T) {
	pid := prestartFor(t, Basic).cmd.Process.Pid
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, gateFD), os.O_WRONLY, 0)
	if err == nil {
		f.Close()
		t.Fatal("the zygote's gate was opened for writing through /proc: another process could write it a launch")
	}
}
