//go:build unix

// Command sweep runs mcp-lockcheck, with its defaults, against many real
// MCP servers it has never been tuned for, the way a new user would, and
// tabulates what it says. It is driven by bench/sweep.sh, which installs
// the servers at exact versions and builds mcp-lockcheck from the tree.
//
// For every entry (one server, or a few in one config to see how they
// interact) it writes a .mcp.json in a fresh directory and runs, each
// under one deadline for the entry:
//
//   - pin;
//   - check three times, --format json;
//   - check once more in a second directory holding a copy of the config
//     and the lock: the same repository checked out at another path.
//
// It prints one markdown table (exit codes, findings of the first check
// by rule and level, the rules whose counts differ between the checks,
// wall time) and writes sweep.tsv and sweep.json beside it with every
// run's findings, for triage.
//
// Servers are started offline and without credentials. Every backend a
// server is pointed at is a closed loopback port, so a server that needs
// a local service has to fail honestly without it; servers whose tools
// reach a hosted API run under --sandbox strict (no network at all).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
)

// closed is a loopback port nothing listens on: the "local service" every
// server that needs one is pointed at.
const closed = "127.0.0.1:9"

// fake is the value of every credential a server insists on. It is no
// token anywhere, and the servers given one run without network.
const fake = "bench-not-a-token"

// member is one server in an entry's config.
type member struct {
	name string
	root string // "test" (testdata/npm), "bench" (bench/servers), "sweep" (bench/sweep/npm) or "go" (bench/sweep/bin)
	pkg  string // npm package directory under node_modules, or the Go binary's name
	bin  string // npm bin name, "" when the package has one
	args []string
	env  map[string]string
	// version is the Go module version (npm versions are read from the
	// installed package.json).
	version string
}

// entry is one row of the table: one config with one or more servers.
type entry struct {
	name    string
	members []member
	sandbox string // "" = the default (basic)
	why     string // what the entry is in the sweep for
	// once runs pin and one check only: the entry of every server
	// together, whose later checks would repeat the single entries'.
	once bool
}

