package guard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
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
	// The server's lifetime is the session's, not ctx's: on ctx's end the
	// guard stops it in order (stdin, SIGTERM, SIGKILL) below.
	cmd, err := sb.Command(context.Background(), s.o.Command, s.o.Args, s.o.Env, s.o.Dir)
	if err != nil {
		s.logf("server %q: %v", s.o.Server, err)
		return ExitUsage
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
		return ExitUsage
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		s.logf("pipe: %v", err)
		return ExitUsage
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, s.o.ServerStderr
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		s.logf("server %q: cannot start %s: %v", s.o.Server, s.o.Command, err)
		return ExitUsage
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

// up forwards client lines to the server, recording each request's id and
// method on the way.
func (s *session) up() {
	lr := newLineReader(s.o.Stdin, s.o.MaxMessageBytes)
	for {
		line, err := lr.next()
		s.upMore.Store(err == nil && lr.hasLine())
		if len(line) > 0 && !s.stopped.Load() && !s.forward(line) {
			return
		}
		if !s.upMore.Load() {
			s.flushServer()
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				s.logf("the client sent a line over --max-message-bytes=%d: the guard cannot look at it, so the session ends", s.o.MaxMessageBytes)
				s.failPending("the client sent a message over the guard's --max-message-bytes")
				s.refuse(ExitUsage)
				s.events <- event{kind: "refused"}
				return
			}
			if !errors.Is(err, io.EOF) && !s.stopped.Load() {
				s.logf("reading from the client: %v", err)
			}
			s.events <- event{kind: "client-eof"}
			return
		}
	}
}

// forward takes one client line to the server, recording its requests;
// false when the session was refused instead (the launch's artifact,
// checked once more before the first message reaches the server: the
// launcher has installed what it runs by now).
func (s *session) forward(line []byte) bool {
	fwd := s.fromClient(line)
	if !s.artifactHeld {
		s.artifactHeld = true
		if rule, why := s.artifactNow(); rule != "" {
			s.logf("server %q: %s: %s: refusing the session", s.o.Server, rule, why)
			s.failPending(string(rule) + ": " + why)
			s.refuse(ExitRefused)
			s.events <- event{kind: "refused"}
			return false
		}
	}
	if fwd {
		if werr := s.writeServer(line); werr != nil && !s.stopped.Load() {
			// The server is gone; down sees its output end.
			s.logf("writing to server %q: %v", s.o.Server, werr)
		}
	}
	return true
}

// fromClient records the requests in one client line and reports whether
// the line goes to the server. Lines that are not JSON are forwarded: the
// server answers them (with id null), and a client's message is not what
// the guard holds to the lock.
func (s *session) fromClient(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return true
	}
	var msgs [][]byte
	if t[0] == '[' {
		elems, err := arrayElems(t)
		if err != nil {
			return true
		}
		msgs = elems
	} else {
		msgs = [][]byte{t}
	}
	var reqs []pendingReq
	var keys []string
	for _, m := range msgs {
		ms, err := objectMembers(m)
		if err != nil {
			continue
		}
		mraw, hasMethod := get(ms, "method")
		idRaw, hasID := get(ms, "id")
		if !hasMethod || !hasID {
			continue // a notification, or the client's answer to the server
		}
		key, ok := idKey(idRaw)
		if !ok {
			continue
		}
		method, _ := jsonString(mraw)
		p := pendingReq{id: bytes.Clone(idRaw), method: method}
		switch method {
		case "prompts/get", "tools/call", "resources/read":
			prm, _ := get(ms, "params")
			p.subject = requestSubject(method, prm)
			if method == "prompts/get" {
				p.params = bytes.Clone(prm)
			}
		}
		p.n = s.count(method)
		reqs = append(reqs, p)
		keys = append(keys, key)
	}
	if len(reqs) == 0 {
		return true
	}
	s.pmu.Lock()
	var clash []pendingReq
	for i, k := range keys {
		if _, busy := s.pending[k]; busy || slicesIndex(keys[:i], k) >= 0 {
			clash = append(clash, reqs[i])
		}
	}
	if len(clash) == 0 {
		for i, k := range keys {
			s.pending[k] = reqs[i]
		}
	}
	s.pmu.Unlock()
	if len(clash) == 0 {
		return true
	}
	// Two requests in flight with one id: the guard could not tell which
	// answer is which, so it would not know which to check. The line is
	// not forwarded; the client learns why.
	for _, p := range reqs {
		s.writeClient(errorLine(p.id, -32600, "mcp-lockcheck guard: request id already in use by a request in flight", nil))
	}
	return false
}

