//go:build unix

// Command speed measures what a check costs against the server's own
// start, for real MCP servers, side by side in one run. It is driven by
// bench/speed.sh, which installs the servers and builds mcp-lockcheck.
//
// For every server and every round it measures, in an order that rotates
// from round to round (so a machine that gets busier or quieter during
// the run weighs on every column alike):
//
//   - floor: a minimal client over the go-sdk's CommandTransport: spawn,
//     initialize, notifications/initialized, tools/list, stopped at the
//     tools/list answer;
//   - quick: mcp-lockcheck check --warmup-calls 0 --launches 1;
//   - default: mcp-lockcheck check with its defaults.
//
// The check times are the wall time of the whole mcp-lockcheck process
// (its own start, reading the lock, the probe, shutdown, the report). It
// prints the medians and their ratios to the floor as a markdown table,
// and the median ratio over servers for each mode with a 95% interval
// (ratioInterval): on a shared 2-CPU machine the speed moves from round
// to round by more than the distance to a target, and the interval says
// whether a figure is above or below it or too close to tell.
//
// The default check also runs with --progress plain --verbose, which
// writes a line on stderr as each phase starts; each line is timestamped
// as it arrives. A warm-up call's phase (launch-N/call-M) lasts from its
// line to the next one: the tools/call round trip (cut at --call-timeout)
// and the ping that follows it. Their sum is the "server's calls" column:
// how much of the default check was spent waiting for the server's own
// answers to tools/call, measured in the same run. The issue allows more
// than 3x the floor only where those calls are slow; the last ratio
// column leaves them out to show which.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one real server to measure: an npm package's bin under one of
// the npm folders, with the args and env that let it start offline and
// without credentials. Every endpoint a server is pointed at is a closed
// loopback port, so a warm-up call that reaches for its backend fails at
// once instead of going out.
type server struct {
	name    string
	root    string // "test" (testdata/npm) or "bench" (bench/servers)
	pkg     string // directory under node_modules
	bin     string // bin name, "" when the package has one
	args    []string
	env     map[string]string
	sandbox string // "" = the default (basic)
	// npx is the spec a client's config gives npx ("" for a server run
	// from its installed bin): the server is launched as `npx -y SPEC
	// ARGS...`, the floor included, from a warm npm cache.
	npx string
}

// closed is a loopback port nothing listens on.
const closed = "127.0.0.1:9"