// entries are the servers swept. work is a scratch directory shared by
// all entries (a filesystem server's root, a kubeconfig).
func entries(work string) []entry {
	kube := map[string]string{"KUBECONFIG": filepath.Join(work, "kubeconfig")}
	one := func(name, why, sandbox string, m member) entry {
		m.name = name
		return entry{name: name, members: []member{m}, sandbox: sandbox, why: why}
	}
	fsRoot := filepath.Join(work, "files")
	githubGo := member{name: "github", root: "go", pkg: "github-mcp-server", args: []string{"stdio"}, env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": fake}, version: "github.com/github/github-mcp-server@v0.30.0"}
	supabase := member{name: "supabase", root: "sweep", pkg: "@supabase/mcp-server-supabase", env: map[string]string{"SUPABASE_ACCESS_TOKEN": fake}}
	brave := member{name: "brave", root: "sweep", pkg: "@brave/brave-search-mcp-server", env: map[string]string{"BRAVE_API_KEY": fake}}
	braveOld := member{name: "brave-legacy", root: "sweep", pkg: "@modelcontextprotocol/server-brave-search", env: map[string]string{"BRAVE_API_KEY": fake}}
	fs := member{name: "filesystem", root: "test", pkg: "@modelcontextprotocol/server-filesystem", args: []string{fsRoot}}
	fs25 := member{name: "fs-2025", root: "test", pkg: "fs-2025", args: []string{fsRoot}}
	singles := []entry{
		one("filesystem", "annotations, roots", "", fs),
		one("fs-2025", "older release, no annotations", "", fs25),
		one("everything", "prompts, resources, templates, list_changed", "", member{root: "test", pkg: "@modelcontextprotocol/server-everything"}),
		one("everything-2025", "prompts, resources, older release", "", member{root: "bench", pkg: "everything-2025"}),
		one("memory", "writes a file it is told of", "", member{root: "test", pkg: "@modelcontextprotocol/server-memory", env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(work, "memory.jsonl")}}),
		one("memory-default", "writes beside its own code by default", "", member{root: "test", pkg: "@modelcontextprotocol/server-memory"}),
		one("sequential-thinking", "one tool", "", member{root: "bench", pkg: "@modelcontextprotocol/server-sequential-thinking"}),
		one("github-npm", "legacy, no annotations; API at a closed port", "", member{root: "bench", pkg: "@modelcontextprotocol/server-github", env: map[string]string{"GITHUB_API_URL": "http://" + closed}}),
		one("gitlab", "no annotations, writes; API at a closed port", "", member{root: "bench", pkg: "@modelcontextprotocol/server-gitlab", env: map[string]string{"GITLAB_PERSONAL_ACCESS_TOKEN": fake, "GITLAB_API_URL": "http://" + closed + "/api/v4"}}),
		one("context7", "hosted API", "strict", member{root: "bench", pkg: "@upstash/context7-mcp"}),
		one("playwright", "annotations, browser not installed", "strict", member{root: "bench", pkg: "@playwright/mcp"}),
		one("chrome-devtools", "annotations, browser not installed", "strict", member{root: "bench", pkg: "chrome-devtools-mcp", bin: "chrome-devtools-mcp"}),
		one("kubernetes-ts", "local service (cluster at a closed port)", "", member{root: "bench", pkg: "mcp-server-kubernetes", env: kube}),
		one("notion", "big schemas, hosted API", "strict", member{root: "bench", pkg: "@notionhq/notion-mcp-server"}),
		one("firecrawl", "API at a closed port", "", member{root: "bench", pkg: "firecrawl-mcp", env: map[string]string{"FIRECRAWL_API_URL": "http://" + closed}}),
		one("exa", "hosted API", "strict", member{root: "bench", pkg: "exa-mcp-server"}),
		one("chart", "big tool list, hosted API", "strict", member{root: "bench", pkg: "@antv/mcp-server-chart"}),
		one("redis", "local service (redis at a closed port)", "", member{root: "sweep", pkg: "@modelcontextprotocol/server-redis", args: []string{"redis://" + closed}}),
		one("postgres", "local service, resources", "", member{root: "sweep", pkg: "@modelcontextprotocol/server-postgres", args: []string{"postgresql://bench@" + closed + "/bench"}}),
		one("elasticsearch", "local service, writes to stdout", "strict", member{root: "sweep", pkg: "@elastic/mcp-server-elasticsearch", env: map[string]string{"ES_URL": "http://" + closed, "ES_API_KEY": fake}}),
		one("mongodb", "local service, big tool list, telemetry", "strict", member{root: "sweep", pkg: "mongodb-mcp-server", env: map[string]string{"MDB_MCP_CONNECTION_STRING": "mongodb://" + closed + "/bench", "MDB_MCP_TELEMETRY": "disabled", "DO_NOT_TRACK": "1"}}),
		one("figma", "working directory in a description", "strict", member{root: "sweep", pkg: "figma-developer-mcp", args: []string{"--stdio"}, env: map[string]string{"FIGMA_API_KEY": fake}}),
		one("ea-playwright", "install-browsers notice in a call result", "strict", member{root: "sweep", pkg: "@executeautomation/playwright-mcp-server"}),
		one("kubernetes-go", "Go binary in an npm wrapper, prompts", "", member{root: "sweep", pkg: "kubernetes-mcp-server", env: kube}),
		one("hubspot", "advertises resources it does not list", "strict", member{root: "sweep", pkg: "@hubspot/mcp-server", env: map[string]string{"PRIVATE_APP_ACCESS_TOKEN": fake}}),
		one("supabase", "hosted API", "strict", supabase),
		one("launchdarkly", "no annotations, writes", "strict", member{root: "sweep", pkg: "@launchdarkly/mcp-server", args: []string{"start", "--api-key", fake}}),
		one("slack", "no annotations, writes", "strict", member{root: "sweep", pkg: "@modelcontextprotocol/server-slack", env: map[string]string{"SLACK_BOT_TOKEN": "xoxb-" + fake, "SLACK_TEAM_ID": "T0BENCH"}}),
		one("brave", "hosted API", "strict", brave),
		one("brave-legacy", "hosted API, older", "strict", braveOld),
		one("sentry", "hosted API, prompts", "strict", member{root: "sweep", pkg: "@sentry/mcp-server", args: []string{"--access-token=" + fake}}),
		one("tavily", "hosted API", "strict", member{root: "sweep", pkg: "tavily-mcp", env: map[string]string{"TAVILY_API_KEY": fake}}),
		one("time", "prints a banner", "", member{root: "sweep", pkg: "time-mcp"}),
		one("puppeteer", "browser not installed, resources", "strict", member{root: "sweep", pkg: "@modelcontextprotocol/server-puppeteer"}),
		one("github-go", "Go (go-sdk), big tool list, annotations", "strict", githubGo),
		one("mcp-go-filesystem", "Go (mark3labs/mcp-go)", "", member{root: "go", pkg: "mcp-filesystem-server", args: []string{fsRoot}, version: "github.com/mark3labs/mcp-filesystem-server@v0.11.1"}),
		one("resend", "hosted API, one sentence on many tools", "strict", member{root: "sweep", pkg: "resend-mcp", env: map[string]string{"RESEND_API_KEY": "re_" + fake}}),
	}
	// all: every server that lists its tools offline, in one config, as
	// a user with all of them installed has them: the honest servers'
	// shared tool names and cross-references, together (issue 37).
	all := entry{name: "all", sandbox: "strict", why: "every server that lists offline, together", once: true}
	for _, e := range singles {
		if !heldOffline[e.name] {
			all.members = append(all.members, e.members...)
		}
	}
	return append(singles,
		entry{name: "pair:github+supabase", members: []member{githubGo, supabase}, sandbox: "strict", why: "shared tool names"},
		entry{name: "pair:brave+legacy", members: []member{brave, braveOld}, sandbox: "strict", why: "shared tool names"},
		entry{name: "pair:two-filesystems", members: []member{fs, fs25}, why: "shared tool names"},
		all)
}

