package guard

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// The benchmarks run what a client runs: separate processes over OS pipes.
// The test binary is re-executed as the fake server (FAKE_SCENARIO), as the
// guard (benchGuardEnv) and as a plain pass-through copier
// (benchPassEnv), so "direct", "pass-through" and "guard" differ only in
// what sits between the client and the same server.
const (
	benchGuardEnv = "GUARD_BENCH_LOCK" // lock path; run as the guard
	benchPassEnv  = "GUARD_BENCH_PASS" // run as a pass-through copier
)

func init() {
	// Runs before TestMain's m.Run, after HelperMain/MaybeRun would have
	// taken over: a fake server never has these set.
	if path := os.Getenv(benchGuardEnv); path != "" && os.Getenv("FAKE_SCENARIO") == "" {
		benchGuardMain(path)
	}
	if os.Getenv(benchPassEnv) != "" && os.Getenv("FAKE_SCENARIO") == "" {
		benchPassMain()
	}
}

// benchGuardMain runs the guard as a process: server "bench", the command
// after the benchGuardEnv marker in os.Args.
func benchGuardMain(path string) {
	lk, _, err := lock.Read(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	scen := os.Getenv("GUARD_BENCH_SCENARIO")
	server := os.Getenv("GUARD_BENCH_SERVER") // the SDK client tests name theirs
	if server == "" {
		server = "bench"
	}
	m := os.Getenv("GUARD_BENCH_MODE")
	if m == "" {
		m = string(Enforce)
	}
	mode, err := ParseMode(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	self, _ := os.Executable()
	os.Exit(Run(context.Background(), Options{
		Lock: lk, LockPath: path, Server: server, Mode: mode, Command: self, Env: map[string]string{"FAKE_SCENARIO": scen, benchGuardEnv: ""},
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
	}))
}

// benchPassMain copies lines both ways between its stdio and the server,
// with nothing looked at: the floor a proxy process costs.
func benchPassMain() {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "FAKE_SCENARIO="+os.Getenv("GUARD_BENCH_SCENARIO"), benchPassEnv+"=")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		os.Exit(2)
	}
	go func() { io.Copy(in, os.Stdin); in.Close() }()
	io.Copy(os.Stdout, out)
	cmd.Wait()
	os.Exit(0)
}

// benchPeer is a client's view of one chain (direct, pass-through, guard).
type benchPeer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startPeer(b *testing.B, via, scenario, lockPath string) *benchPeer {
	b.Helper()
	cmd := exec.Command(self(b))
	switch via {
	case "direct":
		cmd.Env = append(os.Environ(), "FAKE_SCENARIO="+scenario)
	case "pass-through":
		cmd.Env = append(os.Environ(), benchPassEnv+"=1", "GUARD_BENCH_SCENARIO="+scenario)
	case "guard":
		cmd.Env = append(os.Environ(), benchGuardEnv+"="+lockPath, "GUARD_BENCH_SCENARIO="+scenario)
	}
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &benchPeer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	p.roundTrip(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return p
}

func (p *benchPeer) roundTrip(b *testing.B, req string) []byte {
	if _, err := io.WriteString(p.in, req+"\n"); err != nil {
		b.Fatal(err)
	}
	line, err := p.out.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		var all []byte
		all = append(all, line...)
		for err == bufio.ErrBufferFull {
			line, err = p.out.ReadSlice('\n')
			all = append(all, line...)
		}
		line = all
	}
	if err != nil {
		b.Fatalf("reading answer: %v", err)
	}
	if strings.Contains(string(line), `"error"`) {
		b.Fatalf("error answer: %.300s", line)
	}
	return line
}

// close ends the session and returns the peer's peak RSS in bytes
// (getrusage of the child: for "guard", the guard process itself).
func (p *benchPeer) close(b *testing.B) int64 {
	p.in.Close()
	io.Copy(io.Discard, p.out)
	p.cmd.Wait()
	return peakRSS(p.cmd.ProcessState)
}

var (
	benchLockOnce sync.Once
	benchLockDir  string
)

