//go:build unix

// Command deep measures the deep profile's wall time per server, with
// deep's defaults, for mcp-lockcheck and (with -base) a baseline binary
// side by side: every run of both starts at once and goes on
// concurrently, so the machine's load weighs on both alike. It is driven
// by bench/deep.sh, which builds the binaries.
//
// The servers are this program itself run as the scripted fake server
// (internal/testing/fakeserver, FAKE_SCENARIO), once honest and once per trigger
// deep exists to reach (a change on the 40th call, on the 4th launch,
// for a non-decoy tool only, for a non-empty argument only, after 600
// calls in one process, for one client identity only), and, when the
// test servers are installed, server-memory (node: the clock launches
// reach it). Each gets a directory with its .mcp.json, a lock pinned
// with the quick profile, and one `check --profile deep --format json`,
// timed. It prints, per server and binary, the wall time, the exit code,
// the launches made and the phase of the first drift finding.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	// A run of this program with FAKE_SCENARIO set is the fake server:
	// the package's init takes the process over.
	_ "github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
)

// scenario is one server of the run.
type scenario struct {
	name  string
	entry map[string]any // the .mcp.json entry
	want  string         // the phase deep catches it at ("" for a clean one)
	// pin is the fake's scenario the lock is pinned with (honest if
	// ""): one whose quick probe already differs from the honest one
	// (decoy-tools lists its decoys from the start) is pinned as itself.
	pin string
}

