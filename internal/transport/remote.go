// Package transport is the MCP transport at the connection level, as the
// probe and the guard both speak it: the go-sdk's streamable HTTP and
// HTTP+SSE client transports wrapped with what a raw connection needs
// (headers, the protocol version header, capped bodies, same-origin
// redirects, HTTP refusals as JSON-RPC errors), and the test of which
// stdout lines of a stdio server a client reads as messages.
package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersionHeader is the header a streamable HTTP client sends on
// every request after initialization. The spec (2025-06-18, "Protocol
// Version Header"): "the client MUST include the MCP-Protocol-Version:
// <protocol-version> HTTP header on all subsequent requests to the MCP
// server". The SDK's transport sets it only for its own typed
// ClientSession, which the probe does not use (it drops fields): the
// connectors add it in a RoundTripper from the version the probe
// negotiated.
const ProtocolVersionHeader = "MCP-Protocol-Version"

// RemoteOptions shape the HTTP client of a remote connection (a probe's or
// the guard's).
type RemoteOptions struct {
	// Timeout bounds connecting (DNS, TCP, TLS handshake) and the wait
	// for one response's headers. Default 30s. It does not bound a whole
	// response: an event stream stays open for the launch, and each
	// request is bounded by the probe's RequestTimeout.
	Timeout time.Duration
	// MaxMessageBytes caps one message: a JSON response body, or one
	// server-sent event. Default 16 MiB, as for stdio.
	MaxMessageBytes int
	// RootCAs replaces the system roots the server's certificate is
	// verified against (a private CA). Verification itself is never off.
	RootCAs *x509.CertPool
	// ResponseTimeout bounds the wait for one response's headers when it
	// differs from Timeout: a negative value means no bound (the guard: a
	// tool the client calls may take as long as the client lets it, and
	// the client's own time-out and cancellation still apply).
	ResponseTimeout time.Duration
}

func (o *RemoteOptions) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 16 << 20
	}
	switch {
	case o.ResponseTimeout == 0:
		o.ResponseTimeout = o.Timeout
	case o.ResponseTimeout < 0:
		o.ResponseTimeout = 0 // http.Transport: no limit
	}
}

// Connector opens one launch's connection (the probe's Options.Connect).
type Connector = func(ctx context.Context, launch int) (mcp.Connection, func(), error)

// HTTPConnector connects to a server over streamable HTTP. headers are sent
// on every request to the server's own origin (never to another host a
// redirect or an SSE endpoint points at); their values are secrets the
// caller expanded and are not recorded anywhere. Each launch is a new
// session on a new HTTP transport, as a relaunched client would open.
func HTTPConnector(endpoint string, headers map[string]string, opts RemoteOptions) Connector {
	opts.defaults()
	return connector("streamable HTTP", endpoint, headers, opts, func(c *http.Client) mcp.Transport {
		return &mcp.StreamableClientTransport{
			Endpoint:     endpoint,
			HTTPClient:   c,
			MaxEventSize: opts.MaxMessageBytes,
			// The SDK opens the standalone GET stream from its typed
			// session only; a raw connection opens it with Listen
			// (standalone.go). The probe does not: it re-lists after
			// every call. The guard does, for its client.
			DisableStandaloneSSE: true,
		}
	})
}

// SSEConnector connects to a server over the deprecated HTTP+SSE transport
// (a GET event stream, messages POSTed to the endpoint it announces).
func SSEConnector(endpoint string, headers map[string]string, opts RemoteOptions) Connector {
	opts.defaults()
	return connector("SSE", endpoint, headers, opts, func(c *http.Client) mcp.Transport {
		return &mcp.SSEClientTransport{Endpoint: endpoint, HTTPClient: c, MaxEventSize: opts.MaxMessageBytes}
	})
}

