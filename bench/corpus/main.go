//go:build unix

// Command corpus records the definitions of many real MCP servers into the
// inspect package's benign corpus (internal/inspect/testdata/corpus/servers),
// one lock per server, which TestBenignCorpus replays offline. It is driven
// by bench/corpus.sh, which installs the servers at exact versions and
// builds mcp-lockcheck from the tree.
//
// For every server it writes a .mcp.json in a fresh directory, runs
// mcp-lockcheck pin there (one launch, no warm-up calls: the corpus is
// what a server lists, and a single listing is what a reviewer approves)
// and copies the lock it wrote to OUT/<slug>.lock.json. A pin that exits 1
// has still written its lock: the current rules raise findings on honest
// text, which is what the corpus is for. A pin that exits 3 (the server
// could not be probed: it needs its backend, a browser, a credential
// file) writes nothing, and the server is reported as left out.
//
// Every server is started with every toolset and feature flag it has on,
// credentials it insists on set to bench-not-a-token and every backend
// URL pointed at a closed loopback port (127.0.0.1:9) or a .invalid host.
// Servers whose tools reach a hosted API run under --sandbox strict (no
// network at all), the others under the default.
//
// The lock's launch names the absolute path of the installed bin, which
// is the recording machine's; the copy in the repository has it relative
// to bench/corpus (npm/BATCH/node_modules/PKG/..., bin/NAME) and records the
// package and its exact version in launch.package and launch.resolved,
// with the registry's integrity for npm packages (from the install's
// package-lock.json), as an npx launch of that version would.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// closed is a loopback port nothing listens on: every backend a server is
// pointed at.
const closed = "127.0.0.1:9"

// fake is the value of every credential a server insists on.
const fake = "bench-not-a-token"

// server is one corpus server.
type server struct {
	slug string // file name in the corpus and server name in the lock
	kind string // "npm" (bench/corpus/npm) or "go" (bench/corpus/bin)
	pkg  string // npm package, or the Go module path
	bin  string // npm bin name ("" for the package's only one), or the Go binary
	// version is the Go module version; npm versions are read from the
	// installed package.json.
	version string
	args    []string
	env     map[string]string
	strict  bool   // reaches a hosted API: --sandbox strict
	why     string // what the server adds to the corpus, and its flags
}

// status is one server's outcome.
type status struct {
	Slug    string   `json:"slug"`
	Package string   `json:"package"`
	Args    []string `json:"args,omitempty"`
	Env     []string `json:"env,omitempty"`
	Sandbox string   `json:"sandbox"`
	Why     string   `json:"why"`
	Exit    int      `json:"exit"`
	Millis  int64    `json:"ms"`
	// Recorded is set when a lock was copied into the corpus.
	Recorded  bool   `json:"recorded"`
	Tools     int    `json:"tools"`
	Prompts   int    `json:"prompts"`
	Resources int    `json:"resources"`
	Templates int    `json:"templates"`
	Output    string `json:"output,omitempty"` // pin's last lines when nothing was recorded
}

func main() {
	bin := flag.String("bin", "", "the mcp-lockcheck binary")
	repo := flag.String("repo", ".", "the repository root")
	out := flag.String("out", "internal/inspect/testdata/corpus/servers", "directory the locks are copied to")
	only := flag.String("only", "", "comma-separated slugs (default: all)")
	jobs := flag.Int("jobs", 2, "servers pinned at once")
	deadline := flag.Duration("deadline", 4*time.Minute, "deadline for one server's pin")
	statusFile := flag.String("status", "", "file for every server's outcome, JSON (default: none)")
	flag.Parse()
	if *bin == "" {
		fail(errors.New("-bin is required"))
	}
	var err error
	if *bin, err = filepath.Abs(*bin); err != nil {
		fail(err)
	}
	if *repo, err = filepath.Abs(*repo); err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "mcp-lockcheck-corpus-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	if err := setUpWork(work); err != nil {
		fail(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	var todo []server
	for _, s := range servers(work) {
		if *only == "" || slices.Contains(strings.Split(*only, ","), s.slug) {
			todo = append(todo, s)
		}
	}
	results := make([]status, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, *jobs))
	var mu sync.Mutex
	for i, s := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = record(*bin, *repo, work, *out, s, *deadline)
			mu.Lock()
			r := results[i]
			fmt.Fprintf(os.Stderr, "%s: exit %d, %d tools, recorded %v (%.1f s)\n", r.Slug, r.Exit, r.Tools, r.Recorded, float64(r.Millis)/1000)
			mu.Unlock()
		}()
	}
	wg.Wait()
	printTable(results)
	if *statusFile != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(*statusFile, append(b, '\n'), 0o644); err != nil {
			fail(err)
		}
	}
}

