//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// netCaps are the capabilities of its own namespaces the helper needs to
// set the network up (loopback up, a port below 1024); cleared with the
// others before the server's exec.
var netCaps = []uintptr{unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE}

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
	hdr, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if err := unix.Sendmsg(netFD, hdr, unix.UnixRights(fds...), nil, 0); err != nil {
		return fmt.Errorf("network: handing the listeners to the checker: %w", err)
	}
	return unix.Close(netFD)
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
		s.Close()
	}
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