// heldOffline are the servers that cannot list their tools without their
// service or the network (the table shows them held), and the two
// kubernetes servers, which read a kubeconfig outside the project that
// "all"'s strict sandbox does not grant: left out of "all", where they
// would only add their server-unavailable errors.
var heldOffline = map[string]bool{"redis": true, "postgres": true, "elasticsearch": true, "supabase": true, "time": true, "kubernetes-ts": true, "kubernetes-go": true}

// run is one mcp-lockcheck invocation.
type run struct {
	Step    string         `json:"step"` // pin, check1..3, other-path
	Exit    int            `json:"exit"` // -1: killed at the deadline
	Millis  int64          `json:"ms"`
	Servers []serverReport `json:"servers,omitempty"`
	Output  string         `json:"output,omitempty"` // pin's text (last lines), or stderr on failure
	Counts  map[string]int `json:"counts,omitempty"` // rule:level -> count, unacknowledged
}

type serverReport struct {
	Name   string   `json:"name"`
	Status string   `json:"status"`
	Reason string   `json:"reason,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	// Calls are the warm-up calls made: which tools a check called on a
	// real server, and what came back.
	Calls []struct {
		Tool    string `json:"tool"`
		Outcome string `json:"outcome"`
	} `json:"calls,omitempty"`
	Findings []reportFinding `json:"findings"`
}

type reportFinding struct {
	Rule         string `json:"rule"`
	Severity     string `json:"severity"`
	Server       string `json:"server"`
	Kind         string `json:"kind,omitempty"`
	Subject      string `json:"subject,omitempty"`
	Field        string `json:"field,omitempty"`
	Phase        string `json:"phase,omitempty"`
	Message      string `json:"message"`
	Acknowledged bool   `json:"acknowledged,omitempty"`
}

// result is one entry's outcome.
type result struct {
	Name     string            `json:"name"`
	Why      string            `json:"why"`
	Sandbox  string            `json:"sandbox"`
	Versions map[string]string `json:"versions"`
	Skip     string            `json:"skip,omitempty"`
	Runs     []run             `json:"runs"`
	Millis   int64             `json:"ms"`
}

func main() {
	bin := flag.String("bin", "", "the mcp-lockcheck binary")
	repo := flag.String("repo", ".", "the repository root")
	out := flag.String("out", "", "directory for sweep.tsv and sweep.json (default: none)")
	only := flag.String("only", "", "comma-separated entry names (default: all)")
	deadline := flag.Duration("deadline", 6*time.Minute, "deadline for one entry's five runs together")
	keep := flag.Bool("keep", false, "keep the scratch directory (configs, locks) and print its path")
	flag.Parse()
	if *bin == "" {
		fail(errors.New("-bin is required"))
	}
	abs, err := filepath.Abs(*bin)
	if err != nil {
		fail(err)
	}
	*bin = abs
	work, err := os.MkdirTemp("", "mcp-lockcheck-sweep-")
	if err != nil {
		fail(err)
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "scratch:", work)
	} else {
		defer os.RemoveAll(work)
	}
	if err := setUpWork(work); err != nil {
		fail(err)
	}
	// The test servers are the install the tests use, in the user's cache
	// directory; npmtest makes it when it is missing or stale.
	testServers, err := npmtest.Install(*repo)
	if err != nil {
		fail(err)
	}
	roots := map[string]string{
		"test":  testServers.Root,
		"bench": filepath.Join(*repo, "bench", "servers"),
		"sweep": filepath.Join(*repo, "bench", "sweep", "npm"),
	}
	var results []*result
	for _, e := range entries(work) {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), e.name) {
			continue
		}
		r := sweep(*bin, *repo, work, roots, e, *deadline)
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "%s: %s (%s)\n", e.name, exits(r), ms(r.Millis))
	}
	printTable(os.Stdout, results)
	if *out != "" {
		if err := writeFiles(*out, results); err != nil {
			fail(err)
		}
	}
}

// setUpWork writes what the entries share: a kubeconfig naming a cluster at
// a closed loopback port (the kubernetes servers will not start without
// one) and a small tree for the filesystem servers.
func setUpWork(work string) error {
	kube := "apiVersion: v1\nkind: Config\nclusters:\n- name: bench\n  cluster:\n    server: https://" + closed + "\ncontexts:\n- name: bench\n  context:\n    cluster: bench\n    user: bench\ncurrent-context: bench\nusers:\n- name: bench\n  user:\n    token: " + fake + "\n"
	if err := os.WriteFile(filepath.Join(work, "kubeconfig"), []byte(kube), 0o600); err != nil {
		return err
	}
	files := filepath.Join(work, "files")
	if err := os.MkdirAll(filepath.Join(files, "docs"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(files, "README.md"), []byte("# bench\n\nA file for the filesystem servers to read.\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(files, "docs", "notes.txt"), []byte("notes\n"), 0o644)
}

// sweep runs one entry: pin, three checks, a check on a copy elsewhere.
func sweep(bin, repo, work string, roots map[string]string, e entry, deadline time.Duration) *result {
	r := &result{Name: e.name, Why: e.why, Sandbox: e.sandbox, Versions: map[string]string{}}
	if r.Sandbox == "" {
		r.Sandbox = "basic"
	}
	servers := map[string]any{}
	for _, m := range e.members {
		command, version, err := locate(repo, roots, m)
		if err != nil {
			r.Skip = fmt.Sprintf("%s not installed: %v", m.name, err)
			return r
		}
		r.Versions[m.name] = version
		s := map[string]any{"command": command}
		if len(m.args) > 0 {
			s["args"] = m.args
		}
		if len(m.env) > 0 {
			s["env"] = m.env
		}
		servers[m.name] = s
	}
	dirName := strings.NewReplacer(":", "-", "+", "-").Replace(e.name)
	dir := filepath.Join(work, dirName, "checkout")
	other := filepath.Join(work, dirName, "elsewhere", "checkout")
	for _, d := range []string{dir, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			r.Skip = err.Error()
			return r
		}
	}
	cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), append(cfg, '\n'), 0o644); err != nil {
		r.Skip = err.Error()
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	var sandbox []string
	if e.sandbox != "" {
		sandbox = []string{"--sandbox", e.sandbox}
	}
	r.Runs = append(r.Runs, invoke(ctx, bin, dir, "pin", append([]string{"pin", "--quiet", "--approved-by", "sweep@bench.invalid"}, sandbox...)))
	if e.once {
		r.Runs = append(r.Runs, invoke(ctx, bin, dir, "check1", append([]string{"check", "--quiet", "--format", "json"}, sandbox...)))
		r.Millis = time.Since(start).Milliseconds()
		return r
	}
	for i := 1; i <= 3; i++ {
		r.Runs = append(r.Runs, invoke(ctx, bin, dir, fmt.Sprintf("check%d", i), append([]string{"check", "--quiet", "--format", "json"}, sandbox...)))
	}
	// The second checkout: the same config and lock at another path.
	for _, f := range []string{".mcp.json", "mcp-lock.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err == nil {
			err = os.WriteFile(filepath.Join(other, f), b, 0o644)
		}
		if err != nil && f == ".mcp.json" {
			r.Skip = err.Error()
			return r
		}
	}
	r.Runs = append(r.Runs, invoke(ctx, bin, other, "other-path", append([]string{"check", "--quiet", "--format", "json"}, sandbox...)))
	r.Millis = time.Since(start).Milliseconds()
	return r
}

// locate finds a member's command and version.
func locate(repo string, roots map[string]string, m member) (command, version string, err error) {
	if m.root == "go" {
		command = filepath.Join(repo, "bench", "sweep", "bin", m.pkg)
		if _, err := os.Stat(command); err != nil {
			return "", "", err
		}
		command, err = filepath.Abs(command)
		return command, m.version, err
	}
	d := npmtest.Dir{Root: roots[m.root]}
	command, err = d.PackageBin(m.pkg, m.bin)
	if err != nil {
		return "", "", err
	}
	if command, err = filepath.Abs(command); err != nil {
		return "", "", err
	}
	var pj struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(roots[m.root], "node_modules", m.pkg, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pj)
	}
	if err != nil {
		return "", "", err
	}
	return command, pj.Name + "@" + pj.Version, nil
}

// invoke runs mcp-lockcheck once in dir, killed (its whole process group)
// when ctx ends.
func invoke(ctx context.Context, bin, dir, step string, args []string) run {
	rn := run{Step: step, Counts: map[string]int{}}
	if ctx.Err() != nil {
		rn.Exit = -1
		rn.Output = "not run: the entry's deadline had passed"
		return rn
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		rn.Exit = -1
		rn.Output = err.Error()
		return rn
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	_ = cmd.Wait()
	close(done)
	rn.Millis = time.Since(start).Milliseconds()
	rn.Exit = cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		rn.Exit = -1
	}
	if step == "pin" {
		rn.Output = tail(stdout.String()+stderr.String(), 20)
		return rn
	}
	var rep struct {
		Servers []serverReport `json:"servers"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		rn.Output = tail(stderr.String(), 20)
		return rn
	}
	rn.Servers = rep.Servers
	for _, s := range rep.Servers {
		for _, f := range s.Findings {
			if f.Acknowledged {
				continue
			}
			rn.Counts[f.Rule+":"+f.Severity]++
		}
	}
	return rn
}

