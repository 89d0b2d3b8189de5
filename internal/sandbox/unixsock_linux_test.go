//go:build linux

package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
)

// unixAttempt is one attempt of the "unix" test server on the Unix-domain
// sockets around it: what it got, or why not, on one line.
//
//	path:P          connect to the stream socket at P, read its greeting
//	abstract:NAME   the same, to the abstract socket NAME
//	dgram:P         send one datagram to the datagram socket at P
//	pairdgram:P     a datagram socketpair, re-connected to P, then send
//	pair:TYPE       a socketpair (stream, seqpacket), one byte across
//	iouring:        io_uring_setup, whose IORING_OP_SOCKET and
//	                IORING_OP_CONNECT no seccomp filter sees
//	anything else   netAttempt's
func unixAttempt(kind, target string) string {
	fail := func(err error) string { return "ERR " + err.Error() }
	switch kind {
	case "path", "abstract":
		if kind == "abstract" {
			target = "@" + target
		}
		c, err := net.DialTimeout("unix", target, 5*time.Second)
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		b, err := io.ReadAll(io.LimitReader(c, 64))
		if err != nil && len(b) == 0 {
			return fail(err)
		}
		return "OK " + strings.TrimSpace(string(b))
	case "dgram":
		c, err := net.Dial("unixgram", target)
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("hello")); err != nil {
			return fail(err)
		}
		return "OK sent"
	case "pairdgram":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fail(fmt.Errorf("socketpair: %w", err))
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if err := unix.Connect(fds[0], &unix.SockaddrUnix{Name: target}); err != nil {
			return fail(fmt.Errorf("connect: %w", err))
		}
		if err := unix.Send(fds[0], []byte("hello"), 0); err != nil {
			return fail(fmt.Errorf("send: %w", err))
		}
		return "OK sent"
	case "pair":
		typ := map[string]int{"stream": unix.SOCK_STREAM, "seqpacket": unix.SOCK_SEQPACKET}[target]
		fds, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fail(fmt.Errorf("socketpair: %w", err))
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if _, err := unix.Write(fds[0], []byte{7}); err != nil {
			return fail(err)
		}
		var b [1]byte
		if n, err := unix.Read(fds[1], b[:]); n != 1 || b[0] != 7 {
			return fail(fmt.Errorf("read %d bytes: %v", n, err))
		}
		return "OK pair"
	case "iouring":
		var params [120]byte // struct io_uring_params
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
		if errno != 0 {
			return fail(fmt.Errorf("io_uring_setup: %w", errno))
		}
		unix.Close(int(fd))
		return "OK ring"
	}
	return netAttempt(kind, target)
}

// unixHost is a Unix-domain socket the test listens on, outside the
// sandbox: it greets whoever connects and counts them.
type unixHost struct {
	addr string
	hits atomic.Int32
}

func listenUnix(tb testing.TB, network, addr string) *unixHost {
	tb.Helper()
	h := &unixHost{addr: addr}
	if network == "unixgram" {
		pc, err := net.ListenPacket(network, addr)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { pc.Close() })
		go func() {
			buf := make([]byte, 64)
			for {
				if _, _, err := pc.ReadFrom(buf); err != nil {
					return
				}
				h.hits.Add(1)
			}
		}()
		return h
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.hits.Add(1)
			fmt.Fprint(c, "hello from the host")
			c.Close()
		}
	}()
	return h
}

