package guard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver/remote"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
)

// BenchmarkGuardRemoteRoundTrip measures what the bridge adds to one
// tools/call round trip against a go-sdk streamable HTTP server on
// loopback. Each iteration makes one call directly (the SDK's streamable
// client transport in this process, as a Go client would) and one through
// the bridge (a separate guard process over OS pipes, as a stdio client
// runs it), interleaved so both see the same machine load. Reported:
// direct-median-µs, bridge-median-µs and their difference,
// added-median-µs (the target is under 1000), and the p99s.
func BenchmarkGuardRemoteRoundTrip(b *testing.B) {
	lk := pinRemote(b, false)
	data, err := lk.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	lockPath := filepath.Join(b.TempDir(), "mcp-lock.json")
	if err := os.WriteFile(lockPath, data, 0o600); err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(remote.Handler("honest", secretToken, false))
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Direct: the SDK's transport at the connection level.
	conn, closeConn, err := transport.HTTPConnector(hs.URL, secretHeaders, transport.RemoteOptions{Timeout: 10 * time.Second})(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer closeConn()
	direct := func(line string) {
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			b.Fatal(err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			b.Fatal(err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() {
			return
		}
		if _, err := conn.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}

	// Through the bridge: the test binary re-executed as the guard.
	cmd := exec.Command(self(b))
	cmd.Env = append(os.Environ(), envBridgeLock+"="+lockPath, envBridgeURL+"="+hs.URL, envBridgeToken+"="+secretToken)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	rd := bufio.NewReaderSize(stdout, 1<<20)
	bridge := func(line string, answer bool) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			b.Fatal(err)
		}
		if !answer {
			return
		}
		if _, err := rd.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}

	const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.0.0"}}}`
	const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	direct(initLine)
	if c, ok := conn.(interface{ SetProtocolVersion(string) }); ok {
		c.SetProtocolVersion("2025-06-18")
	}
	direct(initialized)
	bridge(initLine, true)
	bridge(initialized, false)

	d := make([]time.Duration, 0, b.N)
	g := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"alpha","arguments":{"q":"x"}}}`, i+1)
		t0 := time.Now()
		direct(line)
		t1 := time.Now()
		bridge(line, true)
		d = append(d, t1.Sub(t0))
		g = append(g, time.Since(t1))
	}
	b.StopTimer()
	slices.Sort(d)
	slices.Sort(g)
	med := func(l []time.Duration) float64 { return float64(l[len(l)/2].Nanoseconds()) / 1e3 }
	p99 := func(l []time.Duration) float64 { return float64(l[min(len(l)-1, len(l)*99/100)].Nanoseconds()) / 1e3 }
	b.ReportMetric(med(d), "direct-median-µs")
	b.ReportMetric(med(g), "bridge-median-µs")
	b.ReportMetric(med(g)-med(d), "added-median-µs")
	b.ReportMetric(p99(d), "direct-p99-µs")
	b.ReportMetric(p99(g), "bridge-p99-µs")
}
