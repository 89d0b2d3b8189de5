package cli

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// actionlintVersion is the pinned actionlint, as .github/workflows/ci.yml runs it.
const actionlintVersion = "v1.7.12"

// repoRootDir is the repository root, from this package's directory.
func repoRootDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// TestActionlint lints every workflow, and through ci.yml's `uses: ./` the
// action's metadata, with the pinned actionlint. It is skipped only when the
// module cannot be downloaded outside CI.
func TestActionlint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	root := repoRootDir(t)
	files, _ := filepath.Glob(filepath.Join(root, ".github/workflows/*.yml"))
	ex, _ := filepath.Glob(filepath.Join(root, "examples/workflows/*.yml"))
	files = append(files, ex...)
	if len(files) < 4 {
		t.Fatalf("found only %v", files)
	}
	args := append([]string{"run", "github.com/rhysd/actionlint/cmd/actionlint@" + actionlintVersion}, files...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		// actionlint exits 1 on findings; anything else is go failing to
		// fetch or build it.
		if errors.As(err, &ee) && ee.ExitCode() != 1 && os.Getenv("CI") == "" {
			t.Skipf("actionlint could not be run here: %v\n%s", err, out)
		}
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// builtBinEnv passes the built binary's path to the tests this binary
// runs again in processes of their own (testproc), so that they do not
// link it again.
const builtBinEnv = "MCP_LOCKCHECK_TEST_BUILT_BIN"

// binary builds mcp-lockcheck once per test run, as the action's install
// step would, and returns its path.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv(builtBinEnv); p != "" {
			builtBin = p
			return
		}
		dir, err := os.MkdirTemp("", "mcp-lockcheck-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "mcp-lockcheck")
		cmd := exec.Command("go", "build", "-o", builtBin, "./cmd/mcp-lockcheck")
		cmd.Dir = repoRootDir(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(err.Error() + "\n" + string(out))
			return
		}
		buildErr = os.Setenv(builtBinEnv, builtBin)
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return builtBin
}

