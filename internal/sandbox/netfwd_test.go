package sandbox

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// netAttempt is one network attempt of the "net" test server, in the
// sandbox: what it got, or why not, on one line.
//
//	lookup:NAME        the addresses NAME resolves to
//	dial:HOST:PORT     connect and read what the other side says first
//	https:URL          GET over TLS, trusting the test CA in $TEST_CA
//	udp:HOST:PORT      send one datagram
func netAttempt(kind, target string) string {
	fail := func(err error) string { return "ERR " + strings.ReplaceAll(err.Error(), "\n", " ") }
	switch kind {
	case "lookup":
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupHost(ctx, target)
		if err != nil {
			return fail(err)
		}
		return "OK " + strings.Join(addrs, ",")
	case "dial":
		c, err := net.DialTimeout("tcp", target, 5*time.Second)
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
	case "https":
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM([]byte(os.Getenv("TEST_CA")))
		cl := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		resp, err := cl.Get(target)
		if err != nil {
			return fail(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		return fmt.Sprintf("OK %d %s", resp.StatusCode, strings.TrimSpace(string(b)))
	case "udp":
		c, err := net.Dial("udp", target)
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("hello")); err != nil {
			return fail(err)
		}
		return "OK sent"
	}
	return "ERR unknown attempt " + kind
}

// testCA is a certificate authority for the tests' HTTPS hosts, and a
// server certificate for names under it.
type testCA struct {
	pem  []byte
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(tb testing.TB) *testCA {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mcp-lockcheck test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), cert: cert, key: key}
}

// serverTLS is a TLS config serving a certificate for names.
func (ca *testCA) serverTLS(tb testing.TB, names ...string) *tls.Config {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		tb.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// testHost is a server on a loopback test address that says who it is,
// and counts who connected.
type testHost struct {
	ln    net.Listener
	conns chan struct{}
}

func (h *testHost) port() uint16 { return uint16(h.ln.Addr().(*net.TCPAddr).Port) }

// greeter listens on addr (a loopback address, port 0 for any) and writes
// hello to each connection.
func greeter(tb testing.TB, addr, hello string) *testHost {
	tb.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	h := &testHost{ln: ln, conns: make(chan struct{}, 100)}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case h.conns <- struct{}{}:
			default:
			}
			c.Write([]byte(hello + "\n"))
			c.Close()
		}
	}()
	return h
}

func (h *testHost) accepted() int { return len(h.conns) }