// setUpWork writes what the servers share: a kubeconfig naming a cluster
// at a closed loopback port.
func setUpWork(work string) error {
	kube := "apiVersion: v1\nkind: Config\nclusters:\n- name: bench\n  cluster:\n    server: https://" + closed + "\ncontexts:\n- name: bench\n  context:\n    cluster: bench\n    user: bench\ncurrent-context: bench\nusers:\n- name: bench\n  user:\n    token: " + fake + "\n"
	if err := os.WriteFile(filepath.Join(work, "kubeconfig"), []byte(kube), 0o600); err != nil {
		return err
	}
	return nil
}

// setUpCheckout writes a small tree for the filesystem servers into a
// server's checkout, where the config names it by a relative path: the
// launch in the lock is then the same on every machine.
func setUpCheckout(dir string) error {
	files := filepath.Join(dir, "files")
	if err := os.MkdirAll(filepath.Join(files, "docs"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(files, "README.md"), []byte("# bench\n\nA file for the filesystem servers to read.\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(files, "docs", "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		return err
	}
	// cclsp will not start without a config; this one names a language
	// server it does not start until a file of its kind is asked about.
	cclsp := `{"servers": [{"extensions": ["go"], "command": ["gopls"], "rootDir": "."}]}` + "\n"
	return os.WriteFile(filepath.Join(files, "cclsp.json"), []byte(cclsp), 0o644)
}

// record pins one server and copies its lock into out.
func record(bin, repo, work, out string, s server, deadline time.Duration) status {
	st := status{Slug: s.slug, Package: s.pkg, Args: s.args, Why: s.why, Sandbox: "basic"}
	if s.strict {
		st.Sandbox = "strict"
	}
	for k := range s.env {
		st.Env = append(st.Env, k+"="+s.env[k])
	}
	slices.Sort(st.Env)
	command, version, integrity, rel, err := locate(repo, s)
	if err != nil {
		st.Exit = -2
		st.Output = "not installed: " + err.Error()
		return st
	}
	st.Package = s.pkg + "@" + version
	dir := filepath.Join(work, s.slug, "checkout")
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = setUpCheckout(dir)
	}
	if err != nil {
		st.Exit, st.Output = -2, err.Error()
		return st
	}
	cfg := map[string]any{"command": command}
	if len(s.args) > 0 {
		cfg["args"] = s.args
	}
	if len(s.env) > 0 {
		cfg["env"] = s.env
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{s.slug: cfg}}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), append(b, '\n'), 0o644); err != nil {
		st.Exit, st.Output = -2, err.Error()
		return st
	}
	args := []string{"pin", "--quiet", "--approved-by", "corpus@bench.invalid", "--launches", "1", "--warmup-calls", "0", "--sandbox", st.Sandbox}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	st.Exit, st.Output = invoke(ctx, bin, dir, args)
	st.Millis = time.Since(start).Milliseconds()
	f, _, err := lock.Read(filepath.Join(dir, "mcp-lock.json"))
	if err != nil {
		return st
	}
	ls := f.Servers[s.slug]
	if ls == nil {
		st.Output = "lock without the server\n" + st.Output
		return st
	}
	// The launch as a reader of the corpus can reproduce it: the bin
	// relative to bench/corpus, the package at its exact version.
	ls.Launch.Command = rel
	ls.Launch.File = rel
	ls.Launch.Package = s.pkg + "@" + version
	ls.Launch.Resolved = version
	ls.Launch.Integrity = integrity
	data, err := f.Marshal()
	if err == nil {
		err = lock.WriteAtomic(filepath.Join(out, s.slug+".lock.json"), data)
	}
	if err != nil {
		st.Output = err.Error()
		return st
	}
	st.Recorded = true
	st.Output = ""
	st.Tools, st.Prompts, st.Resources, st.Templates = len(ls.Tools), len(ls.Prompts), len(ls.Resources), len(ls.ResourceTemplates)
	return st
}

