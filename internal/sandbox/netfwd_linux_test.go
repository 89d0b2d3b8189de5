//go:build linux

package sandbox

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestStrictAllowance: a strict server with a network allowance reaches
// the allowed test hosts (HTTPS with the test CA, a plain TCP service),
// through names only the allowance resolves, and nothing else: another
// name, another port of an allowed host, a raw address, the runner's own
// loopback service, UDP. Every refusal is named, on a port nothing listens
// on too, and a name that rebinds reaches only what the checker dialled
// first. Every
// test host is on loopback, every name under .invalid.
func TestStrictAllowance(t *testing.T) {
	ca := newTestCA(t)
	// The HTTPS API, on the runner's loopback.
	apiLn, err := tls.Listen("tcp", "127.0.0.1:0", ca.serverTLS(t, "api.lockcheck.invalid"))
	if err != nil {
		t.Fatal(err)
	}
	var apiConns atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from the api, %s", r.Host)
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			apiConns.Add(1)
		}
	}}
	go srv.Serve(apiLn)
	t.Cleanup(func() { srv.Close() })
	apiPort := uint16(apiLn.Addr().(*net.TCPAddr).Port)

	db := greeter(t, "127.0.0.1:0", "db")
	service := greeter(t, "127.0.0.1:0", "runner service") // never allowed
	first := greeter(t, "127.0.0.1:0", "first")
	second := greeter(t, fmt.Sprintf("127.0.0.2:%d", first.port()), "second")
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()

	allow, err := ParseDests([]string{
		fmt.Sprintf("api.lockcheck.invalid:%d", apiPort),
		fmt.Sprintf("db.lockcheck.invalid:%d", db.port()),
		fmt.Sprintf("rebind.lockcheck.invalid:%d", first.port()),
	})
	if err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int32
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "api.lockcheck.invalid", "db.lockcheck.invalid":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "rebind.lockcheck.invalid":
			// First the allowed host, then another: a rebinding name.
			if lookups.Add(1) == 1 {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
		}
		return nil, fmt.Errorf("no such test host %s", host)
	}
	r := newRun(t, Strict, Options{Network: allow, Resolve: resolve})

	attempts := []string{
		fmt.Sprintf("https:https://api.lockcheck.invalid:%d/", apiPort),
		fmt.Sprintf("dial:db.lockcheck.invalid:%d", db.port()),
		fmt.Sprintf("dial:rebind.lockcheck.invalid:%d", first.port()),
		fmt.Sprintf("dial:rebind.lockcheck.invalid:%d", first.port()),
		"lookup:other.lockcheck.invalid",
		fmt.Sprintf("dial:other.lockcheck.invalid:%d", apiPort),
		fmt.Sprintf("dial:api.lockcheck.invalid:%d", db.port()),      // an allowed host, another allowed port
		fmt.Sprintf("dial:api.lockcheck.invalid:%d", service.port()), // an allowed host, a port nothing allows
		fmt.Sprintf("dial:127.0.0.1:%d", apiPort),                    // a raw address on an allowed port
		fmt.Sprintf("dial:127.0.0.1:%d", service.port()),             // the runner's loopback service
		fmt.Sprintf("dial:127.0.0.2:%d", first.port()),
		"dial:db.lockcheck.invalid:5432",                 // a port a backend often has, not allowed here
		fmt.Sprintf("dial:[::1]:%d", service.port()),     // the same over IPv6
		fmt.Sprintf("dial:192.0.2.7:%d", apiPort),        // a raw address off loopback, an allowed port
		fmt.Sprintf("dial:192.0.2.7:%d", service.port()), // and a port nothing allows
		fmt.Sprintf("dial:[2001:db8::7]:%d", service.port()),
		"udp:" + udp.LocalAddr().String(),
	}
	start := time.Now()
	out, err := launchEnv(t, r, map[string]string{modeEnv: "net", "TEST_CA": string(ca.pem)}, attempts...)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("the server's attempts (%v):\n%s", took.Round(time.Millisecond), out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(attempts) {
		t.Fatalf("%d lines for %d attempts", len(lines), len(attempts))
	}
	want := []string{
		"OK 200 hello from the api, api.lockcheck.invalid:",
		"OK db", "OK first", "OK first",
		"ERR", "ERR", "ERR", "ERR", "ERR", "ERR", "ERR", "ERR", "ERR", "ERR", "ERR", "ERR",
		"OK sent",
	}
	for i, w := range want {
		got := strings.TrimPrefix(lines[i], attempts[i]+" ")
		if !strings.HasPrefix(got, w) {
			t.Errorf("%s: %s, want %s...", attempts[i], got, w)
		}
	}
	// Refused fast: no attempt waited for a time-out.
	if took > 4*time.Second {
		t.Errorf("the attempts took %v: a refusal looked like a hang", took)
	}
	if n := apiConns.Load(); n != 1 {
		t.Errorf("the API saw %d connections, want 1 (the HTTPS request)", n)
	}
	if n := service.accepted(); n != 0 {
		t.Errorf("the runner's loopback service saw %d connections", n)
	}
	if n := second.accepted(); n != 0 {
		t.Errorf("the rebinding name reached its second address %d times", n)
	}
	if n := lookups.Load(); n != 1 {
		t.Errorf("the checker resolved the rebinding name %d times, want once", n)
	}
	_ = udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 16)); err == nil {
		t.Errorf("the UDP listener got %d bytes", n)
	}
	var refused []string
	for _, x := range r.Refused() {
		refused = append(refused, x.String())
	}
	got := strings.Join(refused, "\n")
	t.Logf("refused:\n%s", got)
	named := []string{
		"other.lockcheck.invalid (name not allowed)",
		fmt.Sprintf("api.lockcheck.invalid:%d (not allowed)", db.port()),
		fmt.Sprintf("127.0.0.1:%d (not allowed)", apiPort),
		fmt.Sprintf("127.0.0.2:%d (not allowed)", first.port()),
		// Ports nothing in the sandbox listens on: the kernel resets
		// the connect, and the capture names it.
		fmt.Sprintf("api.lockcheck.invalid:%d (not allowed)", service.port()),
		fmt.Sprintf("127.0.0.1:%d (not allowed)", service.port()),
		"db.lockcheck.invalid:5432 (not allowed)",
		fmt.Sprintf("[::1]:%d (not allowed)", service.port()),
		fmt.Sprintf("192.0.2.7:%d (not allowed)", apiPort),
		fmt.Sprintf("192.0.2.7:%d (not allowed)", service.port()),
		fmt.Sprintf("[2001:db8::7]:%d (not allowed)", service.port()),
		"127.0.0.1:" + strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port) + " (UDP, which the sandbox does not carry)",
	}
	for _, w := range named {
		if !strings.Contains(got, w) {
			t.Errorf("refusals do not name %s:\n%s", w, got)
		}
	}
	if !strings.Contains(r.Isolation(), "network only to api.lockcheck.invalid:") {
		t.Errorf("isolation line: %s", r.Isolation())
	}
}