// TestAllowanceParse: the forms a destination is written in, and the
// mistakes each error names.
func TestAllowanceParse(t *testing.T) {
	for in, want := range map[string]string{
		"api.example.com:443":  "api.example.com:443",
		"API.Example.COM.:443": "api.example.com:443",
		"*.example.com:443":    "*.example.com:443",
		"localhost:5432":       "localhost:5432",
		"127.0.0.1:5432":       "127.0.0.1:5432",
		"[::1]:5432":           "[::1]:5432",
		"[::ffff:10.0.0.1]:80": "10.0.0.1:80",
		"db_1.internal:5432":   "db_1.internal:5432",
	} {
		d, err := ParseDest(in)
		if err != nil || d.String() != want {
			t.Errorf("ParseDest(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	for in, want := range map[string]string{
		"api.example.com":        "no port",
		"api.example.com:0":      "1 to 65535",
		"api.example.com:65536":  "1 to 65535",
		"api.example.com:https":  "1 to 65535",
		"api.example.com:53":     "port 53",
		"::1:5432":               "brackets",
		"*.com:443":              "at least two",
		"a.*.example.com:443":    "wildcard",
		"**.example.com:443":     "wildcard",
		"*.10.0.0.1:443":         "all-digit",
		"0.0.0.0:80":             "not one host",
		"[ff02::1]:80":           "not one host",
		"exa mple.com:80":        "not a letter",
		"-bad.example.com:80":    "hyphen",
		"example..com:80":        "empty label",
		"[fe80::1%eth0]:80":      "zone",
		"999.1.1.1:80":           "all-digit",
		":443":                   "empty",
		"api.example.com:+443":   "1 to 65535",
		"http://example.com:443": "not HOST:PORT",
	} {
		if _, err := ParseDest(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDest(%q) = %v; want an error saying %q", in, err, want)
		}
	}
	a, err := ParseDests([]string{"b.example.com:443", "*.example.com:443", "b.example.com:443", "a.example.com:5432"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Strings(), " "); got != "*.example.com:443 a.example.com:5432 b.example.com:443" {
		t.Errorf("allowance %s", got)
	}
	for _, c := range []struct {
		host string
		port uint16
		want bool
	}{
		{"x.example.com", 443, true}, {"X.Example.Com.", 443, true}, {"example.com", 443, false},
		{"a.b.example.com", 443, false}, {"a.example.com", 5432, true}, {"b.example.com", 5432, false},
		{"evilexample.com", 443, false}, {"x.example.com.evil", 443, false},
	} {
		if got := a.Allows(c.host, c.port); got != c.want {
			t.Errorf("Allows(%s, %d) = %v", c.host, c.port, got)
		}
	}
	if !a.Covers(Dest{Host: "b.example.com", Port: 443}) || a.Covers(Dest{Host: "other.com", Port: 443, Wild: true}) || a.Covers(Dest{Host: "example.com", Port: 5432, Wild: true}) {
		t.Error("Covers")
	}
}

// dnsQuery is a query message for name and type.
func dnsQuery(name string, qtype uint16) []byte {
	q := []byte{0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	for _, l := range strings.Split(name, ".") {
		q = append(q, byte(len(l)))
		q = append(q, l...)
	}
	return append(q, 0, byte(qtype>>8), byte(qtype), 0, 1)
}

// TestNameServer: the sandbox's name server answers allowed names with
// their sandbox address, and nothing else, and records what it refused.
func TestNameServer(t *testing.T) {
	a, _ := ParseDests([]string{"api.test.invalid:443", "*.wild.test.invalid:443", "10.0.0.1:80"})
	f := newForwarder(a, nil)
	hosts := f.hostsFile()
	ask := func(name string, qtype uint16) (rcode byte, addr string) {
		out := f.answer(dnsQuery(name, qtype))
		if len(out) < 12 || out[0] != 0x12 || out[1] != 0x34 || out[2]&0x80 == 0 {
			t.Fatalf("%s: reply %x", name, out)
		}
		if out[7] == 1 {
			return out[3] & 0xf, net.IP(out[len(out)-4:]).String()
		}
		return out[3] & 0xf, ""
	}
	for _, c := range []struct {
		name  string
		qtype uint16
		rcode byte
		addr  string
	}{
		{"api.test.invalid", 1, 0, "127.77.0.1"},
		{"API.test.invalid", 1, 0, "127.77.0.1"},
		{"api.test.invalid", 28, 0, ""}, // AAAA: the name exists, no data
		{"x.wild.test.invalid", 1, 0, "127.77.0.2"},
		{"y.wild.test.invalid", 1, 0, "127.77.0.3"},
		{"x.wild.test.invalid", 1, 0, "127.77.0.2"},
		{"wild.test.invalid", 1, 3, ""},
		{"other.test.invalid", 1, 3, ""},
		{"other.test.invalid", 28, 3, ""},
		{"localhost", 1, 0, "127.0.0.1"},
		{"10.0.0.1", 1, 3, ""},
	} {
		rcode, addr := ask(c.name, c.qtype)
		if rcode != c.rcode || addr != c.addr {
			t.Errorf("%s type %d: rcode %d addr %q; want %d %q", c.name, c.qtype, rcode, addr, c.rcode, c.addr)
		}
	}
	var got []string
	for _, r := range f.Refused() {
		got = append(got, r.String())
	}
	if want := "wild.test.invalid (name not allowed)|other.test.invalid (name not allowed)|10.0.0.1 (name not allowed)"; strings.Join(got, "|") != want {
		t.Errorf("refused %q, want %q", strings.Join(got, "|"), want)
	}
	if h := hosts; !strings.Contains(h, "127.77.0.1\tapi.test.invalid\n") || strings.Contains(h, "wild") {
		t.Errorf("hosts file:\n%s", h)
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}, append(dnsQuery("a.b", 1)[:12], 0xff), append(dnsQuery("x", 1)[:2], 0x81, 0)} {
		if out := f.answer(bad); out != nil && out[3]&0xf == 0 {
			t.Errorf("answer(%x) = %x, want none or an error", bad, out)
		}
	}
}

// TestRebindingPinned: an allowed name is resolved once per run; a name
// that resolves to loopback or the metadata address is refused by the
// real resolution.
func TestRebindingPinned(t *testing.T) {
	calls := 0
	a, _ := ParseDests([]string{"api.test.invalid:443"})
	f := newForwarder(a, func(context.Context, string) ([]netip.Addr, error) {
		calls++
		return []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, byte(calls)})}, nil
	})
	for range 3 {
		got, err := f.lookup(context.Background(), "api.test.invalid")
		if err != nil || len(got) != 1 || got[0].String() != "127.0.0.1" {
			t.Fatalf("lookup = %v, %v", got, err)
		}
	}
	if calls != 1 {
		t.Errorf("resolved %d times, want once", calls)
	}
	f.lookupLoopback = false
	for _, addr := range []string{"127.0.0.1", "::1", "169.254.169.254", "0.0.0.0", "fe80::1"} {
		f.resolve = func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr(addr)}, nil
		}
		if got, err := f.lookup(context.Background(), "rebind-"+addr+".test.invalid"); err == nil {
			t.Errorf("a name resolving to %s was dialled at %v", addr, got)
		}
	}
}