// actionMeta is the part of action.yml the emulation runs.
type actionMeta struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Name  string            `yaml:"name"`
			If    string            `yaml:"if"`
			Uses  string            `yaml:"uses"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
			With  map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// runner emulates what the Actions runner gives a composite action's steps:
// per-step GITHUB_OUTPUT files, one GITHUB_STEP_SUMMARY for the job, the
// event file, GITHUB_ACTION_PATH, and env: values with ${{ }} expressions
// evaluated from the inputs (given, else action.yml's defaults), the github
// context and earlier steps' outputs.
type runner struct {
	t         *testing.T
	meta      actionMeta
	root      string            // GITHUB_ACTION_PATH and the workspace
	env       map[string]string // the job's environment
	inputs    map[string]string
	github    map[string]string // github.* context values used by action.yml
	summary   string
	outputs   map[string]map[string]string // step id -> outputs
	logs      map[string]string            // step id -> stdout+stderr
	exitCodes map[string]int
	// workspace, when set, is where the steps run (GITHUB_WORKSPACE);
	// otherwise the repository root, which is also the action's path.
	workspace string
	// sys, when set, starts each step: the credentials of the runner user
	// the steps run as when the test itself is root (see
	// action_unprivileged_linux_test.go). give, when set, hands a file the
	// runner creates for a step (its GITHUB_OUTPUT) to that user.
	sys  *syscall.SysProcAttr
	give func(path string) error
}

func newRunner(t *testing.T, api *githubtest.Server, event string, inputs map[string]string) *runner {
	t.Helper()
	root := repoRootDir(t)
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta actionMeta
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if meta.Runs.Using != "composite" {
		t.Fatalf("action.yml runs.using = %q", meta.Runs.Using)
	}
	tmp := t.TempDir()
	eventPath := filepath.Join(tmp, "event.json")
	if err := os.WriteFile(eventPath, []byte(event), 0o644); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		PullRequest struct {
			Base struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	_ = json.Unmarshal([]byte(event), &ev)
	r := &runner{
		t: t, meta: meta, root: root, inputs: inputs,
		summary: filepath.Join(tmp, "step_summary.md"),
		outputs: map[string]map[string]string{}, logs: map[string]string{}, exitCodes: map[string]int{},
		github: map[string]string{
			"github.token":                        "test-token",
			"github.action_ref":                   "",
			"github.action_repository":            "",
			"github.event.pull_request.base.sha":  ev.PullRequest.Base.SHA,
			"github.action_path":                  root,
			"runner.temp":                         tmp,
			"github.event_name":                   "pull_request",
			"github.event.pull_request.number":    "7",
			"github.event.pull_request.head.sha":  "",
			"github.event.repository.full_name":   "o/r",
			"github.event.pull_request.base.ref":  "main",
			"github.event.pull_request.head.ref":  "feature",
			"github.event.pull_request.head.repo": "",
		},
	}
	// A clean environment: what the host needs to run go (the demo server
	// is `go run ./server`), nothing of the host's own GitHub context.
	r.env = map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "INPUT_") || strings.HasPrefix(k, "RUNNER_") || k == "CI" || k == "MCP_LOCKCHECK_BIN" || k == builtBinEnv || k == testproc.EnvName {
			continue
		}
		r.env[k] = v
	}
	bin := binary(t)
	for k, v := range map[string]string{
		"PATH":                filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"CI":                  "true",
		"GITHUB_ACTIONS":      "true",
		"GITHUB_ACTION_PATH":  root,
		"GITHUB_WORKSPACE":    root,
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   eventPath,
		"GITHUB_REPOSITORY":   "o/r",
		"GITHUB_API_URL":      api.APIURL(),
		"GITHUB_SERVER_URL":   "https://github.example",
		"GITHUB_RUN_ID":       "99",
		"GITHUB_JOB":          "check",
		"GITHUB_STEP_SUMMARY": r.summary,
		"RUNNER_TEMP":         tmp,
		"RUNNER_OS":           "Linux",
		"RUNNER_ARCH":         "X64",
		// The prebuilt binary: the install step uses it as it is.
		"MCP_LOCKCHECK_BIN": bin,
	} {
		r.env[k] = v
	}
	return r
}

var exprRE = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// eval replaces the ${{ }} expressions action.yml uses; an unknown one
// fails the test, so a new expression in action.yml is noticed here.
func (r *runner) eval(s string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		e := exprRE.FindStringSubmatch(m)[1]
		if name, ok := strings.CutPrefix(e, "inputs."); ok {
			if v, ok := r.inputs[name]; ok {
				return v
			}
			in, ok := r.meta.Inputs[name]
			if !ok {
				r.t.Fatalf("action.yml uses undefined input %q", name)
			}
			return r.eval(in.Default)
		}
		if rest, ok := strings.CutPrefix(e, "steps."); ok {
			id, out, _ := strings.Cut(rest, ".outputs.")
			return r.outputs[id][out]
		}
		if v, ok := r.github[e]; ok {
			return v
		}
		r.t.Fatalf("action.yml expression %q is not emulated", e)
		return ""
	})
}

// cond evaluates the `if:` conditions action.yml uses.
func (r *runner) cond(s string) bool {
	switch s = strings.TrimSpace(s); s {
	case "":
		return true
	case "always()":
		return true
	}
	var parts []string
	for _, p := range strings.Split(s, "&&") {
		parts = append(parts, strings.TrimSpace(p))
	}
	for _, p := range parts {
		if p == "always()" {
			continue
		}
		lhs, rhs, eq := strings.Cut(p, "==")
		neq := false
		if !eq {
			lhs, rhs, neq = strings.Cut(p, "!=")
			if !neq {
				r.t.Fatalf("condition %q is not emulated", s)
			}
		}
		l := r.eval("${{ " + strings.TrimSpace(lhs) + " }}")
		rv := strings.Trim(strings.TrimSpace(rhs), "'")
		if (l == rv) != eq {
			return false
		}
	}
	return true
}

// run runs every step of the action as the runner would. Steps that use
// other actions (setup-go, upload-sarif) are not run; their `with:` is
// evaluated and recorded as their outputs, so tests can see what they were given.
func (r *runner) run() {
	r.t.Helper()
	for i, st := range r.meta.Runs.Steps {
		id := st.ID
		if id == "" {
			id = "step" + string(rune('0'+i))
		}
		if !r.cond(st.If) {
			continue
		}
		if st.Uses != "" {
			if !regexp.MustCompile(`@[0-9a-f]{40}$`).MatchString(st.Uses) {
				r.t.Errorf("step %q uses %q: not pinned by commit SHA", st.Name, st.Uses)
			}
			with := map[string]string{}
			for k, v := range st.With {
				with[k] = r.eval(v)
			}
			r.outputs[id] = with
			continue
		}
		if st.Shell != "bash" {
			r.t.Fatalf("step %q: shell %q", st.Name, st.Shell)
		}
		if strings.Contains(st.Run, "${{") {
			r.t.Errorf("step %q: an expression inside run: (inputs must reach scripts through env:)", st.Name)
		}
		outFile := filepath.Join(r.env["RUNNER_TEMP"], "output-"+id)
		if err := os.WriteFile(outFile, nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
		if r.give != nil {
			if err := r.give(outFile); err != nil {
				r.t.Fatal(err)
			}
		}
		env := map[string]string{}
		for k, v := range st.Env {
			env[k] = r.eval(v)
		}
		env["GITHUB_OUTPUT"] = outFile
		cmd := r.bash(st.Run, env)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		err := cmd.Run()
		r.logs[id] = log.String()
		code := 0
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				r.t.Fatalf("step %q: %v", st.Name, err)
			}
			code = ee.ExitCode()
		}
		r.exitCodes[id] = code
		r.outputs[id] = parseOutputs(r.t, outFile)
		if code != 0 && i < len(r.meta.Runs.Steps)-1 {
			r.t.Fatalf("step %q failed (exit %d) before the last step:\n%s", st.Name, code, log.String())
		}
	}
}

// bash is a step's shell as the runner starts it: the job's environment
// with extra on top, in the workspace, as the runner user.
func (r *runner) bash(script string, extra map[string]string) *exec.Cmd {
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = r.root
	if r.workspace != "" {
		cmd.Dir = r.workspace
	}
	cmd.Env = envList(env)
	cmd.SysProcAttr = r.sys
	return cmd
}

// actionOutputs evaluates action.yml's outputs.
func (r *runner) actionOutputs() map[string]string {
	out := map[string]string{}
	for k, o := range r.meta.Outputs {
		out[k] = r.eval(o.Value)
	}
	return out
}

// jobExit is the exit code of the action's last step: the job's verdict.
func (r *runner) jobExit() int {
	steps := r.meta.Runs.Steps
	last := steps[len(steps)-1]
	id := last.ID
	if id == "" {
		id = "step" + string(rune('0'+len(steps)-1))
	}
	return r.exitCodes[id]
}

// parseOutputs reads a GITHUB_OUTPUT file: key=value and key<<DELIM blocks.
func parseOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if k, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(k, "=") {
			var v []string
			for sc.Scan() && sc.Text() != delim {
				v = append(v, sc.Text())
			}
			out[k] = strings.Join(v, "\n")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: malformed output line %q", path, line)
		}
		out[k] = v
	}
	return out
}

const prEvent = `{"action":"synchronize","number":7,"pull_request":{"number":7,"base":{"sha":"%BASE%","ref":"main"},"head":{"sha":"1111111111111111111111111111111111111111","ref":"feature"}},"repository":{"full_name":"o/r"}}`

// TestActionEmulated runs the composite action's steps with bash under an
// emulated runner against examples/demo: the committed lock catches the rug
// pull (drift-detected=true, exit 1, SARIF and summary written, the sticky
// comment posted), then a lock pinned while the demo is honest passes and
// the same comment is edited to say so.
func TestActionEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and runs the demo server")
	}
	if runtime.GOOS == "windows" {
		t.Skip("bash steps")
	}
	// Built once, before the test goes parallel: the subtests that run in
	// processes of their own take it from the environment.
	binary(t)
	t.Parallel()
	api := githubtest.New("o", "r", nil)
	t.Cleanup(api.Close)
	// base: the event's base commit is not in this checkout, and check
	// --base is tested on its own; the workflow sets base: '' here.
	event := strings.ReplaceAll(prEvent, "%BASE%", "2222222222222222222222222222222222222222")
	// The demo server is `go run ./server`: under strict it compiles the
	// standard library into strict's own empty cache, half a minute on a
	// cold machine. These subtests are about the reports, so they choose
	// basic; TestActionHostileServer runs the action's defaults.

	t.Run("base from the event", func(t *testing.T) {
		if testproc.Parallel(t) {
			return
		}
		// The pull_request event's base SHA reaches check --base: here the
		// base is this checkout's HEAD, whose demo lock is the one checked,
		// so the review runs and approves nothing.
		head, err := exec.Command("git", "-C", repoRootDir(t), "rev-parse", "HEAD").Output()
		if err != nil {
			t.Skipf("not a git checkout: %v", err)
		}
		if st, _ := exec.Command("git", "-C", repoRootDir(t), "status", "--porcelain", "examples/demo/mcp-lock.json").Output(); len(st) > 0 {
			t.Skip("the demo lock has uncommitted changes")
		}
		ev := strings.ReplaceAll(prEvent, "%BASE%", strings.TrimSpace(string(head)))
		r := newRunner(t, api, ev, map[string]string{
			"working-directory": "examples/demo", "sandbox": "basic", "warmup-calls": "0", "launches": "1", "comment": "false",
		})
		r.run()
		out := r.actionOutputs()
		if out["exit-code"] != "0" {
			t.Fatalf("outputs %v\nlog:\n%s", out, r.logs["check"])
		}
		if !strings.Contains(r.logs["check"], "--base "+strings.TrimSpace(string(head))) {
			t.Errorf("check was not run with the event's base SHA:\n%s", r.logs["check"])
		}
	})

	t.Run("base missing fails closed", func(t *testing.T) {
		if testproc.Parallel(t) {
			return
		}
		r := newRunner(t, api, strings.ReplaceAll(prEvent, "%BASE%", "3333333333333333333333333333333333333333"), map[string]string{
			"working-directory": "examples/demo", "sandbox": "basic", "warmup-calls": "0", "launches": "1", "comment": "false",
		})
		r.run()
		if out := r.actionOutputs(); out["exit-code"] != "2" {
			t.Fatalf("a base that cannot be read: outputs %v\nlog:\n%s", out, r.logs["check"])
		}
	})

	t.Run("pull request lowers warmup-calls", func(t *testing.T) {
		if testproc.Parallel(t) {
			return
		}
		// The base branch's policy makes four warm-up calls; the pull
		// request's makes none. The check of the pull request runs with
		// the base's: the counter server (honest for three calls) is
		// still caught, and the weakening is an error of its own.
		dir := t.TempDir()
		fakeConfig(t, dir, map[string]string{"notes": "counter"})
		write := func(name, content string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(".mcp-lockcheck.yaml", "version: 1\ndefaults:\n  warmup-calls: 4\n  launches: 1\n")
		if code, _, stderr := runCLI(t, dir, nil, "pin", "--quiet", "--warmup-calls", "0"); code != 0 {
			t.Fatalf("pin: exit %d\n%s", code, stderr)
		}
		git := func(args ...string) string {
			cmd := exec.Command("git", append([]string{"-c", "user.name=CI", "-c", "user.email=ci@example.com"}, args...)...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
			return strings.TrimSpace(string(out))
		}
		git("init", "-q")
		git("add", ".")
		git("commit", "-q", "-m", "base")
		baseSHA := git("rev-parse", "HEAD")
		write(".mcp-lockcheck.yaml", "version: 1\ndefaults:\n  warmup-calls: 0\n  launches: 1\n")
		git("commit", "-q", "-am", "no warm-up calls")

		r := newRunner(t, api, strings.ReplaceAll(prEvent, "%BASE%", baseSHA), map[string]string{
			"working-directory": dir, "comment": "false",
		})
		r.run()
		out := r.actionOutputs()
		if out["exit-code"] != "1" || r.jobExit() != 1 {
			t.Fatalf("outputs %v, job exit %d\nlog:\n%s", out, r.jobExit(), r.logs["check"])
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(readFile(t, out["report-file"])), &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Repository) != 1 || rep.Repository[0].Rule != "policy-weakened" || rep.Repository[0].Field != "defaults.warmup-calls" {
			t.Errorf("repository findings %+v", rep.Repository)
		}
		caught := false
		for _, f := range rep.Findings() {
			caught = caught || (f.Rule == "tool-changed" && f.Phase == "launch-1/after-call-3")
		}
		if !caught {
			t.Errorf("the counter server was not caught:\n%s", r.logs["check"])
		}
		if s := readFile(t, r.summary); !strings.Contains(s, "This pull request changes the policy") {
			t.Errorf("the job summary does not show the policy change:\n%s", s)
		}
	})

	t.Run("profile input", func(t *testing.T) {
		if testproc.Parallel(t) {
			return
		}
		// A server that changes on its 40th call: the default profile
		// misses it, profile: deep catches it (args keep the deep run
		// short: no idle gap, one extra identity), and its SARIF gets a
		// category of its own. A profile that does not exist is exit 2.
		dir := t.TempDir()
		fakeConfig(t, dir, map[string]string{"text": "honest"})
		if code, _, stderr := runCLI(t, dir, nil, "pin", "--quiet"); code != 0 {
			t.Fatalf("pin: exit %d\n%s", code, stderr)
		}
		// The launch identity pins env names, not values.
		fakeConfig(t, dir, map[string]string{"text": "counter-40"})
		in := func(profile string) map[string]string {
			return map[string]string{"working-directory": dir, "sandbox": "basic", "comment": "false", "base": "",
				"profile": profile, "args": "--call-gap 0 --client-identity cursor-vscode/1.0.0"}
		}
		quick := newRunner(t, api, event, in(""))
		quick.run()
		if out := quick.actionOutputs(); out["exit-code"] != "0" || strings.Contains(quick.logs["check"], "--profile") {
			t.Fatalf("default profile: outputs %v\nlog:\n%s", out, quick.logs["check"])
		}
		deep := newRunner(t, api, event, in("deep"))
		deep.run()
		out := deep.actionOutputs()
		if out["exit-code"] != "1" || deep.jobExit() != 1 || !strings.Contains(deep.logs["check"], "--profile deep") {
			t.Fatalf("profile deep: outputs %v, job exit %d\nlog:\n%s", out, deep.jobExit(), deep.logs["check"])
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(readFile(t, out["report-file"])), &rep); err != nil {
			t.Fatal(err)
		}
		caught := false
		for _, f := range rep.Findings() {
			caught = caught || (f.Rule == "tool-changed" && f.Phase == "launch-1/after-call-40")
		}
		if !caught || rep.Servers[0].Coverage == nil || rep.Servers[0].Coverage.Identities != 2 {
			t.Errorf("deep did not catch the 40th call or report its coverage: %+v\n%s", rep.Servers[0].Coverage, deep.logs["check"])
		}
		if qc, dc := quick.outputs["check"]["category"], deep.outputs["check"]["category"]; qc == dc {
			t.Errorf("a quick and a deep check share the code scanning category %q", qc)
		}
		bad := newRunner(t, api, event, in("slow"))
		bad.run()
		if out := bad.actionOutputs(); out["exit-code"] != "2" || !strings.Contains(bad.logs["check"], "want quick or deep") {
			t.Errorf("profile slow: outputs %v\nlog:\n%s", out, bad.logs["check"])
		}
	})

	t.Run("input text is no runner command", func(t *testing.T) {
		if testproc.Parallel(t) {
			return
		}
		// Inputs and config text reach the step log: in the command line
		// run.sh echoes and in the CLI's errors. None of it may become a
		// workflow command; the only commands are the action's own.
		r := newRunner(t, api, event, map[string]string{
			"working-directory": "examples/demo", "sandbox": "basic", "warmup-calls": "0", "launches": "1", "comment": "false", "base": "",
			"servers": "##[add-mask]notes, ::stop-commands::x",
		})
		r.run()
		for id, log := range r.logs {
			for _, c := range runnerCommands(log) {
				if !strings.HasPrefix(c, "::warning title=mcp-lockcheck::") && !strings.HasPrefix(c, "::error title=mcp-lockcheck::") && !strings.HasPrefix(c, "::error file=") {
					t.Errorf("step %s: runner command %q from input text:\n%s", id, c, log)
				}
			}
		}
	})

	t.Run("drift", func(t *testing.T) {
		r := newRunner(t, api, event, map[string]string{
			"working-directory": "examples/demo", "sandbox": "basic", "warmup-calls": "3", "launches": "1", "base": "",
		})
		r.run()
		out := r.actionOutputs()
		if out["drift-detected"] != "true" || out["exit-code"] != "1" || out["held-servers"] != "" || out["findings-count"] == "0" {
			t.Fatalf("outputs %v\nlog:\n%s", out, r.logs["check"])
		}
		if got := r.jobExit(); got != 1 {
			t.Errorf("job exit %d, want 1", got)
		}
		sarif := readSARIF(t, out["sarif-file"])
		found := false
		for _, res := range sarif.Runs[0].Results {
			if res.RuleID == "tool-changed" {
				found = true
				if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "examples/demo/mcp-lock.json" {
					t.Errorf("SARIF location %q: not relative to the repository root", uri)
				}
			}
		}
		if !found {
			t.Errorf("no tool-changed result in the SARIF")
		}
		if id := sarif.Runs[0].AutomationDetails.ID; id == "" || id != r.outputs["check"]["category"] {
			t.Errorf("SARIF automation id %q, category %q", id, r.outputs["check"]["category"])
		}
		if up := r.outputs["step3"]; up["sarif_file"] != out["sarif-file"] || up["category"] == "" {
			t.Errorf("upload-sarif was given %v", up)
		}
		summary := readFile(t, r.summary)
		for _, want := range []string{"search_notes", "after-call-3", "drift"} {
			if !strings.Contains(summary, want) {
				t.Errorf("job summary lacks %q:\n%s", want, summary)
			}
		}
		if !strings.Contains(r.logs["check"], "::error file=examples/demo/mcp-lock.json,line=") {
			t.Errorf("no annotation on the lock in the log:\n%s", r.logs["check"])
		}
		if strings.Contains(r.logs["check"], "test-token") {
			t.Error("the token appears in the log")
		}
		cs := api.Comments(7)
		if len(cs) != 1 || cs[0].Author != "github-actions[bot]" || !strings.HasPrefix(cs[0].Body, report.Marker) || !strings.Contains(cs[0].Body, "search_notes") {
			t.Fatalf("comments %+v", cs)
		}
		if readFile(t, out["comment-file"]) != cs[0].Body {
			t.Error("comment-file differs from the posted comment")
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(readFile(t, out["report-file"])), &rep); err != nil || rep.Summary.ExitCode != 1 {
			t.Errorf("report-file: %v %+v", err, rep.Summary)
		}
	})

	t.Run("clean", func(t *testing.T) {
		// The demo is honest for its first three calls: a lock pinned with
		// two warm-up calls is what it shows then.
		lockPath := filepath.Join(t.TempDir(), "clean-lock.json")
		pin := exec.Command(binary(t), "pin", "--quiet", "--config", ".mcp.json", "--lock", lockPath, "--warmup-calls", "2", "--launches", "1")
		pin.Dir = filepath.Join(repoRootDir(t), "examples/demo")
		if out, err := pin.CombinedOutput(); err != nil {
			t.Fatalf("pin: %v\n%s", err, out)
		}
		r := newRunner(t, api, event, map[string]string{
			"working-directory": "examples/demo", "sandbox": "basic", "lock": lockPath, "warmup-calls": "2", "launches": "1", "base": "",
		})
		r.run()
		out := r.actionOutputs()
		if out["drift-detected"] != "false" || out["exit-code"] != "0" {
			t.Fatalf("outputs %v\nlog:\n%s", out, r.logs["check"])
		}
		if got := r.jobExit(); got != 0 {
			t.Errorf("job exit %d, want 0", got)
		}
		if res := readSARIF(t, out["sarif-file"]).Runs[0].Results; len(res) != 0 {
			t.Errorf("SARIF has %d results", len(res))
		}
		cs := api.Comments(7)
		if len(cs) != 1 {
			t.Fatalf("%d comments: the sticky comment was not edited in place", len(cs))
		}
		if strings.Contains(cs[0].Body, "search_notes") && strings.Contains(cs[0].Body, "after-call-3") {
			t.Errorf("the comment still shows the old drift:\n%s", cs[0].Body)
		}
	})

	t.Run("fork", func(t *testing.T) {
		if testproc.Parallel(t) {
			return
		}
		// A fork's token is read-only: the comment fails, the check does not.
		api.ReadOnly = true
		defer func() { api.ReadOnly = false }()
		// An empty lock: the demo server is not pinned in it.
		lockPath := filepath.Join(t.TempDir(), "empty-lock.json")
		if err := os.WriteFile(lockPath, []byte(`{"lockfileVersion": 1, "servers": {}}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := newRunner(t, api, event, map[string]string{
			"working-directory": "examples/demo", "sandbox": "basic", "lock": lockPath, "warmup-calls": "0", "launches": "1", "base": "",
		})
		r.run()
		out := r.actionOutputs()
		if out["exit-code"] != "1" || r.jobExit() != 1 {
			t.Fatalf("outputs %v, job exit %d: want the check's own verdict (server-not-pinned)", out, r.jobExit())
		}
		if !strings.Contains(r.logs["check"], "warning: pull request comment not posted") {
			t.Errorf("no warning in the log:\n%s", r.logs["check"])
		}
		if s := readFile(t, r.summary); !strings.Contains(s, "comment was not posted") {
			t.Errorf("the job summary does not say the comment was not posted:\n%s", s)
		}
	})
}