// printTable writes the markdown table.
func printTable(w *os.File, results []*result) {
	fmt.Fprintln(w, "| server | version | sandbox | pin | check 1 | check 2 | check 3 | other path | findings (check 1) | differs in later checks | held | time |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		vs := slices.Sorted(maps.Values(r.Versions))
		if r.Skip != "" {
			fmt.Fprintf(w, "| %s | %s | %s | - | - | - | - | - | skipped: %s | | | |\n", cell(r.Name), cell(strings.Join(vs, ", ")), r.Sandbox, cell(r.Skip))
			continue
		}
		var codes []string
		for _, rn := range r.Runs {
			codes = append(codes, code(rn.Exit))
		}
		for len(codes) < 5 {
			codes = append(codes, "-")
		}
		first := checkRun(r, "check1")
		var differs []string
		for _, rn := range r.Runs[1:] {
			for _, k := range keys(rn.Counts, first.Counts) {
				if rn.Counts[k] != first.Counts[k] && !slices.Contains(differs, k) {
					differs = append(differs, k)
				}
			}
		}
		slices.Sort(differs)
		held := map[string]bool{}
		for _, rn := range r.Runs {
			for _, s := range rn.Servers {
				if s.Status == "held" {
					held[s.Name+": "+clip.Bytes(s.Reason, 100)] = true
				}
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			cell(r.Name), cell(strings.Join(vs, ", ")), r.Sandbox,
			codes[0], codes[1], codes[2], codes[3], codes[4],
			cell(counts(first.Counts)), cell(strings.Join(differs, ", ")),
			cell(strings.Join(slices.Sorted(maps.Keys(held)), "; ")), ms(r.Millis))
	}
}

func checkRun(r *result, step string) run {
	for _, rn := range r.Runs {
		if rn.Step == step {
			return rn
		}
	}
	return run{}
}

func keys(a, b map[string]int) []string {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return slices.Sorted(maps.Keys(m))
}

// counts renders rule:level counts, errors first.
func counts(c map[string]int) string {
	rank := map[string]int{"error": 0, "warning": 1, "note": 2}
	ks := slices.Collect(maps.Keys(c))
	slices.SortFunc(ks, func(a, b string) int {
		ra, rb := rank[a[strings.LastIndex(a, ":")+1:]], rank[b[strings.LastIndex(b, ":")+1:]]
		if ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range ks {
		i := strings.LastIndex(k, ":")
		parts = append(parts, fmt.Sprintf("%s %s %d", k[:i], strings.ToUpper(k[i+1:i+2]), c[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// writeFiles writes sweep.json (everything) and sweep.tsv (one line per
// run and rule:level).
func writeFiles(out string, results []*result) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "sweep.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var t strings.Builder
	t.WriteString("entry\tversions\tsandbox\tstep\texit\tms\trule\tseverity\tcount\n")
	for _, r := range results {
		vs := strings.Join(slices.Sorted(maps.Values(r.Versions)), ",")
		for _, rn := range r.Runs {
			if len(rn.Counts) == 0 {
				fmt.Fprintf(&t, "%s\t%s\t%s\t%s\t%d\t%d\t\t\t0\n", r.Name, vs, r.Sandbox, rn.Step, rn.Exit, rn.Millis)
			}
			for _, k := range slices.Sorted(maps.Keys(rn.Counts)) {
				i := strings.LastIndex(k, ":")
				fmt.Fprintf(&t, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%d\n", r.Name, vs, r.Sandbox, rn.Step, rn.Exit, rn.Millis, k[:i], k[i+1:], rn.Counts[k])
			}
		}
	}
	return os.WriteFile(filepath.Join(out, "sweep.tsv"), []byte(t.String()), 0o644)
}

func exits(r *result) string {
	if r.Skip != "" {
		return "skipped: " + r.Skip
	}
	var s []string
	for _, rn := range r.Runs {
		s = append(s, rn.Step+"="+code(rn.Exit))
	}
	return strings.Join(s, " ")
}

func code(exit int) string {
	if exit < 0 {
		return "timeout"
	}
	return fmt.Sprint(exit)
}

func ms(n int64) string { return fmt.Sprintf("%.1f s", float64(n)/1000) }

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// cell makes text safe in a markdown table cell: server text (a held
// reason quotes the server) must not break the table.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("|", "\\|", "`", "'", "<", "&lt;", ">", "&gt;").Replace(s)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sweep:", err)
	os.Exit(2)
}
