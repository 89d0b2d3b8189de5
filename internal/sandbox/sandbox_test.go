//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// modeEnv selects what the re-executed test binary does. It reaches the
// child through the config env, which every level passes.
const modeEnv = "SANDBOX_TEST_MODE"

func TestMain(m *testing.M) {
	HelperMain()
	if mode, ok := os.LookupEnv(modeEnv); ok {
		os.Exit(testProgram(mode, os.Args[1:]))
	}
	// As the checker is (cli.Main): not dumpable. An unprivileged strict
	// launch once failed for exactly that, and only outside the tests.
	if err := ProtectSelf(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// testProgram is the scripted "server" the tests launch. It prints results
// on stdout and returns 0, or prints "ERR ..." and returns 3.
func testProgram(mode string, args []string) int {
	fail := func(err error) int { fmt.Println("ERR", err); return 3 }
	switch mode {
	case "true":
		return 0
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
	case "cat":
		b, err := os.ReadFile(args[0])
		if err != nil {
			return fail(err)
		}
		os.Stdout.Write(b)
	case "write":
		if err := os.WriteFile(args[0], []byte("x"), 0o600); err != nil {
			return fail(err)
		}
		fmt.Println("OK")
	case "connect":
		c, err := net.DialTimeout("tcp", args[0], 2*time.Second)
		if err != nil {
			return fail(err)
		}
		c.Close()
		fmt.Println("OK")
	case "udp":
		c, err := net.Dial("udp", args[0])
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("hello")); err != nil {
			return fail(err)
		}
		fmt.Println("OK")
	case "net":
		// Each argument is one attempt, KIND:TARGET; one line each.
		for _, a := range args {
			kind, target, _ := strings.Cut(a, ":")
			fmt.Printf("%s %s\n", a, netAttempt(kind, target))
		}
	case "unix":
		// Each argument is one attempt, KIND:TARGET; one line each.
		for _, a := range args {
			kind, target, _ := strings.Cut(a, ":")
			fmt.Printf("%s %s\n", a, unixAttempt(kind, target))
		}
	case "forkmany":
		// Start up to 600 sleeping children; report how many started.
		var kids []*exec.Cmd
		n := 0
		for ; n < 600; n++ {
			c := exec.Command("/bin/sleep", "30")
			if err := c.Start(); err != nil {
				break
			}
			kids = append(kids, c)
		}
		for _, c := range kids {
			c.Process.Kill()
			c.Wait()
		}
		fmt.Println(n)
	case "procs":
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return fail(err)
		}
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err == nil {
				fmt.Println(e.Name())
			}
		}
	case "netif":
		ifs, err := net.Interfaces()
		if err != nil {
			return fail(err)
		}
		for _, i := range ifs {
			fmt.Println(i.Name, i.Flags&net.FlagUp != 0)
		}
	case "count":
		p := filepath.Join(os.Getenv("TMPDIR"), "count")
		b, _ := os.ReadFile(p)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		n++
		if err := os.WriteFile(p, []byte(strconv.Itoa(n)), 0o600); err != nil {
			return fail(err)
		}
		fmt.Println(n)
	case "rlimits":
		for _, r := range []struct {
			name string
			res  int
		}{{"nofile", syscall.RLIMIT_NOFILE}, {"nproc", 6 /* RLIMIT_NPROC */}, {"core", syscall.RLIMIT_CORE}, {"cpu", syscall.RLIMIT_CPU}, {"data", syscall.RLIMIT_DATA}} {
			var l syscall.Rlimit
			if err := syscall.Getrlimit(r.res, &l); err != nil {
				return fail(err)
			}
			fmt.Printf("%s %d %d\n", r.name, l.Cur, l.Max)
		}
	case "fork":
		// A grandchild that ignores SIGTERM, then ignore it ourselves.
		signal.Ignore(syscall.SIGTERM)
		// The pid is printed once the grandchild says it ignores SIGTERM
		// too, so the test's SIGTERM finds both deaf to it.
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), modeEnv+"=sleep")
		out, err := c.StdoutPipe()
		if err != nil {
			return fail(err)
		}
		if err := c.Start(); err != nil {
			return fail(err)
		}
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			return fail(err)
		}
		fmt.Println(c.Process.Pid)
		testproc.BlockForever()
	case "sleep":
		// Says "ready" once SIGTERM is ignored, then lives until killed.
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		testproc.BlockForever()
	case "status":
		// What the kernel says of this process's privileges and tracer.
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return fail(err)
		}
		for line := range strings.Lines(string(b)) {
			if strings.HasPrefix(line, "NoNewPrivs:") || strings.HasPrefix(line, "TracerPid:") {
				fmt.Print(strings.Join(strings.Fields(line), " ") + "\n")
			}
		}
	case "write-fds":
		// Marks that it ran, and lists its open files beyond stdio.
		if err := os.WriteFile(args[0], []byte("x"), 0o600); err != nil {
			return fail(err)
		}
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return fail(err)
		}
		for _, fd := range fds {
			if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && fd.Name() > "2" {
				fmt.Println(fd.Name(), target)
			}
		}
	default:
		return fail(fmt.Errorf("unknown mode %q", mode))
	}
	return 0
}