type sarifLog struct {
	Runs []struct {
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, path string) sarifLog {
	t.Helper()
	var s sarifLog
	if err := json.Unmarshal([]byte(readFile(t, path)), &s); err != nil || len(s.Runs) != 1 {
		t.Fatalf("SARIF %s: %v (%d runs)", path, err, len(s.Runs))
	}
	return s
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeConfig writes a client config whose servers are this test binary
// re-executed as fake MCP servers (internal/testing/fakeserver) with the given
// scenarios; "${VAR:-default}" placeholders let a test change a scenario
// between runs through the environment.
func fakeConfig(t *testing.T, dir string, scenarios map[string]string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(scenarios))
	for n := range scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	servers := map[string]any{}
	for _, n := range names {
		sc, variant, _ := strings.Cut(scenarios[n], "/")
		env := map[string]string{"FAKE_SCENARIO": sc}
		if variant != "" {
			env["FAKE_VARIANT"] = variant
		}
		servers[n] = map[string]any{"command": exe, "env": env}
	}
	b, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs the CLI in-process in dir.
func runCLI(t *testing.T, dir string, env map[string]string, args ...string) (code int, stdout, stderr string) {
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
	code = Run(context.Background(), append([]string{"mcp-lockcheck"}, args...), Env{Stdout: &o, Stderr: &e, Getenv: getenv, Dir: dir})
	return code, o.String(), e.String()
}

// TestInstallRelease runs the install step's release mode against a fake
// release server: the archive named in checksums.txt for this OS/arch is
// downloaded, verified and cached (a second run downloads nothing); an
// archive whose hash differs, or a ref naming another version, is refused.
func TestInstallRelease(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	archive := tarGz(t, "mcp-lockcheck", "#!/bin/sh\necho fake mcp-lockcheck\n")
	var downloads []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		downloads = append(downloads, r.URL.Path)
		mu.Unlock()
		if r.URL.Path != "/o/r/releases/download/v1.2.3/mcp-lockcheck_1.2.3_linux_amd64.tar.gz" {
			http.NotFound(w, r)
			return
		}
		w.Write(archive)
	}))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(archive)
	good := hex.EncodeToString(sum[:])
	script := filepath.Join(repoRootDir(t), "action", "install.sh")
	cache := t.TempDir()
	install := func(hash, ref string) (map[string]string, string, error) {
		action, tmp := t.TempDir(), t.TempDir()
		writeTo(t, filepath.Join(action, "checksums.txt"),
			strings.Repeat("0", 64)+"  mcp-lockcheck_1.2.3_darwin_arm64.tar.gz\n"+hash+"  mcp-lockcheck_1.2.3_linux_amd64.tar.gz\n")
		out := filepath.Join(tmp, "output")
		cmd := exec.Command("bash", script)
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "GITHUB_ACTION_PATH=" + action, "GITHUB_OUTPUT=" + out,
			"INPUT_INSTALL=release", "RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_TEMP=" + tmp,
			"RUNNER_TOOL_CACHE=" + cache, "ACTION_REF=" + ref, "ACTION_REPOSITORY=o/r", "GITHUB_SERVER_URL=" + srv.URL,
		}
		log, err := cmd.CombinedOutput()
		outs := map[string]string{}
		if _, statErr := os.Stat(out); statErr == nil {
			outs = parseOutputs(t, out)
		}
		return outs, string(log), err
	}

	if _, log, err := install(strings.Repeat("1", 64), "v1.2.3"); err == nil || !strings.Contains(log, "refusing it") {
		t.Fatalf("a mismatching archive was accepted: %v\n%s", err, log)
	}
	if _, log, err := install(good, "v2.0.0"); err == nil || !strings.Contains(log, "does not match") {
		t.Fatalf("a ref naming another version was accepted: %v\n%s", err, log)
	}
	outs, log, err := install(good, "v1.2.3")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, log)
	}
	want := filepath.Join(cache, "mcp-lockcheck", "1.2.3", "amd64", "mcp-lockcheck")
	if outs["bin"] != want {
		t.Fatalf("bin %q, want %q\n%s", outs["bin"], want, log)
	}
	if got, err := exec.Command(want).Output(); err != nil || !strings.Contains(string(got), "fake mcp-lockcheck") {
		t.Fatalf("installed binary: %v %q", err, got)
	}
	mu.Lock()
	n := len(downloads)
	mu.Unlock()
	if outs, log, err := install(good, "v1"); err != nil || outs["bin"] != want {
		t.Fatalf("cached install: %v %v\n%s", err, outs, log)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(downloads) != n {
		t.Errorf("the tool cache was not used: downloads %v", downloads)
	}
}

