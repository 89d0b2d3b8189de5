package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The checker's side of a strict server's network allowance. The server's
// network namespace keeps only loopback. Before the server starts, the
// helper opens, inside that namespace, a listening socket on every
// allowed port (all of its addresses) and the sandbox's name server on
// 127.0.0.1:53, and hands them to the checker: nothing inside the sandbox
// forwards anything, and no process there holds a way out. The checker
// accepts on those sockets from outside the namespace. A connection is
// identified by the loopback address and port it was made to; the
// address stands for one allowed name (the name server gave it out) and
// the checker, not the server, resolves that name and dials host and port,
// then copies bytes both ways. TLS stays end to end: certificates and SNI
// are the server's business. The server never names a destination the
// checker dials; it can only pick among the allowed ones.

// Resolver resolves a name to the addresses the checker dials for it.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// forwarder is one Run's allowance at work: the table of names given out,
// the addresses each name resolved to (once per run: DNS rebinding cannot
// move a name elsewhere between two connections), and what was refused.
type forwarder struct {
	allow Allowance
	// resolve is the checker's own resolution; lookupLoopback says a
	// name may resolve to loopback (the tests' resolver only).
	resolve        Resolver
	lookupLoopback bool
	dialTimeout    time.Duration
	// dialer connects from the checker (tests: to a loopback stand-in).
	dialer func(ctx context.Context, network, addr string) (net.Conn, error)

	mu      sync.Mutex
	byName  map[string]netip.Addr // allowed name -> its address in the sandbox
	byAddr  map[netip.Addr]string
	next    uint32
	pinned  map[string][]netip.Addr // name -> what the checker dials for it
	refused []Refusal
	// captures are the live launches' packet sockets (netns_linux.go),
	// drained before Refused answers.
	captures map[drainer]struct{}
	closers  map[io.Closer]struct{}
	closed   bool
	active   int
	conns    sync.WaitGroup
}

// sandboxNet is the range names are given out from inside the sandbox:
// 127.77.0.1 and up. Only the sandbox's own loopback has it.
var sandboxNet = netip.MustParseAddr("127.77.0.0")

// maxNames bounds how many names the name server gives addresses to in a
// run: a wildcard matches any number of names.
const maxNames = 4096

func newForwarder(allow Allowance, resolve Resolver) *forwarder {
	f := &forwarder{
		allow: allow, resolve: resolve, lookupLoopback: resolve != nil, dialTimeout: 10 * time.Second,
		byName: map[string]netip.Addr{}, byAddr: map[netip.Addr]string{},
		pinned: map[string][]netip.Addr{}, closers: map[io.Closer]struct{}{},
		dialer: (&net.Dialer{}).DialContext,
	}
	if f.resolve == nil {
		f.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	for _, d := range allow {
		if _, isIP := d.IP(); !isIP && !d.Wild && d.Host != "localhost" {
			f.addrFor(d.Host)
		}
	}
	return f
}

// addrFor is the sandbox address of an allowed name, given out on first
// use; false when the table is full.
func (f *forwarder) addrFor(name string) (netip.Addr, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.byName[name]; ok {
		return a, true
	}
	if f.next >= maxNames {
		return netip.Addr{}, false
	}
	f.next++
	b := sandboxNet.As4()
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(b[:])+f.next)
	a := netip.AddrFrom4(b)
	f.byName[name], f.byAddr[a] = a, name
	return a, true
}

// sandboxAddrs are the allowance's IP literals a connection inside the
// sandbox needs on its loopback: those that are not loopback already.
func (f *forwarder) sandboxAddrs() []string {
	var out []string
	for _, d := range f.allow {
		if a, ok := d.IP(); ok && !a.IsLoopback() {
			out = append(out, a.String())
		}
	}
	return out
}

