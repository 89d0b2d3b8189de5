//go:build linux

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// netCaps are the capabilities of its own namespaces the helper needs to
// set the network up (loopback up, a port below 1024); cleared with the
// others before the server's exec.
var netCaps = []uintptr{unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE, unix.CAP_NET_RAW}

func netSupported() error { return nil }

// setupNet runs in the helper, in the new namespaces, holding its
// capabilities there: loopback up, the resolver's files replaced, the
// listeners opened and handed to the checker. Any failure fails the
// launch: a server with an allowance never runs without its forwarding,
// and never with more.
func setupNet(np *netPolicy) error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("network: bringing loopback up: %w", err)
	}
	// Every address local, on loopback ("AnyIP"): a connect to an
	// address the allowance does not name reaches the namespace's own
	// loopback, where it is reset (or accepted on an allowed port and
	// refused by the checker) and named, rather than failing with "network
	// unreachable" unseen. Best effort, like the capture: without it such
	// a connect still fails at once.
	for _, family := range []int{unix.AF_INET, unix.AF_INET6} {
		_ = addLocalRoute(family)
	}
	for i, a := range np.Addrs {
		if err := addLoopbackAddr(i, a); err != nil {
			return fmt.Errorf("network: adding %s to the sandbox's loopback: %w", a, err)
		}
	}
	for _, m := range []struct{ src, dst string }{{np.Hosts, "/etc/hosts"}, {np.Resolv, "/etc/resolv.conf"}} {
		if err := unix.Mount(m.src, m.dst, "", unix.MS_BIND, ""); err != nil {
			if errors.Is(err, unix.ENOENT) {
				// No such file (or a symlink to none): the resolver
				// then asks 127.0.0.1, the sandbox's name server.
				continue
			}
			return fmt.Errorf("network: binding %s over %s: %w", m.src, m.dst, err)
		}
	}
	var fds []int
	var msg sockMsg
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, p := range np.Ports {
		fd, err := listenAll(p)
		if err != nil {
			return fmt.Errorf("network: listening on port %d: %w", p, err)
		}
		fds = append(fds, fd)
		msg.Kinds, msg.Ports = append(msg.Kinds, sockTCP), append(msg.Ports, p)
	}
	for _, typ := range []int{unix.SOCK_DGRAM, unix.SOCK_STREAM} {
		fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("network: name server socket: %w", err)
		}
		fds = append(fds, fd)
		if err := unix.Bind(fd, &unix.SockaddrInet4{Port: DNSPort, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			return fmt.Errorf("network: name server on 127.0.0.1:53: %w", err)
		}
		kind := sockDNSUDP
		if typ == unix.SOCK_STREAM {
			kind = sockDNSTCP
			if err := unix.Listen(fd, 64); err != nil {
				return fmt.Errorf("network: name server: %w", err)
			}
		}
		msg.Kinds, msg.Ports = append(msg.Kinds, kind), append(msg.Ports, DNSPort)
	}
	// The capture is the report's, not a defence: where the kernel has
	// no packet sockets, refusals on other ports go unnamed, and the
	// server runs as it would with one.
	if fd, err := openCapture(); err == nil {
		fds = append(fds, fd)
		msg.Kinds, msg.Ports = append(msg.Kinds, sockCapture), append(msg.Ports, 0)
	}
	hdr, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if err := unix.Sendmsg(netFD, hdr, unix.UnixRights(fds...), nil, 0); err != nil {
		return fmt.Errorf("network: handing the listeners to the checker: %w", err)
	}
	return unix.Close(netFD)
}

// captureFilter keeps, of what the sandbox's loopback receives, the
// first packet of each TCP connection (SYN without ACK) and UDP, IPv4 and
// IPv6, at most 128 bytes of each (the headers): everything else is
// dropped in the kernel, so the checker reads one packet per connection
// attempt. The socket is SOCK_DGRAM: offsets start at the IP header.
func captureFilter() []unix.SockFilter {
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jt, Jf: jf, K: k}
	}
	const (
		ldb      = unix.BPF_LD | unix.BPF_B | unix.BPF_ABS
		skfAdOff = 0xfffff000   // SKF_AD_OFF, -4096: the kernel's ancillary data
		pkttype  = skfAdOff + 4 // SKF_AD_PKTTYPE
	)
	return []unix.SockFilter{
		/*  0 */ stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, pkttype),
		/*  1 */ jeq(unix.PACKET_HOST, 0, 18), // the received copy only (lo shows each packet twice): 2, or 20
		/*  2 */ stmt(ldb, 0),
		/*  3 */ stmt(unix.BPF_ALU|unix.BPF_RSH|unix.BPF_K, 4), // the IP version
		/*  4 */ jeq(4, 1, 0), // 6, or 5
		/*  5 */ jeq(6, 7, 14), // 13, or 20
		/*  6 */ stmt(ldb, 9), // IPv4: the protocol
		/*  7 */ jeq(protoTCP, 1, 0), // 9, or 8
		/*  8 */ jeq(protoUDP, 10, 11), // 19, or 20
		/*  9 */ stmt(unix.BPF_LDX|unix.BPF_B|unix.BPF_MSH, 0), // X = the IPv4 header's length
		/* 10 */ stmt(unix.BPF_LD|unix.BPF_B|unix.BPF_IND, 13), // the TCP flags
		/* 11 */ stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, tcpSYN|tcpACK),
		/* 12 */ jeq(tcpSYN, 6, 7), // 19, or 20
		/* 13 */ stmt(ldb, 6), // IPv6: the next header
		/* 14 */ jeq(protoTCP, 1, 0), // 16, or 15
		/* 15 */ jeq(protoUDP, 3, 4), // 19, or 20
		/* 16 */ stmt(ldb, 40+13), // the TCP flags
		/* 17 */ stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, tcpSYN|tcpACK),
		/* 18 */ jeq(tcpSYN, 0, 1), // 19, or 20
		/* 19 */ stmt(unix.BPF_RET|unix.BPF_K, 128),
		/* 20 */ stmt(unix.BPF_RET|unix.BPF_K, 0),
	}
}

