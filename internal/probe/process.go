package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is one launch of a stdio server: the child, its pipes wrapped in
// the SDK's IOTransport, and its bounded stderr.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *tapReader
	lines  *lineFilter // stdout without the lines that are not JSON-RPC
	stderr *boundedBuffer
	conn   mcp.Connection
	done   chan struct{} // closed when Wait returned
	err    error         // Wait's result, valid after done
	// unwatch stops the kill the probe's context would set off (Start).
	unwatch func() bool
}

// startProcess starts cmd in its own process group and connects the SDK's
// IOTransport to its pipes. maxMessage bounds one inbound JSON-RPC message.
// Lines on stdout that are not JSON-RPC messages are skipped into drops
// (stdout.go).
func startProcess(ctx context.Context, cmd *exec.Cmd, maxMessage, maxStderr int, drops *dropLog) (*process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Its own process group, so npx -> sh -> node grandchildren can be
	// killed together: the SDK's CommandTransport only signals the child.
	setGroup(cmd.SysProcAttr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, stderr: &boundedBuffer{limit: maxStderr}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	// Grandchildren holding the stderr pipe would keep Wait from
	// returning; WaitDelay makes Wait give up on the copy.
	cmd.WaitDelay = 500 * time.Millisecond
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	p.stdout = &tapReader{r: stdout}
	p.lines = newLineFilter(p.stdout, maxMessage, drops)
	t := &mcp.IOTransport{Reader: io.NopCloser(p.lines), Writer: stdin, MaxLineLength: maxMessage}
	conn, err := t.Connect(ctx)
	if err != nil {
		p.kill()
		return nil, err
	}
	p.conn = conn
	return p, nil
}

// Conn is the SDK's connection over the child's pipes.
func (p *process) Conn() mcp.Connection { return p.conn }

// Stop ends a launch whose last phase is over. It kills the whole process
// group at once instead of the MCP specification's graceful sequence
// (close stdin, wait, SIGTERM, wait, SIGKILL): nothing the server does on
// shutdown is observed, its run dir is discarded, and a server that ignores
// EOF (server-everything 2025.x, redis- and postgres-style servers) would
// otherwise cost the grace period on every launch. It does not wait for
// the group to be gone: Wait does.
func (p *process) Stop() {
	if p.unwatch != nil {
		p.unwatch()
	}
	p.signal(syscall.SIGKILL)
	p.stdin.Close()
	if p.conn != nil {
		p.conn.Close()
	}
}

func (p *process) wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

func (p *process) signal(sig syscall.Signal) {
	if p.cmd.Process == nil {
		return
	}
	signalGroup(p.cmd.Process, sig)
}

// kill SIGKILLs the whole group and waits until it is gone.
func (p *process) kill() {
	p.signal(syscall.SIGKILL)
	p.reap()
}

// reap waits for the leader (and with it the end of its stderr) and until
// no process of the group is alive. A killed server's teardown (the kernel
// freeing a large node process) takes tens of milliseconds on a busy
// machine, which is why a launch that is not the last is reaped while the
// next one starts.
func (p *process) reap() {
	p.wait(5 * time.Second)
	if p.cmd.Process != nil {
		procgroup.WaitGone(p.cmd.Process.Pid, 2*time.Second)
	}
}

// Wait reaps the launch and returns its bounded stderr.
func (p *process) Wait() string {
	p.reap()
	return p.stderr.String()
}

// Explain turns a failure into a reason a person can act on: a crash with
// its status, a non-JSON line quoted.
func (p *process) Explain(err error) error {
	if errors.Is(err, errConnection) && !errors.Is(err, io.EOF) {
		// The SDK could not read a line the filter let through as a
		// possible message: quote it.
		if line := p.lines.suspectLine(); line != "" {
			return fmt.Errorf("%w (the server's own stdout line, which no client reads as a JSON-RPC message: %s)", err, quoteLine([]byte(line), 200))
		}
	}
	if errors.Is(err, errConnection) || errors.Is(err, context.DeadlineExceeded) {
		if why := helperFailure(p); why != "" {
			return fmt.Errorf("%w (%s)", err, why)
		}
		if line := nonJSONLine(p.stdout.Tail()); line != "" {
			return fmt.Errorf("%w (stdout is not JSON-RPC: %q)", err, clip(line, 200))
		}
		if done, werr := p.exited(); done {
			return fmt.Errorf("%w (%v)", err, errExited(werr))
		}
	}
	return err
}

// helperExitStatus and helperPrefix are how the sandbox helper fails a
// launch it could not restrict (sandbox.HelperExitStatus): the reason is
// its stderr line, which says more than "exit status 125".
const (
	helperExitStatus = 125
	helperPrefix     = "mcp-lockcheck sandbox: "
)

// helperFailure is the sandbox helper's reason when it ended the launch
// before the server ran, or "".
func helperFailure(p *process) string {
	done, werr := p.exited()
	var ee *exec.ExitError
	if !done || !errors.As(werr, &ee) || ee.ExitCode() != helperExitStatus {
		return ""
	}
	for _, l := range strings.Split(p.stderr.String(), "\n") {
		if strings.HasPrefix(l, helperPrefix) {
			return "sandbox: " + clip(strings.TrimPrefix(l, helperPrefix), 300)
		}
	}
	return ""
}

// nonJSONLine finds the first complete line in the tail of stdout that is
// not JSON: a banner or log line a server printed where only JSON-RPC may go.
func nonJSONLine(b []byte) string {
	lines := strings.Split(string(b), "\n")
	if len(b) >= tapTail && len(lines) > 1 {
		lines = lines[1:] // the first may be cut mid-line by the tail window
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !json.Valid([]byte(l)) && !strings.HasPrefix(l, "{") && !strings.HasPrefix(l, "[") {
			return l
		}
	}
	return ""
}

// exited reports the child's exit status if it has exited.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// tapReader remembers the tail of what the server wrote to stdout, so an
// error about a non-JSON line can quote it.
type tapReader struct {
	r    io.Reader
	mu   sync.Mutex
	tail []byte
}

const tapTail = 512

func (t *tapReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.mu.Lock()
		t.tail = append(t.tail, p[:n]...)
		if len(t.tail) > 4*tapTail {
			t.tail = append(t.tail[:0], t.tail[len(t.tail)-tapTail:]...)
		}
		t.mu.Unlock()
	}
	return n, err
}

// Tail returns the last bytes read (up to 512).
func (t *tapReader) Tail() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.tail
	if len(b) > tapTail {
		b = b[len(b)-tapTail:]
	}
	return bytes.Clone(b)
}

// boundedBuffer keeps the first and last limit/2 bytes of a stream, so a
// server that floods stderr cannot grow the checker's memory.
type boundedBuffer struct {
	mu      sync.Mutex
	limit   int
	head    []byte
	tail    []byte
	dropped int64
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	half := b.limit / 2
	if room := half - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	b.tail = append(b.tail, p...)
	if over := len(b.tail) - half; over > 0 {
		b.dropped += int64(over)
		b.tail = append(b.tail[:0], b.tail[over:]...)
	}
	return n, nil
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped == 0 {
		return string(b.head) + string(b.tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes of stderr dropped ...]\n%s", b.head, b.dropped, b.tail)
}

// errExited wraps the child's exit in a message that never becomes the
// checker's own exit status.
func errExited(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("server exited: %s", ee.ProcessState.String())
	}
	if err == nil {
		return errors.New("server exited with status 0")
	}
	return fmt.Errorf("server exited: %v", err)
}
