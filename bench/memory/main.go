//go:build linux

// Command memory measures the checker's peak memory against a server
// whose tools/list carries one enormous description (48 MB by default),
// for mcp-lockcheck and (with -base) a baseline binary, alternating run
// by run. It is driven by bench/memory.sh, which builds the binaries.
//
// The server is this program itself, started with BENCH_BIG_MB set: a
// minimal MCP stdio server with one tool whose description is that many
// MB of prose. The check runs with its defaults but one launch and no
// warm-up call (`check --warmup-calls 0 --launches 1`): the answer is
// over the default message limit (16 MiB), so the server is held, and
// what is measured is what refusing it costs. The figure is the check
// process's own peak resident set (VmHWM in /proc/PID/status, read every
// 10 ms while it runs: the last reading before it exits is its peak),
// not its children's (the sandbox helper, the server).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if mb := os.Getenv("BENCH_BIG_MB"); mb != "" {
		n, err := strconv.Atoi(mb)
		if err != nil {
			fail(err)
		}
		serve(n)
		return
	}
	bin := flag.String("bin", "", "the mcp-lockcheck binary")
	base := flag.String("base", "", "a baseline mcp-lockcheck binary, measured alternately")
	runs := flag.Int("runs", 5, "runs of each binary")
	mb := flag.Int("mb", 48, "the description's size in MB")
	flag.Parse()
	if *bin == "" {
		fail(errors.New("-bin is required"))
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	dir, err := os.MkdirTemp("", "mcp-lockcheck-memory-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"big": map[string]any{
		"command": self, "env": map[string]string{"BENCH_BIG_MB": strconv.Itoa(*mb)}}}})
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), cfg, 0o644); err != nil {
		fail(err)
	}
	bins := []string{"new", *bin}
	if *base != "" {
		bins = append(bins, "baseline", *base)
	}
	peaks := map[string][]int{}
	for r := range *runs {
		for i := 0; i < len(bins); i += 2 {
			// Alternate which binary goes first, round by round.
			k := (i + 2*r) % len(bins)
			name, b := bins[k], bins[k+1]
			kb, status, err := peak(b, dir)
			if err != nil {
				fail(fmt.Errorf("%s: %w", name, err))
			}
			peaks[name] = append(peaks[name], kb)
			fmt.Fprintf(os.Stderr, "run %d %s: %.1f MB (%s)\n", r+1, name, float64(kb)/1024, status)
		}
	}
	fmt.Printf("| binary | peak RSS, median of %d | min | max |\n|---|---|---|---|\n", *runs)
	for i := 0; i < len(bins); i += 2 {
		p := slices.Clone(peaks[bins[i]])
		slices.Sort(p)
		fmt.Printf("| %s | %.1f MB | %.1f MB | %.1f MB |\n", bins[i], mbOf(p[len(p)/2]), mbOf(p[0]), mbOf(p[len(p)-1]))
	}
}

func mbOf(kb int) float64 { return float64(kb) / 1024 }

// peak runs one check and returns its peak resident set in KB and the
// server's status in the report.
func peak(bin, dir string) (int, string, error) {
	cmd := exec.Command(bin, "check", "--quiet", "--warmup-calls", "0", "--launches", "1", "--format", "json")
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, "", err
	}
	if err := cmd.Start(); err != nil {
		return 0, "", err
	}
	report := make(chan []byte, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		report <- []byte(b.String())
	}()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	hwm := 0
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if v := readHWM(status); v > hwm {
			hwm = v
		}
		select {
		case err := <-done:
			var r struct {
				Servers []struct {
					Status string `json:"status"`
					Reason string `json:"reason"`
				} `json:"servers"`
			}
			if json.Unmarshal(<-report, &r) != nil || len(r.Servers) != 1 {
				return 0, "", fmt.Errorf("no report (%v)", err)
			}
			s := r.Servers[0].Status
			if r.Servers[0].Reason != "" {
				s += ": " + r.Servers[0].Reason
			}
			return hwm, s, nil
		case <-tick.C:
		}
	}
}

func readHWM(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// serve is the big server: initialize, and tools/list with one tool whose
// description is mb MB of prose, on newline-delimited JSON-RPC.
func serve(mb int) {
	const sentence = "Reads the file at the given path and returns its text, line by line, as the file has it. "
	desc := strings.Repeat(sentence, mb<<20/len(sentence)+1)[:mb<<20]
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	w := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]string{"name": "big", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "read", "description": desc, "inputSchema": map[string]string{"type": "object"}}}}
		case "ping":
			result = map[string]any{}
		default:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			w.Write(append(b, '\n'))
			w.Flush()
			continue
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		w.Write(append(b, '\n'))
		w.Flush()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "memory:", err)
	os.Exit(2)
}
