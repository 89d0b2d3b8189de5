package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/githubtest"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// stepUserEnv names the user the emulated runner's steps run as when the
// test itself runs as root. .ci/run creates it and gives it passwordless
// sudo, as GitHub's hosted runners give their `runner` user. Unset, root's
// tests run the steps as nobody, which has no sudo.
const stepUserEnv = "MCP_LOCKCHECK_TEST_USER"

// apparmorRestrict is the sysctl action/run.sh lifts with sudo for strict.
const apparmorRestrict = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"

// stepUser is who the unprivileged runner's steps run as.
type stepUser struct {
	uid, gid int
	name     string
	// sys is nil when the steps run as this process's own user.
	sys *syscall.SysProcAttr
}

// runnerUser picks the steps' user: this process's own when it is not
// root (a developer's account, .ci/run's unprivileged pass); as root, the
// user $MCP_LOCKCHECK_TEST_USER names, else nobody.
func runnerUser(t *testing.T) stepUser {
	t.Helper()
	if os.Geteuid() != 0 {
		name := strconv.Itoa(os.Geteuid())
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		return stepUser{uid: os.Geteuid(), gid: os.Getegid(), name: name}
	}
	name := os.Getenv(stepUserEnv)
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		if os.Getenv(stepUserEnv) != "" {
			t.Fatalf("%s=%s: %v", stepUserEnv, name, err)
		}
		u = &user.User{Uid: "65534", Gid: "65534", Username: "nobody"}
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil || uid == 0 {
		t.Fatalf("step user %s: uid %q gid %q: not an unprivileged user", name, u.Uid, u.Gid)
	}
	return stepUser{uid: uid, gid: gid, name: u.Username, sys: &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{uint32(gid)}},
	}}
}

// unprivileged moves the runner's files where a non-root runner user has
// them (its own temp, home and workspace, the action and the binary
// installed for it) and runs the steps as su. Everything lives in one
// directory of su's own: neither the test's temp directories nor the
// checkout (root's, in CI) need be reachable by su.
func (r *runner) unprivileged(t *testing.T, su stepUser, fakeServer map[string]string) {
	t.Helper()
	stage, err := os.MkdirTemp("", "mcp-lockcheck-runner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stage) })
	temp, home, ws, action := filepath.Join(stage, "temp"), filepath.Join(stage, "home"), filepath.Join(stage, "work", "r", "r"), filepath.Join(stage, "actions", "mcp-lockcheck")
	for _, d := range []string{temp, home, ws, filepath.Join(action, "action")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(r.root, "action.yml"), filepath.Join(action, "action.yml"), 0o644)
	scripts, _ := filepath.Glob(filepath.Join(r.root, "action", "*.sh"))
	for _, s := range scripts {
		copyFile(t, s, filepath.Join(action, "action", filepath.Base(s)), 0o755)
	}
	bin := filepath.Join(stage, "tool", "mcp-lockcheck")
	copyFile(t, r.env["MCP_LOCKCHECK_BIN"], bin, 0o755)
	copyFile(t, r.env["GITHUB_EVENT_PATH"], filepath.Join(temp, "event.json"), 0o644)

	// The server: this test binary as a fake MCP server, installed where su
	// can run it.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(stage, "server", "fake-mcp-server")
	copyFile(t, self, server, 0o755)
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"command": server, "env": fakeServer}}})
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}

	r.root = action
	r.workspace = ws
	r.summary = filepath.Join(temp, "step_summary.md")
	r.github["github.action_path"] = action
	r.github["runner.temp"] = temp
	for k, v := range map[string]string{
		"HOME": home, "USER": su.name, "LOGNAME": su.name,
		"PATH":               filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GITHUB_ACTION_PATH": action, "GITHUB_WORKSPACE": ws, "GITHUB_EVENT_PATH": filepath.Join(temp, "event.json"),
		"GITHUB_STEP_SUMMARY": r.summary, "RUNNER_TEMP": temp, "MCP_LOCKCHECK_BIN": bin,
	} {
		r.env[k] = v
	}
	// Nothing of root's own: its Go and npm caches, its TMPDIR.
	for k := range r.env {
		if strings.HasPrefix(k, "GO") && k != "GORACE" || strings.HasPrefix(k, "NPM_") || strings.HasPrefix(k, "npm_") || k == "TMPDIR" || k == "XDG_CACHE_HOME" || k == "XDG_CONFIG_HOME" {
			delete(r.env, k)
		}
	}
	if su.sys != nil {
		if err := filepath.WalkDir(stage, func(p string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, su.uid, su.gid)
		}); err != nil {
			t.Fatal(err)
		}
		r.sys = su.sys
		r.give = func(p string) error { return os.Chown(p, su.uid, su.gid) }
	}
}

// withoutSudo points the runner's PATH at a directory that holds every
// command of its PATH but sudo, as on a self-hosted runner without it.
func (r *runner) withoutSudo(t *testing.T) {
	t.Helper()
	dir := filepath.Join(filepath.Dir(r.env["MCP_LOCKCHECK_BIN"]), "..", "path-without-sudo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range filepath.SplitList(r.env["PATH"]) {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.Name() == "sudo" || e.IsDir() {
				continue
			}
			link := filepath.Join(dir, e.Name())
			if _, err := os.Lstat(link); err == nil {
				continue // the first on PATH wins, as lookup would have it
			}
			if err := os.Symlink(filepath.Join(d, e.Name()), link); err != nil {
				t.Fatal(err)
			}
		}
	}
	if r.give != nil {
		if err := r.give(dir); err != nil {
			t.Fatal(err)
		}
	}
	r.env["PATH"] = dir
}