// launchEnv runs the test binary under r with the config env env, as
// Run.Start starts a launch, and returns its stdout.
func launchEnv(t *testing.T, r *Run, env map[string]string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, err := r.Command(ctx, testExe(t), args, env, "")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := r.Start(cmd); err != nil {
		return "", err
	}
	if err := cmd.Wait(); err != nil {
		return stdout.String(), fmt.Errorf("%w: stdout %q stderr %q", err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// TestStrictAllowanceHeld: a held launch (the gate on fd 3) gets its
// listeners (fd 4) as a launch started at once does, and each launch of a
// run its own.
func TestStrictAllowanceHeld(t *testing.T) {
	db := greeter(t, "127.0.0.1:0", "db")
	allow, _ := ParseDests([]string{fmt.Sprintf("db.lockcheck.invalid:%d", db.port())})
	r := newRun(t, Strict, Options{Network: allow, Resolve: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}})
	target := fmt.Sprintf("dial:db.lockcheck.invalid:%d", db.port())
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd, gate, err := r.HeldCommand(ctx, testExe(t), []string{target}, map[string]string{modeEnv: "net"}, "")
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		if err := gate.Open(); err != nil {
			t.Error(err)
		}
		err = cmd.Wait()
		cancel()
		if err != nil || !strings.Contains(stdout.String(), " OK db") {
			t.Errorf("held launch %d: %v: %q %q", i, err, stdout.String(), stderr.String())
		}
	}
	if n := db.accepted(); n != 2 {
		t.Errorf("db saw %d connections, want 2", n)
	}
}

// TestStrictAllowanceAddress: an IP literal in the allowance that is not
// loopback is an address of the sandbox's own loopback, so the server's
// connection to it reaches the checker, which dials that address. The
// checker's dial is redirected to a loopback test host here: no packet
// goes to the documentation addresses the allowance names.
func TestStrictAllowanceAddress(t *testing.T) {
	db := greeter(t, "127.0.0.1:0", "db")
	v4, v6 := fmt.Sprintf("192.0.2.10:%d", db.port()), fmt.Sprintf("[2001:db8::10]:%d", db.port())
	allow, err := ParseDests([]string{v4, v6})
	if err != nil {
		t.Fatal(err)
	}
	r := newRun(t, Strict, Options{Network: allow})
	var (
		mu      sync.Mutex
		dialled []string
	)
	r.fwd.dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		if addr != v4 && addr != v6 {
			return nil, fmt.Errorf("the test dials only %s and %s, not %s", v4, v6, addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, db.ln.Addr().String())
	}
	out, err := launchEnv(t, r, map[string]string{modeEnv: "net"}, "dial:"+v4, "dial:"+v6, fmt.Sprintf("dial:192.0.2.11:%d", db.port()))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], " OK db") || !strings.HasSuffix(lines[1], " OK db") || !strings.Contains(lines[2], " ERR ") {
		t.Errorf("attempts:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(dialled, " ") != v4+" "+v6 {
		t.Errorf("the checker dialled %v", dialled)
	}
}

// TestProxyNotPassed: a server with an allowance does not get the
// checker's proxy (the checker dials its destinations directly), unless
// its config names one.
func TestProxyNotPassed(t *testing.T) {
	allow, _ := ParseDests([]string{"api.lockcheck.invalid:443"})
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "HTTPS_PROXY": "http://proxy.lockcheck.invalid:3128", "no_proxy": "localhost"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	r := newRun(t, Strict, Options{Network: allow, Getenv: getenv})
	e := r.Environ(nil)
	if _, ok := e["HTTPS_PROXY"]; ok {
		t.Errorf("HTTPS_PROXY passed: %q", e["HTTPS_PROXY"])
	}
	if _, ok := e["no_proxy"]; ok {
		t.Error("no_proxy passed")
	}
	if e := r.Environ(map[string]string{"HTTPS_PROXY": "http://from-config.lockcheck.invalid:3128"}); e["HTTPS_PROXY"] != "http://from-config.lockcheck.invalid:3128" {
		t.Errorf("the config's proxy: %q", e["HTTPS_PROXY"])
	}
	basic := newRun(t, Basic, Options{Network: allow, Getenv: getenv})
	if basic.Environ(nil)["HTTPS_PROXY"] == "" {
		t.Error("basic, which restricts no network, lost the proxy")
	}
}
