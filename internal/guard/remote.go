package guard

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Remote is a server reached over HTTP. With Options.Remote set the guard
// is a stdio↔HTTP bridge: the client speaks stdio to the guard, the guard
// speaks streamable HTTP (or HTTP+SSE) to the server through the official
// SDK's client transports, as check does, and every message the server
// sends passes the same checks as over stdio before the client reads it.
type Remote struct {
	// URL is the endpoint with its placeholders expanded. It may carry a
	// secret (a key in the query): it is shown only redacted.
	URL string
	// Headers are sent on every request to the URL's origin, never to
	// another host. Their values are secrets: never logged or written.
	Headers map[string]string
	// SSE selects the deprecated HTTP+SSE transport. Otherwise the guard
	// speaks streamable HTTP and falls back to HTTP+SSE when the server
	// refuses the first POST with a 4xx other than 401, 403, 408 or 429,
	// as the specification's backwards compatibility section says a
	// client should.
	SSE bool
	// Timeout bounds connecting (0: 30 s). A response may take as long
	// as the client waits for it.
	Timeout time.Duration
	// RootCAs replaces the system roots (tests; a private CA is set with
	// SSL_CERT_FILE).
	RootCAs *x509.CertPool
}

// remoteLaunchMismatch compares the URL the guard was given with the one
// the lock approved, both in the form the lock records (secrets
// redacted). A lock URL with placeholders matches any: the guard sees the
// expansion.
func remoteLaunchMismatch(l lock.Launch, r *Remote) string {
	if l.URL == "" || strings.Contains(l.URL, "${") || strings.Contains(l.URL, "{env:") {
		return ""
	}
	live := pinned.Launch(config.Server{URL: r.URL}).URL
	if live != l.URL {
		return fmt.Sprintf("url %s differs from the approved %s", quote(live), quote(l.URL))
	}
	return ""
}

// bridge is the HTTP side of a remote session: it turns the client's lines
// into the SDK's messages and back.
type bridge struct {
	s   *session
	r   Remote
	ctx context.Context
	// cancel ends every request in flight and the read loop.
	cancel context.CancelFunc

	// mu serializes writes until the transport is settled, and guards
	// conn, closer and what.
	mu     sync.Mutex
	conn   mcp.Connection
	closer func()
	what   string // "streamable HTTP" or "HTTP+SSE", for messages
	// settled is set once a request went through: from then on the
	// transport is fixed and requests are written concurrently.
	settled bool
	// conns hands down each connection opened (at most two: streamable
	// HTTP, then HTTP+SSE).
	conns  chan mcp.Connection
	once   sync.Once // the session ends once
	listen sync.Once // the standalone GET stream is opened once
	closed sync.Once
	// busy is set while down checks and forwards a message: its request
	// is no longer pending, but its answer is not out yet.
	busy atomic.Int32

	secrets []string // longest first
}

func newBridge(s *session, r Remote) *bridge {
	ctx, cancel := context.WithCancel(context.Background())
	return &bridge{s: s, r: r, ctx: ctx, cancel: cancel, conns: make(chan mcp.Connection, 2), secrets: remoteSecrets(r)}
}