// openCapture opens the packet socket the checker reads refused
// destinations from: the namespace's loopback, filtered by captureFilter,
// with a small buffer (what overflows is dropped, never waited for).
// Only the helper, holding CAP_NET_RAW of its namespace, can open it; the
// server has no capability and never holds the socket.
func openCapture() (int, error) {
	// Protocol 0: nothing is queued until the filter is on and the
	// socket bound.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	f := captureFilter()
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	lo, err := net.InterfaceByName("lo")
	if err == nil {
		err = unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog)
	}
	if err == nil {
		err = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 64<<10)
	}
	if err == nil {
		err = unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: lo.Index})
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// addLocalRoute makes every address of family local to the namespace:
// `ip route add local 0.0.0.0/0 dev lo table local` (or ::/0), through
// rtnetlink, in this namespace only.
func addLocalRoute(family int) error {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	const size = unix.SizeofNlMsghdr + unix.SizeofRtMsg + unix.SizeofRtAttr + 4
	msg := make([]byte, 0, size)
	le := binary.NativeEndian
	msg = le.AppendUint32(msg, size)
	msg = le.AppendUint16(msg, unix.RTM_NEWROUTE)
	msg = le.AppendUint16(msg, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	msg = le.AppendUint32(msg, 1) // sequence
	msg = le.AppendUint32(msg, 0) // to the kernel
	// struct rtmsg: family, dst_len 0 (every address), src_len, tos,
	// table, protocol, scope, type, flags.
	msg = append(msg, byte(family), 0, 0, 0, unix.RT_TABLE_LOCAL, unix.RTPROT_BOOT, unix.RT_SCOPE_HOST, unix.RTN_LOCAL)
	msg = le.AppendUint32(msg, 0)
	msg = le.AppendUint16(msg, unix.SizeofRtAttr+4)
	msg = le.AppendUint16(msg, unix.RTA_OIF)
	msg = le.AppendUint32(msg, uint32(lo.Index))
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Header.Type == unix.NLMSG_ERROR && len(m.Data) >= 4 {
			if e := int32(le.Uint32(m.Data)); e != 0 {
				return syscall.Errno(-e)
			}
			return nil
		}
	}
	return errors.New("no answer from the kernel")
}

// loopbackUp sets lo up: 127.0.0.0/8 and ::1, in this namespace only.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// addLoopbackAddr puts an allowed IP literal on the namespace's loopback
// (an IPv4 one as the alias lo:N), so that a connection to it is local
// and reaches the listeners.
func addLoopbackAddr(n int, addr string) error {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return err
	}
	if a.Is4() {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		ifr, err := unix.NewIfreq(fmt.Sprintf("lo:%d", n+1))
		if err != nil {
			return err
		}
		b := a.As4()
		if err := ifr.SetInet4Addr(b[:]); err != nil {
			return err
		}
		return unix.IoctlIfreq(fd, unix.SIOCSIFADDR, ifr)
	}
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	// struct in6_ifreq: the address, its prefix length, the interface.
	var req struct {
		Addr      [16]byte
		Prefixlen uint32
		Ifindex   int32
	}
	req.Addr, req.Prefixlen, req.Ifindex = a.As16(), 128, int32(lo.Index)
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCSIFADDR, uintptr(unsafe.Pointer(&req))); e != 0 {
		return e
	}
	return nil
}

// listenAll listens on port on every address of the namespace: IPv6 and
// IPv4 on one socket, or IPv4 alone where the kernel has no IPv6.
func listenAll(port uint16) (int, error) {
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		if err = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0); err == nil {
			err = unix.Bind(fd, &unix.SockaddrInet6{Port: int(port)})
		}
		if err != nil {
			unix.Close(fd)
			fd = -1
		}
	}
	if fd < 0 {
		if fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
			return -1, err
		}
		if err := unix.Bind(fd, &unix.SockaddrInet4{Port: int(port)}); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// netSockets is the checker's end of one launch's hand-over: a socket
