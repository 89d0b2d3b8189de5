package probe

import (
	"context"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
)

// Target is where a probe's launches come from: a command started over
// stdio (Stdio) or an endpoint reached over HTTP (Remote). The probe
// drives every launch the same way, phase by phase, over the connection a
// launch gives it; everything that depends on how the server is reached
// (a process group to kill, stdout lines to skip, an HTTP session to
// close) stays behind this interface.
type Target interface {
	// Start begins one launch and connects to it. An error means the
	// launch never ran: nothing needs stopping.
	Start(ctx context.Context, spec LaunchSpec) (Launch, error)
}

// LaunchSpec is what the probe asks of one launch.
type LaunchSpec struct {
	// N is the launch's number, from 1: a target may make launches differ
	// (the clock launch runs with a moved clock).
	N int
	// MaxMessageBytes bounds one inbound JSON-RPC message.
	MaxMessageBytes int
	// drops collects the stdout lines a stdio server wrote that are not
	// JSON-RPC messages, across the probe's launches (stdout.go).
	drops *dropLog
}

// Launch is one started server session.
type Launch interface {
	// Conn is the launch's connection, at the JSON-RPC message level
	// (results stay raw).
	Conn() mcp.Connection
	// Stop ends the launch at once without waiting for it to be gone: a
	// stdio server's whole process group is killed, nothing of its
	// shutdown being observed; a remote session is closed.
	Stop()
	// Wait waits, after Stop, until the launch is gone and returns what
	// the server wrote to stderr (bounded; "" where there is none).
	Wait() (stderr string)
	// Explain adds to an error that ended the launch what the launch
	// knows of its cause: a crash and its status, a stdout line that is
	// not JSON-RPC. Call it after Wait.
	Explain(err error) error
}

// Stdio launches a server as a child process and speaks MCP over its
// stdin and stdout (the SDK's IOTransport). Each launch runs in a process
// group of its own, killed whole when the launch ends or the probe's
// context does.
type Stdio struct {
	// Command builds the command of launch n (1-based); the caller
	// decides what runs it (a sandbox) and what differs per launch.
	Command func(ctx context.Context, n int) (*exec.Cmd, error)
	// Exec starts a cmd Command or Hold built (nil: cmd.Start): a
	// sandbox may start its own cmds its own way.
	Exec func(cmd *exec.Cmd) error
	// MaxStderrBytes bounds the stderr kept of one launch (default
	// 64 KiB: the first and last halves).
	MaxStderrBytes int
	// Hold, when set, builds launch n's command held before its server's
	// first instruction (a sandbox helper waiting at its gate): release
	// lets the server run, discard ends the launch unused. The probe
	// starts each launch after the first this way while the one before
	// it runs, so what a launch costs before its server starts (the
	// helper's own start, its restrictions) is off the probe's path.
	Hold func(ctx context.Context, n int) (cmd *exec.Cmd, release func() error, discard func(), err error)
}

// Start starts launch spec.N and connects the SDK's transport to its pipes.
func (t Stdio) Start(ctx context.Context, spec LaunchSpec) (Launch, error) {
	cmd, err := t.Command(ctx, spec.N)
	if err != nil {
		return nil, err
	}
	return t.start(ctx, cmd, spec)
}

func (t Stdio) start(ctx context.Context, cmd *exec.Cmd, spec LaunchSpec) (*process, error) {
	maxStderr := t.MaxStderrBytes
	if maxStderr <= 0 {
		maxStderr = 64 << 10
	}
	start := t.Exec
	if start == nil {
		start = (*exec.Cmd).Start
	}
	p, err := startProcess(ctx, cmd, start, spec.MaxMessageBytes, maxStderr, spec.drops)
	if err != nil {
		return nil, err
	}
	// A write to a server that stopped reading blocks in the kernel once
	// the pipe is full, where no context reaches: the deadline kills the
	// server instead, which fails the write.
	p.unwatch = context.AfterFunc(ctx, p.kill)
	return p, nil
}