// remoteSecrets lists what must never reach stderr: every header value and
// the token after its scheme ("Bearer x"), the URL's credentials and query
// values, and the URL itself (an error from net/http quotes it whole).
// Values under 6 bytes are left out: they would mangle every message and
// are not credentials.
func remoteSecrets(r Remote) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 6 {
			out = append(out, v, url.QueryEscape(v))
		}
	}
	for _, v := range r.Headers {
		add(v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			add(strings.TrimSpace(tok))
		}
	}
	if u, err := url.Parse(r.URL); err == nil {
		if u.User != nil {
			add(u.User.Username())
			if p, ok := u.User.Password(); ok {
				add(p)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redact makes a reason safe for stderr: the URL as the lock shows it,
// every secret replaced, the guard's own environment values and secret
// shapes redacted as everywhere else.
func (b *bridge) redact(s string) string {
	if b.r.URL != "" {
		s = strings.ReplaceAll(s, b.r.URL, pinned.Launch(config.Server{URL: b.r.URL}).URL)
	}
	for _, sec := range b.secrets {
		s = strings.ReplaceAll(s, sec, "[REDACTED]")
	}
	return b.s.o.Redactor.String(s)
}

// end ends the session for something on the HTTP side: every request in
// flight gets CodeRefused with the reason, stderr says it, the exit code
// is 1. Only the first reason counts.
func (b *bridge) end(reason string) {
	b.once.Do(func() {
		reason = b.redact(reason)
		s := b.s
		// The reason can quote the server (an error body): escaped.
		s.logf("server %q: %s: ending the session", s.o.Server, escape(reason))
		s.failPending("mcp-lockcheck guard: server " + quote(s.o.Server) + ": " + escape(reason))
		s.refuse(ExitRefused)
		s.events <- event{kind: "refused"}
	})
}

// close ends everything in flight, then the HTTP session (the SDK sends
// DELETE for a streamable one, on a context of its own).
func (b *bridge) close() {
	b.closed.Do(func() {
		b.cancel()
		b.mu.Lock()
		closer := b.closer
		b.mu.Unlock()
		if closer != nil {
			closer()
		}
	})
}

// send takes one line the client (or the guard, answering a server
// request it refused) wrote and sends each message in it. A request goes
// out on its own goroutine: over HTTP a write lasts until the server
// starts its answer, and one slow tool must not hold up a ping.
func (b *bridge) send(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return
	}
	elems := [][]byte{t}
	if t[0] == '[' {
		// MCP 2025-06-18 dropped batches; HTTP carries one message per
		// POST here, and each answer comes back alone.
		var err error
		if elems, err = arrayElems(t); err != nil {
			b.s.writeClient(errorLine([]byte("null"), -32700, "mcp-lockcheck guard: parse error: the line is not JSON", nil))
			return
		}
	}
	for _, e := range elems {
		msg, ok := b.decode(e)
		if !ok {
			continue
		}
		b.mu.Lock()
		if !b.settled {
			b.settle(msg)
			b.mu.Unlock()
			continue
		}
		b.mu.Unlock()
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			go b.write(msg)
		} else {
			b.write(msg)
		}
	}
}

// decode reads one client message as the SDK will send it. A request whose
// id the SDK would send in another form (1.0 and 1.5 both become 1) is
// answered here: its answer could not be told from another's.
func (b *bridge) decode(e []byte) (jsonrpc.Message, bool) {
	msg, err := jsonrpc.DecodeMessage(e)
	var idRaw []byte
	if ms, merr := objectMembers(e); merr == nil {
		idRaw, _ = get(ms, "id")
	}
	if err == nil {
		req, isReq := msg.(*jsonrpc.Request)
		if !isReq || !req.IsCall() {
			return msg, true
		}
		lit, _ := idKey(idRaw)
		if lit == sdkIDKey(req.ID) {
			return msg, true
		}
		err = errors.New("a request id must be an integer or a string")
	}
	if len(idRaw) == 0 {
		b.s.logf("dropped a client message the SDK cannot send: %v", err)
		return nil, false
	}
	if k, ok := idKey(idRaw); ok {
		b.s.pmu.Lock()
		delete(b.s.pending, k)
		b.s.pmu.Unlock()
	} else {
		idRaw = []byte("null")
	}
	b.s.writeClient(errorLine(idRaw, -32600, "mcp-lockcheck guard: invalid request: "+err.Error(), nil))
	return nil, false
}

// sdkIDKey is idKey for an id the SDK decoded.
func sdkIDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return "s" + v
	case int64:
		return "n" + strconv.FormatInt(v, 10)
	}
	return ""
}

// statuser is probe's remote connection: the HTTP statuses behind the SDK's
// error texts.
type statuser interface{ HTTPStatus() (first, auth int) }

// connect opens a connection with the chosen transport. b.mu is held.
func (b *bridge) connect(sse bool) error {
	ropts := transport.RemoteOptions{Timeout: b.r.Timeout, MaxMessageBytes: b.s.o.MaxMessageBytes, RootCAs: b.r.RootCAs, ResponseTimeout: -1}
	connect, what := transport.HTTPConnector(b.r.URL, b.r.Headers, ropts), "streamable HTTP"
	if sse {
		connect, what = transport.SSEConnector(b.r.URL, b.r.Headers, ropts), "HTTP+SSE"
	}
	conn, closer, err := connect(b.ctx, 1)
	if err != nil {
		return err
	}
	if b.closer != nil {
		b.closer()
	}
	b.conn, b.closer, b.what = conn, closer, what
	b.conns <- conn
	return nil
}

