package guard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Exit codes of a guarded session. They follow the exit code contract
// (docs/design.md#exit-codes): 1 is drift, 2 is "could not run as asked". A
// server's own exit status never becomes the guard's.
const (
	// ExitOK: the client closed the session and nothing was refused.
	ExitOK = 0
	// ExitRefused: an answer drifted from the lock (or, in warn mode, drift
	// was logged), a message was refused or sanitized for hidden characters
	// or terminal escapes, or the server misbehaved: a line that might be a
	// message but is not JSON (a line no client reads as a message, such
	// as a banner, is skipped), a line over --max-message-bytes, ambiguous
	// JSON, or an exit before the client closed the session.
	ExitRefused = 1
	// ExitUsage: the guard could not run as asked: no lock entry for the
	// server, an unreadable lock (the CLI's check), a server command that
	// could not be started, a client line over --max-message-bytes.
	ExitUsage = 2
)

// CodeRefused is the JSON-RPC error code the client gets in place of a
// refused answer. It is in the range JSON-RPC reserves for implementation
// defined server errors (-32000 to -32099).
const CodeRefused = -32001

// Mode is what the guard does with drift.
type Mode string

const (
	// Enforce refuses the drifted answer and ends the session.
	Enforce Mode = "enforce"
	// Warn forwards the answer and logs the drift, for a trial period.
	Warn Mode = "warn"
	// Sanitize strips what hidden-characters and terminal-escape flag from
	// a message, forwards the rest and logs what it removed. Drift from the
	// lock is refused as in Enforce: stripping cannot make a changed
	// definition the approved one.
	Sanitize Mode = "sanitize"
)

// ParseMode reads "enforce", "sanitize" or "warn".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Enforce, Warn, Sanitize:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want enforce, sanitize or warn)", s)
}

// DefaultMaxMessageBytes matches the SDK's own line limit (16 MiB): a
// message the guard forwards is one an SDK client can read.
const DefaultMaxMessageBytes = 16 << 20

// Options configure one guarded session.
type Options struct {
	// Lock is the lockfile, already read and validated; LockPath names it
	// in messages.
	Lock     *lock.File
	LockPath string
	// Server is the lock entry the session is held to.
	Server string
	// Mode is Enforce ("" means Enforce) or Warn.
	Mode Mode
	// Command and Args start the server; Env is added to its environment
	// (the guard's own environment is the base, as the client gave it), Dir
	// is its working directory ("" = the guard's).
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// Sandbox isolates the server; Level "" means sandbox.Off, which is the
	// default at run time (the client's own launch, plus a process group).
	// A zero CPUSeconds limit becomes unlimited: a session lasts hours.
	Sandbox sandbox.Options
	// Redactor redacts live text as pin did before comparing it with the
	// lock (nil: secret shapes only, no environment values).
	Redactor *redact.Redactor
	// MaxMessageBytes bounds one line either way (0: DefaultMaxMessageBytes).
	MaxMessageBytes int
	// Stdin and Stdout are the client's side of the pipe; Stderr takes the
	// guard's own lines. ServerStderr takes the server's stderr (nil:
	// Stderr), where clients log it.
	Stdin        io.Reader
	Stdout       io.Writer
	Stderr       io.Writer
	ServerStderr io.Writer
	// StopWait is how long a server has to exit after its stdin is closed
	// before SIGTERM (0: 2 s); TermWait how long after SIGTERM before
	// SIGKILL (0: 1 s). The MCP stdio transport's shutdown: "the client
	// SHOULD initiate shutdown by: closing the input stream to the child
	// process, waiting for the server to exit, or sending SIGTERM if the
	// server does not exit within a reasonable time, sending SIGKILL if the
	// server does not exit within a reasonable time after SIGTERM".
	StopWait, TermWait time.Duration
	// Started, if set, is told the server's pid, which is also its process
	// group id, once it runs.
	Started func(pid int)
	// Remote, set in place of Command, makes the guard a stdio↔HTTP bridge
	// to a remote server; Sandbox, Env, Dir and the stop waits do not
	// apply.
	Remote *Remote
}

