// Package bench measures mcp-lockcheck end to end and writes the figures
// into bench/README.md. Run it with one command:
//
//	(cd bench && go test -run TestReport -report -v -timeout 30m)
//
// Every comparison is measured side by side in the same run, on the same
// machine, so the ratios mean something even where the absolute numbers
// depend on the machine.
package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
)

var report = flag.Bool("report", false, "run the benchmarks and rewrite bench/README.md")

func TestMain(m *testing.M) {
	sandbox.HelperMain()
	fakeserver.MaybeRun()
	os.Exit(m.Run())
}

// TestReport runs every benchmark and rewrites the results section of
// bench/README.md.
func TestReport(t *testing.T) {
	if !*report {
		t.Skip("run with: (cd bench && go test -run TestReport -report -v -timeout 30m)")
	}
	bin := buildCLI(t)
	var out strings.Builder
	fmt.Fprintf(&out, "Measured %s on %s/%s, %d CPUs, %s.\n\n", time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	sections := []struct {
		title string
		run   func(t *testing.T, bin string) string
	}{
		{"Scaling: canonicalize + hash + compare + inspect", scaling},
		{"Concurrent probes: N fake servers that take 300 ms to answer initialize", concurrency},
		{"One real server: check vs the server's own spawn-to-tools/list", realServer},
		{"The cost of baiting: defaults vs --warmup-calls 0 --launches 1", baiting},
		{"Sandbox: strict vs basic on real servers", strictCost},
		{"The burst: 1,000 calls in one process", burstCost},
	}
	for _, s := range sections {
		t.Logf("== %s", s.title)
		body := s.run(t, bin)
		t.Log("\n" + body)
		fmt.Fprintf(&out, "### %s\n\n%s\n", s.title, body)
	}
	writeResults(t, out.String())
}

func buildCLI(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "mcp-lockcheck")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mcp-lockcheck")
	cmd.Dir = ".." // the product's module: bench is a module of its own
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

const begin, end = "<!-- results: begin -->", "<!-- results: end -->"

func writeResults(t *testing.T, body string) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %s ... %s section", begin, end)
	}
	s = s[:i+len(begin)] + "\n" + body + s[j:]
	if err := os.WriteFile("README.md", []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// timeIt runs f n times and returns the median wall time.
func timeIt(n int, f func()) time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		start := time.Now()
		f()
		ds[i] = time.Since(start)
	}
	slices.Sort(ds)
	return ds[n/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

// run executes the CLI in dir and returns its exit code.
func run(t *testing.T, bin, dir string, args ...string) int {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("%v: %v", args, err)
	}
	code := cmd.ProcessState.ExitCode()
	if code == 2 {
		t.Fatalf("%v: exit 2: %s", args, stderr.String())
	}
	return code
}

func writeConfig(t *testing.T, dir string, servers map[string]any) {
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var benchLine = regexp.MustCompile(`^BenchmarkPipeline/tools=(\d+)-\d+\s+\d+\s+(\d+) ns/op\s+([\d.]+) peak-heap-MB`)

func scaling(t *testing.T, _ string) string {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "BenchmarkPipeline", "-benchtime", "5x", "./internal/check")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -bench: %v\n%s", err, out)
	}
	var b strings.Builder
	b.WriteString("| tools | time per listing | vs previous size | peak heap |\n|---|---|---|---|\n")
	var prev float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var ns, heap float64
		fmt.Sscan(m[2], &ns)
		fmt.Sscan(m[3], &heap)
		ratio := "-"
		if prev > 0 {
			ratio = fmt.Sprintf("%.1fx", ns/prev)
		}
		prev = ns
		fmt.Fprintf(&b, "| %s | %.1f ms | %s | %.1f MB |\n", m[1], ns/1e6, ratio, heap)
	}
	b.WriteString("\nSynthetic tools of about 3 KB each (`go test -bench BenchmarkPipeline ./internal/check`). Target: linear, 1,000 tools under 50 ms.\n")
	return b.String()
}