// TestActionUnprivileged runs the action's steps as users run them: as a
// non-root runner user, with the action's default sandbox (strict) against
// a fake server that changes after its third tools/call, pinned by the
// same user while it was honest. On GitHub's hosted runners that user may
// sudo (the step lifts Ubuntu's AppArmor restriction with it); on a
// self-hosted runner where strict is already allowed there may be no sudo
// at all. Both must end with the drift, exit 1, strict applied, and the
// check step run by that user. When the test is root the steps run as
// $MCP_LOCKCHECK_TEST_USER (nobody without it); otherwise as the test's
// own user. Under CI neither variant may skip.
func TestActionUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary and runs the action")
	}
	binary(t) // here, so that the processes of their own take it built
	for _, tc := range []struct {
		name string
		sudo bool
	}{
		{"hosted runner with passwordless sudo", true},
		{"self-hosted runner without sudo", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testproc.Parallel(t) {
				return
			}
			su := runnerUser(t)
			api := githubtest.New("o", "r", nil)
			t.Cleanup(api.Close)
			r := newRunner(t, api, strings.ReplaceAll(prEvent, "%BASE%", "2222222222222222222222222222222222222222"), map[string]string{"base": ""})
			r.unprivileged(t, su, map[string]string{"FAKE_SCENARIO": "counter"})
			if !tc.sudo {
				r.withoutSudo(t)
			}
			restricted := strings.TrimSpace(readFileOr(apparmorRestrict)) == "1"

			// Who the steps are, and what sudo they have, asked the way
			// run.sh asks.
			probe := r.bash(`id -u; if command -v sudo >/dev/null; then sudo -n true && echo sudo=yes || echo sudo=refused; else echo sudo=none; fi`, nil)
			out, err := probe.CombinedOutput()
			if err != nil {
				t.Fatalf("the step user's shell: %v\n%s", err, out)
			}
			lines := strings.Fields(string(out))
			if len(lines) < 2 || lines[0] != strconv.Itoa(su.uid) || lines[0] == "0" {
				t.Fatalf("the steps run as uid %q, want %d (%s):\n%s", lines, su.uid, su.name, out)
			}
			sudo := lines[len(lines)-1]
			switch {
			case tc.sudo && sudo != "sudo=yes":
				testproc.NoPrivilege(t, "%s (uid %d) has no passwordless sudo here (%s), which a hosted runner's user has (.ci/run gives it to its test user, and names that user in $%s for root's run)", su.name, su.uid, sudo, stepUserEnv)
			case !tc.sudo && sudo != "sudo=none":
				t.Fatalf("sudo is still on the steps' PATH: %s", sudo)
			case !tc.sudo && restricted:
				testproc.NoPrivilege(t, "AppArmor restricts unprivileged user namespaces here (%s = 1) and this variant has no sudo to lift it: a self-hosted runner must allow strict already", apparmorRestrict)
			}

			// The lock, pinned by the same user in strict while the server
			// is honest (no warm-up call yet).
			pin := r.bash(`"$MCP_LOCKCHECK_BIN" pin --sandbox strict --warmup-calls 0 --launches 1 --quiet`, nil)
			if out, err := pin.CombinedOutput(); err != nil {
				if strings.Contains(string(out), "cannot be applied here") {
					testproc.NoPrivilege(t, "strict is not available to %s (uid %d): %s", su.name, su.uid, out)
				}
				t.Fatalf("pin as %s: %v\n%s", su.name, err, out)
			}

			r.run()
			log := r.logs["check"]
			o := r.actionOutputs()
			if o["exit-code"] == "2" && strings.Contains(log, "cannot be applied here") {
				testproc.NoPrivilege(t, "strict is not available to the check step:\n%s", log)
			}
			if got := r.jobExit(); got != 1 || o["drift-detected"] != "true" || o["held-servers"] != "" {
				t.Fatalf("job exit %d, outputs %v: want the drift (exit 1)\nlog:\n%s", got, o, log)
			}
			report := readFile(t, o["report-file"])
			if !strings.Contains(report, `"rule": "tool-changed"`) || !strings.Contains(report, "after-call-3") {
				t.Errorf("the change after call 3 is not in the report:\n%s", report)
			}
			if !strings.Contains(report, `"isolation": "strict`) || !strings.Contains(log, "sandbox: strict") {
				t.Errorf("the action's default did not run strict:\nreport:\n%s\nlog:\n%s", report, log)
			}
			// The check step wrote its report as the runner user.
			if fi, err := os.Stat(o["report-file"]); err != nil {
				t.Error(err)
			} else if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != su.uid {
				t.Errorf("the report was written by uid %d, want %d: the check step did not run as the runner user", st.Uid, su.uid)
			}
			lifted := strings.Contains(log, "Allowing unprivileged user namespaces")
			if lifted != (tc.sudo && restricted) {
				t.Errorf("AppArmor restriction %v, sudo %v: the step lifted it: %v\n%s", restricted, tc.sudo, lifted, log)
			}
			if !tc.sudo && strings.Contains(log, "sudo") {
				t.Errorf("the step without sudo mentions sudo:\n%s", log)
			}
			t.Logf("steps as %s (uid %d), %s; check log:\n%s", su.name, su.uid, sudo, log)
		})
	}
}

// readFileOr is the file's content, or "" when it cannot be read.
func readFileOr(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}
