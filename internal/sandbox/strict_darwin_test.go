package sandbox

import (
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestConfineDarwin: with a profile the server runs under sandbox-exec with
// its own argv after the path; without one (Basic) it is exec'd as is.
func TestConfineDarwin(t *testing.T) {
	seatbelt = ""
	if p, a := confine("/usr/bin/env", []string{"env", "-i"}); p != "/usr/bin/env" || !slices.Equal(a, []string{"env", "-i"}) {
		t.Errorf("basic: confine = %q %q", p, a)
	}
	prof, err := seatbeltProfile(nil, []string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	seatbelt = prof
	defer func() { seatbelt = "" }()
	p, a := confine("/usr/bin/env", []string{"env", "-i"})
	if p != sandboxExec || !slices.Equal(a, []string{"sandbox-exec", "-p", prof, "/usr/bin/env", "-i"}) {
		t.Errorf("strict: confine = %q %q", p, a)
	}
}

// TestSeatbeltDeniesNetworkAndHome applies the strict profile for real: a
// read of the user's home and a connection to loopback both fail, a write
// to the run dir works.
func TestSeatbeltDeniesNetworkAndHome(t *testing.T) {
	if err := strictSupported(); err != nil {
		t.Skipf("no seatbelt here: %v", err)
	}
	// Seatbelt matches resolved paths: /var is /private/var.
	run, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	if err := exec.Command("/usr/bin/nc", "-z", "-G", "2", "127.0.0.1", port).Run(); err != nil {
		t.Skipf("nc cannot reach the listener even unconfined: %v", err)
	}
	prof, err := seatbeltProfile(nil, []string{run})
	if err != nil {
		t.Fatal(err)
	}
	sh := func(script string) error {
		return exec.Command(sandboxExec, "-p", prof, "/bin/sh", "-c", script).Run()
	}
	if err := sh("echo ok > '" + run + "/f'"); err != nil {
		t.Errorf("write to the run dir: %v", err)
	}
	if err := sh("ls ~ >/dev/null"); err == nil {
		t.Error("listing HOME worked under the profile")
	}
	if err := sh("/usr/bin/nc -z -G 2 127.0.0.1 " + port); err == nil {
		t.Error("a loopback connection worked under the profile")
	}
}
