package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
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
	// errPipe carries stderr into stderr (our own pipe, not exec's: see
	// settle).
	errPipe *stderrPipe
	conn    mcp.Connection
	done    chan struct{} // closed when Wait returned
	err     error         // Wait's result, valid after done
	// unwatch stops the kill the probe's context would set off (Start).
	unwatch func() bool
}

// startProcess starts cmd in its own process group and connects the SDK's
// IOTransport to its pipes. maxMessage bounds one inbound JSON-RPC message.
// Lines on stdout that are not JSON-RPC messages are skipped into drops
// (stdout.go).
func startProcess(ctx context.Context, cmd *exec.Cmd, start func(*exec.Cmd) error, maxMessage, maxStderr int, drops *dropLog) (*process, error) {
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
	// Grandchildren holding the stdout pipe would keep Wait from
	// returning; WaitDelay makes Wait give up on it.
	cmd.WaitDelay = stderrGrace
	errR, errW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, err
	}
	cmd.Stderr = errW
	if err := start(cmd); err != nil {
		errR.Close()
		errW.Close()
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	errW.Close() // the child's copy is the only write end left
	p.errPipe = readStderr(errR, p.stderr)
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
	p.settle()
}

// stderrGrace is how long stderr is still read after the server exited
// when something outside its process group may still write to it.
const stderrGrace = 500 * time.Millisecond

// settle returns, after the group was killed, once no process of the
// group can run code and everything written to stderr until then is read.
//
// A killed server's teardown (the kernel freeing a large node heap) takes
// tens of milliseconds, more on a busy machine, and neither the leader's
// exit nor the end of its stderr comes before it: waiting for them cost
// every run that much after its last phase. But a thread the kernel is
// tearing down runs no code (procgroup.Settled does not count it), so
// once the whole group is there, no write to stderr is under way in it:
// every byte it wrote is in the pipe. Reading the pipe until it is empty
// then loses nothing the server wrote before the kill. A writer outside
// the group (a grandchild that called setsid) is not waited for, as it was
// not before beyond stderrGrace; the end-of-run sweep kills it. Where the
// pipe's fill cannot be asked, or the group does not settle, it falls back
// to waiting for the leader's exit and the end of stderr, at most
// stderrGrace after it. The leader is reaped in the background either way
// (done); Explain waits for it.
func (p *process) settle() {
	if p.cmd.Process == nil {
		return
	}
	if procgroup.WaitSettled(p.cmd.Process.Pid, 2*time.Second) && p.errPipe.drain(stderrGrace) {
		return
	}
	p.wait(5 * time.Second)
	procgroup.WaitGone(p.cmd.Process.Pid, 2*time.Second)
	p.errPipe.finish(stderrGrace)
}

// Wait settles the launch and returns its bounded stderr.
func (p *process) Wait() string {
	p.settle()
	return p.stderr.String()
}

// stderrPipe copies the read end of the server's stderr into a bounded
// buffer until EOF or until it is closed.
type stderrPipe struct {
	r    *os.File
	done chan struct{} // the copy returned
	once sync.Once
}

func readStderr(r *os.File, into io.Writer) *stderrPipe {
	s := &stderrPipe{r: r, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				_, _ = into.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// drain waits until the pipe holds no unread byte, then stops the copy and
// waits for it to hand over what it had read. Call it only when no writer
// that matters can write any more. It reports false, without stopping
// anything, when the pipe's fill cannot be asked or does not drop to zero
// within d.
func (s *stderrPipe) drain(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		select {
		case <-s.done:
			return true // EOF: every write end is closed
		default:
		}
		n, ok := pipeBuffered(s.r)
		if !ok {
			return false
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
	s.close()
	s.wait()
	return true
}

// finish waits for EOF at most d, then stops the copy.
func (s *stderrPipe) finish(d time.Duration) {
	select {
	case <-s.done:
	case <-time.After(d):
		s.close()
		s.wait()
	}
}

// wait waits for the copy to return after close, bounded: closing the read
// end wakes a Read blocked in the runtime's poller, but a pipe the poller
// could not take would stay blocked.
func (s *stderrPipe) wait() {
	select {
	case <-s.done:
	case <-time.After(stderrGrace):
	}
}

// close stops the copy: a Read blocked on the pipe returns, and one that
// has just read hands its bytes over first.
func (s *stderrPipe) close() { s.once.Do(func() { s.r.Close() }) }

// Explain turns a failure into a reason a person can act on: a crash with
// its status, a non-JSON line quoted.
func (p *process) Explain(err error) error {
	// Wait may return before the leader is reaped (settle); its exit
	// status is part of the reason.
	p.wait(5 * time.Second)
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
		if p.lines.stoppedLong() {
			// The tail of stdout is the end of the over-long line:
			// the error says what it was.
			return err
		}
		if line := nonJSONLine(p.stdout.Tail()); line != "" {
			return fmt.Errorf("%w (stdout is not JSON-RPC: %q)", err, clip.Bytes(line, 200))
		}
		if done, werr := p.exited(); done {
			return fmt.Errorf("%w (%v)", err, errExited(werr))
		}
	}
	return err
}

// helperFailure is the sandbox helper's reason when it ended the launch
// before the server ran (sandbox.HelperExitStatus), or "": its stderr line
// (sandbox.HelperPrefix) says more than "exit status 125".
func helperFailure(p *process) string {
	done, werr := p.exited()
	var ee *exec.ExitError
	if !done || !errors.As(werr, &ee) || ee.ExitCode() != sandbox.HelperExitStatus {
		return ""
	}
	for _, l := range strings.Split(p.stderr.String(), "\n") {
		if strings.HasPrefix(l, sandbox.HelperPrefix) {
			return "sandbox: " + clip.Bytes(strings.TrimPrefix(l, sandbox.HelperPrefix), 300)
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