// TestForwarderBounds: past maxConns connections at once the next is
// reset and named; the run's close ends what is open.
func TestForwarderBounds(t *testing.T) {
	far, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer far.Close()
	port := uint16(far.Addr().(*net.TCPAddr).Port)
	allow, _ := ParseDests([]string{fmt.Sprintf("far.lockcheck.invalid:%d", port)})
	f := newForwarder(allow, func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	a, _ := f.addrFor("far.lockcheck.invalid")
	ln, err := net.Listen("tcp", netip.AddrPortFrom(a, port).String())
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", a, err)
	}
	go f.serveTCP(ln)
	f.mu.Lock()
	f.active = maxConns
	f.mu.Unlock()
	// Reset at the connect or at the first read.
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("read %d bytes past the bound", n)
		}
		c.Close()
	}
	if r := f.Refused(); len(r) != 1 || !strings.Contains(r[0].String(), "connections at once") {
		t.Errorf("refused %v", r)
	}
	f.mu.Lock()
	f.active = 0
	f.mu.Unlock()
	f.close()
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("the listener outlived the run")
	}
}

// TestNameServerTCP: the name server answers over TCP too (a resolver
// retries there), several queries on one connection.
func TestNameServerTCP(t *testing.T) {
	a, _ := ParseDests([]string{"api.test.invalid:443"})
	f := newForwarder(a, nil)
	defer f.close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go f.serveDNSTCP(ln)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	for _, q := range []struct {
		name  string
		rcode byte
	}{{"api.test.invalid", 0}, {"evil.test.invalid", 3}} {
		m := dnsQuery(q.name, 1)
		if _, err := c.Write(append([]byte{0, byte(len(m))}, m...)); err != nil {
			t.Fatal(err)
		}
		var l [2]byte
		if _, err := io.ReadFull(c, l[:]); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, int(l[0])<<8|int(l[1]))
		if _, err := io.ReadFull(c, out); err != nil {
			t.Fatal(err)
		}
		if out[3]&0xf != q.rcode {
			t.Errorf("%s: rcode %d, want %d", q.name, out[3]&0xf, q.rcode)
		}
	}
}