func concurrency(t *testing.T, bin string) string {
	self, _ := os.Executable()
	var b strings.Builder
	b.WriteString("| servers | --jobs 1 | --jobs default | speed-up |\n|---|---|---|---|\n")
	var four time.Duration
	var sixteen time.Duration
	for _, n := range []int{1, 4, 16} {
		dir := t.TempDir()
		servers := map[string]any{}
		for i := range n {
			servers[fmt.Sprintf("s%02d", i)] = map[string]any{"command": self, "env": map[string]string{"FAKE_SCENARIO": "honest", "FAKE_INIT_DELAY": "300ms"}}
		}
		writeConfig(t, dir, servers)
		flags := []string{"--quiet", "--warmup-calls", "0", "--launches", "1"}
		if code := run(t, bin, dir, append([]string{"pin"}, flags...)...); code != 0 {
			t.Fatalf("pin: exit %d", code)
		}
		serial := timeIt(3, func() { run(t, bin, dir, append([]string{"check", "--jobs", "1"}, flags...)...) })
		par := timeIt(3, func() { run(t, bin, dir, append([]string{"check"}, flags...)...) })
		if n == 4 {
			four = par
		}
		if n == 16 {
			sixteen = par
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %.1fx |\n", n, ms(serial), ms(par), float64(serial)/float64(par))
	}
	fmt.Fprintf(&b, "\n16 servers take %.2fx the time of 4 with the default --jobs (%d on this machine; target at most 2x).\n", float64(sixteen)/float64(four), min(max(8*runtime.NumCPU(), 16), 64))
	return b.String()
}

// spawnToList is the server's own time from spawn to the tools/list
// answer, with a minimal client and no sandbox.
func spawnToList(t *testing.T, command string, args ...string) time.Duration {
	return timeIt(9, func() {
		cmd := exec.Command(command, args...)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.Contains(line, `"id":1`):
				io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
			case strings.Contains(line, `"id":2`):
				return
			}
		}
		t.Fatal("no tools/list answer")
	})
}

