package guard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/policy"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestMain re-executes this test binary as the fake MCP server (when
// FAKE_SCENARIO is set) and as the sandbox helper.
func TestMain(m *testing.M) {
	sandbox.HelperMain()
	fakeserver.MaybeRun()
	if os.Getenv(envBridgeLock) != "" {
		os.Exit(bridgeMain())
	}
	// Launch servers from a process that is not dumpable, as the checker
	// (cli.Main) is: strict once failed for every user but root for that
	// alone, and only outside the tests.
	if err := sandbox.ProtectSelf(); err != nil {
		panic(err)
	}
	// The guard processes the sessions start are this binary again, and
	// each client waits for its guard to exit: no race-detector exit
	// sleep in them (testproc.RaceOptions).
	os.Setenv("GORACE", testproc.RaceOptions())
	os.Exit(m.Run())
}

// self is this test binary, the fake server's command.
func self(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// pinFake pins a fake scenario under name with check.Pin (one launch, no
// warm-up calls: the honest state of a rug-pull scenario is what gets
// approved).
func pinFake(t testing.TB, name, scenario string) *lock.File {
	t.Helper()
	return pinFakeWith(t, name, scenario, nil)
}

// pinFakeWith is pinFake with the policy's settings per server.
func pinFakeWith(t testing.TB, name, scenario string, perServer func(string) policy.Settings) *lock.File {
	t.Helper()
	srv := config.Server{Name: name, Type: "stdio", Command: self(t), Env: map[string]string{"FAKE_SCENARIO": scenario}, File: ".mcp.json", Line: 1, Client: "claude-code"}
	opts := check.Options{
		Servers: []config.Server{srv}, All: true, LockPath: "mcp-lock.json",
		Probe:         probe.Options{Launches: 1, RequestTimeout: 20 * time.Second, Protocol: "legacy"},
		ServerTimeout: time.Minute,
		Sandbox:       sandbox.Options{Level: sandbox.Off},
		FailOn:        finding.Error,
		Jobs:          1,
	}
	if perServer != nil {
		opts.Policy = settingsFunc(perServer)
	}
	lk, r := check.Pin(context.Background(), opts, approval.Approver{By: "test@example.com", At: time.Unix(0, 0)})
	if lk == nil {
		var b strings.Builder
		for _, f := range r.Findings() {
			b.WriteString(string(f.Rule) + " " + f.Subject + " " + f.Message + "\n")
		}
		t.Fatalf("pin of %s wrote nothing:\n%s", scenario, b.String())
	}
	return lk
}

// syncBuffer is a bytes.Buffer safe to write from the guard and the
// server's stderr copier while a test reads it.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	grew chan struct{} // closed by the next write, for waitFor; nil when no one waits
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grew != nil {
		close(s.grew)
		s.grew = nil
	}
	return s.b.Write(p)
}

// waitFor reports whether the buffer holds want within timeout, looking
// again on each write rather than on a clock.
func (s *syncBuffer) waitFor(want string, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), want) {
			s.mu.Unlock()
			return true
		}
		if s.grew == nil {
			s.grew = make(chan struct{})
		}
		grew := s.grew
		s.mu.Unlock()
		select {
		case <-grew:
		case <-deadline:
			return strings.Contains(s.String(), want)
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// client is an MCP client speaking raw JSON-RPC (the SDK's jsonrpc types)
// to a guard running in-process over pipes. It answers the server's own
// requests (roots/list, ping) itself and queues everything else.
type client struct {
	t      *testing.T
	wmu    sync.Mutex
	in     *io.PipeWriter
	msgs   chan jsonrpc.Message
	raw    *syncBuffer // every byte the client received
	stderr *syncBuffer
	done   chan int
	pid    chan int
	roots  []string
}

type guardSpec struct {
	lock     *lock.File
	server   string
	scenario string
	mode     Mode
	command  string
	args     []string
	env      map[string]string
	// sandbox isolates the server (the zero value: off, the run-time
	// default).
	sandbox sandbox.Options
}

func startGuard(t *testing.T, g guardSpec) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, msgs: make(chan jsonrpc.Message, 1000), raw: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan int, 1), pid: make(chan int, 1)}
	env := g.env
	if g.scenario != "" {
		env = map[string]string{"FAKE_SCENARIO": g.scenario}
	}
	command := g.command
	if command == "" {
		command = self(t)
	}
	o := Options{
		Lock: g.lock, LockPath: "mcp-lock.json", Server: g.server, Mode: g.mode,
		Command: command, Args: g.args, Env: env, Sandbox: g.sandbox,
		Stdin: inR, Stdout: outW, Stderr: c.stderr,
		Started: func(pid int) { c.pid <- pid },
	}
	go func() {
		code := Run(context.Background(), o)
		outW.Close()
		inR.Close()
		c.done <- code
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.raw.Write(append(sc.Bytes(), '\n'))
			m, err := jsonrpc.DecodeMessage(sc.Bytes())
			if err != nil {
				t.Errorf("client got a line it cannot decode: %v: %q", err, sc.Text())
				continue
			}
			if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
				switch r.Method {
				case "roots/list":
					roots := []map[string]string{}
					for _, u := range c.roots {
						roots = append(roots, map[string]string{"uri": u, "name": "root"})
					}
					res, _ := json.Marshal(map[string]any{"roots": roots})
					c.write(&jsonrpc.Response{ID: r.ID, Result: res})
					continue
				case "ping":
					c.write(&jsonrpc.Response{ID: r.ID, Result: json.RawMessage(`{}`)})
					continue
				}
			}
			c.msgs <- m
		}
		close(c.msgs)
	}()
	return c
}