// servers are the servers measured. Left out because they cannot be
// probed offline, so a check holds them (fail closed) and there is no
// check time to compare: @modelcontextprotocol/server-redis (answers
// nothing until a redis answers), server-postgres (resources/list fails
// without a database), time-mcp (prints a banner on stdout) and
// @elastic/mcp-server-elasticsearch (its stdout is not JSON-RPC 2.0).
func servers(work string) []server {
	return []server{
		{name: "filesystem", root: "test", pkg: "@modelcontextprotocol/server-filesystem", args: []string{work}},
		{name: "fs-2025", root: "test", pkg: "fs-2025", args: []string{work}},
		{name: "everything", root: "test", pkg: "@modelcontextprotocol/server-everything"},
		{name: "memory", root: "test", pkg: "@modelcontextprotocol/server-memory", env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(work, "memory.jsonl")}},
		{name: "everything-2025", root: "bench", pkg: "everything-2025"},
		{name: "sequential-thinking", root: "bench", pkg: "@modelcontextprotocol/server-sequential-thinking"},
		{name: "github", root: "bench", pkg: "@modelcontextprotocol/server-github", env: map[string]string{"GITHUB_API_URL": "http://" + closed}},
		{name: "gitlab", root: "bench", pkg: "@modelcontextprotocol/server-gitlab", env: map[string]string{"GITLAB_PERSONAL_ACCESS_TOKEN": "bench-not-a-token", "GITLAB_API_URL": "http://" + closed + "/api/v4"}},
		{name: "context7", root: "bench", pkg: "@upstash/context7-mcp", sandbox: "strict"},
		{name: "playwright", root: "bench", pkg: "@playwright/mcp", sandbox: "strict"},
		{name: "chrome-devtools", root: "bench", pkg: "chrome-devtools-mcp", bin: "chrome-devtools-mcp", sandbox: "strict"},
		{name: "kubernetes", root: "bench", pkg: "mcp-server-kubernetes", env: map[string]string{"KUBECONFIG": filepath.Join(work, "kubeconfig")}},
		{name: "notion", root: "bench", pkg: "@notionhq/notion-mcp-server", sandbox: "strict"},
		{name: "firecrawl", root: "bench", pkg: "firecrawl-mcp", env: map[string]string{"FIRECRAWL_API_URL": "http://" + closed}},
		{name: "exa", root: "bench", pkg: "exa-mcp-server", sandbox: "strict"},
		{name: "chart", root: "bench", pkg: "@antv/mcp-server-chart", sandbox: "strict"},
		// The same kind of servers as most users' configs start them:
		// `npx -y PKG@VERSION`, under basic and under strict. The floor
		// spawns the same npx line with the user's HOME and npm cache,
		// warm (setUp runs it once untimed); the checks use the cache
		// the sandbox gives npx, warmed by the pin. These ask the npm
		// registry, as a check of such a server does.
		{name: "npx-filesystem", npx: "@modelcontextprotocol/server-filesystem@2026.8.31", args: []string{work}},
		{name: "npx-memory", npx: "@modelcontextprotocol/server-memory@2026.8.31", env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(work, "memory-npx.jsonl")}},
		{name: "npx-everything", npx: "@modelcontextprotocol/server-everything@2026.8.31"},
		{name: "npx-sequential-thinking", npx: "@modelcontextprotocol/server-sequential-thinking@2026.8.31"},
		{name: "npx-filesystem-strict", npx: "@modelcontextprotocol/server-filesystem@2026.8.31", args: []string{work}, sandbox: "strict"},
		{name: "npx-memory-strict", npx: "@modelcontextprotocol/server-memory@2026.8.31", env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(work, "memory-npx.jsonl")}, sandbox: "strict"},
		{name: "npx-everything-strict", npx: "@modelcontextprotocol/server-everything@2026.8.31", sandbox: "strict"},
		{name: "npx-sequential-thinking-strict", npx: "@modelcontextprotocol/server-sequential-thinking@2026.8.31", sandbox: "strict"},
	}
}

// modes are what each round measures; with -base, the baseline binary's
// quick and default checks too, in the same rotation.
var modes = []string{"floor", "quick", "default"}

