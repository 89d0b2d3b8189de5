package cli

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// TestActionHostileServer runs the containment fixture (the fake server's
// "hostile" scenario) through the emulated action with its defaults, that is
// in the strict sandbox. The server, knowing the runner's layout, tries to
// move the verdict (append BASH_ENV to GITHUB_ENV, a directory to
// GITHUB_PATH, overwrite the binary the merge step runs and the lock), to
// take secrets (the parent's and siblings' environment, the real
// ~/.ssh/id_rsa, the checkout token in .git/config), to write into the
// workspace, to reach a loopback listener and the planted kubeconfig's
// endpoint, and to outlive the check with a re-forking grandchild. It also
// carries a rug pull after its third tools/call. Every attempt must fail,
// and the job must still end with exit 1 for the drift.
func TestActionHostileServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and runs the action")
	}
	if runtime.GOOS != "linux" {
		t.Skip("strict is Linux")
	}
	binary(t) // here, so that the process of its own takes it built
	if testproc.Parallel(t) {
		return
	}
	api := githubtest.New("o", "r", nil)
	t.Cleanup(api.Close)
	r := newRunner(t, api, strings.ReplaceAll(prEvent, "%BASE%", "2222222222222222222222222222222222222222"), map[string]string{"base": ""})

	const (
		sshKey      = "REAL-RUNNER-SSH-KEY-7f3a9c"
		checkout    = "ghs_REALCHECKOUTTOKENREALCHECKOUTTOKEN01"
		npmToken    = "npm_REALNPMTOKENREALNPMTOKENREALNPMTOK01"
		oidcRequest = "REAL-OIDC-REQUEST-TOKEN-5d2e8b1a"
	)
	runnerTemp := r.env["RUNNER_TEMP"]
	home := t.TempDir()
	ws := t.TempDir()
	files := filepath.Join(runnerTemp, "_runner_file_commands")
	ghEnv, ghPath := filepath.Join(files, "set_env_1"), filepath.Join(files, "add_path_1")
	for p, content := range map[string]string{
		filepath.Join(home, ".ssh", "id_rsa"): sshKey,
		filepath.Join(ws, ".git", "config"):   "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + checkout + "\n",
		ghEnv:                                 "",
		ghPath:                                "",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The binary later steps run, where the install step puts it.
	bin := filepath.Join(runnerTemp, "mcp-lockcheck-bin", "mcp-lockcheck")
	copyFile(t, r.env["MCP_LOCKCHECK_BIN"], bin, 0o755)
	binSum := fileSum(t, bin)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dialled atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			c.Close()
		}
	}()

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mark := "hostile-mark-" + filepath.Base(ws)
	lockPath := filepath.Join(ws, "mcp-lock.json")
	cfg := map[string]any{"mcpServers": map[string]any{"notes": map[string]any{
		"command": self,
		"env": map[string]string{
			"FAKE_SCENARIO":    "hostile",
			"HOSTILE_APPEND":   ghEnv + ";" + ghPath,
			"HOSTILE_REPLACE":  bin + ";" + lockPath,
			"HOSTILE_READ":     filepath.Join(home, ".ssh", "id_rsa") + ";" + filepath.Join(ws, ".git", "config"),
			"HOSTILE_WRITEDIR": ws + ";" + runnerTemp,
			"HOSTILE_DIAL":     ln.Addr().String(),
			"HOSTILE_MARK":     mark,
		},
	}}}
	raw, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	r.workspace = ws
	for k, v := range map[string]string{
		"HOME": home, "GITHUB_WORKSPACE": ws, "GITHUB_ENV": ghEnv, "GITHUB_PATH": ghPath,
		"MCP_LOCKCHECK_BIN": bin, "NPM_TOKEN": npmToken, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": oidcRequest,
		"ACTIONS_ID_TOKEN_REQUEST_URL": "http://127.0.0.1:1/token",
	} {
		r.env[k] = v
	}

	// The lock, pinned while the server is honest (no warm-up call yet).
	pin := exec.Command(bin, "pin", "--sandbox", "strict", "--warmup-calls", "0", "--launches", "1", "--quiet")
	pin.Dir = ws
	pin.Env = envList(r.env)
	if out, err := pin.CombinedOutput(); err != nil {
		t.Fatalf("pin: %v\n%s", err, out)
	}
	lockBefore := readFile(t, lockPath)

	r.run()
	out := r.actionOutputs()
	if got := r.jobExit(); got != 1 || out["drift-detected"] != "true" || out["held-servers"] != "" {
		t.Fatalf("job exit %d, outputs %v: the drift must still be reported\nlog:\n%s", got, out, r.logs["check"])
	}
	report := readFile(t, out["report-file"])
	if !strings.Contains(report, `"rule": "tool-changed"`) || !strings.Contains(report, "after-call-3") {
		t.Errorf("the rug pull after call 3 is not in the report:\n%s", report)
	}
	if !strings.Contains(report, `"isolation": "strict`) {
		t.Errorf("the action's default did not run strict:\n%s", report)
	}

	// Nothing moved.
	for _, p := range []string{ghEnv, ghPath} {
		if b := readFile(t, p); b != "" {
			t.Errorf("%s was written by the server: %q", p, b)
		}
	}
	if fileSum(t, bin) != binSum {
		t.Errorf("the binary %s was replaced", bin)
	}
	if readFile(t, lockPath) != lockBefore {
		t.Errorf("the lock was changed")
	}
	for _, d := range []string{ws, runnerTemp} {
		if _, err := os.Stat(filepath.Join(d, "pwned.txt")); err == nil {
			t.Errorf("the server wrote into %s", d)
		}
	}
	if n := dialled.Load(); n > 0 {
		t.Errorf("the loopback listener saw %d connection(s) from the server", n)
	}
	// Nothing outlived the check. Its sweep has run; a killed process may
	// still be leaving /proc, which announces that to no one: poll,
	// boundedly. One that escaped the sweep stays, and fails the check.
	var pids []string
	if !testproc.Poll(5*time.Second, func() bool { pids = processesWith(mark); return len(pids) == 0 }) {
		t.Errorf("processes of the server outlived the check: %v", pids)
	}
	// Nothing secret left in anything the tool wrote.
	outputs := map[string]string{"summary": readFile(t, r.summary), "report": report, "comment file": readFile(t, out["comment-file"]),
		"sarif": readFile(t, out["sarif-file"]), "check log": r.logs["check"]}
	for _, c := range api.Comments(7) {
		outputs["posted comment"] += c.Body
	}
	for what, text := range outputs {
		for _, secret := range []string{sshKey, checkout, npmToken, oidcRequest, "BASH_ENV"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s carries %q", what, secret)
			}
		}
	}
	if t.Failed() {
		t.Logf("check log:\n%s", r.logs["check"])
	}
}

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func fileSum(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// processesWith lists the pids whose command line contains mark.
func processesWith(mark string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), mark) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestStrictPreflightAfterTheProbe: check makes strict's self-test only
// when a server was held, and after the end-of-run sweep. A server that
// fails at once (its command does not exist) is held; the self-test then
// passes, and the run is not stopped (exit 2): a sweep that killed the
// self-test's helper half-way would read as "strict cannot be applied
// here". The binary runs as a process of its own each time, so no
// self-test result is remembered from an earlier run.
func TestStrictPreflightAfterTheProbe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("strict is Linux")
	}
	if err := sandbox.Available(sandbox.Strict); err != nil {
		testproc.NoPrivilege(t, "strict sandbox unavailable here: %v", err)
	}
	bin := binary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"gone": {"command": "no-such-server-lockcheck"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		cmd := exec.Command(bin, "check", "--sandbox", "strict", "--quiet", "--format", "json")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() == ExitUsage || strings.Contains(string(out), "cannot be applied") {
			t.Fatalf("run %d: %v: %s", i+1, err, out)
		}
	}
}
