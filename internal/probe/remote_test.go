package probe

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
)

// sdkServer is a go-sdk MCP server with one read-only tool whose
// description the test chooses.
func sdkServer(desc string, opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote-test", Version: "1.0.0"}, opts)
	s.AddTool(&mcp.Tool{
		Name:        "lookup",
		Description: desc,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	return s
}

// legacyOnly restricts a server to the initialize handshake, where the
// MCP-Protocol-Version header is the connector's job alone.
var legacyOnly = &mcp.ServerOptions{SupportedProtocolVersions: []string{LatestLegacy, "2025-06-18"}}

// seen records, per JSON-RPC method (or HTTP method for bodiless
// requests), the headers of every request the server received.
type seen struct {
	mu   sync.Mutex
	reqs []seenReq
}

type seenReq struct {
	method string
	header http.Header
}

func (s *seen) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := r.Method
		if r.Body != nil && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &m) == nil && m.Method != "" {
				method = m.Method
			}
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, seenReq{method, r.Header.Clone()})
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (s *seen) all() []seenReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenReq(nil), s.reqs...)
}

func TestRemoteTransports(t *testing.T) {
	tests := []struct {
		name      string
		sse       bool
		tls       bool
		protocol  string
		server    *mcp.ServerOptions
		stateless bool // a stateless streamable handler
		wantProto string
	}{
		{name: "http legacy", server: legacyOnly, wantProto: LatestLegacy},
		{name: "http auto", wantProto: LatestLegacy},
		{name: "http stateless", stateless: true, protocol: "stateless", wantProto: Stateless},
		{name: "http tls", tls: true, server: legacyOnly, wantProto: LatestLegacy},
		{name: "sse", sse: true, protocol: "legacy", wantProto: LatestLegacy},
		{name: "sse tls", sse: true, tls: true, protocol: "legacy", wantProto: LatestLegacy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := sdkServer("Looks a word up.", tc.server)
			var h http.Handler
			if tc.sse {
				h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
			} else {
				h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: tc.stateless})
			}
			var rec seen
			var hs *httptest.Server
			ropts := transport.RemoteOptions{Timeout: 10 * time.Second}
			if tc.tls {
				hs = quietTLS(rec.wrap(h))
				pool := x509.NewCertPool()
				pool.AddCert(hs.Certificate())
				ropts.RootCAs = pool
			} else {
				hs = httptest.NewServer(rec.wrap(h))
			}
			defer hs.Close()
			headers := map[string]string{"X-Api-Key": "k-123456", "Content-Type": "text/plain"}
			target := Remote{URL: hs.URL, Headers: headers, SSE: tc.sse, Options: ropts}
			res := Run(context.Background(), target, Options{Launches: 2, WarmupCalls: 1, Protocol: tc.protocol,
				Calls: []Call{{Tool: "lookup", Arguments: json.RawMessage(`{"q":"x"}`)}}, RequestTimeout: 10 * time.Second})
			if res.Err != nil {
				t.Fatalf("probe failed at %s: %v", res.Phase, res.Err)
			}
			if len(res.Observations) != 4 {
				t.Fatalf("observations = %d, want 4 (2 launches x initial, after-call-1)", len(res.Observations))
			}
			o := res.Observations[0]
			if got := toolNames(o); len(got) != 1 || got[0] != "lookup" {
				t.Errorf("tools = %v", got)
			}
			t.Logf("negotiated %s", o.ProtocolVersion)
			if tc.wantProto != "" && o.ProtocolVersion != tc.wantProto {
				t.Errorf("protocol version = %q, want %q", o.ProtocolVersion, tc.wantProto)
			}
			if len(res.Calls) != 2 || res.Calls[0].Outcome != "ok" {
				t.Errorf("calls = %+v", res.Calls)
			}
			// Every request carries the configured header; a header the
			// transport sets itself is not replaced; every request after
			// the handshake carries the negotiated version.
			afterInit := false
			for _, r := range rec.all() {
				if r.header.Get("X-Api-Key") != "k-123456" {
					t.Errorf("%s: X-Api-Key = %q", r.method, r.header.Get("X-Api-Key"))
				}
				if ct := r.header.Get("Content-Type"); r.method != http.MethodGet && r.method != http.MethodDelete && ct != "application/json" {
					t.Errorf("%s: the configured Content-Type replaced the transport's", r.method)
				}
				switch r.method {
				case "initialize", "server/discover", http.MethodGet:
					afterInit = false
					continue
				}
				if r.method == "notifications/initialized" {
					afterInit = true
				}
				if !afterInit && !tc.sse && o.ProtocolVersion != Stateless {
					t.Errorf("%s before notifications/initialized", r.method)
				}
				if got := r.header.Get(transport.ProtocolVersionHeader); got != o.ProtocolVersion {
					t.Errorf("%s: %s = %q, want %q", r.method, transport.ProtocolVersionHeader, got, o.ProtocolVersion)
				}
			}
		})
	}
}