// TestSawPacket: the capture names the destination of a connection's
// first packet (a SYN) and of a datagram, as the server knew it (an
// allowed name's sandbox address by its name), and leaves what the
// listeners and the name server judge, answers, and anything malformed.
func TestSawPacket(t *testing.T) {
	allow, _ := ParseDests([]string{"api.lockcheck.invalid:443"})
	f := newForwarder(allow, nil)
	api, _ := f.addrFor("api.lockcheck.invalid")
	v4 := func(dst netip.Addr, proto byte, sport, dport uint16, flags byte) []byte {
		p := make([]byte, 40)
		p[0], p[9] = 0x45, proto
		a := dst.As4()
		copy(p[16:20], a[:])
		binary.BigEndian.PutUint16(p[20:], sport)
		binary.BigEndian.PutUint16(p[22:], dport)
		p[33] = flags
		return p
	}
	v6 := func(dst netip.Addr, proto byte, dport uint16, flags byte) []byte {
		p := make([]byte, 60)
		p[0], p[6] = 0x60, proto
		a := dst.As16()
		copy(p[24:40], a[:])
		binary.BigEndian.PutUint16(p[40:], 40000)
		binary.BigEndian.PutUint16(p[42:], dport)
		p[53] = flags
		return p
	}
	lo := netip.MustParseAddr("127.0.0.1")
	for _, p := range [][]byte{
		v4(api, protoTCP, 40000, 8443, tcpSYN),                              // named: api.lockcheck.invalid:8443
		v4(api, protoTCP, 40000, 443, tcpSYN),                               // an allowed port: the listener's
		v4(lo, protoTCP, 40000, 5432, tcpSYN|tcpACK),                        // not a connection's first packet
		v4(lo, protoTCP, 40000, DNSPort, tcpSYN),                            // the name server
		v4(lo, protoUDP, 40000, DNSPort, 0),                                 // a lookup
		v4(lo, protoUDP, DNSPort, 40000, 0),                                 // its answer
		v4(lo, protoUDP, 40000, 5353, 0),                                    // named: UDP
		v6(netip.MustParseAddr("2001:db8::7"), protoTCP, 22, tcpSYN),        // named
		v6(netip.MustParseAddr("::ffff:127.0.0.1"), protoTCP, 6379, tcpSYN), // named, as IPv4
		v4(lo, protoTCP, 40000, 9999, tcpSYN)[:30],                          // truncated
		append([]byte{0x4f}, v4(lo, protoTCP, 40000, 9999, tcpSYN)[1:]...),  // a header longer than the packet
		append([]byte{0x41}, v4(lo, protoTCP, 40000, 9999, tcpSYN)[1:]...),  // a header shorter than the minimum
		v6(netip.MustParseAddr("::1"), protoTCP, 9999, tcpSYN)[:47],         // truncated
		{0x45}, nil,
	} {
		f.sawPacket(p)
	}
	var got []string
	for _, r := range f.Refused() {
		got = append(got, r.String())
	}
	want := []string{
		"api.lockcheck.invalid:8443 (not allowed)",
		"127.0.0.1:5353 (UDP, which the sandbox does not carry)",
		"[2001:db8::7]:22 (not allowed)",
		"127.0.0.1:6379 (not allowed)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("refused:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzSawPacket: whatever the capture reads, the checker records at most
// a bounded, printable refusal and never fails.
func FuzzSawPacket(f *testing.F) {
	syn := make([]byte, 40)
	syn[0], syn[9], syn[33] = 0x45, protoTCP, tcpSYN
	copy(syn[16:20], []byte{127, 0, 0, 1})
	syn[22], syn[23] = 0x1f, 0x90
	f.Add(syn)
	v6 := make([]byte, 60)
	v6[0], v6[6], v6[53] = 0x60, protoUDP, 0
	f.Add(v6)
	f.Add([]byte{0x4f, 0, 0})
	f.Fuzz(func(t *testing.T, pkt []byte) {
		fw := newForwarder(Allowance{{Host: "api.lockcheck.invalid", Port: 443}}, nil)
		fw.sawPacket(pkt)
		for _, r := range fw.Refused() {
			if len(r.String()) > 128 || r.Port == 0 {
				t.Errorf("refusal %q from %x", r, pkt)
			}
		}
	})
}