// TestInstallReleaseOwnArchives: the archives release/build.sh produces are
// what install: release accepts. The script builds this runner's target,
// a fake release server serves its output, and the installed binary
// reports the tag; the same archive under a checksums.txt one digit off is
// refused and nothing is installed.
func TestInstallReleaseOwnArchives(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	if testing.Short() {
		t.Skip("-short: builds a release archive")
	}
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("release/build.sh and install.sh run on a Linux runner here")
	}
	for _, tool := range []string{"bash", "curl", "tar", "gzip", "sha256sum", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	const tag = "v0.0.1-test"
	root := repoRootDir(t)
	dist := t.TempDir()
	build := exec.Command("bash", filepath.Join(root, "release", "build.sh"), tag, dist)
	build.Env = append(os.Environ(), "TARGETS=linux/"+runtime.GOARCH)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("release/build.sh: %v\n%s", err, out)
	}
	sums := readFile(t, filepath.Join(dist, "checksums.txt"))
	name := "mcp-lockcheck_0.0.1-test_linux_" + runtime.GOARCH + ".tar.gz"
	if !regexp.MustCompile(`(?m)^[0-9a-f]{64}  ` + regexp.QuoteMeta(name) + `$`).MatchString(sums) {
		t.Fatalf("checksums.txt does not name %s:\n%s", name, sums)
	}
	srv := httptest.NewServer(http.StripPrefix("/o/r/releases/download/"+tag+"/", http.FileServer(http.Dir(dist))))
	t.Cleanup(srv.Close)
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	install := func(sums string) (map[string]string, string, error) {
		action, tmp, cache := t.TempDir(), t.TempDir(), t.TempDir()
		writeTo(t, filepath.Join(action, "checksums.txt"), sums)
		out := filepath.Join(tmp, "output")
		cmd := exec.Command("bash", filepath.Join(root, "action", "install.sh"))
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "GITHUB_ACTION_PATH=" + action, "GITHUB_OUTPUT=" + out,
			"INPUT_INSTALL=release", "RUNNER_OS=Linux", "RUNNER_ARCH=" + arch, "RUNNER_TEMP=" + tmp,
			"RUNNER_TOOL_CACHE=" + cache, "ACTION_REF=" + tag, "ACTION_REPOSITORY=o/r", "GITHUB_SERVER_URL=" + srv.URL,
		}
		log, err := cmd.CombinedOutput()
		outs := map[string]string{}
		if _, statErr := os.Stat(out); statErr == nil {
			outs = parseOutputs(t, out)
		}
		return outs, string(log), err
	}
	outs, log, err := install(sums)
	if err != nil {
		t.Fatalf("install of the script's own archive: %v\n%s", err, log)
	}
	got, err := exec.Command(outs["bin"], "--version").Output()
	if err != nil || !strings.Contains(string(got), "mcp-lockcheck "+tag) {
		t.Fatalf("installed binary --version: %v %q, want the tag %s", err, got, tag)
	}
	// One hex digit of the digest changed: the archive is refused.
	i := strings.Index(sums, name) - 3
	flip := map[byte]byte{'0': '1'}[sums[i]]
	if flip == 0 {
		flip = '0'
	}
	bad := sums[:i] + string(flip) + sums[i+1:]
	if outs, log, err := install(bad); err == nil || !strings.Contains(log, "refusing it") || outs["bin"] != "" {
		t.Fatalf("an archive whose digest differs from checksums.txt was installed: %v %v\n%s", err, outs, log)
	}
}

func tarGz(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(content))
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestUsesPinned: every action the workflows and action.yml use is pinned
// by full commit SHA (a tag can be moved to other code). The examples' use
// of this project's own action is the one exception: users pin it to the
// release they reviewed.
func TestUsesPinned(t *testing.T) {
	root := repoRootDir(t)
	files, _ := filepath.Glob(filepath.Join(root, ".github/workflows/*.yml"))
	ex, _ := filepath.Glob(filepath.Join(root, "examples/workflows/*.yml"))
	files = append(append(files, ex...), filepath.Join(root, "action.yml"))
	usesRE := regexp.MustCompile(`(?m)^[\s-]*uses:\s*(\S+)`)
	for _, f := range files {
		for _, m := range usesRE.FindAllStringSubmatch(readFile(t, f), -1) {
			u := m[1]
			switch {
			case u == "./", strings.HasPrefix(u, "mcp-lockcheck/mcp-lockcheck@"):
			case regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`).MatchString(u):
			default:
				t.Errorf("%s: uses %s: not pinned by commit SHA", filepath.Base(f), u)
			}
		}
	}
}
