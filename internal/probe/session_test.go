package probe

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionAnswersBeforeTap: the caller gets an answer before the tap
// scans it (a tap over a large tools/list costs milliseconds the probe
// need not wait for), and run returns only once its last tap is over, so
// that what Run's caller collects from the tap is complete.
func TestSessionAnswersBeforeTap(t *testing.T) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	client, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	server, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	s := newSession(client)
	release := make(chan struct{})
	var tapped atomic.Value
	s.tap = func(phase, method, _ string, _ json.RawMessage, _ []byte) {
		<-release
		tapped.Store(phase + " " + method)
	}
	s.phase = func() string { return "initial" }
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.run(rctx)
	go func() {
		msg, err := server.Read(ctx)
		if err != nil {
			return
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			_ = server.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"tools":[]}`)})
		}
	}()
	cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
	defer ccancel()
	if _, err := s.call(cctx, "tools/list", nil); err != nil {
		t.Fatalf("the answer waited for the tap: %v", err)
	}
	cancel()
	client.Close()
	select {
	case <-s.dead:
		t.Fatal("run returned while its tap was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-s.dead:
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its tap")
	}
	if got, _ := tapped.Load().(string); got != "initial tools/list" {
		t.Errorf("tapped %q, want the answer's phase and method", got)
	}
}