func (c *client) write(m jsonrpc.Message) {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		c.t.Fatal(err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.in.Write(append(b, '\n'))
}

// call sends a request with id (an int64 or a string).
func (c *client) call(id any, method string, params any) {
	c.t.Helper()
	rid := mustID(id)
	var p json.RawMessage
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			c.t.Fatal(err)
		}
	}
	c.write(&jsonrpc.Request{ID: rid, Method: method, Params: p})
}

func (c *client) notify(method string) {
	c.write(&jsonrpc.Request{Method: method})
}

// waitTimeout guards against a hang; it is not a measurement.
const waitTimeout = 30 * time.Second

// response waits for the next response; ok is false when the guard closed
// its output first.
func (c *client) response() (*jsonrpc.Response, bool) {
	c.t.Helper()
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				return nil, false
			}
			if r, ok := m.(*jsonrpc.Response); ok {
				return r, true
			}
		case <-time.After(waitTimeout):
			c.t.Fatalf("no response within %s; received:\n%.3000s\nstderr:\n%s", waitTimeout, c.raw.String(), c.stderr.String())
		}
	}
}

// result sends a request and wants a result back for it.
func (c *client) result(id any, method string, params any) json.RawMessage {
	c.t.Helper()
	c.call(id, method, params)
	r, ok := c.response()
	if !ok {
		c.t.Fatalf("%s: the guard closed the session; stderr:\n%s", method, c.stderr.String())
	}
	if r.Error != nil {
		c.t.Fatalf("%s: error %v; stderr:\n%s", method, r.Error, c.stderr.String())
	}
	if r.ID.Raw() != (mustID(id)).Raw() {
		c.t.Fatalf("%s: answer for id %v, want %v", method, r.ID.Raw(), id)
	}
	return r.Result
}

// refused sends a request and wants CodeRefused back for it.
func (c *client) refused(id any, method string, params any) *jsonrpc.Error {
	c.t.Helper()
	c.call(id, method, params)
	r, ok := c.response()
	if !ok {
		c.t.Fatalf("%s: the guard closed the session without answering; stderr:\n%s", method, c.stderr.String())
	}
	if r.ID.Raw() != mustID(id).Raw() {
		c.t.Fatalf("%s: answer for id %v, want %v", method, r.ID.Raw(), id)
	}
	var we *jsonrpc.Error
	if r.Error == nil {
		c.t.Fatalf("%s: got a result, want error %d: %s", method, CodeRefused, r.Result)
	}
	if !asWire(r.Error, &we) || we.Code != CodeRefused {
		c.t.Fatalf("%s: error %v, want code %d", method, r.Error, CodeRefused)
	}
	return we
}

func asWire(err error, out **jsonrpc.Error) bool {
	we, ok := err.(*jsonrpc.Error)
	*out = we
	return ok
}

func mustID(v any) jsonrpc.ID {
	if n, ok := v.(int); ok {
		v = float64(n)
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

func (c *client) initialize() {
	c.t.Helper()
	c.result(0, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{"roots": map[string]any{"listChanged": true}},
		"clientInfo":      map[string]any{"name": "claude-code", "version": "2.0.0"},
	})
	c.notify("notifications/initialized")
}

// close closes the client's side and returns the guard's exit code.
func (c *client) close() int {
	c.t.Helper()
	c.in.Close()
	return c.exit()
}

// exit waits for the guard to end.
func (c *client) exit() int {
	c.t.Helper()
	select {
	case code := <-c.done:
		return code
	case <-time.After(waitTimeout):
		c.t.Fatalf("the guard did not exit; stderr:\n%s", c.stderr.String())
	}
	return -1
}

// drain reads what is left until the guard closes its output.
func (c *client) drain() []jsonrpc.Message {
	var out []jsonrpc.Message
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				return out
			}
			out = append(out, m)
		case <-time.After(waitTimeout):
			c.t.Fatalf("the guard did not close its output; stderr:\n%s", c.stderr.String())
		}
	}
}

// settingsFunc is a check.Policy that gives each server the settings f
// returns, whatever the caller fixed.
type settingsFunc func(server string) policy.Settings

func (f settingsFunc) Effective(server string, _ policy.Fixed) policy.Settings { return f(server) }
