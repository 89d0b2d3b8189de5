package guard

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestServerCrashIsNotACleanSession: a server that dies with a failure
// status while the client's requests are in flight ends the session with
// exit 1, even when the client has already closed its input.
func TestServerCrashIsNotACleanSession(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	honest, _ := locks(t)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	var out, errb bytes.Buffer
	code := Run(context.Background(), Options{
		Lock: honest, Server: "fake", Command: sh, Args: []string{"-c", "exit 1"},
		Stdin: in, Stdout: &out, Stderr: &errb,
		// Long enough for sh to exit on a loaded machine: a server the
		// guard had to stop itself is not one that crashed.
		StopWait: 5 * time.Second, TermWait: time.Second,
	})
	if code != ExitRefused {
		t.Errorf("exit %d, want %d\nstderr: %s", code, ExitRefused, errb.String())
	}
}
