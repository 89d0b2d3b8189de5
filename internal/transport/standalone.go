package transport

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The standalone GET stream of streamable HTTP carries what a server sends
// outside any request: an unprompted list_changed, a log line, a request
// of its own. The SDK's transport opens it only for its typed
// ClientSession (through an unexported hook), which neither the probe nor
// the guard uses, since the typed session drops the fields they check. So
// the stream is opened here, on the connection's own HTTP client (the
// configured headers, the session id, the negotiated protocol version,
// same-origin redirects, per-event size cap), its events are framed by a
// maintained event-stream reader (tmaxmax/go-sse), and each message is
// decoded by the SDK's jsonrpc.DecodeMessage and delivered through the
// connection's Read, in order with everything else the server sends. What
// the stream carries is therefore checked exactly like a response.

// standaloneRetries bounds the reconnects in a row that deliver nothing; a
// stream that delivers resets the count, as the SDK's does.
const standaloneRetries = 5

// standaloneDelay is the first wait before a reconnect (then ×1.5 each
// time); a variable for tests.
var standaloneDelay = time.Second

// quietStatus marks a request whose HTTP status must not count as the
// connection's: a server that refuses the optional GET stream (404, 401)
// has not refused the session.
type quietStatus struct{}

// Listen opens the standalone GET stream of a streamable HTTP session, once
// the handshake is over (the caller calls it after notifications/initialized
// went out: a server may refuse the stream before it). Messages arrive
// through Read. A server that offers no stream (405, another status, not an
// event stream) is left alone: the stream is optional. A malformed message
// on it fails the connection, as one on a response stream does. logf
// reports why the stream ended, for stderr; it is called with text the
// server chose, which the caller escapes and redacts.
//
// Listen does nothing for HTTP+SSE (its one stream is the connection) and
// from protocol 2026-07-28 on, which removed the standalone stream
// (SEP-2575: a client subscribes with a request instead).
func (c *remoteConn) Listen(ctx context.Context, logf func(string)) {
	if c.what != "streamable HTTP" {
		return
	}
	if v := c.rt.version.Load(); v != nil && *v >= "2026-07-28" {
		return
	}
	go c.listen(ctx, logf)
}

func (c *remoteConn) listen(ctx context.Context, logf func(string)) {
	client := &http.Client{Transport: c.rt, CheckRedirect: sameOriginRedirect(c.rt.origin)}
	lastID := ""
	delay := standaloneDelay
	for fails := 0; ; {
		got, done, err := c.standalone(ctx, client, &lastID)
		if ctx.Err() != nil {
			return
		}
		if done {
			if err != nil {
				logf("standalone event stream: " + err.Error())
			}
			return
		}
		if got {
			fails, delay = 0, standaloneDelay
		}
		if fails++; fails > standaloneRetries {
			logf(fmt.Sprintf("standalone event stream: gave up after %d reconnects: %v", standaloneRetries, err))
			return
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
		delay = delay * 3 / 2
	}
}

// standalone makes one GET and reads its events until the stream ends. got
// says a message arrived; done that there is nothing to reconnect to.
func (c *remoteConn) standalone(ctx context.Context, client *http.Client, lastID *string) (got, done bool, err error) {
	req, err := http.NewRequestWithContext(context.WithValue(ctx, quietStatus{}, true), http.MethodGet, c.rt.origin.String(), nil)
	if err != nil {
		return false, true, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if id := c.Connection.SessionID(); id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	if *lastID != "" {
		req.Header.Set("Last-Event-ID", *lastID)
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, false, redactErr(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusMethodNotAllowed {
		return false, true, nil // "the server does not offer an SSE stream at this endpoint"
	}
	if resp.StatusCode != http.StatusOK {
		return false, true, fmt.Errorf("HTTP %d: not opened", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return false, true, fmt.Errorf("answered with %q, not an event stream: not opened", mt)
	}
	for ev, rerr := range sse.Read(resp.Body, &sse.ReadConfig{MaxEventSize: int(c.rt.limit)}) {
		if rerr != nil {
			if ctx.Err() == nil && !errors.Is(rerr, context.Canceled) {
				return got, false, rerr
			}
			return got, false, nil
		}
		if ev.LastEventID != "" {
			*lastID = ev.LastEventID
		}
		// A priming event (an id, no data) carries no message; an event
		// of another type is not MCP's.
		if ev.Data == "" || ev.Type != "" && ev.Type != "message" {
			continue
		}
		msg, derr := jsonrpc.DecodeMessage([]byte(ev.Data))
		if derr != nil {
			derr = fmt.Errorf("%s: the standalone event stream carried a message that is not JSON-RPC: %w", c.what, derr)
		}
		select {
		case c.in <- readResult{msg: msg, err: derr}:
		case <-ctx.Done():
			return got, true, nil
		}
		if derr != nil {
			return got, true, nil
		}
		got = true
	}
	return got, false, errors.New("the server ended the stream")
}
