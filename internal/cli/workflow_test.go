package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// workflowFile is the part of a workflow file the emulation runs: one
// job's steps.
type workflowFile struct {
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Steps []struct {
			ID   string            `yaml:"id"`
			Name string            `yaml:"name"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// jobRun is one emulated run of a workflow job: each step's log, outputs
// and exit code, and the job's verdict (the first failing step's code).
type jobRun struct {
	logs    map[string]string
	outputs map[string]map[string]string
	codes   map[string]int
	exit    int
}

// runJob runs job of the workflow file at path as the runner would, in
// ws: `uses:` steps and the steps named in skip are not run (the test
// stands in for them: checkout, setup, install); `run:` steps run with
// bash -e under env plus each step's env:, whose ${{ }} expressions are
// evaluated from github.token, vars and earlier steps' outputs (any other
// expression fails the test, so the emulation notices a new one). After a
// failed step only `if: always()` steps run.
func runJob(t *testing.T, path, job, ws string, env, vars map[string]string, skip ...string) *jobRun {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflowFile
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	j, ok := wf.Jobs[job]
	if !ok {
		t.Fatalf("%s has no job %q", path, job)
	}
	jr := &jobRun{logs: map[string]string{}, outputs: map[string]map[string]string{}, codes: map[string]int{}}
	eval := func(s string) string {
		return exprRE.ReplaceAllStringFunc(s, func(m string) string {
			e := exprRE.FindStringSubmatch(m)[1]
			switch {
			case e == "github.token":
				return env["TEST_GITHUB_TOKEN"]
			case strings.HasPrefix(e, "vars."):
				return vars[strings.TrimPrefix(e, "vars.")]
			case strings.HasPrefix(e, "steps."):
				id, out, _ := strings.Cut(strings.TrimPrefix(e, "steps."), ".outputs.")
				return jr.outputs[id][out]
			}
			t.Fatalf("%s: expression %q is not emulated", filepath.Base(path), e)
			return ""
		})
	}
	failed := false
	for i, st := range j.Steps {
		id := st.ID
		if id == "" {
			id = fmt.Sprintf("step%d", i)
		}
		if st.Uses != "" {
			if !regexp.MustCompile(`@[0-9a-f]{40}$`).MatchString(st.Uses) {
				t.Errorf("step %q uses %q: not pinned by commit SHA", st.Name, st.Uses)
			}
			continue
		}
		if strings.Contains(st.Run, "${{") {
			t.Errorf("step %q: an expression inside run: (values must reach scripts through env:)", st.Name)
		}
		switch cond := strings.TrimSpace(st.If); {
		case slicesContains(skip, st.Name):
			continue
		case cond == "always()":
		case cond == "":
			if failed {
				continue
			}
		default:
			t.Fatalf("step %q: condition %q is not emulated", st.Name, cond)
		}
		outFile := filepath.Join(env["RUNNER_TEMP"], "output-"+id)
		if err := os.WriteFile(outFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		senv := map[string]string{}
		for k, v := range env {
			if k != "TEST_GITHUB_TOKEN" {
				senv[k] = v
			}
		}
		for k, v := range st.Env {
			senv[k] = eval(v)
		}
		senv["GITHUB_OUTPUT"] = outFile
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run)
		cmd.Dir = ws
		cmd.Env = envList(senv)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		err := cmd.Run()
		jr.logs[id] = log.String()
		code := 0
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("step %q: %v", st.Name, err)
			}
			code = ee.ExitCode()
		}
		jr.codes[id] = code
		jr.outputs[id] = parseOutputs(t, outFile)
		if code != 0 && !failed {
			failed, jr.exit = true, code
		}
	}
	return jr
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDeepNightlyWorkflow runs examples/workflows/deep-nightly.yml's job
// under an emulated runner against the fake API, night after night: a
// server that changes on its 40th call opens the issue (named server,
// phase and diff); a sleeper that changes on its 4th launch, and a server
// that changes on its 600th call (the burst's), update the same issue; a night whose server is held, and a night the check cannot
// run at all, leave it open and say so; a clean night closes it. The job
// fails on every night but the clean one.
func TestDeepNightlyWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and runs deep checks")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the workflow runs strict, on Linux")
	}
	if err := sandbox.Available(sandbox.Strict); err != nil {
		testproc.NoPrivilege(t, "strict sandbox unavailable here: %v", err)
	}
	bin := binary(t) // here, so that the process of its own takes it built
	if testproc.Parallel(t) {
		return
	}
	api := githubtest.New("o", "r", nil)
	t.Cleanup(api.Close)
	ws := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers":{"text":{"command":` + jsonString(exe) + `,"env":{"FAKE_SCENARIO":"${SCENARIO:-honest}"}}}}`
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || k == "CI" {
			continue
		}
		env[k] = v
	}
	for k, v := range map[string]string{
		"PATH":                filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"CI":                  "true",
		"GITHUB_ACTIONS":      "true",
		"GITHUB_WORKSPACE":    ws,
		"GITHUB_EVENT_NAME":   "schedule",
		"GITHUB_REPOSITORY":   "o/r",
		"GITHUB_API_URL":      api.APIURL(),
		"GITHUB_SERVER_URL":   "https://github.example",
		"GITHUB_RUN_ID":       "77",
		"GITHUB_STEP_SUMMARY": filepath.Join(tmp, "summary.md"),
		"RUNNER_TEMP":         tmp,
		"TEST_GITHUB_TOKEN":   "test-token",
	} {
		env[k] = v
	}
	// The lock on the default branch, pinned while the server is honest.
	pin := exec.Command(bin, "pin", "--sandbox", "strict", "--quiet")
	pin.Dir = ws
	pin.Env = envList(env)
	if out, err := pin.CombinedOutput(); err != nil {
		t.Fatalf("pin: %v\n%s", err, out)
	}
	wf := filepath.Join(repoRootDir(t), "examples", "workflows", "deep-nightly.yml")
	// The deep profile's server time-out follows its plan: a workflow
	// that sets one by hand would have to follow every change of plan.
	if data, err := os.ReadFile(wf); err != nil {
		t.Fatal(err)
	} else if regexp.MustCompile(`(?m)^[^#]*--timeout\b`).Match(data) {
		t.Errorf("%s sets --timeout by hand", wf)
	}
	// The budget a repository trims the deep run to: no idle gap, one
	// extra client. Everything else is the deep profile.
	vars := map[string]string{"MCP_LOCKCHECK_DEEP_ARGS": "--call-gap 0  --client-identity cursor-vscode/1.0.0"}
	night := func(scenario string, wantExit int) *jobRun {
		t.Helper()
		env["SCENARIO"] = scenario
		jr := runJob(t, wf, "deep", ws, env, vars, "Install mcp-lockcheck", "Install libfaketime (the clock shifts)", "Allow the strict sandbox's user namespaces")
		if jr.exit != wantExit {
			t.Fatalf("%s: job exit %d, want %d\ncheck:\n%s\nissue:\n%s", scenario, jr.exit, wantExit, jr.logs["deep"], jr.logs["step6"])
		}
		if strings.Contains(jr.logs["deep"], "test-token") {
			t.Errorf("%s: the token reached the check step", scenario)
		}
		return jr
	}
	issues := func() []githubtest.Issue { return api.Issues() }

	night("counter-40", 1)
	is := issues()
	if len(is) != 1 || is[0].State != "open" || is[0].Author != "github-actions[bot]" {
		t.Fatalf("issues %+v", is)
	}
	n := is[0].Number
	for _, want := range []string{"<!-- mcp-lockcheck:deep-drift lock=mcp-lock.json -->", "| `text` | `launch-1/after-call-40`", "`tool-changed`", "```diff", "actions/runs/77"} {
		if !strings.Contains(is[0].Body, want) {
			t.Errorf("the issue lacks %q:\n%s", want, is[0].Body)
		}
	}
	if l := api.Labels(n); len(l) != 1 || l[0] != "mcp-lockcheck" {
		t.Errorf("labels %v", l)
	}

	night("sleeper-4", 1)
	if is = issues(); len(is) != 1 || is[0].State != "open" || !strings.Contains(is[0].Body, "`launch-4/initial`") || strings.Contains(is[0].Body, "after-call-40") {
		t.Fatalf("the issue was not updated in place: %+v", is)
	}

	// The 600th call in one process: the burst's reach, with no time-out
	// set by hand.
	night("counter-600", 1)
	if is = issues(); len(is) != 1 || is[0].State != "open" || !strings.Contains(is[0].Body, "`launch-1/burst-after-call-1024`") || !strings.Contains(is[0].Body, "exec_shell") {
		t.Fatalf("the burst's catch did not reach the issue: %+v", is)
	}

	night("crash-after-init", 3)
	if is = issues(); len(is) != 1 || is[0].State != "open" || !strings.Contains(is[0].Body, "not every server could be probed") || !strings.Contains(is[0].Body, "`launch-1/burst-after-call-1024`") {
		t.Fatalf("a held night must keep the issue open, its evidence, and say so: %+v", is)
	}

	// A night the check cannot run (a bad argument: exit 2, no report).
	vars["MCP_LOCKCHECK_DEEP_ARGS"] = "--profile slow"
	night("honest", 2)
	vars["MCP_LOCKCHECK_DEEP_ARGS"] = "--call-gap 0 --client-identity cursor-vscode/1.0.0"
	if is = issues(); len(is) != 1 || is[0].State != "open" || !strings.Contains(is[0].Body, "could not run") {
		t.Fatalf("a night that could not run must leave the issue open and say so: %+v", is)
	}

	night("honest", 0)
	if is = issues(); len(is) != 1 || is[0].State != "closed" {
		t.Fatalf("a clean night did not close the issue: %+v", is)
	}
	if cs := api.Comments(n); len(cs) != 1 || !strings.Contains(cs[0].Body, "clean") {
		t.Errorf("comments %+v", cs)
	}
	if len(api.Pulls()) != 0 {
		t.Errorf("the deep workflow opened a pull request")
	}
}