// count numbers the session's requests of one method (only the up loop
// calls it). The methods are the client's: a client that sends ten
// thousand distinct ones has them counted apart no further.
func (s *session) count(method string) int {
	if s.counts == nil {
		s.counts = map[string]int{}
	}
	if _, ok := s.counts[method]; !ok && len(s.counts) >= 256 {
		return 0
	}
	s.counts[method]++
	return s.counts[method]
}

// requestSubject is what a request's params name: "name" for tools/call
// and prompts/get, "uri" for resources/read ("" when absent or not a
// string).
func requestSubject(method string, params []byte) string {
	if len(params) == 0 {
		return ""
	}
	ms, err := objectMembers(params)
	if err != nil {
		return ""
	}
	key := "name"
	if method == "resources/read" {
		key = "uri"
	}
	v, _ := get(ms, key)
	name, _ := jsonString(v)
	return name
}

func slicesIndex(ks []string, k string) int {
	for i, x := range ks {
		if x == k {
			return i
		}
	}
	return -1
}

// idKey makes a JSON-RPC id a map key that keeps strings and numbers apart:
// "1" and 1 are different requests. Strings are compared decoded ("\u0031"
// is "1"), numbers by their literal.
func idKey(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		v, ok := jsonString(raw)
		return "s" + v, ok
	case c == '-' || c >= '0' && c <= '9':
		return "n" + string(raw), true
	}
	return "", false // null, objects, arrays: not a valid request id
}

// writeServer writes one line to the server: the client's lines, and the
// guard's own answers to server requests it refused. It is flushed at
// once unless the client-to-server loop has another whole line behind it
// (upMore).
func (s *session) writeServer(line []byte) error {
	if s.remote != nil {
		// The bridge ends the session itself on a failure.
		s.remote.send(line)
		return nil
	}
	s.imu.Lock()
	defer s.imu.Unlock()
	if _, err := s.sw.Write(line); err != nil {
		return err
	}
	if s.upMore.Load() {
		return nil
	}
	return s.sw.Flush()
}

// flushServer writes out what the server's buffer holds.
func (s *session) flushServer() {
	if s.remote != nil {
		return
	}
	s.imu.Lock()
	defer s.imu.Unlock()
	if err := s.sw.Flush(); err != nil && !s.stopped.Load() {
		s.logf("writing to server %q: %v", s.o.Server, err)
	}
}

// writeClient writes one line to the client unless the session stopped.
// It is flushed at once unless the server-to-client loop has another whole
// line behind it (more).
func (s *session) writeClient(line []byte) bool {
	s.omu.Lock()
	defer s.omu.Unlock()
	if s.stopped.Load() {
		return false
	}
	if _, err := s.out.Write(line); err != nil {
		return false
	}
	if !s.more.Load() {
		return s.out.Flush() == nil
	}
	return true
}

// flushClient writes out what the client's buffer holds.
func (s *session) flushClient() {
	s.omu.Lock()
	defer s.omu.Unlock()
	if !s.stopped.Load() {
		s.out.Flush()
	}
}

// down forwards server lines to the client, checking every answer that
// carries text for the model before it goes out.
func (s *session) down(r io.Reader) {
	defer close(s.downDone)
	lr := newLineReader(r, s.o.MaxMessageBytes)
	defer s.flushClient()
	for {
		line, err := lr.next()
		s.more.Store(err == nil && lr.hasLine())
		if len(line) > 0 {
			if s.stopped.Load() {
				// Drain so the server is not blocked writing while it is
				// being stopped; nothing reaches the client.
			} else {
				s.fromServer(line)
			}
		}
		if !s.more.Load() {
			s.flushClient()
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) && !s.stopped.Load() {
				s.misbehaved(fmt.Sprintf("sent a line over --max-message-bytes=%d", s.o.MaxMessageBytes))
				// Keep draining to EOF.
				for {
					if _, err := lr.next(); err != nil && !errors.Is(err, errLineTooLong) {
						break
					}
				}
			}
			s.events <- event{kind: "server-eof"}
			return
		}
	}
}

