package cli

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestRunEndsCleanlyWhateverStopsIt: a check stopped half-way by a signal,
// or by a reader that went away, still ends its servers and removes its run
// directory. The server ignores EOF and SIGTERM and has a grandchild that
// does the same, so whatever the checker leaves running outlives it; its
// mark is in their environment. The checker's TMPDIR is the test's, so a
// run directory left behind shows there.
//
// Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the run: exit 130.
// Under nohup (SIGHUP ignored when it starts) a hangup is no stop: the run
// ends on its own, exit 1 for its unpinned server.
// A closed pipe on the checker's stderr (mcp-lockcheck check 2>&1 | head)
// makes its next progress line fail; it must not kill the checker with
// SIGPIPE, which would leave both behind.
func TestRunEndsCleanlyWhateverStopsIt(t *testing.T) {
	bin := binary(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		stop func(cmd *exec.Cmd, stderr *os.File) error
		code int // -1: any exit of its own
	}{
		{"interrupt", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Signal(os.Interrupt) }, ExitInterrupted},
		{"sigterm", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Signal(syscall.SIGTERM) }, ExitInterrupted},
		{"sighup", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Signal(syscall.SIGHUP) }, ExitInterrupted},
		{"reader-gone", func(_ *exec.Cmd, stderr *os.File) error { return stderr.Close() }, -1},
		// Under nohup a hangup is not a stop: the run goes on to its end.
		{"sighup-under-nohup", func(cmd *exec.Cmd, _ *os.File) error { return cmd.Process.Signal(syscall.SIGHUP) }, ExitDrift},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			mark := "signals-" + hex.EncodeToString(b[:])
			t.Cleanup(func() {
				for _, pid := range testproc.Marked("FAKE_DAEMON_MARK=" + mark) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			dir, tmp := t.TempDir(), t.TempDir()
			cfg := `{"mcpServers":{"s":{"command":` + jsonString(exe) + `,"env":{"FAKE_SCENARIO":"ignore-eof","FAKE_DAEMON_MARK":` + jsonString(mark) + `}}}}`
			if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			// Warm-up calls 200 ms apart: a progress line for each, and
			// time to stop the run in the middle.
			cmd := exec.Command(bin, "check", "--sandbox", "basic", "--progress", "plain", "--verbose",
				"--warmup-calls", "8", "--call-gap", "200ms", "--launches", "1")
			if tc.name == "sighup-under-nohup" {
				// As nohup starts it: SIGHUP ignored across the exec.
				cmd.Args = append([]string{"sh", "-c", `trap "" HUP; exec "$0" "$@"`, bin}, cmd.Args[1:]...)
				cmd.Path, err = exec.LookPath("sh")
				if err != nil {
					t.Skip("no sh")
				}
			} else {
				// The checker must start with SIGHUP at its default even
				// when this test runs under nohup (as a CI script may start
				// it): an ignored SIGHUP outlives exec, a handled one does
				// not, so handle it here until the checker has started.
				hup := make(chan os.Signal, 1)
				signal.Notify(hup, syscall.SIGHUP)
				defer signal.Stop(hup)
			}
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			errR, errW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { errR.Close() })
			cmd.Stderr = errW
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			errW.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Until the first warm-up call: the server and its grandchild
			// run, and the run directory is there.
			sc := bufio.NewScanner(errR)
			var seen []string
			for sc.Scan() && !strings.HasSuffix(sc.Text(), "launch-1/call-1") {
				seen = append(seen, sc.Text())
			}
			if len(testproc.Marked("FAKE_DAEMON_MARK="+mark)) < 2 {
				t.Fatalf("the server and its grandchild are not both running:\n%s", strings.Join(seen, "\n"))
			}
			if err := tc.stop(cmd, errR); err != nil {
				t.Fatal(err)
			}
			if tc.name != "reader-gone" {
				go func() { _, _ = io.Copy(io.Discard, errR) }()
			}
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatal("the checker did not end within 60 s")
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				t.Errorf("the checker was killed by %v", ws.Signal())
			} else if tc.code >= 0 && ws.ExitStatus() != tc.code {
				t.Errorf("exit %d, want %d", ws.ExitStatus(), tc.code)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
			if pids := testproc.Marked("FAKE_DAEMON_MARK=" + mark); len(pids) > 0 {
				t.Errorf("still running after the checker ended: %v", pids)
			}
		})
	}
}