func main() {
	bin := flag.String("bin", "", "the mcp-lockcheck binary")
	base := flag.String("base", "", "a baseline mcp-lockcheck binary, run side by side")
	repo := flag.String("repo", ".", "the repository root")
	only := flag.String("only", "", "comma-separated scenario names (default: all)")
	flag.Parse()
	if *bin == "" {
		fail(errors.New("-bin is required"))
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	// The scenario comes from the checker's environment through a
	// placeholder, as in deep_profile.txtar: the lock pinned with the
	// honest one records the same launch.
	fake := func(sc string) map[string]any {
		return map[string]any{"command": self, "env": map[string]string{"FAKE_SCENARIO": "${SCENARIO:-honest}", "FAKE_POISON_CLIENT": "Zed"}, "scenario": sc}
	}
	// want is where the end-to-end script (testdata/script/deep_profile.txtar)
	// sees deep catch each; nonempty-arg's first call to its tool is the
	// first of the run here, the second there.
	scenarios := []scenario{
		{"honest", fake("honest"), "", ""},
		{"counter-40", fake("counter-40"), "launch-1/after-call-40", ""},
		{"sleeper-4", fake("sleeper-4"), "launch-4/initial", ""},
		{"decoy-tools", fake("decoy-tools"), "launch-1/after-call-14", "decoy-tools"},
		{"nonempty-arg", fake("nonempty-arg"), "launch-1/after-call-1", ""},
		{"counter-600", fake("counter-600"), "launch-1/burst-after-call-1024", ""},
		{"identity", fake("identity"), "a launch as Zed", ""},
	}
	if d, err := npmtest.Install(*repo); err == nil {
		if cmd, err := d.PackageBin("@modelcontextprotocol/server-memory", ""); err == nil {
			scenarios = append(scenarios, scenario{"server-memory", map[string]any{"command": cmd}, "", ""})
		}
	} else {
		fmt.Fprintln(os.Stderr, "deep: the test servers are not installed, server-memory left out:", err)
	}
	bins := map[string]string{"new": *bin}
	if *base != "" {
		bins["baseline"] = *base
	}
	work, err := os.MkdirTemp("", "mcp-lockcheck-deep-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	var (
		mu      sync.Mutex
		results []result
		wg      sync.WaitGroup
	)
	for _, sc := range scenarios {
		if *only != "" && !strings.Contains(","+*only+",", ","+sc.name+",") {
			continue
		}
		for which, b := range bins {
			dir := filepath.Join(work, which, sc.name)
			if err := setUp(b, dir, sc); err != nil {
				fail(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := check(b, dir, which, sc)
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				fmt.Fprintf(os.Stderr, "%s %s: %s, exit %d\n", which, sc.name, r.wall.Round(time.Second), r.exit)
			}()
		}
	}
	wg.Wait()
	sort.Slice(results, func(i, j int) bool {
		if results[i].scenario != results[j].scenario {
			return order(scenarios, results[i].scenario) < order(scenarios, results[j].scenario)
		}
		return results[i].which > results[j].which // new, then baseline
	})
	printResults(results, scenarios)
}

// result is one deep check of one scenario by one binary (which).
type result struct {
	scenario, which string
	wall            time.Duration
	exit            int
	launches        int
	caught          string
	err             string
}

// check runs b's deep check of the scenario sc set up in dir, timed.
func check(b, dir, which string, sc scenario) result {
	r := result{scenario: sc.name, which: which}
	cmd := exec.Command(b, "check", "--quiet", "--profile", "deep", "--format", "json")
	cmd.Dir = dir
	if v, ok := sc.entry["scenario"].(string); ok {
		cmd.Env = append(os.Environ(), "SCENARIO="+v)
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	err := cmd.Run()
	r.wall = time.Since(start)
	r.exit = cmd.ProcessState.ExitCode()
	if r.exit == 2 || r.exit < 0 {
		r.err = fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	r.launches, r.caught = readReport(out.Bytes())
	return r
}

// printResults prints the table of results, a row a scenario and binary.
func printResults(results []result, scenarios []scenario) {
	fmt.Println("| server | binary | wall time | exit | launches | caught at | expected |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range results {
		want := ""
		for _, sc := range scenarios {
			if sc.name == r.scenario {
				want = sc.want
			}
		}
		caught := r.caught
		if r.err != "" {
			caught = "error: " + r.err
		}
		fmt.Printf("| %s | %s | %s | %d | %d | %s | %s |\n", r.scenario, r.which, minSec(r.wall), r.exit, r.launches, orDash(caught), orDash(want))
	}
}

// setUp writes the scenario's config and pins its server as it was
// approved (a fake: its honest scenario, as deep_profile.txtar does).
func setUp(bin, dir string, sc scenario) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entry := map[string]any{}
	for k, v := range sc.entry {
		if k != "scenario" {
			entry[k] = v
		}
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"server": entry}}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(bin, "pin", "--quiet")
	cmd.Dir = dir
	pin := sc.pin
	if pin == "" {
		pin = "honest"
	}
	cmd.Env = append(os.Environ(), "SCENARIO="+pin)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: pin: %v: %s", sc.name, err, out)
	}
	return nil
}

// readReport reads the launches made and the first drift finding's phase
// (or, for a finding about a client identity, its message's client).
func readReport(b []byte) (launches int, caught string) {
	var r struct {
		Servers []struct {
			Coverage struct {
				Launches int `json:"launches"`
			} `json:"coverage"`
			Findings []struct {
				Rule    string `json:"rule"`
				Phase   string `json:"phase"`
				Message string `json:"message"`
			} `json:"findings"`
		} `json:"servers"`
	}
	if json.Unmarshal(b, &r) != nil || len(r.Servers) != 1 {
		return 0, "unreadable report"
	}
	s := r.Servers[0]
	for _, f := range s.Findings {
		if strings.HasSuffix(f.Rule, "-changed") || strings.HasSuffix(f.Rule, "-added") || strings.HasSuffix(f.Rule, "-removed") {
			if i := strings.Index(f.Message, "client identity "); i >= 0 {
				return s.Coverage.Launches, f.Phase + " (" + strings.Fields(f.Message[i+len("client identity "):])[0] + ")"
			}
			return s.Coverage.Launches, f.Phase
		}
	}
	return s.Coverage.Launches, ""
}

func order(scs []scenario, name string) int {
	for i, sc := range scs {
		if sc.name == name {
			return i
		}
	}
	return len(scs)
}

func minSec(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "deep:", err)
	os.Exit(2)
}