// Run guards one session: it starts the server, forwards every line both
// ways and holds every answer that carries text for the model up against
// the lock entry. It returns an exit code and has written the reason for
// anything but ExitOK to Stderr.
func Run(ctx context.Context, o Options) int {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	// Several goroutines write to Stderr (client side, server side, the
	// server's own stderr, shutdown): one write at a time, whatever writer
	// it is.
	o.Stderr = &lockedWriter{w: o.Stderr}
	logf := func(format string, args ...any) {
		fmt.Fprintf(o.Stderr, "mcp-lockcheck guard: "+format+"\n", args...)
	}
	if o.Lock == nil {
		logf("no lock given: refusing to start server %q", o.Server)
		return ExitUsage
	}
	ls := o.Lock.Servers[o.Server]
	if ls == nil {
		logf("%s has no entry for server %q: refusing to start it (pin it first: mcp-lockcheck pin --server %s)", orLock(o.LockPath), o.Server, o.Server)
		return ExitUsage
	}
	if o.Command == "" && o.Remote == nil {
		logf("no server command given (mcp-lockcheck guard ... -- COMMAND ARGS...)")
		return ExitUsage
	}
	if o.Mode == "" {
		o.Mode = Enforce
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.StopWait <= 0 {
		o.StopWait = 2 * time.Second
	}
	if o.TermWait <= 0 {
		o.TermWait = time.Second
	}
	if o.ServerStderr == nil {
		o.ServerStderr = o.Stderr
	}
	if o.Sandbox.Level == "" {
		o.Sandbox.Level = sandbox.Off
	}
	if o.Sandbox.Limits.CPUSeconds == 0 {
		o.Sandbox.Limits.CPUSeconds = sandbox.Unlimited
	}
	w := ""
	if o.Remote != nil {
		w = remoteLaunchMismatch(ls.Launch, o.Remote)
	} else {
		w = launchMismatch(ls.Launch, o.Command, o.Args)
	}
	if w != "" {
		logf("warning: server %q: %s (check reports launch-changed; the guard holds the manifest)", o.Server, w)
	}

	if o.Remote == nil {
		// What runs is held to the lock before any of it runs: a new
		// version, or the same one with other bytes (an npm integrity, an
		// image digest, a file's hash), is refused here, not started
		// silently. The launch is then made to run what was verified.
		if rule, why := artifactMismatch(ctx, o, ls.Launch, true, logf); rule != "" {
			if o.Mode != Warn {
				logf("server %q: %s: %s: refusing to start it", o.Server, rule, why)
				return ExitRefused
			}
			logf("warning: server %q: %s: %s", o.Server, rule, why)
		}
		preferInstalled(&o)
		neverPull(&o, ls.Launch)
		if o.Sandbox.Level == sandbox.Strict && len(o.Sandbox.Network) == 0 && len(ls.Launch.Network) > 0 {
			// Strict at run time reaches what check under strict
			// reached: the allowance the lock approved.
			a, err := sandbox.ParseDests(ls.Launch.Network)
			if err != nil {
				logf("server %q: the lock's network allowance: %v", o.Server, err)
				return ExitUsage
			}
			o.Sandbox.Network = a
		}
	}

	s := newSession(o, ls, logf)
	code := s.run(ctx)
	return code
}

func orLock(p string) string {
	if p == "" {
		return "the lock"
	}
	return p
}

// event is what ends a session, sent by the forwarding loops.
type event struct {
	kind string // "client-eof", "server-eof", "refused"
}

type session struct {
	o     Options
	ls    *lock.Server
	logf  func(string, ...any)
	check *checker

	imu      sync.Mutex // serializes writes to the server
	serverIn *os.File   // write end of the server's stdin
	cmd      *exec.Cmd
	exited   chan struct{}

	pmu     sync.Mutex
	pending map[string]pendingReq

	omu     sync.Mutex // serializes writes to the client and stopped
	stopped atomic.Bool
	out     *bufio.Writer
	// more is set while the server-to-client loop handles a line with
	// another whole line already read behind it; upMore is the same for
	// the client-to-server loop. Lines are written to the client (the
	// server) through a buffer that is flushed when no whole line
	// waits: under load one write carries many lines (one system call a
	// line was most of what the guard cost a pipelined session), and a
	// line never waits in the buffer while the guard waits for input.
	more, upMore atomic.Bool
	sw           *bufio.Writer // the server's stdin, buffered (imu)

	events   chan event
	downDone chan struct{}
	// relists are accepted list answers, for the re-list fast path; used
	// by the server-to-client loop only.
	relists     []relist
	relistBytes int
	// counts numbers the client's requests by method (count); used by
	// the client-to-server loop only.
	counts  map[string]int
	refused atomic.Int32 // exit code of the first refusal, 0 if none
	skipped atomic.Int64 // stdout lines that are not JSON-RPC, skipped
	warned  atomic.Bool  // drift forwarded in warn mode, or content refused or sanitized
	// artifactHeld: the launch's artifact was held to the lock before the
	// first client message was forwarded (read and written by up only).
	artifactHeld bool
	// remote is the HTTP side of a remote session (nil: a stdio server).
	remote *bridge
}

// pendingReq is one client request awaiting its answer.
type pendingReq struct {
	id     []byte // the id as the client wrote it
	method string
	params []byte // kept for prompts/get only
	// subject is what the request names: the tool of a tools/call, the
	// prompt of a prompts/get, the uri of a resources/read ("" for any
	// other). n is the request's place among the session's requests of
	// its method (1 for the first tools/call). A finding about the answer
	// names both: where it was found.
	subject string
	n       int
}

// where is the phase an answer's finding names: the request's place in
// the session ("tools/call #3 of the session").
func (p pendingReq) where() string {
	if p.n == 0 {
		return "session"
	}
	return fmt.Sprintf("%s #%d of the session", p.method, p.n)
}

func newSession(o Options, ls *lock.Server, logf func(string, ...any)) *session {
	c := newChecker(o.Server, ls, o.LockPath)
	c.warn = o.Stderr
	c.red = o.Redactor
	return &session{
		o: o, ls: ls, logf: logf,
		check:    c,
		pending:  map[string]pendingReq{},
		out:      bufio.NewWriterSize(o.Stdout, 64<<10),
		events:   make(chan event, 8),
		downDone: make(chan struct{}),
		exited:   make(chan struct{}),
	}
}

func (s *session) run(ctx context.Context) int {
	if s.o.Remote != nil {
		return s.runRemote(ctx)
	}
	sb, err := sandbox.New(s.o.Server, s.o.Sandbox)
	if err != nil {
		s.logf("server %q: sandbox %s: %v", s.o.Server, s.o.Sandbox.Level, err)
		return ExitUsage
	}
	defer sb.Close()
	defer func() {
		for _, r := range sb.Refused() {
			s.logf("server %q: network: refused %s", s.o.Server, r)
		}
	}()
	outR, code := s.start(sb)
	if outR == nil {
		return code
	}
	return s.wait(ctx, outR)
}

// start starts the server in sb with its pipes, and the two forwarding
// loops. It returns the read end of the server's stdout, which wait
// closes, or nil and the session's exit code when the server could not be
// started.
func (s *session) start(sb *sandbox.Run) (*os.File, int) {
	// The server's lifetime is the session's, not ctx's: on ctx's end the
	// guard stops it in order (stdin, SIGTERM, SIGKILL) in wait.
	cmd, err := sb.Command(context.Background(), s.o.Command, s.o.Args, s.o.Env, s.o.Dir)
	if err != nil {
		s.logf("server %q: %v", s.o.Server, err)
		return nil, ExitUsage
	}
	// The guard's own launch shows the server its own directories (the
	// client's cwd, the user's HOME), which pin recorded as placeholders
	// (pinned.LaunchPaths): live text is compared in that form too, or an
	// honest server that names its cwd would be refused.
	s.check.red = s.o.Redactor.WithPaths(pinned.LaunchPaths(cmd))
	setParentDeathSignal(cmd)
	// Our own pipes, not StdinPipe/StdoutPipe: Wait closes those as soon as
	// the process exits, which would lose the last lines a server wrote.
	inR, inW, err := os.Pipe()
	if err != nil {
		s.logf("pipe: %v", err)
		return nil, ExitUsage
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		s.logf("pipe: %v", err)
		return nil, ExitUsage
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, s.o.ServerStderr
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		s.logf("server %q: cannot start %s: %v", s.o.Server, s.o.Command, err)
		return nil, ExitUsage
	}
	inR.Close()
	outW.Close()
	s.cmd, s.serverIn = cmd, inW
	s.sw = bufio.NewWriterSize(inW, 64<<10)
	if s.o.Started != nil {
		s.o.Started(cmd.Process.Pid)
	}
	go func() {
		cmd.Wait()
		close(s.exited)
	}()
	go s.up()
	go s.down(outR)
	return outR, 0
}

// wait waits for what ends the session (the client's or the server's end
// of input, a refusal, or ctx), stops the server and returns the
// session's exit code.
func (s *session) wait(ctx context.Context, outR *os.File) int {
	cmd := s.cmd
	clientClosed := false
	var ev event
	select {
	case ev = <-s.events:
	case <-ctx.Done():
		ev = event{kind: "interrupted"}
	}
	switch ev.kind {
	case "client-eof":
		clientClosed = true
		// A server that already died on its own, with a failure status,
		// did not serve the session: the client's last requests may have
		// gone unanswered. Not a clean session.
		select {
		case <-s.exited:
			if st := cmd.ProcessState; st != nil && !st.Success() && s.refused.Load() == 0 {
				s.logf("server %q exited during the session (%s)", s.o.Server, st.String())
				s.refuse(ExitRefused)
			}
		case <-time.After(50 * time.Millisecond):
		}
	case "server-eof":
		// A server that ends the session before the client does is held:
		// the client may be waiting for an answer that will never come.
		if s.refused.Load() == 0 {
			status := "exited"
			select {
			case <-s.exited:
				status = cmd.ProcessState.String()
			case <-time.After(s.o.StopWait):
			}
			s.logf("server %q closed its output before the client closed the session (%s)", s.o.Server, status)
			s.refuse(ExitRefused)
		}
	case "interrupted":
		s.logf("interrupted: stopping server %q", s.o.Server)
	}
	s.stop()
	if clientClosed {
		// Answers in flight when the client closed still go out; the
		// server's output ends when the group is gone.
		select {
		case <-s.downDone:
		case <-time.After(time.Second):
		}
	}
	outR.Close()
	if c := s.refused.Load(); c != 0 {
		return int(c)
	}
	if s.warned.Load() {
		return ExitRefused
	}
	return ExitOK
}

// refuse records the session's exit code (the first one wins) and stops
// every further forward, after what was already forwarded is out. It does
// not wait for the server.
func (s *session) refuse(code int) {
	s.refused.CompareAndSwap(0, int32(code))
	s.omu.Lock()
	if !s.stopped.Load() {
		s.out.Flush()
	}
	s.stopped.Store(true)
	s.omu.Unlock()
}

// stop ends the server: close its stdin, wait StopWait, SIGTERM the whole
// process group, wait TermWait, SIGKILL the group. The group is signalled
// even when the server itself has exited: grandchildren (`npx` -> node,
// `sh` -> server) outlive a plain kill (docs/design.md#measured-facts).
func (s *session) stop() {
	s.serverIn.Close()
	select {
	case <-s.exited:
	case <-time.After(s.o.StopWait):
	}
	pgid := s.cmd.Process.Pid
	if len(procgroup.Live(pgid)) > 0 {
		sandbox.KillGroup(s.cmd, syscall.SIGTERM)
		procgroup.WaitGone(pgid, s.o.TermWait)
	}
	sandbox.KillGroup(s.cmd, syscall.SIGKILL)
	select {
	case <-s.exited:
	case <-time.After(2 * time.Second):
		s.logf("server %q (pid %d) did not exit after SIGKILL", s.o.Server, pgid)
	}
}

// artifactNow is artifactMismatch after the start, for up (Warn: logged,
// never refused).
func (s *session) artifactNow() (finding.RuleID, string) {
	if s.o.Remote != nil {
		return "", ""
	}
	rule, why := artifactMismatch(context.Background(), s.o, s.ls.Launch, false, s.logf)
	if rule != "" && s.o.Mode == Warn {
		s.logf("warning: server %q: %s: %s", s.o.Server, rule, why)
		return "", ""
	}
	return rule, why
}