func connector(what, endpoint string, headers map[string]string, opts RemoteOptions, transport func(*http.Client) mcp.Transport) Connector {
	return func(ctx context.Context, _ int) (mcp.Connection, func(), error) {
		u, err := url.Parse(endpoint)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: the url is not valid: %v", what, redactErr(err))
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return nil, nil, fmt.Errorf("%s: the url must be http:// or https:// with a host", what)
		}
		rt := newRemoteTransport(u, headers, opts)
		client := &http.Client{Transport: rt, CheckRedirect: sameOriginRedirect(u)}
		inner, err := transport(client).Connect(ctx)
		if err != nil {
			rt.base.CloseIdleConnections()
			return nil, nil, fmt.Errorf("%s: cannot connect: %v", what, err)
		}
		c := newRemoteConn(what, inner, rt)
		return c, c.shutdown, nil
	}
}

// sameOriginRedirect follows a redirect only within the configured
// origin: the configured headers (credentials) would otherwise go to a
// host the config never named, and an https endpoint is never downgraded.
func sameOriginRedirect(u *url.URL) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("more than 5 redirects")
		}
		if !sameOrigin(u, req.URL) {
			return fmt.Errorf("redirected to another origin (%s://%s); not followed", req.URL.Scheme, req.URL.Host)
		}
		return nil
	}
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// remoteTransport adds the configured headers and the negotiated protocol
// version to every request, and caps what one response may hold.
type remoteTransport struct {
	base    *http.Transport
	origin  *url.URL
	headers http.Header
	version atomic.Pointer[string]
	limit   int64
	// status is the latest response's HTTP status; auth the first 401 or
	// 403, sticky: credentials refused once are not trusted again.
	status, auth atomic.Int32
}

func newRemoteTransport(u *url.URL, headers map[string]string, opts RemoteOptions) *remoteTransport {
	d := &net.Dialer{Timeout: opts.Timeout, KeepAlive: 30 * time.Second}
	base := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.DialContext,
		ForceAttemptHTTP2:   true,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: opts.RootCAs},
		TLSHandshakeTimeout: opts.Timeout,
		// A streamable server answering with application/json sends its
		// headers with the result: a slow tool is bounded here and by the
		// probe's per-request context.
		ResponseHeaderTimeout:  opts.ResponseTimeout,
		MaxResponseHeaderBytes: 1 << 20,
		IdleConnTimeout:        30 * time.Second,
	}
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	return &remoteTransport{base: base, origin: u, headers: h, limit: int64(opts.MaxMessageBytes)}
}

func (t *remoteTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// A RoundTripper must not modify the caller's request.
	req = req.Clone(req.Context())
	if sameOrigin(t.origin, req.URL) {
		for k, vs := range t.headers {
			// What the transport set itself (Content-Type, Accept,
			// Mcp-Session-Id, Last-Event-ID) is the protocol's; a
			// configured header does not replace it.
			if _, ok := req.Header[k]; !ok {
				req.Header[k] = vs
			}
		}
	}
	if v := t.version.Load(); v != nil && req.Header.Get(ProtocolVersionHeader) == "" {
		req.Header.Set(ProtocolVersionHeader, *v)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if req.Context().Value(quietStatus{}) != nil {
		return resp, nil // the standalone stream: an event stream, capped per event
	}
	t.status.Store(int32(resp.StatusCode))
	if resp.StatusCode >= 400 {
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			t.auth.CompareAndSwap(0, int32(resp.StatusCode))
		}
	}
	// An event stream lives for the launch and is capped per event by the
	// SDK (MaxEventSize); anything else is one message and is capped whole.
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body = &cappedBody{r: resp.Body, left: t.limit, limit: t.limit}
	}
	return resp, nil
}

// cappedBody fails a read past limit bytes instead of buffering a body a
// server made endless.
type cappedBody struct {
	r           io.ReadCloser
	left, limit int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("the response is larger than %d bytes", b.limit)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, fmt.Errorf("the response is larger than %d bytes", b.limit)
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.r.Close() }

// remoteConn is the SDK's client connection with what the probe needs of
// a remote one: SetProtocolVersion (the header), HTTP-level rejections
// delivered as the JSON-RPC errors they carry, and failures named.
type remoteConn struct {
	mcp.Connection
	what string
	rt   *remoteTransport

	in     chan readResult // from the pump
	local  chan jsonrpc.Message
	cancel context.CancelFunc
	once   sync.Once
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func newRemoteConn(what string, inner mcp.Connection, rt *remoteTransport) *remoteConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &remoteConn{Connection: inner, what: what, rt: rt, in: make(chan readResult), local: make(chan jsonrpc.Message, 16), cancel: cancel}
	go c.pump(ctx)
	return c
}