const (
	realGitHubToken = "ghp_REALREALREALREALREALREALREALREAL0001"
	realAWSSecret   = "REALawsSECRETrealAWSsecretREALawsSECRET01"
	realActions     = "REAL-actions-runtime-token"
)

// checkerEnv is the injected "checker environment": real secrets the
// sandbox must not pass, and a fake real HOME.
func checkerEnv(home string) func(string) (string, bool) {
	m := map[string]string{
		"PATH":                  os.Getenv("PATH"),
		"HOME":                  home,
		"LANG":                  "C.UTF-8",
		"GITHUB_TOKEN":          realGitHubToken,
		"AWS_SECRET_ACCESS_KEY": realAWSSecret,
		"ACTIONS_RUNTIME_TOKEN": realActions,
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func newRun(tb testing.TB, level Level, opts Options) *Run {
	tb.Helper()
	opts.Level = level
	if opts.Getenv == nil {
		opts.Getenv = checkerEnv(tb.TempDir())
	}
	r, err := New("test/server", opts)
	if errors.Is(err, ErrNoUserNamespace) || errors.Is(err, ErrNoLandlock) {
		testproc.NoPrivilege(tb, "strict sandbox unavailable on this machine: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Error(err)
		}
	})
	return r
}

// The windows of the negative checks: how long a test watches for
// something that must not happen. Short, since each costs its full
// length on every run; long enough that a wrong outcome (a group ended
// by SIGTERM, a re-forker that survived the sweep) shows within it, as
// each takes a millisecond or so when it happens.
const (
	sigtermQuietWindow = 100 * time.Millisecond
	sweepQuietWindow   = 300 * time.Millisecond
)

func testExe(tb testing.TB) string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return exe
}

// launch runs the test binary in mode under r, started as the checker
// starts a launch (Run.Start), and returns its stdout; err is the exit
// error, with stderr in the message.
func launch(t *testing.T, r *Run, mode string, args ...string) (string, error) {
	t.Helper()
	return launchWith(t, r, starts[0].start, mode, args...)
}

// starts are the two ways a launch starts. Run.Start runs a Basic server
// on Linux without the helper (direct_linux.go); cmd.Start always runs
// the helper, as held launches and the guard do. Basic's defences are
// attacked both ways.
var starts = []struct {
	name  string
	start func(*Run, *exec.Cmd) error
}{
	{"Run.Start", (*Run).Start},
	{"helper", func(_ *Run, cmd *exec.Cmd) error { return cmd.Start() }},
}