// hostsFile is the sandbox's /etc/hosts: localhost, and every exact name
// the allowance names at its sandbox address.
func (f *forwarder) hostsFile() string {
	var b strings.Builder
	b.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	f.mu.Lock()
	names := make([]string, 0, len(f.byName))
	for n := range f.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s\t%s\n", f.byName[n], n)
	}
	f.mu.Unlock()
	return b.String()
}

// resolvConf points every resolver in the sandbox at its name server.
const resolvConf = "nameserver 127.0.0.1\noptions timeout:2 attempts:1\n"

// refuse records a refused destination, once.
func (f *forwarder) refuse(host string, port uint16, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789.-_:") != "" || len(host) > 255 {
		// What a server asked for is its own text: quoted, never raw
		// into a report or a terminal.
		host = strconv.Quote(host)
	}
	r := Refusal{Host: host, Port: port, Reason: reason}
	for _, o := range f.refused {
		if o.Host == r.Host && o.Port == r.Port {
			return
		}
	}
	if len(f.refused) < 100 {
		f.refused = append(f.refused, r)
	}
}

// Refused are the destinations refused so far, in the order first tried.
// What a live launch's capture holds is read first: a launch that has
// just ended has every packet it sent queued there, maybe not yet read.
func (f *forwarder) Refused() []Refusal {
	f.mu.Lock()
	var live []drainer
	for c := range f.captures {
		live = append(live, c)
	}
	f.mu.Unlock()
	for _, c := range live {
		c.drain(f)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.refused)
}

// drainer is a launch's capture: drain records what it holds, now.
type drainer interface{ drain(*forwarder) }

func (f *forwarder) addCapture(c drainer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.captures == nil {
		f.captures = map[drainer]struct{}{}
	}
	f.captures[c] = struct{}{}
}

func (f *forwarder) removeCapture(c drainer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.captures, c)
}

// track keeps c to close with the run; false when the run is closed.
func (f *forwarder) track(c io.Closer) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.closers[c] = struct{}{}
	return true
}

// isClosed says the run's forwarding is over.
func (f *forwarder) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

func (f *forwarder) untrack(c io.Closer) {
	f.mu.Lock()
	delete(f.closers, c)
	f.mu.Unlock()
}

// close ends every listener and connection of the run.
func (f *forwarder) close() {
	f.mu.Lock()
	f.closed = true
	cs := f.closers
	f.closers = map[io.Closer]struct{}{}
	f.mu.Unlock()
	for c := range cs {
		c.Close()
	}
	f.conns.Wait()
}

// maxConns bounds the connections a run's servers have open through the
// checker at once: each costs the checker two descriptors.
const maxConns = 256

// begin counts one more connection being served; false once the run is
// closed (close waits for those counted, and none may start after) or
// too many are open.
func (f *forwarder) begin() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.active >= maxConns {
		return false
	}
	f.active++
	f.conns.Add(1)
	return true
}

// end counts a connection begin counted as served.
func (f *forwarder) end() {
	f.mu.Lock()
	f.active--
	f.mu.Unlock()
	f.conns.Done()
}

// serveTCP accepts the server's connections on one allowed port.
func (f *forwarder) serveTCP(ln net.Listener) {
	if !f.track(ln) {
		ln.Close()
		return
	}
	defer f.untrack(ln)
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !f.begin() {
			if f.isClosed() {
				c.Close()
				return
			}
			if local, err := netip.ParseAddrPort(c.LocalAddr().String()); err == nil {
				f.refuse(local.Addr().Unmap().String(), local.Port(), fmt.Sprintf("more than %d connections at once", maxConns))
			}
			reset(c)
			continue
		}
		go func() {
			defer f.end()
			f.forward(c)
		}()
	}
}

// destination is what a connection made to local (an address and port in
// the sandbox) stands for: the allowed name or address, and whether it is
// allowed at that port.
func (f *forwarder) destination(local netip.AddrPort) (host string, ok bool) {
	a, port := local.Addr().Unmap(), local.Port()
	f.mu.Lock()
	name, named := f.byAddr[a]
	f.mu.Unlock()
	if named {
		return name, f.allow.Allows(name, port)
	}
	host = a.String()
	if f.allow.Allows(host, port) {
		return host, true
	}
	if a.IsLoopback() && (a == netip.MustParseAddr("127.0.0.1") || a == netip.IPv6Loopback()) && f.allow.Allows("localhost", port) {
		return "localhost", true
	}
	return host, false
}