// misbehaved refuses the session for something the server did that is not
// drift: every pending request gets an error, the session ends with 1.
func (s *session) misbehaved(what string) {
	s.logf("server %q %s: refusing the session", s.o.Server, what)
	s.failPending("mcp-lockcheck guard: server " + quote(s.o.Server) + " " + what)
	s.refuse(ExitRefused)
	s.events <- event{kind: "refused"}
}

// failPending answers every request in flight with CodeRefused.
func (s *session) failPending(msg string) {
	s.pmu.Lock()
	ps := make([]pendingReq, 0, len(s.pending))
	for k, p := range s.pending {
		ps = append(ps, p)
		delete(s.pending, k)
	}
	s.pmu.Unlock()
	for _, p := range ps {
		s.writeClient(errorLine(p.id, CodeRefused, msg, nil))
	}
}

// skipLine logs a line of the server's stdout that is not a JSON-RPC
// message: the first few quoted (escaped, cut), then a count every so often
// so a chatty server cannot flood the log.
func (s *session) skipLine(t []byte) {
	n := s.skipped.Add(1)
	if n <= 5 || n%1000 == 0 {
		s.logf("server %q wrote a line to stdout that is not a JSON-RPC message (its own output; skipped, as clients skip it; %d so far): %s", s.o.Server, n, quote(string(t[:min(len(t), 200)])))
	}
}

func (s *session) fromServer(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return // a blank line carries nothing; forwarding it could confuse a strict reader
	}
	if !transport.IsMessageLine(t) {
		// A banner, a log line, telemetry (Elastic's server): no
		// client reads it as a message, the TypeScript and Python SDK
		// clients skip it and read on, and so does the guard, without
		// forwarding it. What might be a message still goes on to be
		// checked whole (message), and is refused if it is not one.
		s.skipLine(t)
		return
	}
	batch := t[0] == '['
	if !batch && s.relisted(t) {
		s.writeClient(line)
		return
	}
	elems := [][]byte{t}
	if batch {
		var err error
		if elems, err = arrayElems(t); err != nil {
			s.misbehaved("sent a line that is not JSON (" + excerpt(t) + ")")
			return
		}
	}
	var drifts []*refusal
	var ids [][]byte
	changed := false
	outs := make([][]byte, 0, len(elems))
	for _, e := range elems {
		o, ok := s.message(e, !batch)
		if !ok {
			return
		}
		switch {
		case o.drift != nil:
			drifts = append(drifts, o.drift)
			ids = append(ids, o.id)
		case o.drop:
			changed = true
		case o.repl != nil:
			changed = true
			outs = append(outs, o.repl)
		default:
			outs = append(outs, e)
		}
	}
	if len(drifts) > 0 {
		s.drift(drifts, ids, line)
		return
	}
	switch {
	case !changed:
		s.writeClient(line)
	case len(outs) == 0:
	case batch:
		s.writeClient(append(append([]byte{'['}, bytes.Join(outs, []byte{','})...), ']', '\n'))
	default:
		s.writeClient(append(outs[0], '\n'))
	}
}

// outcome is what becomes of one server message: forwarded as it came (the
// zero value), replaced (repl, without a newline), dropped, or a drift that
// ends the session (enforce and sanitize modes).
type outcome struct {
	repl  []byte
	drop  bool
	drift *refusal
	id    []byte
}