// settle writes a message while the transport is not yet fixed, one at a
// time: streamable HTTP unless the config says SSE, and HTTP+SSE when the
// server refuses a streamable request with a 4xx that says the endpoint is
// not a streamable one (404, 405, 400 from an HTTP+SSE server that wants
// its session id). The specification's backwards compatibility section:
// "If it fails with an HTTP 4xx status code (e.g., 405 Method Not Allowed
// or 404 Not Found): Issue a GET request to the server URL, expecting that
// this will open an SSE stream". server/discover does not decide it: a
// server that does not know the stateless revision refuses it whatever
// its transport, and the client goes on to initialize. b.mu is held.
func (b *bridge) settle(msg jsonrpc.Message) {
	if b.conn == nil {
		if err := b.connect(b.r.SSE); err != nil {
			b.end(err.Error())
			return
		}
	}
	err := b.conn.Write(b.ctx, msg)
	if b.ctx.Err() != nil {
		return
	}
	status, auth := 0, 0
	if st, ok := b.conn.(statuser); ok {
		status, auth = st.HTTPStatus()
	}
	if auth != 0 {
		b.end(b.authReason(auth))
		return
	}
	req, isCall := msg.(*jsonrpc.Request)
	isCall = isCall && req.IsCall()
	fallback := err != nil && isCall && !b.r.SSE && b.what == "streamable HTTP" && req.Method != "server/discover" &&
		status >= 400 && status < 500 && status != 401 && status != 403 && status != 408 && status != 429
	if fallback {
		b.s.logf("server %q: streamable HTTP refused %s (HTTP %d): trying HTTP+SSE", b.s.o.Server, quote(req.Method), status)
		if err2 := b.connect(true); err2 != nil {
			b.end(fmt.Sprintf("%v; HTTP+SSE fallback: %v", err, err2))
			return
		}
		err = b.conn.Write(b.ctx, msg)
		if st, ok := b.conn.(statuser); ok {
			if _, auth := st.HTTPStatus(); auth != 0 {
				b.end(b.authReason(auth))
				return
			}
		}
	}
	if err != nil {
		b.end(err.Error())
		return
	}
	if isCall && req.Method != "server/discover" && status < 400 {
		b.settled = true
	}
}

// refusedAuth says the server refused the connection's credentials.
func refusedAuth(conn mcp.Connection) bool {
	st, ok := conn.(statuser)
	if !ok {
		return false
	}
	_, auth := st.HTTPStatus()
	return auth != 0
}

// fail ends the session for a failure of conn. A refusal of the
// credentials is named as such whichever side saw it first: the SDK
// fails the whole connection on a 401, so the read loop can see the
// failure before the write that got the 401 returns.
func (b *bridge) fail(conn mcp.Connection, err error) {
	if st, ok := conn.(statuser); ok {
		if _, auth := st.HTTPStatus(); auth != 0 {
			b.end(b.authReason(auth))
			return
		}
	}
	b.end(err.Error())
}

func (b *bridge) authReason(code int) string {
	return fmt.Sprintf("%s: the server refused the credentials (HTTP %d); the guard runs no OAuth flow: give the client's token in a header or the environment the config names", b.what, code)
}

// write sends one message on the chosen connection. A failure ends the
// session: the request did not reach the server, or the server refused
// the credentials, and a client waiting on it must not wait forever.
func (b *bridge) write(msg jsonrpc.Message) {
	b.mu.Lock()
	conn := b.conn
	b.mu.Unlock()
	err := conn.Write(b.ctx, msg)
	if b.ctx.Err() != nil {
		return
	}
	if err != nil || refusedAuth(conn) {
		b.fail(conn, err)
		return
	}
	if n, ok := msg.(*jsonrpc.Request); ok && !n.IsCall() && n.Method == "notifications/initialized" {
		b.listen.Do(func() { b.openStandalone(conn) })
	}
}