// SetProtocolVersion sets the MCP-Protocol-Version header for every later
// request of this connection. The probe calls it once the handshake has
// settled the version.
func (c *remoteConn) SetProtocolVersion(v string) {
	if v != "" {
		c.rt.version.Store(&v)
	}
}

// HTTPStatus reports the latest response's HTTP status, and the first 401
// or 403 any response of this connection had (0: none). The SDK
// turns a refusal into an error text, or into a JSON-RPC error when the
// body holds one; the guard needs the status itself: a 4xx to the first
// POST means an HTTP+SSE server (the fallback), a 401 means credentials
// the server no longer accepts (the session ends).
func (c *remoteConn) HTTPStatus() (last, auth int) {
	return int(c.rt.status.Load()), int(c.rt.auth.Load())
}

// pump reads the SDK connection so that Read can also deliver responses
// made up locally by Write.
func (c *remoteConn) pump(ctx context.Context) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err == nil {
			if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
				var wire *jsonrpc.Error
				if !errors.As(r.Error, &wire) {
					// Not an error the server sent: the SDK's stand-in for
					// a response stream that ended before its answer. The
					// server broke the exchange; fail the connection rather
					// than let it pass as a JSON-RPC error.
					err = fmt.Errorf("the server ended the response stream before answering (%v)", r.Error)
				}
			}
		}
		if errors.Is(err, io.EOF) && ctx.Err() == nil {
			err = errors.New("the server closed the connection")
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", c.what, err)
		}
		select {
		case c.in <- readResult{msg, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *remoteConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.local:
		return m, nil
	default:
	}
	select {
	case m := <-c.local:
		return m, nil
	case r := <-c.in:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write sends a message. A request the server refused at the HTTP level
// with a JSON-RPC error in the body (a 400 "not initialized", a 404 for
// an unknown method) is answered with that error, as it would be over
// stdio; a refused server/discover means the server does not speak the
// stateless revision, so the probe falls back to initialize. Other
// failures are the connection's.
func (c *remoteConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%s: %w", c.what, err)
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() || ctx.Err() != nil {
		return err
	}
	wire := serverError(err)
	switch {
	case wire != nil:
	case req.Method == "server/discover":
		wire = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "server/discover refused at the HTTP level: " + err.Error()}
	default:
		return err
	}
	select {
	case c.local <- &jsonrpc.Response{ID: req.ID, Error: wire}:
		return nil
	default:
		return err
	}
}

// Close is shutdown: the probe closes through the function Connect returns.
func (c *remoteConn) Close() error {
	c.shutdown()
	return nil
}

// serverError finds the JSON-RPC error a server put in an HTTP error
// response, skipping the SDK's own "rejected by transport" marker (also a
// JSON-RPC error value), which says only that the request did not go
// through.
func serverError(err error) *jsonrpc.Error {
	var found *jsonrpc.Error
	var walk func(error) bool
	walk = func(e error) bool {
		if w, ok := e.(*jsonrpc.Error); ok && !(w.Code == -32005 && w.Message == "rejected by transport") {
			found = w
			return true
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			if n := u.Unwrap(); n != nil {
				return walk(n)
			}
		case interface{ Unwrap() []error }:
			for _, n := range u.Unwrap() {
				if walk(n) {
					return true
				}
			}
		}
		return false
	}
	walk(err)
	return found
}

// shutdown ends the session (the SDK sends DELETE for a streamable
// session), stops the pump and drops the launch's idle connections.
func (c *remoteConn) shutdown() {
	c.once.Do(func() {
		_ = c.Connection.Close()
		c.cancel()
		c.rt.base.CloseIdleConnections()
	})
}

// redactErr drops the URL from a url.Parse error: it can carry a token.
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