func launchWith(t *testing.T, r *Run, start func(*Run, *exec.Cmd) error, mode string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, err := r.Command(ctx, testExe(t), args, map[string]string{modeEnv: mode}, "")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := start(r, cmd); err != nil {
		return "", fmt.Errorf("start: %w", err)
	}
	if err := cmd.Wait(); err != nil {
		return stdout.String(), fmt.Errorf("%w: stdout %q stderr %q", err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

func envMap(out string) map[string]string {
	m := make(map[string]string)
	for line := range strings.Lines(out) {
		if k, v, ok := strings.Cut(strings.TrimRight(line, "\n"), "="); ok {
			m[k] = v
		}
	}
	return m
}

func canaryFor(t *testing.T, r *Run, where string) string {
	t.Helper()
	for _, c := range r.Canaries() {
		if c.Where == where {
			return c.Token
		}
	}
	t.Fatalf("no canary %q in %v", where, r.Canaries())
	return ""
}

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]Level{"off": Off, " Basic ": Basic, "STRICT": Strict} {
		if got, err := ParseLevel(in); err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "none", "strictest"} {
		if _, err := ParseLevel(in); err == nil {
			t.Errorf("ParseLevel(%q): no error", in)
		}
	}
	if _, err := New("x", Options{}); err == nil {
		t.Error("New with no level: no error")
	}
}

func TestBasicEnvironment(t *testing.T) {
	for _, s := range starts {
		t.Run(s.name, func(t *testing.T) { testBasicEnvironment(t, s.start) })
	}
}

func testBasicEnvironment(t *testing.T, start func(*Run, *exec.Cmd) error) {
	r := newRun(t, Basic, Options{})
	out, err := launchWith(t, r, start, "env")
	if err != nil {
		t.Fatal(err)
	}
	env := envMap(out)
	if strings.Contains(out, realGitHubToken) || strings.Contains(out, realAWSSecret) || strings.Contains(out, realActions) {
		t.Errorf("a real secret reached the child:\n%s", out)
	}
	if got, want := env["GITHUB_TOKEN"], canaryFor(t, r, "env:GITHUB_TOKEN"); got != want {
		t.Errorf("GITHUB_TOKEN = %q, want the canary %q", got, want)
	}
	if got, want := env["AWS_SECRET_ACCESS_KEY"], canaryFor(t, r, "env:AWS_SECRET_ACCESS_KEY"); got != want {
		t.Errorf("AWS_SECRET_ACCESS_KEY = %q, want the canary %q", got, want)
	}
	if _, ok := env["ACTIONS_RUNTIME_TOKEN"]; ok {
		t.Error("ACTIONS_RUNTIME_TOKEN passed")
	}
	if _, ok := env[envPolicy]; ok {
		t.Error("the helper policy reached the server")
	}
	for _, k := range []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		if !strings.HasPrefix(env[k], r.Dir()+"/") {
			t.Errorf("%s = %q, want inside the run dir %s", k, env[k], r.Dir())
		}
	}
	npmrc, _ := os.ReadFile(filepath.Join(env["HOME"], ".npmrc"))
	if env["LANG"] != "C.UTF-8" || !strings.Contains(string(npmrc), "prefer-offline=true") {
		t.Errorf("LANG = %q, ~/.npmrc = %q", env["LANG"], npmrc)
	}
	for k := range env {
		if strings.HasPrefix(strings.ToLower(k), "npm_config_") {
			t.Errorf("%s is set: npm settings belong in ~/.npmrc", k)
		}
	}
	if st, err := os.Stat(filepath.Join(env["HOME"], ".ssh", "id_rsa")); err != nil || time.Since(st.ModTime()) < 30*24*time.Hour {
		t.Errorf("the planted key looks freshly made: %v", err)
	}

	// The canaries are where a server would look, and a leak of one is found
	// and redacted.
	key, err := launch(t, r, "cat", filepath.Join(env["HOME"], ".ssh", "id_rsa"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(key, "-----BEGIN OPENSSH PRIVATE KEY-----\n") {
		t.Errorf("id_rsa does not look like a key:\n%s", key)
	}
	for _, rel := range []string{"home/" + homeUser() + "/.ssh/id_ed25519", "home/" + homeUser() + "/.aws/credentials", "home/" + homeUser() + "/.netrc",
		"home/" + homeUser() + "/.config/gh/hosts.yml", "home/" + homeUser() + "/.kube/config", "home/" + homeUser() + "/project/.env"} {
		if fi, err := os.Stat(filepath.Join(r.Dir(), rel)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("canary %s: %v %v", rel, fi, err)
		}
	}
	leaked := r.Leaks([]byte(`{"description":` + strconvQuote(key) + `}`))
	if len(leaked) != 1 || leaked[0].Where != "~/.ssh/id_rsa" {
		t.Errorf("Leaks(id_rsa) = %v", leaked)
	}
	if red := r.Redact(key); strings.Contains(red, canaryFor(t, r, "~/.ssh/id_rsa")) || !strings.Contains(red, "[canary:~/.ssh/id_rsa]") {
		t.Errorf("Redact left the token:\n%s", red)
	}
	if got := r.Isolation(); !strings.HasPrefix(got, "basic: ") || strings.Contains(got, r.Dir()) {
		t.Errorf("Isolation() = %q", got)
	}
}

func strconvQuote(s string) string { return strconv.Quote(s) }

func TestConfigEnvAndPassEnv(t *testing.T) {
	r := newRun(t, Basic, Options{PassEnv: []string{"AWS_SECRET_ACCESS_KEY"}})
	ctx := context.Background()
	cmd, err := r.Command(ctx, testExe(t), nil, map[string]string{modeEnv: "env", "GITHUB_TOKEN": "from-config", "HOME": "/config/home"}, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	env := envMap(string(out))
	if env["GITHUB_TOKEN"] != "from-config" || env["HOME"] != "/config/home" {
		t.Errorf("config env lost: GITHUB_TOKEN=%q HOME=%q", env["GITHUB_TOKEN"], env["HOME"])
	}
	if env["AWS_SECRET_ACCESS_KEY"] != realAWSSecret {
		t.Errorf("PassEnv AWS_SECRET_ACCESS_KEY = %q", env["AWS_SECRET_ACCESS_KEY"])
	}
	for _, c := range r.Canaries() {
		if c.Where == "env:AWS_SECRET_ACCESS_KEY" {
			t.Error("a canary for a passed variable")
		}
	}
}

func TestRlimits(t *testing.T) {
	for _, s := range starts {
		t.Run(s.name, func(t *testing.T) {
			r := newRun(t, Basic, Options{Limits: Limits{OpenFiles: 512, Processes: 300}})
			out, err := launchWith(t, r, s.start, "rlimits")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"nofile 512 512\n", "nproc 300 300\n", "core 0 0\n", "cpu 300 305\n", fmt.Sprintf("data %d %d\n", 4<<30, 4<<30)} {
				if !strings.Contains(out, want) {
					t.Errorf("rlimits: want %q in\n%s", want, out)
				}
			}
		})
	}
}

func TestCommandLookup(t *testing.T) {
	r := newRun(t, Basic, Options{})
	if _, err := r.Command(context.Background(), "no-such-server-xyz", nil, nil, ""); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("missing command: %v", err)
	}
	// The child's PATH decides, not the checker's.
	dir := t.TempDir()
	if err := os.Symlink(testExe(t), filepath.Join(dir, "fake-server")); err != nil {
		t.Fatal(err)
	}
	cmd, err := r.Command(context.Background(), "fake-server", nil, map[string]string{"PATH": dir, modeEnv: "true"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if cmd.Args[1] != "fake-server" || !cmd.SysProcAttr.Setpgid {
		t.Errorf("args %q setpgid %v", cmd.Args, cmd.SysProcAttr.Setpgid)
	}
}

func TestStrict(t *testing.T) {
	realHome := t.TempDir()
	secret := filepath.Join(realHome, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("REAL KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()

	// Control: basic reaches the real file and the loopback listener, so
	// the strict failures below are the sandbox's doing.
	basic := newRun(t, Basic, Options{Getenv: checkerEnv(realHome)})
	if out, err := launch(t, basic, "cat", secret); err != nil || out != "REAL KEY" {
		t.Fatalf("basic could not read %s: %q %v", secret, out, err)
	}

	r := newRun(t, Strict, Options{Getenv: checkerEnv(realHome)})
	if got := r.Isolation(); !strings.HasPrefix(got, "strict: landlock ABI ") {
		t.Errorf("Isolation() = %q", got)
	}

	t.Run("real home unreadable", func(t *testing.T) {
		out, err := launch(t, r, "cat", secret)
		if err == nil || !strings.Contains(out, "permission denied") {
			t.Errorf("read %s: %q, %v", secret, out, err)
		}
		t.Logf("strict read of the real HOME: %s", strings.TrimSpace(out))
	})
	t.Run("own pid namespace", func(t *testing.T) {
		// Control: basic sees the checker (this test process).
		if out, err := launch(t, basic, "procs"); err != nil || !strings.Contains(out, strconv.Itoa(os.Getpid())+"\n") {
			t.Fatalf("basic does not see the checker's pid %d: %v", os.Getpid(), err)
		}
		out, err := launch(t, r, "procs")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(out) != "1" {
			t.Errorf("processes visible in strict: %q, want only 1 (the server itself)", out)
		}
		// Its own /proc works (node's process.memoryUsage reads it).
		if out, err := launch(t, r, "cat", "/proc/self/statm"); err != nil || out == "" {
			t.Errorf("read /proc/self/statm: %q %v", out, err)
		}
	})
	t.Run("canaries readable", func(t *testing.T) {
		out, err := launch(t, r, "cat", filepath.Join(r.Dir(), "home", homeUser(), ".aws", "credentials"))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Leaks([]byte(out)); len(got) != 2 {
			t.Errorf("Leaks(credentials) = %v", got)
		}
	})
	t.Run("writes only in run dir", func(t *testing.T) {
		target := filepath.Join(outside, "planted")
		if out, err := launch(t, r, "write", target); err == nil {
			t.Errorf("write %s: %q", target, out)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s exists", target)
		}
		if out, err := launch(t, r, "write", filepath.Join(r.Dir(), "tmp", "ok")); err != nil {
			t.Errorf("write in run dir: %q %v", out, err)
		}
	})
	t.Run("no network", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan struct{}, 1)
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.Close()
				accepted <- struct{}{}
			}
		}()
		if out, err := launch(t, basic, "connect", ln.Addr().String()); err != nil {
			t.Fatalf("basic connect: %q %v", out, err)
		}
		<-accepted
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.Close()
				accepted <- struct{}{}
			}
		}()
		out, err := launch(t, r, "connect", ln.Addr().String())
		if err == nil {
			t.Errorf("strict connect succeeded: %q", out)
		}
		t.Logf("strict connect: %s", strings.TrimSpace(out))
		select {
		case <-accepted:
			t.Error("the listener saw a connection from the strict sandbox")
		case <-time.After(300 * time.Millisecond):
		}
	})
	t.Run("no udp", func(t *testing.T) {
		// Landlock before ABI 10 does not cover UDP: only the namespace
		// stops this datagram.
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		out, _ := launch(t, r, "udp", pc.LocalAddr().String())
		t.Logf("strict udp: %s", strings.TrimSpace(out))
		_ = pc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if n, _, err := pc.ReadFrom(make([]byte, 16)); err == nil {
			t.Errorf("the UDP listener got %d bytes from the strict sandbox", n)
		}
	})
	t.Run("own network namespace", func(t *testing.T) {
		out, err := launch(t, r, "netif")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(out) != "lo false" {
			t.Errorf("interfaces in the sandbox: %q, want only lo, down", out)
		}
	})
	t.Run("process cap", func(t *testing.T) {
		out, err := launch(t, r, "rlimits")
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("nproc %d %d", defaultStrictProcesses, defaultStrictProcesses); !strings.Contains(out, want) {
			t.Errorf("strict rlimits %q, want %q", out, want)
		}
		if os.Getuid() == 0 {
			// The kernel does not enforce RLIMIT_NPROC on uid 0 (the
			// runner is not root; this test machine is).
			t.Skip("running as root: RLIMIT_NPROC is set but not enforced for uid 0")
		}
		out, err = launch(t, r, "forkmany")
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(out))
		if n == 0 || n >= defaultStrictProcesses {
			t.Errorf("strict started %d processes, want fewer than %d (RLIMIT_NPROC in its user namespace)", n, defaultStrictProcesses)
		}
		t.Logf("strict: %d children before the cap", n)
	})
	t.Run("launch counter persists", func(t *testing.T) {
		for want := 1; want <= 2; want++ {
			out, err := launch(t, r, "count")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out); got != strconv.Itoa(want) {
				t.Errorf("launch %d counted %s", want, got)
			}
		}
	})
}

