package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// shortProbeArgs keep the fake servers' probes short: the scenarios used here
// differ from the first listing on.
var shortProbeArgs = []string{"--quiet", "--warmup-calls", "0", "--launches", "1"}

func withProbe(args ...string) []string { return append(args, shortProbeArgs...) }

// pinnedFake is a project whose one server is the fake (its scenario from
// $SCENARIO, honest by default), pinned; it returns the directory and the
// lock as pinned.
func pinnedFake(t *testing.T) (dir, lockText string) {
	t.Helper()
	dir = t.TempDir()
	exe, _ := os.Executable()
	cfg := `{"mcpServers":{"text":{"command":` + jsonString(exe) + `,"env":{"FAKE_SCENARIO":"${SCENARIO:-honest}"}}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, dir, nil, withProbe("pin")...); code != 0 {
		t.Fatalf("pin: exit %d\n%s", code, stderr)
	}
	return dir, readFile(t, filepath.Join(dir, "mcp-lock.json"))
}

// TestRepinOpenPR drives `repin --open-pr` against the fake API the way
// the weekly workflow does: every run starts from the base branch's lock.
// The first change opens the pull request on mcp-lockcheck/repin, a later
// different change updates the same one, and no change opens nothing.
func TestRepinOpenPR(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir, base := pinnedFake(t)
	api := githubtest.New("o", "r", map[string]string{"mcp-lock.json": base})
	t.Cleanup(api.Close)
	env := func(scenario string) map[string]string {
		return map[string]string{"SCENARIO": scenario, "GITHUB_TOKEN": "t", "GITHUB_API_URL": api.APIURL(), "GITHUB_REPOSITORY": "o/r"}
	}
	repin := func(scenario string) (int, string) {
		// A fresh checkout of the base branch.
		if err := os.WriteFile(filepath.Join(dir, "mcp-lock.json"), []byte(base), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, dir, env(scenario), withProbe("repin", "--open-pr", "--approved-by", "bot@example.com")...)
		return code, stderr
	}

	code, stderr := repin("desc-changed")
	if code != 0 {
		t.Fatalf("first repin: exit %d\n%s", code, stderr)
	}
	pulls := api.Pulls()
	if len(pulls) != 1 || pulls[0].Head != "mcp-lockcheck/repin" || pulls[0].Base != "main" {
		t.Fatalf("pulls %+v\n%s", pulls, stderr)
	}
	pr := pulls[0]
	if !strings.Contains(stderr, "opened pull request #") {
		t.Errorf("stderr does not say it opened the pull request:\n%s", stderr)
	}
	for _, want := range []string{"summarize", "description", "keep it short", report.Marker} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, pr.Body)
		}
	}
	onBranch, _ := api.File("mcp-lockcheck/repin", "mcp-lock.json")
	if local := readFile(t, filepath.Join(dir, "mcp-lock.json")); onBranch != local || onBranch == base {
		t.Errorf("the branch does not hold the new lock")
	}
	if got := api.Labels(pr.Number); len(got) != 1 || got[0] != "mcp-lockcheck" {
		t.Errorf("labels %v", got)
	}

	code, stderr = repin("new-property")
	if code != 0 {
		t.Fatalf("second repin: exit %d\n%s", code, stderr)
	}
	pulls = api.Pulls()
	if len(pulls) != 1 || pulls[0].Number != pr.Number {
		t.Fatalf("pulls %+v: want #%d updated", pulls, pr.Number)
	}
	if !strings.Contains(stderr, "updated pull request #") || !strings.Contains(pulls[0].Body, "sidenote") || strings.Contains(pulls[0].Body, "keep it short") {
		t.Errorf("the pull request does not describe the second change:\n%s\n%s", stderr, pulls[0].Body)
	}
	if onBranch2, _ := api.File("mcp-lockcheck/repin", "mcp-lock.json"); onBranch2 == onBranch || !strings.Contains(onBranch2, "sidenote") {
		t.Errorf("the branch was not updated:\n%s", onBranch2)
	}

	writes := len(api.Requests())
	code, stderr = repin("honest")
	if code != 0 || !strings.Contains(stderr, "no change") {
		t.Fatalf("unchanged repin: exit %d\n%s", code, stderr)
	}
	if got := api.Requests()[writes:]; len(got) != 0 {
		t.Errorf("an unchanged repin called the API: %v", got)
	}
	if readFile(t, filepath.Join(dir, "mcp-lock.json")) != base {
		t.Error("an unchanged repin rewrote the lock")
	}
}

func TestRepinForbidden(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir := t.TempDir()
	fakeConfig(t, dir, map[string]string{"text": "honest"})
	if code, _, stderr := runCLI(t, dir, nil, withProbe("pin")...); code != 0 {
		t.Fatalf("pin: exit %d\n%s", code, stderr)
	}
	fakeConfig(t, dir, map[string]string{"text": "desc-changed"})
	api := githubtest.New("o", "r", map[string]string{"mcp-lock.json": "x"})
	t.Cleanup(api.Close)
	api.ReadOnly = true
	code, _, stderr := runCLI(t, dir, map[string]string{"GITHUB_TOKEN": "t", "GITHUB_API_URL": api.APIURL()}, withProbe("repin", "--open-pr", "--repo", "o/r")...)
	if code == 0 || !strings.Contains(stderr, "read-only token") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestMatrixMerge checks three servers one job each, from `servers
// --matrix`, merges the three JSON reports and compares the result with one
// check of all three: the same report, whatever the order of the inputs.
func TestMatrixMerge(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir := t.TempDir()
	exe, _ := os.Executable()
	// No two of these list a tool of the same name: the cross-server
	// shadowing check needs all servers in one run by design.
	cfg := `{"mcpServers":{
  "alpha": {"command": ` + jsonString(exe) + `, "env": {"FAKE_SCENARIO": "honest", "FAKE_VARIANT": "${VARIANT:-}"}},
  "bravo": {"command": ` + jsonString(exe) + `, "env": {"FAKE_SCENARIO": "read-key"}},
  "charlie": {"command": ` + jsonString(exe) + `, "env": {"FAKE_SCENARIO": "crash-after-init"}}
}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, dir, nil, withProbe("pin", "--server", "alpha", "--server", "bravo")...); code != 0 {
		t.Fatalf("pin: exit %d\n%s", code, stderr)
	}
	env := map[string]string{"VARIANT": "drift"}

	code, stdout, stderr := runCLI(t, dir, env, "servers", "--matrix")
	if code != 0 {
		t.Fatalf("servers --matrix: exit %d\n%s", code, stderr)
	}
	var m struct {
		Include []struct{ Server, Config string }
	}
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("matrix %q: %v", stdout, err)
	}
	var names []string
	for _, e := range m.Include {
		names = append(names, e.Server)
		if e.Config != ".mcp.json" {
			t.Errorf("matrix entry %+v: config", e)
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "alpha,bravo,charlie" {
		t.Fatalf("matrix servers %v", names)
	}

	var files []string
	for i := len(m.Include) - 1; i >= 0; i-- { // reversed: merge must not depend on order
		e := m.Include[i]
		_, out, stderr := runCLI(t, dir, env, withProbe("check", "--config", e.Config, "--server", e.Server, "--format", "json")...)
		p := filepath.Join(dir, e.Server+".json")
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if out == "" {
			t.Fatalf("check --server %s wrote no report\n%s", e.Server, stderr)
		}
		files = append(files, p)
	}
	args := append([]string{"merge", "--format", "json"}, files...)
	args = append(args, "--sarif", "merged.sarif", "--markdown", "merged.md", "--summary", "merged-summary.md", "--json", "merged.json")
	mcode, merged, stderr := runCLI(t, dir, env, args...)
	ccode, combined, _ := runCLI(t, dir, env, withProbe("check", "--format", "json")...)
	if mcode != ccode || mcode != ExitDrift {
		t.Errorf("merge exit %d, combined check exit %d, want both 1\n%s", mcode, ccode, stderr)
	}
	if got, want := normReport(t, merged), normReport(t, combined); got != want {
		t.Errorf("merged report differs from one combined check:\nmerged:\n%s\ncombined:\n%s", got, want)
	}
	if readFile(t, filepath.Join(dir, "merged.json")) != merged {
		t.Error("--json differs from --format json")
	}
	for _, f := range []string{"merged.sarif", "merged.md", "merged-summary.md"} {
		if s := readFile(t, filepath.Join(dir, f)); !strings.Contains(s, "charlie") {
			t.Errorf("%s does not name every server", f)
		}
	}

	// One server in two reports, or reports with different fail-on, cannot
	// be one run.
	if code, _, stderr := runCLI(t, dir, env, "merge", files[0], files[0]); code != ExitUsage || !strings.Contains(stderr, "also in") {
		t.Errorf("duplicate server: exit %d\n%s", code, stderr)
	}
	_, warn, _ := runCLI(t, dir, env, withProbe("check", "--server", "bravo", "--format", "json", "--fail-on", "warning")...)
	if err := os.WriteFile(filepath.Join(dir, "warn.json"), []byte(warn), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, dir, env, "merge", filepath.Join(dir, "alpha.json"), "warn.json"); code != ExitUsage || !strings.Contains(stderr, "fail-on") {
		t.Errorf("mixed fail-on: exit %d\n%s", code, stderr)
	}
}

// normReport re-encodes a JSON report with its servers sorted and the
// per-run sandbox directory (a fresh temporary name each run) masked.
func normReport(t *testing.T, s string) string {
	t.Helper()
	var r report.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("%v:\n%s", err, s)
	}
	sort.Slice(r.Servers, func(i, j int) bool { return r.Servers[i].Name < r.Servers[j].Name })
	b, _ := json.MarshalIndent(r, "", "  ")
	return maskRunDirs(string(b))
}

// maskRunDirs replaces the per-run sandbox directories (tmp.NNNN) with
// RUNDIR: they differ between any two runs.
func maskRunDirs(s string) string {
	return runDir.ReplaceAllString(s, "RUNDIR")
}

var runDir = regexp.MustCompile(`tmp\.[0-9]+`)

// TestCommentFromUntrustedReport plays the comment workflow: a workflow_run
// event for a fork's pull request (its pull_requests list is empty) and a
// report.json crafted by the pull request's author. The pull request is
// found from the event, the verdict comes from the findings (not the
// report's own summary), and nothing in the report becomes a link, image,
// mention or HTML in the comment.
func TestCommentFromUntrustedReport(t *testing.T) {
	dir := t.TempDir()
	api := githubtest.New("o", "r", nil)
	t.Cleanup(api.Close)
	api.AddPull(githubtest.Pull{Number: 12, Head: "patch-1", Base: "main", HeadSHA: "abc123"})
	event := `{"workflow_run":{"id":5,"event":"pull_request","head_sha":"abc123","head_branch":"patch-1","pull_requests":[],"head_repository":{"owner":{"login":"o"}}}}`
	writeTo(t, filepath.Join(dir, "event.json"), event)
	const payload = "x``` </details> <details><summary>ok</summary> @someone ![i](https://evil.example/i.png) <img src=https://evil.example/p> [click](https://evil.example) https://evil.example/bare \u202egnp.exe \U000E0049\U000E0047 ```"
	hostile := map[string]any{
		"lockfileVersion": 1,
		"servers": []any{map[string]any{
			"name": "evil " + payload, "status": "ok", "phases": []string{"launch-1/initial " + payload},
			"config": ".mcp.json" + payload, "reason": payload, "isolation": payload,
			"findings": []any{map[string]any{
				"rule": "tool-changed", "severity": "error", "server": "evil " + payload, "kind": "tool",
				"subject": payload, "field": payload, "phase": payload, "message": payload,
				"before": payload, "after": payload + payload, "detail": payload, "file": payload, "line": 3,
			}},
		}},
		"summary": map[string]any{"servers": 1, "ok": 1, "findings": 0, "failOn": "error", "exitCode": 0},
	}
	b, _ := json.Marshal(hostile)
	writeTo(t, filepath.Join(dir, "report.json"), string(b))
	env := map[string]string{
		"GITHUB_TOKEN": "t", "GITHUB_API_URL": api.APIURL(), "GITHUB_REPOSITORY": "o/r",
		"GITHUB_EVENT_PATH": filepath.Join(dir, "event.json"), "GITHUB_EVENT_NAME": "workflow_run",
	}
	code, _, stderr := runCLI(t, dir, env, "comment", "--from", "report.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	cs := api.Comments(12)
	if len(cs) != 1 {
		t.Fatalf("comments on #12: %+v\n%s", cs, stderr)
	}
	body := cs[0].Body
	if !strings.Contains(body, "exit 1") {
		t.Errorf("the verdict was taken from the report's summary, not its findings:\n%s", body)
	}
	assertInert(t, body)

	// What is not a report of ours is refused, not rendered.
	for name, bad := range map[string]string{
		"unknown rule":   strings.Replace(string(b), `"tool-changed"`, `"<img src=x>"`, 1),
		"unknown kind":   strings.Replace(string(b), `"kind":"tool"`, `"kind":"tool `+"\u202e"+`<img src=x>"`, 1),
		"unknown status": strings.Replace(string(b), `"status":"ok"`, `"status":"<b>fine</b>"`, 1),
		"bad fail-on":    strings.Replace(string(b), `"failOn":"error"`, `"failOn":"sometimes"`, 1),
		"other version":  strings.Replace(string(b), `"lockfileVersion":1`, `"lockfileVersion":9`, 1),
		"not JSON":       "<html>",
	} {
		writeTo(t, filepath.Join(dir, "bad.json"), bad)
		if code, _, stderr := runCLI(t, dir, env, "comment", "--from", "bad.json"); code != ExitUsage {
			t.Errorf("%s: exit %d\n%s", name, code, stderr)
		}
	}
}

func writeTo(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// assertInert parses body as GitHub-flavoured markdown and fails on any
// link, autolink, image or HTML other than our own marker and <details>
// scaffolding, and on a mention outside code.
func assertInert(t *testing.T, body string) {
	t.Helper()
	src := []byte(body)
	for _, r := range body {
		if r == '\u202e' || r >= 0xE0000 && r <= 0xE007F {
			t.Errorf("a raw %U in the comment", r)
		}
	}
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan, ast.KindFencedCodeBlock, ast.KindCodeBlock:
			return ast.WalkSkipChildren, nil
		case ast.KindLink, ast.KindAutoLink, ast.KindImage:
			t.Errorf("a %s in the comment", n.Kind())
		case ast.KindRawHTML, ast.KindHTMLBlock:
			var b strings.Builder
			if n.Kind() == ast.KindRawHTML {
				segs := n.(*ast.RawHTML).Segments
				for i := 0; i < segs.Len(); i++ {
					seg := segs.At(i)
					b.Write(seg.Value(src))
				}
			} else {
				lines := n.Lines()
				for i := 0; i < lines.Len(); i++ {
					seg := lines.At(i)
					b.Write(seg.Value(src))
				}
			}
			if h := strings.TrimSpace(b.String()); strings.Contains(h, "evil") || strings.Contains(h, "<img") || strings.Contains(h, "someone") {
				t.Errorf("HTML from the report in the comment: %q", h)
			}
		case ast.KindText:
			if s := string(n.(*ast.Text).Segment.Value(src)); strings.Contains(s, "@someone") || strings.Contains(s, "evil.example") {
				t.Errorf("report text outside code: %q", s)
			}
		}
		return ast.WalkContinue, nil
	})
}

// TestCheckComment is `check --comment` in a pull_request run: the sticky
// comment is created, then edited when the next run is clean; on a fork's
// read-only token the check keeps its own exit code and the failure is a
// warning in the log and the job summary.
func TestCheckComment(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir := t.TempDir()
	fakeConfig(t, dir, map[string]string{"text": "honest"})
	if code, _, stderr := runCLI(t, dir, nil, withProbe("pin")...); code != 0 {
		t.Fatalf("pin: exit %d\n%s", code, stderr)
	}
	api := githubtest.New("o", "r", nil)
	t.Cleanup(api.Close)
	writeTo(t, filepath.Join(dir, "event.json"), strings.ReplaceAll(prEvent, "%BASE%", ""))
	summary := filepath.Join(dir, "summary.md")
	env := map[string]string{
		"GITHUB_TOKEN": "t", "GITHUB_API_URL": api.APIURL(), "GITHUB_REPOSITORY": "o/r",
		"GITHUB_EVENT_PATH": filepath.Join(dir, "event.json"), "GITHUB_STEP_SUMMARY": summary,
		"GITHUB_SERVER_URL": "https://github.example", "GITHUB_RUN_ID": "42",
	}

	fakeConfig(t, dir, map[string]string{"text": "desc-changed"})
	if code, _, stderr := runCLI(t, dir, env, withProbe("check", "--comment")...); code != ExitDrift {
		t.Fatalf("drift: exit %d\n%s", code, stderr)
	}
	cs := api.Comments(7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "summarize") {
		t.Fatalf("comments %+v", cs)
	}
	fakeConfig(t, dir, map[string]string{"text": "honest"})
	if code, _, stderr := runCLI(t, dir, env, withProbe("check", "--comment")...); code != ExitOK {
		t.Fatalf("clean: exit %d\n%s", code, stderr)
	}
	if cs2 := api.Comments(7); len(cs2) != 1 || cs2[0].ID != cs[0].ID || cs2[0].Body == cs[0].Body {
		t.Fatalf("the clean run did not edit the comment: %+v", cs2)
	}

	api.ReadOnly = true
	fakeConfig(t, dir, map[string]string{"text": "desc-changed"})
	code, _, stderr := runCLI(t, dir, env, withProbe("check", "--comment")...)
	if code != ExitDrift || !strings.Contains(stderr, "warning: pull request comment not posted") || !strings.Contains(stderr, "read-only token") {
		t.Fatalf("read-only: exit %d\n%s", code, stderr)
	}
	if s := readFile(t, summary); !strings.Contains(s, "comment was not posted") {
		t.Errorf("summary: %q", s)
	}
}

// TestRepinTwoSteps is the re-pin as the example workflow runs it: a first
// step with no token in its environment probes and writes the lock and the
// body; a second, holding the token, proposes them and launches nothing (its
// config names a server that cannot start, which a probe would hold).
func TestRepinTwoSteps(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	dir, base := pinnedFake(t)
	api := githubtest.New("o", "r", map[string]string{"mcp-lock.json": base})
	t.Cleanup(api.Close)
	body := filepath.Join(dir, "repin.md")
	propose := map[string]string{"GITHUB_TOKEN": "t", "GITHUB_API_URL": api.APIURL(), "GITHUB_REPOSITORY": "o/r"}

	// Nothing changed: no body, nothing proposed.
	if code, _, stderr := runCLI(t, dir, map[string]string{"SCENARIO": "honest"}, withProbe("repin", "--markdown", body)...); code != 0 {
		t.Fatalf("repin: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, dir, propose, "repin", "--open-pr", "--from-body", body); code != 0 || !strings.Contains(stderr, "no change") {
		t.Fatalf("propose without a body: exit %d\n%s", code, stderr)
	}
	if len(api.Pulls()) != 0 {
		t.Fatalf("a pull request was opened for no change")
	}

	if code, _, stderr := runCLI(t, dir, map[string]string{"SCENARIO": "desc-changed"}, withProbe("repin", "--markdown", body)...); code != 0 {
		t.Fatalf("repin: exit %d\n%s", code, stderr)
	}
	broken := `{"mcpServers":{"text":{"command":"/nonexistent/server"}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, dir, propose, "repin", "--open-pr", "--from-body", body)
	if code != 0 || !strings.Contains(stderr, "opened pull request #") {
		t.Fatalf("propose: exit %d\n%s", code, stderr)
	}
	pulls := api.Pulls()
	if len(pulls) != 1 || !strings.Contains(pulls[0].Body, "keep it short") {
		t.Fatalf("pulls %+v", pulls)
	}
	if onBranch, _ := api.File("mcp-lockcheck/repin", "mcp-lock.json"); onBranch != readFile(t, filepath.Join(dir, "mcp-lock.json")) {
		t.Errorf("the branch does not hold the re-pinned lock")
	}
	if code, _, stderr := runCLI(t, dir, nil, "repin", "--from-body", body); code != 2 || !strings.Contains(stderr, "--from-body goes with --open-pr") {
		t.Errorf("--from-body alone: exit %d\n%s", code, stderr)
	}
}