// message checks one server message. ok is false when the session was
// refused for misbehaviour (nothing is to be forwarded).
//
// Each message is validated whole and classified (classify): exactly one
// of request, notification or response, from its members as JSON-RPC
// spells them. Then it is checked: list pages, initialize and prompts/get
// against the lock, every other result, every error and the params of
// every request and notification from the server with the no-judgement
// inspection rules. (A re-list of an accepted page never gets here: see
// relisted.)
func (s *session) message(m []byte, whole bool) (o outcome, ok bool) {
	ms, err := objectMembers(m)
	if err != nil {
		if errors.Is(err, errAmbiguous) {
			s.misbehaved("sent ambiguous JSON: " + err.Error())
		} else {
			s.misbehaved("sent a line that is not JSON (" + excerpt(m) + ")")
		}
		return o, false
	}
	r, err := classify(ms)
	if err != nil {
		s.misbehaved("sent a message clients read two ways: " + err.Error())
		return o, false
	}
	var p pendingReq
	found := false
	if r.kind == kindResponse {
		if key, valid := idKey(r.id); valid {
			s.pmu.Lock()
			p, found = s.pending[key]
			delete(s.pending, key)
			s.pmu.Unlock()
		}
	}
	var rf *refusal
	switch r.kind {
	case kindRequest, kindNotification:
		if len(r.params) > 0 {
			// A request of the server's own (sampling, elicitation)
			// puts its text before the model or the user as the
			// server wrote it: every rule. A notification (progress,
			// a log line) is judged by the two that need no
			// judgement only: they are many, and no client hands them
			// to the model as an answer.
			part, o := "request", inspect.AnswerOptions{}
			if r.kind == kindNotification {
				part, o = "notification", inspect.AnswerOptions{ControlsOnly: true}
			}
			rf = s.check.content(part, pendingReq{method: r.method}, r.params, o)
		}
	case kindResponse:
		switch {
		case !found && r.result != nil:
			s.logf("server %q answered a request the client did not make (id %s): dropped", s.o.Server, excerpt(r.id))
			return outcome{drop: true}, true
		case r.err != nil:
			if p.method == "" {
				p.method = "error"
			}
			rf = s.check.content("error", p, r.err, inspect.AnswerOptions{Data: true})
		default:
			rf = s.check.answer(p, r.result)
			if rf == nil && whole {
				s.remember(p.method, m, ms)
			}
		}
	}
	if rf == nil {
		return o, true
	}
	return s.refused1(m, r, p, rf), true
}

// relist is a list answer the guard accepted, as a template: the bytes of
// its line before and after the value of its id.
type relist struct {
	method    string
	pre, post []byte
}

// maxRelistBytes bounds the templates kept.
const maxRelistBytes = 8 << 20

// remember keeps an accepted list answer (a whole line) as a template for
// relisted.
func (s *session) remember(method string, m []byte, ms []member) {
	if _, ok := lock.InfoOfMethod(method); !ok {
		return
	}
	var id *member
	for i := range ms {
		if ms[i].key == "id" {
			id = &ms[i]
		}
	}
	if id == nil || len(m) > maxRelistBytes {
		return
	}
	for _, r := range s.relists {
		if r.method == method && len(r.pre) == id.off && bytes.Equal(r.pre, m[:id.off]) && bytes.Equal(r.post, m[id.off+len(id.val):]) {
			return
		}
	}
	if s.relistBytes+len(m) > maxRelistBytes || len(s.relists) >= 64 {
		s.relists, s.relistBytes = nil, 0
	}
	s.relists = append(s.relists, relist{method: method, pre: bytes.Clone(m[:id.off]), post: bytes.Clone(m[id.off+len(id.val):])})
	s.relistBytes += len(m)
}

// relisted is the fast path of a re-list: a line that is byte for byte an
// accepted list answer but for the value of its id, which is a plain
// number or string naming a request in flight for the same method. Such a
// line is valid JSON with the same members as the accepted one, classified
// the same, with the same result: it costs two compares (no more than
// hashing it would) and is forwarded.
func (s *session) relisted(t []byte) bool {
	for _, r := range s.relists {
		n := len(t) - len(r.pre) - len(r.post)
		if n <= 0 || n > 64 || !bytes.HasPrefix(t, r.pre) || !bytes.HasSuffix(t, r.post) {
			continue
		}
		id := t[len(r.pre) : len(t)-len(r.post)]
		if !plainID(id) {
			continue
		}
		key, _ := idKey(id)
		s.pmu.Lock()
		p, found := s.pending[key]
		if found && p.method == r.method {
			delete(s.pending, key)
		}
		s.pmu.Unlock()
		return found && p.method == r.method
	}
	return false
}

