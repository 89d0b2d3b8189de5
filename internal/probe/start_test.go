package probe

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStartTimeout: a first launch that installs its package before the
// server's first instruction (npx into a cold cache) answers initialize
// late. StartTimeout gives launch 1 that time; without it the server is
// held at RequestTimeout; later launches keep RequestTimeout.
func TestStartTimeout(t *testing.T) {
	const slow = 600 * time.Millisecond
	for _, c := range []struct {
		name    string
		start   time.Duration
		slowAll bool
		wantErr bool
	}{
		{"cold first launch, given its start time", 10 * time.Second, false, false},
		{"cold first launch, no start time", 0, false, true},
		{"a later launch keeps the request time-out", 10 * time.Second, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := connected(func(ctx context.Context, n int) (mcp.Connection, func(), error) {
				st, ct := mcp.NewInMemoryTransports()
				sc, err := st.Connect(ctx)
				if err != nil {
					return nil, nil, err
				}
				sctx, cancel := context.WithCancel(ctx)
				delay := time.Duration(0)
				if n == 1 || c.slowAll {
					delay = slow
				}
				go slowStartServer(sctx, sc, delay)
				cc, err := ct.Connect(ctx)
				if err != nil {
					cancel()
					return nil, nil, err
				}
				return cc, func() { cancel(); cc.Close(); sc.Close() }, nil
			})
			res := Run(context.Background(), target, Options{Launches: 2, RequestTimeout: 200 * time.Millisecond, StartTimeout: c.start})
			if (res.Err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error: %v", res.Err, c.wantErr)
			}
		})
	}
}

// slowStartServer answers initialize after delay, and lists one tool.
func slowStartServer(ctx context.Context, c mcp.Connection, delay time.Duration) {
	for {
		m, err := c.Read(ctx)
		if err != nil {
			return
		}
		r, ok := m.(*jsonrpc.Request)
		if !ok || !r.IsCall() {
			continue
		}
		result := `{}`
		switch r.Method {
		case "initialize":
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return
			}
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
		default:
			_ = c.Write(ctx, &jsonrpc.Response{ID: r.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no"}})
			continue
		}
		_ = c.Write(ctx, &jsonrpc.Response{ID: r.ID, Result: json.RawMessage(result)})
	}
}
