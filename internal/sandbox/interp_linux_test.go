//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestStrictInterpreters: under strict's seccomp filter, node and Python
// still start children with piped stdio and run their event loops (libuv
// and asyncio make stream socketpairs), and their own Unix-domain sockets
// fail at once with "permission denied", not a hang. An interpreter not
// installed is skipped.
func TestStrictInterpreters(t *testing.T) {
	r := newRun(t, Strict, Options{})
	for _, tc := range []struct {
		name string
		cmd  string
		args []string
		want []string
	}{
		{"node", "node", []string{"-e", `
const cp = require('child_process'), net = require('net');
const c = cp.spawn(process.execPath, ['-e', 'process.stdout.write("child ok")'], {stdio: ['pipe', 'pipe', 'inherit']});
let out = '';
c.stdout.on('data', d => out += d);
c.on('close', code => {
  console.log('spawn:', out, code);
  const s = net.connect('/run/unix-test-nothing.sock');
  s.on('error', e => console.log('unix:', e.code));
});`}, []string{"spawn: child ok 0", "unix: EACCES"}},
		{"python", "python3", []string{"-c", `
import asyncio, socket, subprocess, sys
async def main():
    p = await asyncio.create_subprocess_exec(sys.executable, '-c', 'print("child ok")', stdout=subprocess.PIPE)
    out, _ = await p.communicate()
    print('spawn:', out.decode().strip(), p.returncode)
asyncio.run(main())
a, b = socket.socketpair()
a.send(b'x'); print('pair:', b.recv(1))
try:
    socket.socket(socket.AF_UNIX)
except OSError as e:
    print('unix:', e.strerror)
`}, []string{"spawn: child ok 0", "pair: b'x'", "unix: Permission denied"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.cmd); err != nil {
				t.Skipf("%s is not installed", tc.cmd)
			}
			// The interpreter itself, not a version manager's shim
			// (pyenv's reads its own tree, which strict does not grant).
			where := "process.stdout.write(process.execPath)"
			if tc.cmd == "python3" {
				where = "import sys; sys.stdout.write(sys.executable)"
			}
			flag := map[string]string{"node": "-e", "python3": "-c"}[tc.cmd]
			exe, err := exec.Command(tc.cmd, flag, where).Output()
			if err != nil || len(exe) == 0 {
				t.Skipf("%s does not run here: %v", tc.cmd, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd, err := r.Command(ctx, string(exe), tc.args, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := r.Start(cmd); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v: %s %s", err, stdout.String(), stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout.String(), w+"\n") {
					t.Errorf("want %q in:\n%s%s", w, stdout.String(), stderr.String())
				}
			}
		})
	}
}
