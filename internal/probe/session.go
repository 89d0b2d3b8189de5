package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is a raw JSON-RPC client over an SDK connection. Results stay
// json.RawMessage, byte for byte as the server sent them: the typed
// ClientSession drops unknown fields and rewrites schemas, which would make
// the lock pin something other than what the model reads.
type session struct {
	conn mcp.Connection
	// meta is merged into every request's params._meta (the 2026-07-28
	// revision carries protocol version and client capabilities per request).
	meta map[string]any
	// answer responds to the server's own requests.
	answer func(method string, params json.RawMessage) (any, *jsonrpc.Error)
	// tap sees every payload the server sends (results, errors, params):
	// for an answer, the method of our request and what it named (the
	// tool of a tools/call, the prompt of a prompts/get, the uri of a
	// resources/read); for a server's own request or notification, its
	// method and "". phase is the probe's phase when the payload came in.
	// An answer is tapped after its caller has it (a tap scans the whole
	// payload for canaries: milliseconds for a large tools/list that the
	// probe need not wait for); run returns only after its last tap.
	// request is the params of our request an answer answers (nil for
	// anything else): what the checker asked for.
	tap   func(phase, method, subject string, request json.RawMessage, payload []byte)
	phase func() string

	mu      sync.Mutex
	nextID  int64
	pending map[jsonrpc.ID]pendingCall
	notes   []*jsonrpc.Request // notifications not yet taken
	readErr error
	dead    chan struct{}
}

func newSession(conn mcp.Connection) *session {
	return &session{conn: conn, pending: map[jsonrpc.ID]pendingCall{}, dead: make(chan struct{})}
}

// pendingCall is a request waiting for its response.
type pendingCall struct {
	method  string
	subject string // the tool, prompt or uri the request named (callSubject)
	params  json.RawMessage
	ch      chan *jsonrpc.Response
}

// callSubject is what a request names: the tool of tools/call, the prompt
// of prompts/get, the uri of resources/read ("" for any other).
func callSubject(method string, params map[string]any) string {
	key := "name"
	switch method {
	case "tools/call", "prompts/get":
	case "resources/read":
		key = "uri"
	default:
		return ""
	}
	s, _ := params[key].(string)
	return s
}

// run reads until the connection fails. Responses go to their callers,
// requests from the server are answered at once (a server waiting on
// roots/list stalls otherwise), notifications are queued.
func (s *session) run(ctx context.Context) {
	defer close(s.dead)
	for {
		msg, err := s.conn.Read(ctx)
		if err != nil {
			s.mu.Lock()
			s.readErr = err
			for id, pc := range s.pending {
				close(pc.ch)
				delete(s.pending, id)
			}
			s.mu.Unlock()
			return
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			s.response(m)
		case *jsonrpc.Request:
			s.request(ctx, m)
		}
	}
}

// response hands a response to the call waiting for it, and to the tap.
func (s *session) response(m *jsonrpc.Response) {
	s.mu.Lock()
	pc, ok := s.pending[m.ID]
	delete(s.pending, m.ID)
	s.mu.Unlock()
	phase := s.phaseNow()
	if ok {
		pc.ch <- m
	}
	if s.tap != nil {
		if m.Result != nil {
			s.tap(phase, pc.method, pc.subject, pc.params, m.Result)
		}
		if m.Error != nil {
			s.tap(phase, pc.method, pc.subject, pc.params, []byte(m.Error.Error()))
		}
	}
}

// request keeps a notification from the server, or answers its call.
func (s *session) request(ctx context.Context, m *jsonrpc.Request) {
	if s.tap != nil && m.Params != nil {
		s.tap(s.phaseNow(), m.Method, "", nil, m.Params)
	}
	if !m.IsCall() {
		s.mu.Lock()
		s.notes = append(s.notes, m)
		s.mu.Unlock()
		return
	}
	result, rpcErr := s.answer(m.Method, m.Params)
	resp := &jsonrpc.Response{ID: m.ID}
	if rpcErr != nil {
		resp.Error = rpcErr
	} else {
		b, err := json.Marshal(result)
		if err != nil {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		} else {
			resp.Result = b
		}
	}
	// A failed write shows up as a read error next.
	_ = s.conn.Write(ctx, resp)
}

func (s *session) phaseNow() string {
	if s.phase == nil {
		return ""
	}
	return s.phase()
}

// takeNotifications returns and clears the queued notifications.
func (s *session) takeNotifications() []*jsonrpc.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes
	s.notes = nil
	return n
}

// RPCError is a JSON-RPC error the server answered with.
type RPCError struct {
	Method string
	Err    *jsonrpc.Error
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("%s: JSON-RPC error %d: %s", e.Method, e.Err.Code, e.Err.Message)
}

// errConnection marks a request that failed because the connection did.
var errConnection = errors.New("connection failed")

// plainConnErr says what a broken connection to a server that exited
// means, one way: whether our read or our write noticed first, Go's own
// text for it ("read |0: file already closed", "write |1: broken pipe")
// is no message for a user, and two texts for one event made reports
// differ from run to run.
func plainConnErr(err error) error {
	if err == nil {
		return io.EOF
	}
	if errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) {
		return io.EOF
	}
	return err
}

// call sends a request and waits for its response.
func (s *session) call(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	if params == nil {
		params = map[string]any{}
	}
	if len(s.meta) > 0 {
		m, _ := params["_meta"].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for k, v := range s.meta {
			m[k] = v
		}
		params["_meta"] = m
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.readErr != nil {
		err := s.readErr
		s.mu.Unlock()
		return nil, fmt.Errorf("%s: %w: %w", method, errConnection, plainConnErr(err))
	}
	s.nextID++
	id, _ := jsonrpc.MakeID(float64(s.nextID))
	ch := make(chan *jsonrpc.Response, 1)
	s.pending[id] = pendingCall{method: method, subject: callSubject(method, params), params: raw, ch: ch}
	s.mu.Unlock()

	req := &jsonrpc.Request{ID: id, Method: method, Params: raw}
	if err := s.conn.Write(ctx, req); err != nil {
		s.forget(id)
		return nil, fmt.Errorf("%s: %w: %w", method, errConnection, plainConnErr(err))
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			s.mu.Lock()
			err := s.readErr
			s.mu.Unlock()
			return nil, fmt.Errorf("%s: %w: %w", method, errConnection, plainConnErr(err))
		}
		if resp.Error != nil {
			var we *jsonrpc.Error
			if !errors.As(resp.Error, &we) {
				we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
			}
			return nil, &RPCError{Method: method, Err: we}
		}
		return resp.Result, nil
	case <-ctx.Done():
		s.forget(id)
		return nil, fmt.Errorf("%s: no answer: %w", method, ctx.Err())
	}
}

func (s *session) forget(id jsonrpc.ID) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// notify sends a notification.
func (s *session) notify(ctx context.Context, method string, params any) error {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return err
		}
		raw = b
	}
	return s.conn.Write(ctx, &jsonrpc.Request{Method: method, Params: raw})
}
