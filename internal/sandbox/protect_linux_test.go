//go:build linux

package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// protectMode selects the roles of TestProtectSelf's re-executed binary.
const protectMode = "SANDBOX_PROTECT_MODE"

func init() {
	switch os.Getenv(protectMode) {
	case "victim":
		// The checker: a secret in its environment, optionally protected,
		// then a same-uid child that tries to read it.
		if os.Getenv("PROTECT") == "1" {
			if err := ProtectSelf(); err != nil {
				os.Stdout.WriteString("ERR " + err.Error())
				os.Exit(3)
			}
		}
		c := exec.Command(os.Args[0])
		c.Env = []string{protectMode + "=thief", "VICTIM=" + strconv.Itoa(os.Getpid())}
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		_ = c.Run()
		os.Exit(0)
	case "thief":
		// The server: reads what it can of its parent through /proc.
		pid := os.Getenv("VICTIM")
		if _, err := os.ReadDir("/proc/" + pid + "/fd"); err != nil {
			os.Stdout.WriteString("fd: denied\n")
		} else {
			os.Stdout.WriteString("fd: read\n")
		}
		for _, f := range []string{"environ", "mem"} {
			b, err := os.ReadFile("/proc/" + pid + "/" + f)
			switch {
			case err != nil:
				os.Stdout.WriteString(f + ": denied\n")
			case strings.Contains(string(b), "SECRET_VALUE_4d1f"):
				os.Stdout.WriteString(f + ": LEAKED\n")
			default:
				os.Stdout.WriteString(f + ": read\n")
			}
		}
		os.Exit(0)
	}
}

// TestProtectSelf attacks the checker's environment from a same-uid child,
// as a basic-mode server on a GitHub runner (a non-root user) does. Root
// holds CAP_SYS_PTRACE and reads any process, so the test runs both roles
// as an unprivileged uid when it runs as root.
func TestProtectSelf(t *testing.T) {
	exe := testExe(t)
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		// The binary must be reachable by that uid: copy it somewhere open.
		dir, err := os.MkdirTemp("", "protect")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		exe = filepath.Join(dir, "victim")
		out, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		out.Close()
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	run := func(protect string) string {
		c := exec.Command(exe)
		c.Env = []string{protectMode + "=victim", "PROTECT=" + protect, "TOKEN=SECRET_VALUE_4d1f"}
		c.Dir = "/"
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("victim: %v: %s", err, out)
		}
		return string(out)
	}
	// Control: without protection the child reads the secret, so the
	// protected run's "denied" is ProtectSelf's doing.
	if got := run("0"); !strings.Contains(got, "environ: LEAKED") {
		t.Fatalf("unprotected victim: %q, want the environ read (is the test running as a uid that cannot ptrace?)", got)
	}
	got := run("1")
	// cmdline stays world-readable (the kernel does not guard it); it
	// holds flags, never a secret.
	for _, f := range []string{"environ", "mem", "fd"} {
		if !strings.Contains(got, f+": denied") {
			t.Errorf("protected victim: %s not denied: %q", f, got)
		}
	}
}