// pair, child for the helper (its netFD), parent read by receive.
func netSockets() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: network hand-over: %w", err)
	}
	// The sender's credentials come with its message: its pid is the
	// launch's, whose exit ends the launch's listeners.
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("sandbox: network hand-over: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "net"), os.NewFile(uintptr(fds[1]), "net"), nil
}

// receive waits for one launch's listeners and serves them until the
// launch's process has exited or the run is closed. A launch that never
// starts leaves it waiting until the run is closed.
//
// The checker's copy of the helper's end (child) is the cmd's to start
// with: it is closed with the run (track), never while a Start may still
// be reading it.
func (f *forwarder) receive(parent, child *os.File) {
	if !f.track(child) {
		child.Close()
	}
	c, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		return
	}
	uc, ok := c.(*net.UnixConn)
	if !ok || !f.track(uc) {
		c.Close()
		return
	}
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4*64)+unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	f.untrack(uc)
	uc.Close()
	if err != nil {
		return
	}
	var fds []int
	pid := 0
	if cmsgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range cmsgs {
			if r, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, r...)
			} else if cr, err := unix.ParseUnixCredentials(&m); err == nil {
				pid = int(cr.Pid)
			}
		}
	}
	var msg sockMsg
	if json.Unmarshal(buf[:n], &msg) != nil || len(msg.Kinds) != len(fds) || pid <= 0 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return
	}
	var socks []io.Closer
	for i, fd := range fds {
		if msg.Kinds[i] == sockCapture {
			c, err := newCapture(fd)
			if err != nil {
				unix.Close(fd)
				continue
			}
			socks = append(socks, c)
			f.addCapture(c)
			go c.serve(f)
			continue
		}
		file := os.NewFile(uintptr(fd), "sandbox-"+msg.Kinds[i])
		switch msg.Kinds[i] {
		case sockDNSUDP:
			pc, err := net.FilePacketConn(file)
			file.Close()
			if err == nil {
				socks = append(socks, pc)
				go f.serveDNSUDP(pc)
			}
		case sockTCP, sockDNSTCP:
			ln, err := net.FileListener(file)
			file.Close()
			if err != nil {
				continue
			}
			socks = append(socks, ln)
			if msg.Kinds[i] == sockTCP {
				go f.serveTCP(ln)
			} else {
				go f.serveDNSTCP(ln)
			}
		default:
			file.Close()
		}
	}
	// The launch's sockets live as long as its process: the next launch
	// gets its own, in its own namespace. Connections already forwarded
	// end with their two sides.
	waitExit(pid)
	for _, s := range socks {
		if c, ok := s.(*capture); ok {
			// Every SYN of the launch is queued by now: the kernel
			// delivers it before the reset that failed the connect.
			c.drain(f)
			f.removeCapture(c)
		}
		s.Close()
	}
}

// capture reads a launch's packet socket (openCapture) for the forwarder.
// mu is held from a packet's read to its record: once drain returns,
// every packet queued before it was called is in the forwarder's list.
type capture struct {
	file *os.File
	rc   syscall.RawConn
	done chan struct{}
	mu   sync.Mutex
}

func newCapture(fd int) (*capture, error) {
	// Non-blocking before NewFile: the runtime's poller then waits for
	// it, and Close wakes a read.
	if err := unix.SetNonblock(fd, true); err != nil {
		return nil, err
	}
	file := os.NewFile(uintptr(fd), "sandbox-"+sockCapture)
	rc, err := file.SyscallConn()
	if err != nil {
		file.Close()
		return nil, err
	}
	return &capture{file: file, rc: rc, done: make(chan struct{})}, nil
}

// serve hands each packet to f until the socket is closed.
func (c *capture) serve(f *forwarder) {
	defer close(c.done)
	buf := make([]byte, 256)
	for {
		var n int
		var rerr error
		err := c.rc.Read(func(fd uintptr) bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			n, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
			if rerr == nil {
				f.sawPacket(buf[:n])
			}
			return !errors.Is(rerr, unix.EAGAIN)
		})
		if err != nil || rerr != nil && !errors.Is(rerr, unix.EINTR) {
			return
		}
	}
}

// drain reads what is queued, without waiting.
func (c *capture) drain(f *forwarder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	buf := make([]byte, 256)
	_ = c.rc.Control(func(fd uintptr) {
		for range 4096 { // the buffer holds far fewer
			n, _, err := unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
			if err != nil {
				return
			}
			f.sawPacket(buf[:n])
		}
	})
}

// Close ends serve and waits for it, so that every packet it read is
// recorded when the launch's sockets are closed.
func (c *capture) Close() error {
	err := c.file.Close()
	<-c.done
	return err
}

// waitExit blocks until the process pid has exited (a zombie counts).
func waitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		if err == nil || !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}