// benchLock pins the honest and many-tools fakes as server "bench" and
// returns the lock paths by scenario.
func benchLock(b *testing.B, scenario string) string {
	b.Helper()
	benchLockOnce.Do(func() {
		dir, err := os.MkdirTemp("", "guard-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchLockDir = dir
	})
	path := filepath.Join(benchLockDir, scenario+".json")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	lk := pinFake(b, "bench", scenario)
	data, err := lk.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

const benchCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"summarize","arguments":{"text":"The quick brown fox."}}}`

// BenchmarkGuardRoundTrip times tools/call round trips straight to the fake
// server, through a plain pass-through process and through the guard
// process; the guard's added latency is the difference of the medians (and
// of the p99s) with direct, which bench/guard.sh prints beside what the
// pass-through process alone adds.
func BenchmarkGuardRoundTrip(b *testing.B) {
	benchRoundTrip(b, "honest")
}

// BenchmarkGuardRoundTrip64K is BenchmarkGuardRoundTrip with answers of
// 64 KB of prose, every byte of which the guard's text rules read.
func BenchmarkGuardRoundTrip64K(b *testing.B) {
	benchRoundTrip(b, "prose-64k")
}

func benchRoundTrip(b *testing.B, scenario string) {
	lockPath := benchLock(b, scenario)
	for _, via := range []string{"direct", "pass-through", "guard"} {
		b.Run(via, func(b *testing.B) {
			p := startPeer(b, via, scenario, lockPath)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := fmt.Sprintf(benchCall, i+1)
				t0 := time.Now()
				p.roundTrip(b, req)
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			p.close(b)
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "median-µs")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Nanoseconds())/1e3, "p99-µs")
		})
	}
}

// BenchmarkGuardToolsList100 sends pipelined tools/list requests whose
// answers carry 100 tools each, through a direct pipe, a plain pass-through
// process and the guard, side by side in one run; MB/s is answer bytes
// delivered to the client.
func BenchmarkGuardToolsList100(b *testing.B) {
	lockPath := benchLock(b, "many-tools")
	for _, via := range []string{"direct", "pass-through", "guard"} {
		b.Run(via, func(b *testing.B) {
			p := startPeer(b, via, "many-tools", lockPath)
			size := len(p.roundTrip(b, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			b.SetBytes(int64(size))
			b.ResetTimer()
			done := make(chan error, 1)
			go func() {
				for i := 0; i < b.N; i++ {
					if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i+2); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			for i := 0; i < b.N; i++ {
				for {
					_, err := p.out.ReadSlice('\n')
					if err == nil {
						break
					}
					if err != bufio.ErrBufferFull {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			p.close(b)
		})
	}
}

// BenchmarkGuardCalls sends pipelined tools/call requests whose answers
// carry about 3.7 KB of documentation prose (text content and
// structuredContent; "prose") or one word ("short"), straight to the fake
// server, through a plain
// pass-through process and through the guard, side by side in one run, and
// reports the calls answered per second. Pipelined, not one at a time: a
// client with calls in flight is limited by the slowest process of the
// chain, which is where the guard's look at every answer shows; one round
// trip at a time measures the pipes' latency (BenchmarkGuardRoundTrip).
// bench/guard.sh prints the guard's calls/s against direct's.
func BenchmarkGuardCalls(b *testing.B) {
	for _, answer := range []struct{ name, scenario string }{{"prose", "prose-call"}, {"short", "honest"}} {
		lockPath := benchLock(b, answer.scenario)
		for _, via := range []string{"direct", "pass-through", "guard"} {
			b.Run(answer.name+"/"+via, func(b *testing.B) { benchCalls(b, via, answer.scenario, lockPath) })
		}
	}
}

// benchCalls is one chain of BenchmarkGuardCalls.
func benchCalls(b *testing.B, via, scenario, lockPath string) {
	p := startPeer(b, via, scenario, lockPath)
	size := len(p.roundTrip(b, fmt.Sprintf(benchCall, 1)))
	b.SetBytes(int64(size))
	b.ResetTimer()
	t0 := time.Now()
	done := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.in, 64<<10)
		for i := 0; i < b.N; i++ {
			if _, err := fmt.Fprintf(w, benchCall+"\n", i+2); err != nil {
				done <- err
				return
			}
		}
		done <- w.Flush()
	}()
	for i := 0; i < b.N; i++ {
		line, err := p.out.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			_, err = p.out.ReadSlice('\n')
		}
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(line, []byte(`"error"`)) {
			b.Fatalf("error answer: %.300s", line)
		}
	}
	elapsed := time.Since(t0)
	b.StopTimer()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	p.close(b)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	// CPU time is what a loaded machine does not distort: the
	// process's own and its waited-for children's (the guard's
	// server), over the whole session, per call.
	if st := p.cmd.ProcessState; st != nil {
		b.ReportMetric(float64((st.UserTime()+st.SystemTime()).Microseconds())/float64(b.N+1), "cpu-µs/call")
	}
}

// BenchmarkGuardCheckList100Cold is the guard's cost for a tools/list page
// of 100 tools it has not seen byte for byte before in the session
// (canonical form, hash, inspection): the first list, or one after a
// change.
func BenchmarkGuardCheckList100Cold(b *testing.B) {
	lk, _, err := lock.Read(benchLock(b, "many-tools"))
	if err != nil {
		b.Fatal(err)
	}
	p := startPeer(b, "direct", "many-tools", "")
	line := p.roundTrip(b, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	p.close(b)
	ms, _ := objectMembers(line)
	result, _ := get(ms, "result")
	b.SetBytes(int64(len(result)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := newChecker("bench", lk.Servers["bench"], "")
		if r := c.answer(pendingReq{method: "tools/list"}, result); r != nil {
			b.Fatal(r.message())
		}
	}
}

// BenchmarkGuardPeakRSS runs a 10,000-message session (5,000 tools/call and
// 5,000 tools/list round trips) through the guard process and reports the
// guard's peak RSS.
func BenchmarkGuardPeakRSS(b *testing.B) {
	lockPath := benchLock(b, "honest")
	for i := 0; i < b.N; i++ {
		p := startPeer(b, "guard", "honest", lockPath)
		for j := 0; j < 5000; j++ {
			p.roundTrip(b, fmt.Sprintf(benchCall, 2*j+1))
			p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 2*j+2))
		}
		rss := p.close(b)
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
}

// BenchmarkGuardRelist100Warm is the guard's own work for a re-list of a
// 100-tool page it already accepted, in process: classify the message,
// find its request, hash the result and compare it with the accepted page.
func BenchmarkGuardRelist100Warm(b *testing.B) {
	lk, _, err := lock.Read(benchLock(b, "many-tools"))
	if err != nil {
		b.Fatal(err)
	}
	p := startPeer(b, "direct", "many-tools", "")
	line := bytes.Clone(p.roundTrip(b, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	p.close(b)
	s := newSession(Options{Server: "bench", Stdout: io.Discard, Stderr: os.Stderr, Mode: Enforce}, lk.Servers["bench"], func(string, ...any) {})
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.pending["n1"] = pendingReq{id: []byte("1"), method: "tools/list"}
		s.fromServer(line)
		if s.stopped.Load() {
			b.Fatal("refused")
		}
	}
}

// BenchmarkGuardCallWork is the guard's own work for one tools/call round
// trip, in process: the client's request recorded, the server's answer (the
// prose-call scenario's 3.7 KB of prose) classified, matched and inspected.
// It is the part of BenchmarkGuardCalls the guard adds to a chain.
func BenchmarkGuardCallWork(b *testing.B) {
	lk, _, err := lock.Read(benchLock(b, "prose-call"))
	if err != nil {
		b.Fatal(err)
	}
	s := newSession(Options{Server: "bench", Stdout: io.Discard, Stderr: os.Stderr, Mode: Enforce}, lk.Servers["bench"], func(string, ...any) {})
	req := []byte(fmt.Sprintf(benchCall, 1) + "\n")
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":` + fakeserver.ProseResult + "}\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if !s.fromClient(req) {
			b.Fatal("request not forwarded")
		}
		s.fromServer(line)
		if s.stopped.Load() || s.warned.Load() {
			b.Fatal("refused")
		}
	}
	cpu := time.Duration(processCPU() - cpu0)
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}