func realDirs(t *testing.T) (npmtest.Dir, string) {
	d := npmtest.Servers(t)
	dir := t.TempDir()
	root := t.TempDir()
	writeConfig(t, dir, map[string]any{
		"fs":         map[string]any{"command": d.Bin("mcp-server-filesystem"), "args": []string{root}},
		"everything": map[string]any{"command": d.Bin("mcp-server-everything")},
		"memory":     map[string]any{"command": d.Bin("mcp-server-memory"), "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(root, "memory.jsonl")}},
	})
	return d, dir
}

func realServer(t *testing.T, bin string) string {
	d, dir := realDirs(t)
	if code := run(t, bin, dir, "pin", "--quiet", "--server", "fs", "--warmup-calls", "0", "--launches", "1"); code != 0 {
		t.Fatalf("pin: exit %d", code)
	}
	root := t.TempDir()
	own := spawnToList(t, d.Bin("mcp-server-filesystem"), root)
	check := timeIt(9, func() {
		run(t, bin, dir, "check", "--quiet", "--server", "fs", "--warmup-calls", "0", "--launches", "1", "--sandbox", "off")
	})
	checkBasic := timeIt(9, func() {
		run(t, bin, dir, "check", "--quiet", "--server", "fs", "--warmup-calls", "0", "--launches", "1")
	})
	var b strings.Builder
	b.WriteString("| @modelcontextprotocol/server-filesystem@2026.8.31 | wall time | ratio |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| spawn to tools/list answer (minimal client) | %s | 1.00x |\n", ms(own))
	fmt.Fprintf(&b, "| `check --warmup-calls 0 --launches 1 --sandbox off` | %s | %.2fx |\n", ms(check), float64(check)/float64(own))
	fmt.Fprintf(&b, "| `check --warmup-calls 0 --launches 1` (basic sandbox) | %s | %.2fx |\n", ms(checkBasic), float64(checkBasic)/float64(own))
	b.WriteString("\nMedian of 9. The check's time includes starting mcp-lockcheck itself, reading the lock, shutting the server down and writing the report; the baseline stops at the tools/list answer. Target: at most 1.2x.\n")
	return b.String()
}

func baiting(t *testing.T, bin string) string {
	_, dir := realDirs(t)
	if code := run(t, bin, dir, "pin", "--quiet"); code != 0 {
		t.Fatalf("pin: exit %d", code)
	}
	var b strings.Builder
	b.WriteString("| server | `--warmup-calls 0 --launches 1` | defaults (5 calls, 2 launches) | ratio |\n|---|---|---|---|\n")
	for _, s := range []string{"fs", "everything", "memory"} {
		quick := timeIt(3, func() { run(t, bin, dir, "check", "--quiet", "--server", s, "--warmup-calls", "0", "--launches", "1") })
		full := timeIt(3, func() { run(t, bin, dir, "check", "--quiet", "--server", s) })
		fmt.Fprintf(&b, "| %s | %s | %s | %.2fx |\n", s, ms(quick), ms(full), float64(full)/float64(quick))
	}
	b.WriteString("\nMedian of 3. The phases of one launch reuse one connection: a warm-up call and its re-list cost a few round trips, not a restart.\n")
	return b.String()
}

// strictCost compares strict with basic on real servers, alternating the
// two levels run by run so that the machine's load falls on both alike:
// the quick check (one launch, no calls) and the default check (5 calls,
// 2 launches). Target: strict within 1.2x of basic.
func strictCost(t *testing.T, bin string) string {
	_, dir := realDirs(t)
	if code := run(t, bin, dir, "pin", "--quiet", "--sandbox", "strict"); code != 0 {
		t.Fatalf("pin: exit %d", code)
	}
	const n = 7
	var b strings.Builder
	b.WriteString("| server | check | off | basic | strict | strict vs basic |\n|---|---|---|---|---|---|\n")
	for _, s := range []string{"fs", "memory", "everything"} {
		for _, mode := range []struct {
			name string
			args []string
		}{{"quick (1 launch, no calls)", []string{"--warmup-calls", "0", "--launches", "1"}}, {"defaults", nil}} {
			times := map[string][]time.Duration{}
			for i := 0; i < n; i++ {
				for _, lvl := range []string{"off", "basic", "strict"} {
					args := append([]string{"check", "--quiet", "--server", s, "--sandbox", lvl}, mode.args...)
					start := time.Now()
					if code := run(t, bin, dir, args...); code != 0 {
						t.Fatalf("%s %v: exit %d", s, args, code)
					}
					times[lvl] = append(times[lvl], time.Since(start))
				}
			}
			med := func(lvl string) time.Duration {
				ds := times[lvl]
				slices.Sort(ds)
				return ds[len(ds)/2]
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2fx |\n", s, mode.name, ms(med("off")), ms(med("basic")), ms(med("strict")), float64(med("strict"))/float64(med("basic")))
		}
	}
	fmt.Fprintf(&b, "\nMedian of %d, the three levels alternating run by run on the same pinned servers. Per launch, on /bin/true: `go test -run '^$' -bench BenchmarkLaunch ./internal/sandbox`. Target: strict within 1.2x of basic.\n", n)
	return b.String()
}

// TestStrictCost prints the strict-vs-basic table alone.
func TestStrictCost(t *testing.T) {
	if !*report {
		t.Skip("run with: (cd bench && go test -run TestStrictCost -report -v)")
	}
	t.Log("\n" + strictCost(t, buildCLI(t)))
}

// burstCost measures what deep's burst costs a server: the same check of
// one launch with no timed calls, with --burst-calls 1000 and with 0,
// alternating run by run so the machine's load falls on both alike, on the
// real servers and on the fake (a Go server that answers at once). The
// difference over 1,000 is one burst call with its share of the re-lists.
// Target: a few seconds on a fast server.
func burstCost(t *testing.T, bin string) string {
	_, dir := realDirs(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ MCPServers map[string]any }
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg.MCPServers["fake"] = map[string]any{"command": exe, "env": map[string]string{fakeserver.EnvScenario: "honest"}}
	writeConfig(t, dir, cfg.MCPServers)
	if code := run(t, bin, dir, "pin", "--quiet"); code != 0 {
		t.Fatalf("pin: exit %d", code)
	}
	const n = 5
	var b strings.Builder
	b.WriteString("| server | no burst | burst of 1,000 | burst cost | per call |\n|---|---|---|---|---|\n")
	for _, s := range []string{"fake", "fs", "memory", "everything"} {
		times := map[string][]time.Duration{}
		for range n {
			for _, burst := range []string{"0", "1000"} {
				start := time.Now()
				if code := run(t, bin, dir, "check", "--quiet", "--server", s, "--launches", "1", "--warmup-calls", "0", "--burst-calls", burst); code != 0 {
					t.Fatalf("%s --burst-calls %s: exit %d", s, burst, code)
				}
				times[burst] = append(times[burst], time.Since(start))
			}
		}
		med := func(k string) time.Duration {
			ds := times[k]
			slices.Sort(ds)
			return ds[len(ds)/2]
		}
		cost := med("1000") - med("0")
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.1f ms |\n", s, ms(med("0")), ms(med("1000")), ms(cost), float64(cost)/float64(time.Millisecond)/1000)
	}
	fmt.Fprintf(&b, "\nMedian of %d, alternating run by run: `check --launches 1 --warmup-calls 0` with `--burst-calls 1000` and `0`, the basic sandbox; the cost includes planning the calls, their re-lists (a dozen), recording them and inspecting the distinct answers. Target: a few seconds on a fast server.\n", n)
	return b.String()
}

// TestBurstCost prints the burst's table alone.
func TestBurstCost(t *testing.T) {
	if !*report {
		t.Skip("run with: (cd bench && go test -run TestBurstCost -report -v)")
	}
	t.Log("\n" + burstCost(t, buildCLI(t)))
}
