//go:build unix

package probe

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stderrServerEnv runs the test binary as stderrServer; its value is the
// marker to write.
const stderrServerEnv = "PROBE_TEST_STDERR_MARKER"

// maybeStderrServer is a server that, asked for its tools, floods stderr
// past the pipe's buffer and writes the marker last, then answers, and
// never exits: the probe's kill ends it right after the answer. With
// PROBE_TEST_STDERR_GRANDCHILD set it first leaves a grandchild in a
// session of its own holding stderr open (its pid in that file).
func maybeStderrServer() {
	marker := os.Getenv(stderrServerEnv)
	if marker == "" {
		return
	}
	if f := os.Getenv("PROBE_TEST_STDERR_GRANDCHILD"); f != "" {
		c := exec.Command("sleep", "60")
		c.Stderr = os.Stderr
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err == nil {
			_ = os.WriteFile(f, []byte(strconv.Itoa(c.Process.Pid)), 0o600)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &r) != nil || r.ID == nil {
			continue
		}
		result := `{}`
		switch r.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stderr","version":"1"}}`
		case "tools/list":
			os.Stderr.WriteString(strings.Repeat("x", 200<<10) + "\n")
			os.Stderr.WriteString(marker + "\n")
			result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
		case "ping":
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", r.ID)
			continue
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", r.ID, result)
	}
	select {} // EOF on stdin is no reason to exit
}

// TestStderrReadToTheKill: what the server wrote to stderr just before
// its last answer (and so before the kill) is in the result, whether or
// not a grandchild outside its process group still holds stderr open.
// The launch no longer waits for the kernel to close the pipe; it reads
// the pipe empty once nothing of the group can write (settle).
func TestStderrReadToTheKill(t *testing.T) {
	for _, grandchild := range []bool{false, true} {
		t.Run(fmt.Sprintf("grandchild=%v", grandchild), func(t *testing.T) {
			marker := "canary-" + strconv.Itoa(os.Getpid()) + "-end-of-stderr"
			pidFile := filepath.Join(t.TempDir(), "grandchild")
			env := []string{stderrServerEnv + "=" + marker}
			if grandchild {
				env = append(env, "PROBE_TEST_STDERR_GRANDCHILD="+pidFile)
			}
			target := Stdio{Command: func(ctx context.Context, _ int) (*exec.Cmd, error) {
				c := exec.Command(os.Args[0])
				c.Env = append(os.Environ(), env...)
				return c, nil
			}}
			defer func() {
				if b, err := os.ReadFile(pidFile); err == nil {
					if pid, err := strconv.Atoi(string(b)); err == nil && pid > 1 {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}()
			for i := range 3 {
				res := Run(context.Background(), target, Options{NoPromptGets: true})
				if res.Err != nil {
					t.Fatalf("run %d: %v", i, res.Err)
				}
				if !strings.Contains(res.Stderr, marker) {
					t.Fatalf("run %d: the marker written before the kill is missing from stderr (%d bytes, ends %q)", i, len(res.Stderr), res.Stderr[max(0, len(res.Stderr)-80):])
				}
			}
		})
	}
}

// slowWriter takes its time over every write, as a busy checker may.
type slowWriter struct {
	mu  sync.Mutex
	got []byte
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(2 * time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got = append(w.got, p...)
	return len(p), nil
}

// TestDrainReadsThePipeEmpty: drain stops the copy only once the pipe is
// empty and the copy has handed over what it read, though the write end
// is still open (as a grandchild outside the group would hold it): every
// byte written before drain was called arrives.
func TestDrainReadsThePipeEmpty(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sw := &slowWriter{}
	s := readStderr(r, sw)
	want := strings.Repeat("0123456789abcdef", 3<<10) // 48 KiB, within the pipe's buffer
	if _, err := w.WriteString(want); err != nil {
		t.Fatal(err)
	}
	if !s.drain(30 * time.Second) {
		t.Fatal("drain gave up")
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if string(sw.got) != want {
		t.Fatalf("got %d bytes of %d", len(sw.got), len(want))
	}
}