// TestRemoteTLSVerified: a certificate the client does not trust fails
// the connection; verification is never turned off.
func TestRemoteTLSVerified(t *testing.T) {
	srv := sdkServer("x", legacyOnly)
	hs := quietTLS(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	res := Run(context.Background(), Remote{URL: hs.URL, Options: transport.RemoteOptions{Timeout: 5 * time.Second}}, Options{RequestTimeout: 5 * time.Second})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "certificate") {
		t.Fatalf("err = %v, want a certificate error", res.Err)
	}
}

// quietTLS is an httptest TLS server that does not log the handshakes a
// test makes fail on purpose.
func quietTLS(h http.Handler) *httptest.Server {
	hs := httptest.NewUnstartedServer(h)
	hs.Config.ErrorLog = log.New(io.Discard, "", 0)
	hs.StartTLS()
	return hs
}

// rawServer answers streamable HTTP POSTs with fixed bodies per method.
func rawServer(t *testing.T, bodies map[string]string) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		body, ok := bodies[m.Method]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"method not found"}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+body+`}`)
	}))
	t.Cleanup(hs.Close)
	return hs
}

const rawTool = `{"name":"t","description":"caf\u00e9 café","x-extra":{"b":1.0,"a":-0},"inputSchema":{"type":"object"}}`

// TestRemoteRawBytes: what the server sent reaches the observation byte
// for byte, unknown fields, escapes and number forms included.
func TestRemoteRawBytes(t *testing.T) {
	hs := rawServer(t, map[string]string{
		"initialize": `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`,
		"tools/list": `{"tools":[` + rawTool + `]}`,
	})
	res := Run(context.Background(), Remote{URL: hs.URL}, Options{RequestTimeout: 5 * time.Second})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := string(res.Observations[0].Lists[KindTool][0].Raw); got != rawTool {
		t.Errorf("raw tool =\n%s\nwant\n%s", got, rawTool)
	}
}

// TestRemoteFailures: each way a remote exchange breaks holds the probe
// with a reason naming it.
func TestRemoteFailures(t *testing.T) {
	initOK := `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`
	big := `{"tools":[{"name":"t","description":"` + strings.Repeat("a", 2<<20) + `"}]}`
	tests := []struct {
		name    string
		handler http.HandlerFunc
		opts    transport.RemoteOptions
		errSub  string
	}{
		{"oversized body", rawServer(t, map[string]string{"initialize": initOK, "tools/list": big}).Config.Handler.ServeHTTP,
			transport.RemoteOptions{MaxMessageBytes: 1 << 20}, "larger than 1048576 bytes"},
		{"unauthorized", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusUnauthorized) }, transport.RemoteOptions{}, "Unauthorized"},
		{"closed mid-body", midStream(initOK, "application/json"), transport.RemoteOptions{}, "tools/list: connection failed"},
		{"closed mid-event-stream", midStream(initOK, "text/event-stream"), transport.RemoteOptions{}, "ended the response stream before answering"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(tc.handler)
			defer hs.Close()
			res := Run(context.Background(), Remote{URL: hs.URL, Options: tc.opts}, Options{RequestTimeout: 5 * time.Second})
			if res.Err == nil || !strings.Contains(res.Err.Error(), tc.errSub) {
				t.Fatalf("err = %v, want it to contain %q", res.Err, tc.errSub)
			}
			t.Logf("held: %v", res.Err)
		})
	}
}

// midStream answers the handshake, then starts the tools/list answer and
// drops the connection half way.
func midStream(initOK, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case len(m.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+initOK+`}`)
		case m.Method == "tools/list":
			w.Header().Set("Content-Type", contentType)
			if contentType == "application/json" {
				w.Header().Set("Content-Length", "1000")
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[`)
			} else {
				io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(m.ID)+",\"result\":{\"tools\":[")
			}
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"method not found"}}`)
		}
	}
}

// TestRemoteHeadersStayHome: a redirect to another origin is not
// followed, so configured credentials never leave for a host the config
// did not name.
func TestRemoteHeadersStayHome(t *testing.T) {
	var got []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "nope", http.StatusNotFound)
	}))
	defer other.Close()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer hs.Close()
	res := Run(context.Background(), Remote{URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer s3cret-token"}}, Options{RequestTimeout: 5 * time.Second})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "another origin") {
		t.Fatalf("err = %v, want a refused redirect", res.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("the other origin was reached %d times (Authorization %q)", len(got), got)
	}
}