func main() {
	bin := flag.String("bin", "", "the mcp-lockcheck binary")
	repo := flag.String("repo", ".", "the repository root")
	runs := flag.Int("runs", 5, "rounds; each measures every server in every mode once")
	only := flag.String("only", "", "comma-separated server names (default: all; a name ending in * names every server it begins)")
	base := flag.String("base", "", "a baseline mcp-lockcheck binary, measured in the same rounds (quick and default)")
	onlyModes := flag.String("modes", "floor,quick,default", "the modes measured: floor and quick, default or both")
	flag.Parse()
	if *bin == "" {
		fail(errors.New("-bin is required"))
	}
	modes = strings.Split(*onlyModes, ",")
	if !slices.Contains(modes, "floor") || !slices.Contains(modes, "quick") {
		fail(errors.New("-modes must name floor and quick"))
	}
	if *base != "" {
		for _, m := range slices.Clone(modes) {
			if m != "floor" {
				modes = append(modes, "base-"+m)
			}
		}
	}
	work, err := os.MkdirTemp("", "mcp-lockcheck-speed-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	// A kubeconfig naming a cluster at a closed loopback port: the
	// kubernetes server will not start without one.
	kube := "apiVersion: v1\nkind: Config\nclusters:\n- name: bench\n  cluster:\n    server: https://" + closed + "\ncontexts:\n- name: bench\n  context:\n    cluster: bench\n    user: bench\ncurrent-context: bench\nusers:\n- name: bench\n  user:\n    token: bench-not-a-token\n"
	if err := os.WriteFile(filepath.Join(work, "kubeconfig"), []byte(kube), 0o600); err != nil {
		fail(err)
	}
	// The test servers are the install the tests use, in the user's cache
	// directory; npmtest makes it when it is missing or stale.
	testServers, err := npmtest.Install(*repo)
	if err != nil {
		fail(err)
	}
	roots := map[string]npmtest.Dir{
		"test":  testServers,
		"bench": {Root: filepath.Join(*repo, "bench", "servers")},
	}
	entries := prepare(*bin, *only, work, roots)
	measureRounds(entries, *bin, *base, *runs)
	t := printRows(entries, *base)
	printSummary(t, *base, *runs)
}

// entry is one server measured, with its runs.
type entry struct {
	s       server
	command string
	dir     string // where .mcp.json and mcp-lock.json are
	times   map[string][]time.Duration
	calls   []time.Duration // per default run: the call phases
	notes   map[string]bool
	skip    string
}

// prepare sets every server selected by only up in work: its command
// found (roots) or its npx cache warmed, its config and lock written. A
// server that cannot be is skipped, with why.
func prepare(bin, only, work string, roots map[string]npmtest.Dir) []*entry {
	var err error
	var entries []*entry
	for _, s := range servers(work) {
		if only != "" && !selected(only, s.name) {
			continue
		}
		e := &entry{s: s, times: map[string][]time.Duration{}, notes: map[string]bool{}}
		entries = append(entries, e)
		var cmd string
		if s.npx != "" {
			cmd = "npx"
			s.args = append([]string{"-y", s.npx}, s.args...)
			e.s = s
			// The floor's own cache (the user's) warmed, untimed.
			if _, err := floor(cmd, s.args, s.env); err != nil {
				e.skip = "npx: " + err.Error()
				continue
			}
		} else {
			cmd, err = roots[s.root].PackageBin(s.pkg, s.bin)
			if err == nil {
				cmd, err = filepath.Abs(cmd)
			}
			if err != nil {
				e.skip = "not installed: " + err.Error()
				continue
			}
		}
		e.command = cmd
		e.dir = filepath.Join(work, s.name)
		if err := setUp(bin, e.dir, s, cmd); err != nil {
			e.skip = err.Error()
		}
	}
	return entries
}

// measureRounds measures every server in every mode, runs rounds, the
// order of the modes rotating by round and server; base is the baseline
// binary ("" for none).
func measureRounds(entries []*entry, bin, base string, runs int) {
	for round := range runs {
		for i, e := range entries {
			if e.skip != "" {
				continue
			}
			// Rotate the order of the modes by round and server.
			for k := range modes {
				mode := modes[(k+round+i)%len(modes)]
				b := bin
				if m, ok := strings.CutPrefix(mode, "base-"); ok {
					b = base
					mode = m
				}
				d, calls, note, err := measure(b, e.dir, e.s, e.command, mode)
				if b != bin {
					mode = "base-" + mode
				}
				if err != nil {
					e.skip = fmt.Sprintf("%s: %v", mode, err)
					break
				}
				if mode == "default" {
					e.calls = append(e.calls, calls)
				}
				if note != "" {
					if strings.HasPrefix(mode, "base-") {
						note = "baseline: " + note
					}
					e.notes[note] = true
				}
				e.times[mode] = append(e.times[mode], d)
			}
			fmt.Fprintf(os.Stderr, "round %d/%d %s\n", round+1, runs, e.s.name)
		}
	}
}

// tally is what printRows gathered for printSummary: each group's ratios
// (quick, default, and the baseline's quick and default) server by server,
// each mode's ratios, and each measured server's runs round by round, for
// the intervals. full is whether the default check was measured.
type tally struct {
	full                                        bool
	groups                                      map[string][][4]float64
	quickRatios, fullRatios, bqRatios, bdRatios []float64
	floors, quicks, fulls, bquicks, bfulls      [][]time.Duration
}

// printRows prints the table, a row a server, and returns the tally.
func printRows(entries []*entry, base string) *tally {
	head := "| server | floor | `--warmup-calls 0 --launches 1` | ratio | default check | ratio | server's calls | default without them |"
	rule := "|---|---|---|---|---|---|---|---|"
	if base != "" {
		head += " baseline quick | ratio | baseline default | ratio |"
		rule += "---|---|---|---|"
	}
	fmt.Printf("%s notes |\n%s---|\n", head, rule)
	t := &tally{full: slices.Contains(modes, "default"), groups: map[string][][4]float64{}}
	for _, e := range entries {
		if e.skip != "" {
			fmt.Printf("| %s |%s skipped: %s |\n", e.s.name, strings.Repeat(" - |", strings.Count(rule, "|")-2), oneLine(e.skip))
			continue
		}
		f, q, d := median(e.times["floor"]), median(e.times["quick"]), median(e.times["default"])
		rq, rd := float64(q)/float64(f), float64(d)/float64(f)
		// The median of (check - calls) run by run, not the difference
		// of the two medians.
		var rest []time.Duration
		for i, c := range e.calls {
			rest = append(rest, e.times["default"][i]-c)
		}
		c, r := median(e.calls), median(rest)
		rr := float64(r) / float64(f)
		t.quickRatios, t.fullRatios = append(t.quickRatios, rq), append(t.fullRatios, rd)
		g := groupOf(e.s)
		t.groups[g] = append(t.groups[g], [4]float64{rq, rd, float64(median(e.times["base-quick"])) / float64(f), float64(median(e.times["base-default"])) / float64(f)})
		t.floors, t.quicks, t.fulls = append(t.floors, e.times["floor"]), append(t.quicks, e.times["quick"]), append(t.fulls, e.times["default"])
		notes := slices.Sorted(func(yield func(string) bool) {
			for n := range e.notes {
				if !yield(n) {
					return
				}
			}
		})
		if e.s.sandbox != "" && e.s.npx == "" {
			notes = append([]string{"--sandbox " + e.s.sandbox + " (its tools reach a hosted API)"}, notes...)
		}
		if rd > 3 {
			if rr <= 3 {
				notes = append(notes, fmt.Sprintf("over 3x only through its own calls (%s of %s)", ms(c), ms(d)))
			} else {
				notes = append(notes, "over 3x without its calls too")
			}
		}
		row := fmt.Sprintf("| %s | %s | %s | %.2fx | %s | %.2fx | %s | %.2fx |", e.s.name, ms(f), ms(q), rq, ms(d), rd, ms(c), rr)
		if !t.full {
			row = fmt.Sprintf("| %s | %s | %s | %.2fx | - | - | - | - |", e.s.name, ms(f), ms(q), rq)
		}
		if base != "" {
			bq, bd := median(e.times["base-quick"]), median(e.times["base-default"])
			t.bqRatios, t.bdRatios = append(t.bqRatios, float64(bq)/float64(f)), append(t.bdRatios, float64(bd)/float64(f))
			t.bquicks, t.bfulls = append(t.bquicks, e.times["base-quick"]), append(t.bfulls, e.times["base-default"])
			if t.full {
				row += fmt.Sprintf(" %s | %.2fx | %s | %.2fx |", ms(bq), float64(bq)/float64(f), ms(bd), float64(bd)/float64(f))
			} else {
				row += fmt.Sprintf(" %s | %.2fx | - | - |", ms(bq), float64(bq)/float64(f))
			}
		}
		fmt.Printf("%s %s |\n", row, strings.Join(notes, "; "))
	}
	return t
}

// printSummary prints the groups' table and the median ratios with their
// intervals.
func printSummary(t *tally, base string, runs int) {
	if len(t.quickRatios) > 0 {
		printGroups(t.groups, t.full, base != "")
	}
	if len(t.quickRatios) > 0 && !t.full {
		qlo, qhi := ratioInterval(t.floors, t.quicks, resamples, 1)
		fmt.Printf("\nMedian ratio over %d servers: %.2fx (%.2fx to %.2fx) with `--warmup-calls 0 --launches 1`. Medians of %d alternating runs; in brackets, the 95%% interval of the median ratio over %d resamplings of the rounds.\n",
			len(t.quickRatios), medianF(t.quickRatios), qlo, qhi, runs, resamples)
		if base != "" {
			qlo, qhi := ratioInterval(t.floors, t.bquicks, resamples, 1)
			fmt.Printf("\nThe baseline (%s), in the same rounds: %.2fx (%.2fx to %.2fx).\n", base, medianF(t.bqRatios), qlo, qhi)
		}
	} else if len(t.quickRatios) > 0 {
		qlo, qhi := ratioInterval(t.floors, t.quicks, resamples, 1)
		dlo, dhi := ratioInterval(t.floors, t.fulls, resamples, 1)
		fmt.Printf("\nMedian ratio over %d servers: %.2fx (%.2fx to %.2fx) with `--warmup-calls 0 --launches 1` (target <= 1.15x), %.2fx (%.2fx to %.2fx) with defaults (target <= 2.5x). Medians of %d alternating runs; in brackets, the 95%% interval of each median ratio over %d resamplings of the rounds: how far the machine's speed from round to round moves it.\n",
			len(t.quickRatios), medianF(t.quickRatios), qlo, qhi, medianF(t.fullRatios), dlo, dhi, runs, resamples)
		if base != "" {
			qlo, qhi := ratioInterval(t.floors, t.bquicks, resamples, 1)
			dlo, dhi := ratioInterval(t.floors, t.bfulls, resamples, 1)
			fmt.Printf("\nThe baseline (%s), in the same rounds: %.2fx (%.2fx to %.2fx) quick, %.2fx (%.2fx to %.2fx) with defaults.\n",
				base, medianF(t.bqRatios), qlo, qhi, medianF(t.bdRatios), dlo, dhi)
		}
	}
}

// groupOf is the kind of launch a server's row measures: started from
// its installed bin, or with npx under basic or strict.
func groupOf(s server) string {
	switch {
	case s.npx == "":
		return "installed bin"
	case s.sandbox == "strict":
		return "npx -y, strict"
	}
	return "npx -y, basic"
}

// printGroups prints, per group, the median over its servers of each
// ratio to the floor.
func printGroups(groups map[string][][4]float64, full, base bool) {
	fmt.Printf("\n| launch | servers | floor | quick | default | baseline quick | baseline default |\n|---|---|---|---|---|---|---|\n")
	for _, g := range []string{"installed bin", "npx -y, basic", "npx -y, strict"} {
		rs := groups[g]
		if len(rs) == 0 {
			continue
		}
		col := func(k int) string {
			var xs []float64
			for _, r := range rs {
				xs = append(xs, r[k])
			}
			return fmt.Sprintf("%.2fx", medianF(xs))
		}
		d, bq, bd := col(1), col(2), col(3)
		if !full {
			d, bd = "-", "-"
		}
		if !base {
			bq, bd = "-", "-"
		}
		fmt.Printf("| %s | %d | 1x | %s | %s | %s | %s |\n", g, len(rs), col(0), d, bq, bd)
	}
}

// selected reports whether name is in the -only list: a list entry
// ending in * names every server whose name begins with the rest.
func selected(only, name string) bool {
	for _, o := range strings.Split(only, ",") {
		if p, ok := strings.CutSuffix(o, "*"); ok && strings.HasPrefix(name, p) || o == name {
			return true
		}
	}
	return false
}

// setUp writes the server's config and pins it (no calls, one launch), so
// the check compares against a lock as it would in CI.
func setUp(bin, dir string, s server, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entry := map[string]any{"command": command, "args": s.args, "env": s.env}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{s.name: entry}}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		return err
	}
	args := []string{"pin", "--quiet", "--warmup-calls", "0", "--launches", "1"}
	if s.sandbox != "" {
		args = append(args, "--sandbox", s.sandbox)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		// A server pin refuses (an unstable manifest) is still measured:
		// the check probes it all the same and reports the drift.
		fmt.Fprintf(os.Stderr, "%s: pin: %v: %s\n", s.name, err, oneLine(string(out)))
	}
	return nil
}