// forward serves one connection: refused unless allowed, else dialled
// by the checker and spliced.
func (f *forwarder) forward(c net.Conn) {
	if !f.track(c) {
		c.Close()
		return
	}
	defer f.untrack(c)
	defer c.Close()
	local, err := netip.ParseAddrPort(c.LocalAddr().String())
	if err != nil {
		return
	}
	host, ok := f.destination(local)
	if !ok {
		f.refuse(host, local.Port(), "not allowed")
		reset(c)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.dialTimeout)
	up, err := f.dial(ctx, host, local.Port())
	cancel()
	if err != nil {
		f.refuse(host, local.Port(), "allowed, but "+err.Error())
		reset(c)
		return
	}
	if !f.track(up) {
		up.Close()
		return
	}
	defer f.untrack(up)
	defer up.Close()
	splice(c, up)
}

// reset closes c with a reset, so the server's connect or first read
// fails at once instead of waiting.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.Close()
}

// splice copies both ways until each side has finished sending, passing
// each half-close on; on Linux io.Copy between TCP sockets is splice(2).
func splice(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(b, a)
		closeWrite(b)
	}()
	_, _ = io.Copy(a, b)
	closeWrite(a)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	c.Close()
}

// dial connects to host:port from the checker. An IP literal is dialled
// as is; localhost is the checker's own loopback; a name is resolved once
// per run and every later connection goes to the same addresses.
func (f *forwarder) dial(ctx context.Context, host string, port uint16) (net.Conn, error) {
	var addrs []netip.Addr
	switch {
	case host == "localhost":
		addrs = []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}
	default:
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
			break
		}
		var err error
		if addrs, err = f.lookup(ctx, host); err != nil {
			return nil, err
		}
	}
	var last error
	for _, a := range addrs {
		c, err := f.dialer(ctx, "tcp", netip.AddrPortFrom(a, port).String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, fmt.Errorf("the checker could not connect: %v", last)
}

// lookup is the checker's resolution of an allowed name, made once per
// run. A name that resolves to loopback, link-local, multicast or
// unspecified addresses does not reach them: an allowed name is someone
// else's host, and pointing it at the runner's own services or the
// cloud's metadata address is exactly what a rebinding name does.
// localhost and IP literals are named as such in the allowance.
func (f *forwarder) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	if a, ok := f.pinned[host]; ok {
		f.mu.Unlock()
		return a, nil
	}
	f.mu.Unlock()
	got, err := f.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("the checker could not resolve it: %v", err)
	}
	var addrs []netip.Addr
	for _, a := range got {
		a = a.Unmap()
		if a.IsUnspecified() || a.IsMulticast() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
			a.IsLoopback() && !f.lookupLoopback {
			continue
		}
		addrs = append(addrs, a)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("it resolves only to addresses an allowed name may not reach (%v)", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.pinned[host]; ok {
		return a, nil // another connection resolved it first: one answer per run
	}
	f.pinned[host] = addrs
	return addrs, nil
}

// The name server. It answers from the allowance alone and never asks
// anyone: an allowed name gets its sandbox address (A), nothing else
// (AAAA, HTTPS, MX: no data); any other name does not exist (NXDOMAIN,
// which a program reports at once as "not found") and is recorded.

// serveDNSUDP answers queries on the sandbox's 127.0.0.1:53.
func (f *forwarder) serveDNSUDP(pc net.PacketConn) {
	if !f.track(pc) {
		pc.Close()
		return
	}
	defer f.untrack(pc)
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if out := f.answer(buf[:n]); out != nil {
			_, _ = pc.WriteTo(out, from)
		}
	}
}