// hold starts launch spec.N held (Hold); nil when t cannot hold.
func (t Stdio) hold(ctx context.Context, spec LaunchSpec) (*heldLaunch, error) {
	if t.Hold == nil {
		return nil, nil
	}
	cmd, release, discard, err := t.Hold(ctx, spec.N)
	if err != nil {
		return nil, err
	}
	p, err := t.start(ctx, cmd, spec)
	if err != nil {
		discard()
		return nil, err
	}
	return &heldLaunch{p: p, release: release, discard: discard}, nil
}

// holder is a Target that can start a launch ahead of its turn.
type holder interface {
	hold(ctx context.Context, spec LaunchSpec) (*heldLaunch, error)
}

// heldLaunch is a launch started held: its process runs, its server not
// yet.
type heldLaunch struct {
	p       *process
	release func() error
	discard func()
}

// open lets the server run and returns the launch.
func (h *heldLaunch) open() (Launch, error) {
	if err := h.release(); err != nil {
		h.drop()
		return nil, err
	}
	return h.p, nil
}

// drop ends a held launch that is not needed: when it returns, nothing of
// the launch can run (Wait).
func (h *heldLaunch) drop() {
	h.discard()
	h.p.Stop()
	h.p.Wait()
}

// nextLaunch is the probe's next launch, being started held in the
// background (Run, launchRun.holdNext).
type nextLaunch struct {
	done chan struct{}
	h    *heldLaunch
	err  error
}

func holdNext(ctx context.Context, t holder, spec LaunchSpec) *nextLaunch {
	n := &nextLaunch{done: make(chan struct{})}
	go func() {
		defer close(n.done)
		n.h, n.err = t.hold(ctx, spec)
	}()
	return n
}

// take is the held launch, its server let run; nil when the hold failed,
// and the launch is then started the ordinary way (whose error, if it
// fails again, is the one reported).
func (n *nextLaunch) take() (Launch, error) {
	<-n.done
	if n.err != nil || n.h == nil {
		return nil, nil
	}
	h := n.h
	n.h = nil
	return h.open()
}

// drop ends the next launch unused: the probe ended before its turn.
func (n *nextLaunch) drop() {
	<-n.done
	if n.h != nil {
		n.h.drop()
		n.h = nil
	}
}

// Remote reaches a server over streamable HTTP, or over the deprecated
// HTTP+SSE transport when SSE is set. Each launch is a new session on a new
// HTTP transport, as a relaunched client would open. The transport is the
// configured one: nothing falls back from one to the other.
type Remote struct {
	// URL is the endpoint, its placeholders expanded.
	URL string
	// Headers are sent on every request to the endpoint's own origin;
	// their values are secrets the caller expanded and are not recorded.
	Headers map[string]string
	SSE     bool
	// Options shape the HTTP client; a zero MaxMessageBytes takes the
	// probe's.
	Options transport.RemoteOptions
}

// Start opens a new session with the server.
func (t Remote) Start(ctx context.Context, spec LaunchSpec) (Launch, error) {
	o := t.Options
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = spec.MaxMessageBytes
	}
	connect := transport.HTTPConnector(t.URL, t.Headers, o)
	if t.SSE {
		connect = transport.SSEConnector(t.URL, t.Headers, o)
	}
	return connected(connect).Start(ctx, spec)
}

// connected is a target whose launches are the connections a Connector
// opens: a remote server, or an in-memory one in tests.
type connected transport.Connector

func (c connected) Start(ctx context.Context, spec LaunchSpec) (Launch, error) {
	conn, closeConn, err := c(ctx, spec.N)
	if err != nil {
		return nil, err
	}
	return &connLaunch{conn: conn, close: closeConn}, nil
}

// connLaunch is a launch that is only a connection: there is no process to
// reap, no stderr, and nothing to add to an error.
type connLaunch struct {
	conn  mcp.Connection
	close func()
}

func (c *connLaunch) Conn() mcp.Connection    { return c.conn }
func (c *connLaunch) Stop()                   { c.close() }
func (c *connLaunch) Wait() string            { return "" }
func (c *connLaunch) Explain(err error) error { return err }