// measure runs one mode once. calls is the time the default check spent
// in its warm-up call phases (callPhases); note is what the run says about
// the server (held, warm-up calls that timed out), for the table.
func measure(bin, dir string, s server, command, mode string) (d, calls time.Duration, note string, err error) {
	if mode == "floor" {
		d, err := floor(command, s.args, s.env)
		return d, 0, "", err
	}
	args := []string{"check", "--format", "json"}
	switch mode {
	case "quick":
		args = append(args, "--quiet", "--warmup-calls", "0", "--launches", "1")
	case "default":
		args = append(args, "--progress", "plain", "--verbose")
	}
	if s.sandbox != "" {
		args = append(args, "--sandbox", s.sandbox)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	errR, err := cmd.StderrPipe()
	if err != nil {
		return 0, 0, "", err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, "", err
	}
	lines := readLines(errR)
	err = cmd.Wait()
	d = time.Since(start)
	stamped := <-lines
	var stderr strings.Builder
	for _, l := range stamped {
		stderr.WriteString(l.text + "\n")
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() == 2 {
		return 0, 0, "", fmt.Errorf("%v: %s", err, oneLine(stderr.String()))
	}
	calls = callPhases(stamped)
	var r struct {
		Servers []struct {
			Status string `json:"status"`
			Reason string `json:"reason"`
			Calls  []struct {
				Outcome string `json:"outcome"`
			} `json:"calls"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Servers) != 1 {
		return 0, 0, "", fmt.Errorf("report: %v", err)
	}
	srv := r.Servers[0]
	if srv.Status == "held" {
		return d, calls, mode + " held: " + clip.Bytes(srv.Reason, 80), nil
	}
	timedOut := 0
	for _, c := range srv.Calls {
		if c.Outcome == "timeout" {
			timedOut++
		}
	}
	if timedOut > 0 {
		return d, calls, fmt.Sprintf("%d of %d warm-up calls timed out (its own calls are slow)", timedOut, len(srv.Calls)), nil
	}
	return d, calls, "", nil
}

// line is a line of the check's stderr and when it arrived.
type line struct {
	at   time.Time
	text string
}

// readLines timestamps every line of r as it arrives; the channel gets
// them all at EOF.
func readLines(r io.Reader) <-chan []line {
	ch := make(chan []line, 1)
	go func() {
		var ls []line
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			ls = append(ls, line{time.Now(), sc.Text()})
		}
		_, _ = io.Copy(io.Discard, r)
		ch <- ls
	}()
	return ch
}

// callPhases sums the warm-up call phases in a --progress plain --verbose
// log: from each "mcp-lockcheck: NAME: launch-N/call-M" line to the line
// after it (the re-list that follows the call).
func callPhases(ls []line) time.Duration {
	var sum time.Duration
	for i := 0; i+1 < len(ls); i++ {
		_, phase, ok := strings.Cut(ls[i].text, ": ")
		if !ok {
			continue
		}
		if j := strings.LastIndex(phase, ": "); j >= 0 {
			phase = phase[j+2:]
		}
		_, step, ok := strings.Cut(phase, "/")
		if ok && strings.HasPrefix(step, "call-") && strings.HasPrefix(phase, "launch-") {
			sum += ls[i+1].at.Sub(ls[i].at)
		}
	}
	return sum
}

// floor is the server's own start: spawn, initialize, initialized,
// tools/list, over the SDK's stdio transport, timed to the tools/list
// answer. The process group is killed afterwards, outside the time.
func floor(command string, args []string, env map[string]string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(command, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	conn, err := (&mcp.CommandTransport{Command: cmd}).Connect(ctx)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		conn.Close()
	}()
	call := func(id int64, method string, params string) error {
		rid, _ := jsonrpc.MakeID(float64(id))
		if err := conn.Write(ctx, &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}); err != nil {
			return err
		}
		for {
			m, err := conn.Read(ctx)
			if err != nil {
				return fmt.Errorf("%s: %w", method, err)
			}
			if r, ok := m.(*jsonrpc.Response); ok && r.ID == rid {
				if r.Error != nil {
					return fmt.Errorf("%s: %w", method, r.Error)
				}
				return nil
			}
		}
	}
	if err := call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-floor","version":"1"}}`); err != nil {
		return 0, err
	}
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
		return 0, err
	}
	if err := call(2, "tools/list", `{}`); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// resamples is how many times ratioInterval draws the rounds.
const resamples = 2000

// ratioInterval is the 95% percentile bootstrap interval of the headline
// figure: the median over servers of median(check) / median(floor).
// floors[i] and checks[i] are server i's times, one per round. What is
// drawn, with replacement, is rounds, and a server's floor and check share
// the draw: in a round they were measured seconds apart, with the machine
// as fast or as slow for both, and a speed they share is no noise in their
// ratio. The machine's speed from round to round is, and the interval
// shows how far it moves the figure. The draws are seeded, so one run's
// data always gives the same interval.
func ratioInterval(floors, checks [][]time.Duration, n int, seed uint64) (lo, hi float64) {
	rounds := len(floors[0])
	for i := range floors {
		rounds = min(rounds, len(floors[i]), len(checks[i]))
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	pick := make([]int, rounds)
	f, c := make([]time.Duration, rounds), make([]time.Duration, rounds)
	ratios := make([]float64, len(floors))
	out := make([]float64, n)
	for b := range out {
		for r := range pick {
			pick[r] = rng.IntN(rounds)
		}
		for i := range floors {
			for r, k := range pick {
				f[r], c[r] = floors[i][k], checks[i][k]
			}
			ratios[i] = float64(median(c)) / float64(median(f))
		}
		out[b] = medianF(ratios)
	}
	slices.Sort(out)
	return out[n*25/1000], out[n*975/1000-1]
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func oneLine(s string) string {
	return clip.Bytes(strings.Join(strings.Fields(strings.ReplaceAll(s, "|", "/")), " "), 160)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "speed:", err)
	os.Exit(2)
}