// serveDNSTCP answers queries over TCP (a resolver retries a truncated
// answer there, and some ask there first).
func (f *forwarder) serveDNSTCP(ln net.Listener) {
	if !f.track(ln) {
		ln.Close()
		return
	}
	defer f.untrack(ln)
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !f.begin() {
			c.Close()
			if f.isClosed() {
				return
			}
			continue
		}
		go func() {
			defer f.end()
			if !f.track(c) {
				c.Close()
				return
			}
			defer f.untrack(c)
			defer c.Close()
			for i := 0; i < 64; i++ {
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				var l [2]byte
				if _, err := io.ReadFull(c, l[:]); err != nil {
					return
				}
				q := make([]byte, binary.BigEndian.Uint16(l[:]))
				if _, err := io.ReadFull(c, q); err != nil {
					return
				}
				out := f.answer(q)
				if out == nil {
					return
				}
				if _, err := c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...)); err != nil {
					return
				}
			}
		}()
	}
}

const (
	dnsTypeA     = 1
	dnsClassIN   = 1
	rcodeNXName  = 3
	rcodeFormErr = 1
	rcodeNotImp  = 4
)

// answer is the reply to one query message, nil for what is not a query.
func (f *forwarder) answer(q []byte) []byte {
	if len(q) < 12 || q[2]&0x80 != 0 { // too short, or a response
		return nil
	}
	reply := func(rcode byte, question []byte, answers ...[]byte) []byte {
		out := make([]byte, 12, 12+len(question)+16*len(answers))
		copy(out, q[:2])
		out[2] = 0x80 | q[2]&0x79 | 0x04 // QR, opcode and RD as asked, AA
		out[3] = 0x80 | rcode            // RA
		if question != nil {
			out[5] = 1
		}
		out[7] = byte(len(answers))
		out = append(out, question...)
		for _, a := range answers {
			out = append(out, a...)
		}
		return out
	}
	if q[2]&0x78 != 0 { // not a standard query
		return reply(rcodeNotImp, nil)
	}
	if binary.BigEndian.Uint16(q[4:6]) != 1 {
		return reply(rcodeFormErr, nil)
	}
	name, end, ok := readName(q, 12)
	if !ok || end+4 > len(q) {
		return reply(rcodeFormErr, nil)
	}
	question := q[12 : end+4]
	qtype, qclass := binary.BigEndian.Uint16(q[end:]), binary.BigEndian.Uint16(q[end+2:])
	name = normalHost(name)
	var addr netip.Addr
	switch {
	case name == "localhost":
		addr = netip.MustParseAddr("127.0.0.1")
	case f.allow.AllowsName(name):
		a, ok := f.addrFor(name)
		if !ok {
			f.refuse(name, 0, "too many names looked up")
			return reply(rcodeNXName, question)
		}
		addr = a
	default:
		f.refuse(name, 0, "name not allowed")
		return reply(rcodeNXName, question)
	}
	if qtype != dnsTypeA || qclass != dnsClassIN {
		return reply(0, question) // the name exists; no data of that type
	}
	// The answer: a pointer to the question's name, type A, class IN,
	// TTL, and the four bytes.
	rr := []byte{0xc0, 12, 0, dnsTypeA, 0, dnsClassIN, 0, 0, 0x0e, 0x10, 0, 4}
	a4 := addr.As4()
	return reply(0, question, append(rr, a4[:]...))
}

// readName reads an uncompressed name at off, as queries carry it; end is
// the offset after it.
func readName(m []byte, off int) (name string, end int, ok bool) {
	var labels []string
	for total := 0; off < len(m); {
		l := int(m[off])
		off++
		if l == 0 {
			return strings.Join(labels, "."), off, true
		}
		if l > 63 || off+l > len(m) {
			return "", 0, false
		}
		if total += l + 1; total > 255 {
			return "", 0, false
		}
		labels = append(labels, string(m[off:off+l]))
		off += l
	}
	return "", 0, false
}