// locate finds a server's command, its version, the npm integrity and the
// command relative to bench/corpus.
func locate(repo string, s server) (command, version, integrity, rel string, err error) {
	base := filepath.Join(repo, "bench", "corpus")
	if s.kind == "go" {
		command = filepath.Join(base, "bin", s.bin)
		if _, err := os.Stat(command); err != nil {
			return "", "", "", "", err
		}
		return command, s.version, "", "bin/" + s.bin, nil
	}
	// The npm packages are in a few projects, bench/corpus/npm/*: npm
	// resolves a few dozen top-level packages in a minute, and all of
	// them together not in ten.
	roots, _ := filepath.Glob(filepath.Join(base, "npm", "*", "node_modules", filepath.FromSlash(s.pkg), "package.json"))
	if len(roots) == 0 {
		return "", "", "", "", fmt.Errorf("%s is in no bench/corpus/npm/*/node_modules", s.pkg)
	}
	root := filepath.Dir(filepath.Dir(roots[0]))
	for range strings.Split(s.pkg, "/") {
		root = filepath.Dir(root)
	}
	command, err = npmtest.Dir{Root: root}.PackageBin(s.pkg, s.bin)
	if err != nil {
		return "", "", "", "", err
	}
	var pj struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(root, "node_modules", s.pkg, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pj)
	}
	if err != nil {
		return "", "", "", "", err
	}
	var pl struct {
		Packages map[string]struct {
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	if b, err := os.ReadFile(filepath.Join(root, "package-lock.json")); err == nil {
		_ = json.Unmarshal(b, &pl)
	}
	r, err := filepath.Rel(base, command)
	if err != nil {
		return "", "", "", "", err
	}
	return command, pj.Version, pl.Packages["node_modules/"+s.pkg].Integrity, filepath.ToSlash(r), nil
}

// invoke runs mcp-lockcheck once in dir, killed with its process group when
// ctx ends, and returns its exit code (-1 at the deadline) and last lines.
func invoke(ctx context.Context, bin, dir string, args []string) (int, string) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return -1, err.Error()
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
	code := cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		code = -1
	}
	return code, tail(buf.String(), 12)
}

// printTable writes one markdown line per server: the README's list.
func printTable(results []status) {
	fmt.Println("| slug | package | args | env | sandbox | tools | prompts | resources | templates | why |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range results {
		if r.Recorded {
			fmt.Printf("| %s | %s | %s | %s | %s | %d | %d | %d | %d | %s |\n", r.Slug, cell(r.Package), cell(strings.Join(r.Args, " ")), cell(strings.Join(r.Env, " ")), r.Sandbox, r.Tools, r.Prompts, r.Resources, r.Templates, cell(r.Why))
		}
	}
	fmt.Println()
	fmt.Println("| slug | package | exit | why left out |")
	fmt.Println("|---|---|---|---|")
	for _, r := range results {
		if !r.Recorded {
			fmt.Printf("| %s | %s | %d | %s |\n", r.Slug, cell(r.Package), r.Exit, cell(lastReason(r.Output)))
		}
	}
}

// lastReason is the most telling line of a failed pin's output.
func lastReason(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.Contains(l, "held") || strings.Contains(l, "error") || strings.Contains(l, "not installed") {
			return l
		}
	}
	return lines[len(lines)-1]
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strings.NewReplacer("|", "\\|", "`", "'", "<", "&lt;", ">", "&gt;").Replace(s)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "corpus:", err)
	os.Exit(2)
}

// env builds an environment from key, value pairs.
func env(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// args is a readable []string.
func args(a ...string) []string { return a }