// openStandalone opens the standalone GET stream of a streamable HTTP
// session once the handshake is over, so that what the server sends
// outside any request (an unprompted list_changed, a log line, a request
// of its own) reaches the client, through the same checks as a response.
func (b *bridge) openStandalone(conn mcp.Connection) {
	l, ok := conn.(interface {
		Listen(context.Context, func(string))
	})
	if !ok {
		return
	}
	l.Listen(b.ctx, func(reason string) {
		b.s.logf("server %q: %s", b.s.o.Server, escape(b.redact(reason)))
	})
}

// down reads the server's messages and hands each, as one line, to the
// same checks as a stdio server's output.
func (b *bridge) down() {
	s := b.s
	defer close(s.downDone)
	var conn mcp.Connection
	select {
	case conn = <-b.conns:
	case <-b.ctx.Done():
		return
	}
	for {
		msg, err := conn.Read(b.ctx)
		if b.ctx.Err() != nil || s.stopped.Load() {
			return
		}
		if err != nil {
			// The streamable connection a fallback replaced ends here;
			// its successor carries on. b.mu is held while a fallback
			// runs, so this waits for its outcome.
			b.mu.Lock()
			replaced := b.conn != conn
			b.mu.Unlock()
			if replaced {
				select {
				case conn = <-b.conns:
					continue
				case <-b.ctx.Done():
					return
				}
			}
			b.fail(conn, err)
			return
		}
		line, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			b.end("a message that cannot be encoded: " + err.Error())
			return
		}
		if len(line) > s.o.MaxMessageBytes {
			s.misbehaved(fmt.Sprintf("sent a message over --max-message-bytes=%d", s.o.MaxMessageBytes))
			return
		}
		b.noteVersion(msg)
		b.busy.Add(1)
		s.fromServer(append(line, '\n'))
		b.busy.Add(-1)
	}
}

// noteVersion sets the MCP-Protocol-Version header from the answer to
// initialize, before the client can send its next request. The spec
// (2025-06-18, "Protocol Version Header"): "the client MUST include the
// MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent
// requests to the MCP server".
func (b *bridge) noteVersion(msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil || len(r.Result) == 0 {
		return
	}
	b.s.pmu.Lock()
	p := b.s.pending[sdkIDKey(r.ID)]
	b.s.pmu.Unlock()
	if p.method != "initialize" {
		return
	}
	ms, err := objectMembers(r.Result)
	if err != nil {
		return
	}
	raw, _ := get(ms, "protocolVersion")
	// The version goes into a header: only a plausible version token
	// ("2025-06-18") is taken, nothing a server could shape into another
	// header or a request line.
	if v, ok := jsonString(raw); ok && versionToken(v) {
		b.mu.Lock()
		conn := b.conn
		b.mu.Unlock()
		if c, ok := conn.(interface{ SetProtocolVersion(string) }); ok {
			c.SetProtocolVersion(v)
		}
	}
}

// runRemote is run for a remote server: the same client loop, the same
// checks, the HTTP side in place of a process.
func (s *session) runRemote(ctx context.Context) int {
	b := newBridge(s, *s.o.Remote)
	s.remote = b
	go s.up()
	go b.down()
	var ev event
	select {
	case ev = <-s.events:
	case <-ctx.Done():
		ev = event{kind: "interrupted"}
	}
	if ev.kind == "interrupted" {
		s.logf("interrupted: closing the session with server %q", s.o.Server)
	}
	if ev.kind == "client-eof" {
		// Answers in flight when the client closed still go out, for as
		// long as a stdio server would have to exit (StopWait).
		s.waitPending(s.o.StopWait)
		s.omu.Lock()
		s.out.Flush()
		s.stopped.Store(true)
		s.omu.Unlock()
	}
	b.close()
	select {
	case <-s.downDone:
	case <-time.After(time.Second):
	}
	if c := s.refused.Load(); c != 0 {
		return int(c)
	}
	if s.warned.Load() {
		return ExitRefused
	}
	return ExitOK
}

// waitPending waits until no request is in flight, the session was
// refused, or d has passed.
func (s *session) waitPending(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && !s.stopped.Load() {
		s.pmu.Lock()
		n := len(s.pending)
		s.pmu.Unlock()
		if n == 0 && s.remote.busy.Load() == 0 {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func versionToken(v string) bool {
	if v == "" || len(v) > 32 {
		return false
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