// plainID reports whether b is one JSON token that is a request id: an
// integer, or a string of printable ASCII without escapes.
func plainID(b []byte) bool {
	if b[0] == '"' {
		return len(b) >= 2 && b[len(b)-1] == '"' && plainASCII(b) && !bytes.ContainsRune(b[1:len(b)-1], '"')
	}
	d := b
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] == '0' && len(d) > 1 {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// refused1 decides what becomes of one message with problems. Drift (the
// lock's definitions, instructions, prompt answers) ends the session unless
// in warn mode; a message whose only problems are the text rules' (hidden
// characters, terminal escapes, an instruction asking for an error's
// action) in text the lock does not pin is refused alone (enforce),
// stripped when stripping removes them all (sanitize), or forwarded
// (warn), and the session goes on.
func (s *session) refused1(m []byte, r rpc, p pendingReq, rf *refusal) outcome {
	controls := rf.onlyControls()
	text := rf.onlyText()
	if s.o.Mode == Warn {
		if !text {
			return outcome{drift: rf, id: p.id}
		}
		rf.logAs(s.o.Stderr, "WARNING (--mode warn, forwarded)")
		s.warned.Store(true)
		return outcome{}
	}
	if s.o.Mode == Sanitize && controls {
		if clean, removed, ok := sanitize(m); ok {
			rf.logAs(s.o.Stderr, "sanitized (--mode sanitize): stripped "+strings.Join(removed, "; ")+"; forwarded the rest")
			s.warned.Store(true)
			return outcome{repl: clean}
		}
	}
	if !text || !rf.content {
		return outcome{drift: rf, id: p.id}
	}
	rf.logAs(s.o.Stderr, "refused")
	s.warned.Store(true)
	switch r.kind {
	case kindResponse:
		id := r.id
		if p.id != nil {
			id = p.id
		}
		return outcome{repl: bytes.TrimSuffix(errorLine(id, CodeRefused, rf.message(), rf.data()), []byte{'\n'})}
	case kindRequest:
		// The server asked the client something the model would read: the
		// guard answers for the client, and the client never sees it.
		if err := s.writeServer(errorLine(r.id, CodeRefused, rf.message(), nil)); err != nil && !s.stopped.Load() {
			s.logf("writing to server %q: %v", s.o.Server, err)
		}
	}
	return outcome{drop: true}
}

// drift handles refused answers: in warn mode they are logged and the line
// forwarded; in enforce mode the client gets CodeRefused in place of the
// answer(s) and the session ends.
func (s *session) drift(rs []*refusal, ids [][]byte, line []byte) {
	for _, r := range rs {
		r.log(s.o.Stderr, s.o.Mode)
	}
	if s.o.Mode == Warn {
		s.warned.Store(true)
		s.writeClient(line)
		return
	}
	// The session ends: every other request in flight is answered too,
	// so a client does not wait for an answer that will never come.
	s.pmu.Lock()
	others := make([]pendingReq, 0, len(s.pending))
	for k, p := range s.pending {
		others = append(others, p)
		delete(s.pending, k)
	}
	s.pmu.Unlock()
	s.omu.Lock()
	if !s.stopped.Load() {
		for i, r := range rs {
			if ids[i] != nil {
				s.out.Write(errorLine(ids[i], CodeRefused, r.message(), r.data()))
			}
		}
		for _, p := range others {
			s.out.Write(errorLine(p.id, CodeRefused, "mcp-lockcheck guard: the session with server "+quote(s.o.Server)+" ended: "+rs[0].message(), nil))
		}
		s.out.Flush()
	}
	s.stopped.Store(true)
	s.omu.Unlock()
	s.refused.CompareAndSwap(0, ExitRefused)
	s.events <- event{kind: "refused"}
}

// errLineTooLong is a line over the size limit.
var errLineTooLong = errors.New("line too long")

// lineReader reads newline-terminated lines of bounded length. A line is
// returned with its newline, byte for byte; it is valid until the next call.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// hasLine reports whether a whole line is already read behind the one next
// returned: what is buffered holds a newline.
func (l *lineReader) hasLine() bool {
	n := l.r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := l.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

func (l *lineReader) next() ([]byte, error) {
	if cap(l.buf) > 1<<20 {
		l.buf = nil // do not keep one big message's buffer for the session
	}
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(frag) > l.max+2 { // +2: the line's own "\r\n"
			l.buf = l.buf[:0]
			// Skip the rest of the line.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = l.r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			if len(l.buf) == 0 {
				return frag, nil
			}
			l.buf = append(l.buf, frag...)
			return l.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, frag...)
		default:
			l.buf = append(l.buf, frag...)
			return l.buf, err
		}
	}
}

// excerpt shows the start of untrusted bytes, escaped, for a log line.
func excerpt(b []byte) string {
	const n = 80
	s := string(b)
	if len(s) > n {
		s = s[:n] + "..."
	}
	return escape(s)
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