// TestStrictUnixSockets: a strict server reaches no Unix-domain socket of
// the host, wherever it is: not one in a directory Landlock does not grant
// (Landlock does not see a connect), not one where a session bus or an
// agent lives (/run/user/UID), not an abstract one, not a datagram socket
// through a socketpair re-connected to it, not through io_uring. Each is
// refused at once with "permission denied", which the server sees. The
// socketpairs node and Python make for their children's stdio still work.
// Basic, which does not contain a server, reaches them all: the control.
func TestStrictUnixSockets(t *testing.T) {
	dir := t.TempDir()
	runUser := filepath.Join(dir, "run", "user", strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(runUser, 0o700); err != nil {
		t.Fatal(err)
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	abstract := "mcp-lockcheck-test-" + hex.EncodeToString(nonce[:])
	stream := listenUnix(t, "unix", filepath.Join(dir, "agent.sock"))
	bus := listenUnix(t, "unix", filepath.Join(runUser, "bus"))
	abs := listenUnix(t, "unix", "@"+abstract)
	dgram := listenUnix(t, "unixgram", filepath.Join(dir, "journal.sock"))
	hosts := []*unixHost{stream, bus, abs, dgram}

	attempts := []string{
		"path:" + stream.addr,
		"path:" + bus.addr,
		"abstract:" + abstract,
		"dgram:" + dgram.addr,
		"pairdgram:" + dgram.addr,
		"iouring:",
		"pair:stream",
		"pair:seqpacket",
	}
	const refused = 6 // the attempts above the socketpairs

	basic := newRun(t, Basic, Options{})
	out, err := launch(t, basic, "unix", attempts...)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if i < refused-1 && !strings.HasPrefix(strings.TrimPrefix(line, attempts[i]+" "), "OK") {
			t.Fatalf("control: basic did not reach %s: %s", attempts[i], line)
		}
	}
	// The control's two datagrams (dgram, pairdgram) are counted by the
	// listener's goroutine, which may read them after the control
	// returned: wait for them (bounded), or they would be counted as
	// strict's.
	for i := 0; dgram.hits.Load() < 2; i++ {
		if i == 500 {
			t.Fatalf("control: %s counted %d of basic's 2 datagrams in 5s", dgram.addr, dgram.hits.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := make([]int32, len(hosts))
	for i, h := range hosts {
		before[i] = h.hits.Load()
	}

	db := greeter(t, "127.0.0.1:0", "db")
	allow, err := ParseDests([]string{fmt.Sprintf("db.lockcheck.invalid:%d", db.port())})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"no network", Options{}},
		{"an allowance", Options{Network: allow, Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(t, Strict, tc.opts)
			args := attempts
			if tc.opts.Network != nil {
				// Its own allowance still works beside the refusals.
				args = append(slices.Clone(attempts), fmt.Sprintf("dial:db.lockcheck.invalid:%d", db.port()))
			}
			start := time.Now()
			out, err := launch(t, r, "unix", args...)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("strict (%v):\n%s", took.Round(time.Millisecond), out)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != len(args) {
				t.Fatalf("%d lines for %d attempts", len(lines), len(args))
			}
			for i, line := range lines {
				got := strings.TrimPrefix(line, args[i]+" ")
				switch {
				case i < refused && attempts[i] == "iouring:":
					if !strings.HasPrefix(got, "ERR") {
						t.Errorf("%s: %s, want refused", args[i], got)
					}
				case i < refused:
					if !strings.HasPrefix(got, "ERR") || !strings.Contains(got, "permission denied") {
						t.Errorf("%s: %s, want ERR ... permission denied", args[i], got)
					}
				case !strings.HasPrefix(got, "OK"):
					t.Errorf("%s: %s, want OK", args[i], got)
				}
			}
			if took > 4*time.Second {
				t.Errorf("the attempts took %v: a refusal looked like a hang", took)
			}
			for i, h := range hosts {
				if n := h.hits.Load(); n != before[i] {
					t.Errorf("%s was reached %d times from strict", h.addr, n-before[i])
				}
			}
		})
	}
}

// TestAbstractSocketsPerNetns checks, rather than assumes, the kernel
// fact strict's own network namespace stands on for abstract sockets
// beside the seccomp filter: an abstract socket of the host is not
// reachable from a new network namespace. The child is this test binary
// under unshare(1), in a new user namespace with and without a new network
// namespace; the one without is the control.
func TestAbstractSocketsPerNetns(t *testing.T) {
	if name := os.Getenv(abstractChild); name != "" {
		c, err := net.DialTimeout("unix", "@"+name, 5*time.Second)
		if err != nil {
			fmt.Println("ERR", err)
			return
		}
		c.Close()
		fmt.Println("OK")
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("needs unshare(1) (util-linux)")
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	name := "mcp-lockcheck-test-" + hex.EncodeToString(nonce[:])
	h := listenUnix(t, "unix", "@"+name)
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-U", "-r"}, "OK"},
		{[]string{"-U", "-r", "-n"}, "ERR dial unix @" + name + ": connect: connection refused"},
	} {
		cmd := exec.Command(unshare, append(tc.flags, testExe(t), "-test.run=^TestAbstractSocketsPerNetns$")...)
		cmd.Env = append(os.Environ(), abstractChild+"="+name)
		out, err := cmd.CombinedOutput()
		if errors.Is(err, exec.ErrNotFound) || err != nil && strings.Contains(string(out), "unshare failed") {
			testproc.NoPrivilege(t, "unshare %v: %v: %s", tc.flags, err, out)
		}
		if err != nil || !strings.HasPrefix(string(out), tc.want+"\n") {
			t.Errorf("unshare %v: %v: %q, want %q", tc.flags, err, out, tc.want)
		}
	}
	if n := h.hits.Load(); n != 1 {
		t.Errorf("the abstract socket was reached %d times, want once (the control)", n)
	}
}

const abstractChild = "MCP_LOCKCHECK_TEST_ABSTRACT_CHILD"