// The capture. Besides the listeners, the helper hands the checker a
// packet socket on the sandbox's loopback (netns_linux.go), filtered in the
// kernel to the first packet of every TCP connection (a SYN without ACK)
// and to UDP. A connection to a port nothing listens on is reset by the
// kernel at once (the server sees "connection refused"); its SYN names the
// destination here, so every refused TCP destination is in the report, not
// only those on an allowed port, which the listeners see.

// Protocol numbers and TCP flags the capture reads.
const (
	protoTCP = 6
	protoUDP = 17
	tcpSYN   = 0x02
	tcpACK   = 0x10
)

// sawPacket records what one captured packet (its IP header first) tried
// to reach, if that is a refusal. A SYN to an allowed port is the
// listeners' to judge; a lookup is the name server's (UDP or TCP to
// 127.0.0.1:53, and its answers, from port 53). Anything malformed is
// ignored: the packet was built by the kernel for a server's connect or
// send, but the checker trusts nothing of the sandbox's.
func (f *forwarder) sawPacket(pkt []byte) {
	var (
		dst   netip.Addr
		proto byte
		l4    []byte
	)
	switch {
	case len(pkt) >= 20 && pkt[0]>>4 == 4:
		ihl := int(pkt[0]&0xf) * 4
		if ihl < 20 || len(pkt) < ihl+8 {
			return
		}
		dst, proto, l4 = netip.AddrFrom4([4]byte(pkt[16:20])), pkt[9], pkt[ihl:]
	case len(pkt) >= 48 && pkt[0]>>4 == 6:
		// No extension headers: the kernel's own TCP and UDP over
		// loopback add none.
		dst, proto, l4 = netip.AddrFrom16([16]byte(pkt[24:40])).Unmap(), pkt[6], pkt[40:]
	default:
		return
	}
	src, port := binary.BigEndian.Uint16(l4[0:2]), binary.BigEndian.Uint16(l4[2:4])
	if port == 0 { // no connection is made to it; a Refusal with port 0 is a lookup
		return
	}
	dns := port == DNSPort && (dst == netip.MustParseAddr("127.0.0.1"))
	switch proto {
	case protoTCP:
		if len(l4) < 14 || l4[13]&(tcpSYN|tcpACK) != tcpSYN || dns || slices.Contains(f.allow.Ports(), port) {
			return
		}
		f.refuse(f.hostFor(dst), port, "not allowed")
	case protoUDP:
		if dns || src == DNSPort {
			return
		}
		f.refuse(f.hostFor(dst), port, "UDP, which the sandbox does not carry")
	}
}

// hostFor names a sandbox address as the server knew it: the allowed name
// the name server gave it for, or the address itself.
func (f *forwarder) hostFor(a netip.Addr) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if name, ok := f.byAddr[a]; ok {
		return name
	}
	return a.String()
}

// netFD is the helper's end of the socket its listeners are handed to
// the checker over (fd 3 is a held launch's gate, or nothing).
const netFD = 4

// netPolicy is what a strict helper with a network allowance sets up in
// its network namespace before anything of the server runs.
type netPolicy struct {
	Ports []uint16 // the allowed ports: one listener each, on every address
	// Addrs are the IP literals of the allowance that are not loopback,
	// added to the namespace's loopback so that a connection to one
	// reaches the listeners (and, through the checker, that address).
	Addrs  []string
	Hosts  string // the file bound over /etc/hosts
	Resolv string // the file bound over /etc/resolv.conf
}

// Kinds of the sockets the helper hands over, in the message's header.
const (
	sockTCP     = "tcp"
	sockDNSUDP  = "dns-udp"
	sockDNSTCP  = "dns-tcp"
	sockCapture = "capture"
)

// sockMsg is the header of the one message the helper sends: what each
// passed descriptor is, in order.
type sockMsg struct {
	Kinds []string
	Ports []uint16
}