func TestKillGroup(t *testing.T) {
	// Orphans must come back to this process to be reaped: the machine's
	// PID 1 may not reap, and a zombie still counts as a group member.
	if err := prctlSubreaper(); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	for _, level := range []Level{Off, Basic, Strict} {
		t.Run(string(level), func(t *testing.T) {
			r := newRun(t, level, Options{})
			cmd, err := r.Command(context.Background(), testExe(t), nil, map[string]string{modeEnv: "fork"}, "")
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				t.Fatalf("no grandchild pid: %v", err)
			}
			grandchild, _ := strconv.Atoi(strings.TrimSpace(line))
			pgid := cmd.Process.Pid
			// In strict the printed pid is the one in the server's own
			// PID namespace, not ours.
			if g, err := syscall.Getpgid(grandchild); level != Strict && (err != nil || g != pgid) {
				t.Fatalf("grandchild %d in group %d (%v), want %d", grandchild, g, err, pgid)
			}

			if err := KillGroup(cmd, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			// A negative check: no event says "still alive", so give
			// SIGTERM a short named window to (wrongly) end the group.
			testproc.Quiet(sigtermQuietWindow)
			if err := syscall.Kill(-pgid, 0); err != nil {
				t.Fatalf("SIGTERM-ignoring group already gone: %v", err)
			}
			if err := KillGroup(cmd, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			// The grandchild is reparented, not ours to wait for: no
			// event says the group is empty, so poll kill(-pgid, 0).
			var killErr error
			if !testproc.Poll(5*time.Second, func() bool {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
				killErr = syscall.Kill(-pgid, 0)
				return errors.Is(killErr, syscall.ESRCH)
			}) {
				t.Fatalf("process group %d survives SIGKILL: kill(-pgid, 0) = %v", pgid, killErr)
			}
			if err := KillGroup(cmd, syscall.SIGKILL); err != nil {
				t.Errorf("KillGroup on a gone group: %v", err)
			}
		})
	}
}

func TestNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	for _, level := range []Level{Off, Basic, Strict} {
		t.Run(string(level), func(t *testing.T) {
			r := newRun(t, level, Options{Getenv: func(k string) (string, bool) {
				if k == "PATH" {
					return os.Getenv("PATH"), true
				}
				return "", false
			}})
			cmd, err := r.Command(context.Background(), node, []string{"-e", "console.log(1)"}, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || string(out) != "1\n" {
				t.Errorf("node under %s: %q %v\n%s", level, out, err, stderr.String())
			}
		})
	}
}

func TestContextCancelKillsGroup(t *testing.T) {
	r := newRun(t, Basic, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cmd, err := r.Command(ctx, testExe(t), nil, map[string]string{modeEnv: "sleep"}, "")
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Cancel once the server ignores SIGTERM, as it says on its stdout.
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		_ = KillGroup(cmd, syscall.SIGKILL)
		t.Fatalf("the server did not say ready: %q %v", line, err)
	}
	cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = KillGroup(cmd, syscall.SIGKILL)
		t.Fatal("cancel did not kill a SIGTERM-ignoring server")
	}
}

func TestCloseRemovesRunDir(t *testing.T) {
	r, err := New("x", Options{Level: Basic, Getenv: checkerEnv(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	dir := r.Dir()
	if err := os.Mkdir(filepath.Join(dir, "home", homeUser(), "project", "ro"), 0o500); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run dir left behind: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := r.Command(context.Background(), "true", nil, nil, ""); err == nil {
		t.Error("Command after Close: no error")
	}
}

func TestOffLevel(t *testing.T) {
	r := newRun(t, Off, Options{})
	if r.Isolation() != "off" || len(r.Canaries()) != 0 {
		t.Errorf("off: %q, %d canaries", r.Isolation(), len(r.Canaries()))
	}
	out, err := launch(t, r, "env")
	if err != nil {
		t.Fatal(err)
	}
	if got := envMap(out)["HOME"]; got != os.Getenv("HOME") {
		t.Errorf("off HOME = %q, want the real %q", got, os.Getenv("HOME"))
	}
}

// BenchmarkLaunch measures one launch of /bin/true (start to exit) per level.
func BenchmarkLaunch(b *testing.B) {
	for _, level := range []Level{Off, Basic, Strict} {
		b.Run(string(level), func(b *testing.B) {
			r := newRun(b, level, Options{})
			ctx := context.Background()
			for b.Loop() {
				cmd, err := r.Command(ctx, "/bin/true", nil, nil, "")
				if err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

func TestHelperNotWired(t *testing.T) {
	// An executable whose main does not call HelperMain is caught at New,
	// not by every launch dying.
	if err := selfTest("/bin/true", Basic); !errors.Is(err, ErrNoHelper) {
		t.Errorf("selfTest(/bin/true) = %v, want ErrNoHelper", err)
	}
}

// TestPathsDoNotNameTheChecker: a server that looked for the checker's name
// in HOME, TMPDIR or its working directory would find nothing.
func TestPathsDoNotNameTheChecker(t *testing.T) {
	home, err := os.MkdirTemp("", "h")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	r, err := New("my-server", Options{Level: Basic, Getenv: checkerEnv(home)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd, err := r.Command(context.Background(), "/bin/true", nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range append(cmd.Env, "DIR="+cmd.Dir) {
		if strings.HasPrefix(kv, envPolicy+"=") {
			continue // read and removed by the helper before the server runs
		}
		l := strings.ToLower(kv)
		if strings.Contains(l, "lockcheck") || strings.Contains(l, "checker") || strings.Contains(l, "sandbox") {
			t.Errorf("the server can see the checker in %s", kv)
		}
	}
}

// TestStrictNotWidenedByConfig attacks Strict with what a pull request's
// config controls: certificate variables and the working directory. Each
// case tries to read a secret; basic reads it (the control), strict must
// not.
func TestStrictNotWidenedByConfig(t *testing.T) {
	realHome := t.TempDir()
	key := filepath.Join(realHome, ".ssh", "id_rsa")
	repo := t.TempDir()
	runnerTemp := t.TempDir()
	envFile := filepath.Join(runnerTemp, "_runner_file_commands", "set_env_1")
	for p, content := range map[string]string{
		key:                                   "REAL KEY",
		filepath.Join(repo, ".git", "config"): "[http]\n\textraheader = AUTHORIZATION: basic REALCHECKOUTTOKEN\n",
		filepath.Join(repo, "README.md"):      "hello",
		filepath.Join(repo, "src", "a.js"):    "//",
		envFile:                               "",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A committed symlink into the real HOME.
	if err := os.Symlink(filepath.Join(realHome, ".ssh"), filepath.Join(repo, "keys")); err != nil {
		t.Fatal(err)
	}
	linkedCwd := t.TempDir()
	if err := os.Symlink(filepath.Join(realHome, ".ssh"), filepath.Join(linkedCwd, "cwd")); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		switch k {
		case "RUNNER_TEMP":
			return runnerTemp, true
		}
		return checkerEnv(realHome)(k)
	}
	cases := []struct {
		name   string
		env    map[string]string
		cwd    string
		mode   string
		target string
	}{
		{"SSL_CERT_DIR=/", map[string]string{"SSL_CERT_DIR": "/"}, "", "cat", key},
		{"SSL_CERT_FILE=key", map[string]string{"SSL_CERT_FILE": key}, "", "cat", key},
		{"NODE_EXTRA_CA_CERTS=key", map[string]string{"NODE_EXTRA_CA_CERTS": key}, "", "cat", key},
		{"cwd in real HOME", nil, realHome, "cat", key},
		{"cwd is a symlink into HOME", nil, filepath.Join(linkedCwd, "cwd"), "cat", "id_rsa"},
		{"symlink in the repo", nil, repo, "cat", filepath.Join(repo, "keys", "id_rsa")},
		{"cwd . exposes .git", nil, repo, "cat", filepath.Join(repo, ".git", "config")},
		{"cwd in .git", nil, filepath.Join(repo, ".git"), "cat", "config"},
		{"cwd in RUNNER_TEMP", nil, runnerTemp, "write", envFile},
		{"cwd /proc", nil, "/proc", "cat", "self/environ"},
	}
	basic := newRun(t, Basic, Options{Getenv: env})
	strict := newRun(t, Strict, Options{Getenv: env})
	run := func(r *Run, mode, target string, cenv map[string]string, cwd string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		e := map[string]string{modeEnv: mode}
		for k, v := range cenv {
			e[k] = v
		}
		cmd, err := r.Command(ctx, testExe(t), []string{target}, e, cwd)
		if err != nil {
			return "", err
		}
		out, err := cmd.Output()
		return string(out), err
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "cwd /proc" && c.mode != "write" { // basic restricts writes too
				if out, err := run(basic, c.mode, c.target, c.env, c.cwd); err != nil || strings.HasPrefix(out, "ERR") {
					t.Fatalf("control: basic could not %s %s: %q %v", c.mode, c.target, out, err)
				}
			}
			out, err := run(strict, c.mode, c.target, c.env, c.cwd)
			if err == nil && !strings.HasPrefix(out, "ERR") && (strings.Contains(out, "REAL") || c.mode == "write") {
				t.Errorf("strict: %s %s succeeded: %q", c.mode, c.target, out)
			}
		})
	}
	// What the repository legitimately holds stays readable.
	if out, err := run(strict, "cat", filepath.Join(repo, "README.md"), nil, repo); err != nil || out != "hello" {
		t.Errorf("strict could not read the repository's README: %q %v", out, err)
	}
	if out, err := run(strict, "cat", filepath.Join(repo, "src", "a.js"), nil, repo); err != nil || out != "//" {
		t.Errorf("strict could not read src/a.js: %q %v", out, err)
	}
}

// TestSweepCatchesReforker attacks the end-of-run sweep with a process that
// keeps changing its PID (fork a copy, exit, repeat), started under basic,
// where no PID namespace ends it. After procgroup.KillDescendants returns,
// nothing of it may run: the log of PIDs it writes stops growing and none
// of them is alive.
func TestSweepCatchesReforker(t *testing.T) {
	// In a process of its own: the sweep takes every descendant of the
	// test process, and another test's children reaped or started beside
	// it (the network forwarder's, the helpers') raced the chain here
	// under load.
	if testproc.Parallel(t) {
		return
	}
	if err := prctlSubreaper(); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	r := newRun(t, Basic, Options{})
	logf := filepath.Join(r.Dir(), "tmp", "pids")
	// A shell starts in about a millisecond, so the chain moves fast; the
	// generation count bounds it should the sweep fail.
	script := filepath.Join(r.Dir(), "tmp", "reforker")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nn=$2\n[ \"$n\" -gt 0 ] || exit 0\necho $$ >> \"$1\"\n\"$0\" \"$1\" $((n-1)) &\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, err := r.Command(context.Background(), script, []string{logf, "30000"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	// Let it re-fork a few generations, detached from cmd.
	// The log grows by appends no one announces: poll it, boundedly.
	testproc.Poll(2*time.Second, func() bool {
		b, _ := os.ReadFile(logf)
		return bytes.Count(b, []byte("\n")) >= 50
	})
	procgroup.KillDescendants(nil)
	before, _ := os.ReadFile(logf)
	// A negative check: a surviving re-forker would log a new pid within
	// milliseconds; nothing but a window can show that none does.
	testproc.Quiet(sweepQuietWindow)
	after, _ := os.ReadFile(logf)
	if !bytes.Equal(before, after) {
		t.Errorf("the re-forking process still ran after the sweep: %d pids logged before, %d after", bytes.Count(before, []byte("\n")), bytes.Count(after, []byte("\n")))
	}
	if left := procgroup.Descendants(os.Getpid()); len(left) > 0 {
		t.Errorf("descendants alive after the sweep: %v", left)
	}
}

// TestBasicWrites attacks basic's write restriction: a server in basic may
// read what the user can (basic is not containment), but writes only in its
// run directory and the package caches, so it cannot append to the runner's
// GITHUB_ENV, replace a binary or write into the workspace.
func TestBasicWrites(t *testing.T) {
	if landlockABI() < 1 {
		t.Skip("no landlock: basic cannot restrict writes here")
	}
	for _, s := range starts {
		t.Run(s.name, func(t *testing.T) {
			// Each way gets its own target: a write that got through
			// one way is that way's failure alone.
			outside := t.TempDir()
			target := filepath.Join(outside, "GITHUB_ENV")
			if err := os.WriteFile(target, nil, 0o666); err != nil {
				t.Fatal(err)
			}
			r := newRun(t, Basic, Options{})
			if got := r.Isolation(); !strings.Contains(got, "writes only to the run dir") {
				t.Errorf("Isolation() = %q", got)
			}
			for _, p := range []string{target, filepath.Join(outside, "new-file")} {
				if out, err := launchWith(t, r, s.start, "write", p); err == nil {
					t.Errorf("basic wrote %s: %q", p, out)
				}
			}
			if b, _ := os.ReadFile(target); len(b) != 0 {
				t.Errorf("%s was changed: %q", target, b)
			}
			if out, err := launchWith(t, r, s.start, "write", filepath.Join(r.Dir(), "tmp", "ok")); err != nil {
				t.Errorf("basic could not write in its run dir: %q %v", out, err)
			}
			if out, err := launchWith(t, r, s.start, "cat", target); err != nil {
				t.Errorf("basic could not read %s: %q %v", target, out, err)
			}
		})
	}
}

// TestHeldCommand: a held launch's helper applies everything and waits at
// the gate; nothing of the server runs until the gate opens, a closed gate
// ends the launch with nothing run, and the server never holds the gate.
func TestHeldCommand(t *testing.T) {
	for _, level := range []Level{Basic, Strict} {
		t.Run(string(level), func(t *testing.T) {
			r := newRun(t, level, Options{})
			start := func(marker string) (*exec.Cmd, *Gate, *bytes.Buffer) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				t.Cleanup(cancel)
				cmd, gate, err := r.HeldCommand(ctx, testExe(t), []string{marker}, map[string]string{modeEnv: "write-fds"}, "")
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = KillGroup(cmd, syscall.SIGKILL) })
				// Bounded: the helper reaches the gate in milliseconds; its
				// read(2) on the gate shows in /proc/PID/task/TID/syscall of
				// the thread it runs on (not always the leader: the test
				// binary's helper runs from TestMain, not from an init).
				atGate := func() bool {
					tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", cmd.Process.Pid))
					for _, task := range tasks {
						b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/syscall", cmd.Process.Pid, task.Name()))
						if strings.HasPrefix(string(b), fmt.Sprintf("%d 0x%x ", syscall.SYS_READ, gateFD)) {
							return true
						}
					}
					return false
				}
				if !testproc.Poll(10*time.Second, atGate) {
					t.Fatal("the helper did not wait at the gate")
				}
				if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("the held server ran before the gate opened (%v)", err)
				}
				// Another process of the user (a server without
				// Landlock) cannot open the gate again through /proc and
				// let the server start early. This test may read every
				// /proc entry, and still must fail to.
				if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", cmd.Process.Pid, gateFD), os.O_WRONLY, 0); err == nil {
					f.Close()
					t.Fatal("the held helper's gate was opened for writing through /proc")
				}
				return cmd, gate, &out
			}

			ran := filepath.Join(r.Dir(), "tmp", "ran")
			cmd, gate, out := start(ran)
			if err := gate.Open(); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("released server: %v: %s", err, out)
			}
			if _, err := os.Stat(ran); err != nil {
				t.Errorf("the released server did not run: %v: %s", err, out)
			}
			for line := range strings.Lines(out.String()) {
				if _, target, _ := strings.Cut(line, " "); strings.HasPrefix(target, "pipe:") || strings.HasPrefix(target, "socket:") {
					t.Errorf("the server holds a pipe or socket beyond its stdio, the gate: %q", line)
				}
			}

			dropped := filepath.Join(r.Dir(), "tmp", "dropped")
			cmd, gate, out = start(dropped)
			gate.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("a discarded launch's helper: %v: %s", err, out)
			}
			if _, err := os.Stat(dropped); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a discarded launch ran its server (%v)", err)
			}
		})
	}
	if _, _, err := newRun(t, Off, Options{}).HeldCommand(context.Background(), testExe(t), nil, nil, ""); !errors.Is(err, ErrCannotHold) {
		t.Errorf("HeldCommand with no helper: %v, want ErrCannotHold", err)
	}
}

// TestInheritedFilesDoNotReachServer: a descriptor the checker inherited
// without close-on-exec (a make jobserver's pipe, a runner's socket) is
// not passed through the helper to the server.
func TestInheritedFilesDoNotReachServer(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if _, err := unix.FcntlInt(pw.Fd(), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	for _, level := range []Level{Basic, Strict} {
		for _, s := range starts {
			if level == Strict && s.name != "Run.Start" {
				continue // strict always starts through the helper: one way
			}
			t.Run(string(level)+"/"+s.name, func(t *testing.T) {
				r := newRun(t, level, Options{})
				out, err := launchWith(t, r, s.start, "write-fds", filepath.Join(r.Dir(), "tmp", "ran"))
				if err != nil {
					t.Fatal(err)
				}
				for line := range strings.Lines(out) {
					if _, target, _ := strings.Cut(line, " "); strings.HasPrefix(target, "pipe:") {
						t.Errorf("the server holds an inherited pipe: %q", line)
					}
				}
			})
		}
	}
}
