//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Strict's seccomp filter closes one class Landlock leaves open: Unix-domain
// sockets. Landlock (before ABI 9) does not see connect(2) to a pathname
// socket, and the network namespace does not hold one either, so without the
// filter a strict server reaches every socket its uid may write wherever it
// is on disk: systemd-resolved's varlink (a DNS of its own), the D-Bus system
// and session buses, /var/run/docker.sock for a user in the docker group, an
// ssh agent under /tmp, nscd. Rather than a list of known paths, no new
// AF_UNIX socket that could be pointed at one is made at all:
//
//   - socket(AF_UNIX, ...) fails with EACCES ("permission denied"), at once;
//   - socketpair(AF_UNIX, ...) stays, for stream and seqpacket pairs only:
//     node (libuv) and Python make them for their children's stdio and
//     self-pipes, and a connected pair of those types cannot be connected
//     again (EISCONN) nor send to an address. A datagram pair can be
//     re-connected, or sendto any datagram socket (the journal's, /dev/log),
//     so it is refused;
//   - io_uring_setup fails with ENOSYS, as on a kernel without io_uring:
//     IORING_OP_SOCKET and IORING_OP_CONNECT run in the kernel and pass no
//     seccomp filter. libuv and the rest fall back to ordinary calls;
//   - a system call of any other ABI than the native one (i386 or x32 on
//     amd64, arm32 on arm64: their socket and socketcall have other numbers)
//     kills the process.
//
// Abstract sockets need no rule of their own: they are per network namespace
// and strict has one, and from Landlock ABI 6 its abstract-socket scope
// (restrictSelf) refuses one made outside the sandbox. The filter refuses
// them too, being AF_UNIX.

// seccompArch is what the filter needs of an architecture: its audit arch
// and its system call numbers.
type seccompArch struct {
	audit                  uint32
	x32                    bool   // amd64: refuse the x32 ABI's calls (same audit arch, bit 30 set)
	socket, socketpair, io uint32 // io: io_uring_setup
}

var (
	archAMD64 = seccompArch{audit: unix.AUDIT_ARCH_X86_64, x32: true, socket: 41, socketpair: 53, io: 425}
	archARM64 = seccompArch{audit: unix.AUDIT_ARCH_AARCH64, socket: 198, socketpair: 199, io: 425}
)

// x32SyscallBit marks a system call of the x32 ABI on amd64.
const x32SyscallBit = 0x40000000

// Offsets in struct seccomp_data: nr, arch, then the arguments, 8 bytes
// each; both architectures are little-endian, and an int argument is the
// low half (what the kernel reads of it).
const (
	dataNR   = 0
	dataArch = 4
	dataArg0 = 16
	dataArg1 = 24
)

// What the filter returns.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
	retEACCES = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// unixFilter is the filter for a, in classic BPF. Jumps go forward only
// and count from the next instruction, so each target is named in a
// comment; TestSeccompFilter runs the filter for both architectures.
func unixFilter(a seccompArch) []unix.SockFilter {
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jt, Jf: jf, K: k}
	}
	ld := func(off uint32) unix.SockFilter { return stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }
	ret := func(k uint32) unix.SockFilter { return stmt(unix.BPF_RET|unix.BPF_K, k) }
	x32 := jeq(0, 0, 0) // where there is no x32 ABI: on to 5 either way
	if a.x32 {
		x32 = unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, Jt: 15, K: x32SyscallBit}
	}
	return []unix.SockFilter{
		/*  0 */ ld(dataArch),
		/*  1 */ jeq(a.audit, 1, 0), // 3, or 2
		/*  2 */ ret(retKill), // another ABI
		/*  3 */ ld(dataNR),
		/*  4 */ x32, // an x32 call: 20
		/*  5 */ jeq(a.socket, 3, 0), // 9
		/*  6 */ jeq(a.socketpair, 4, 0), // 11
		/*  7 */ jeq(a.io, 11, 0), // 19
		/*  8 */ ret(retAllow),
		/*  9 */ ld(dataArg0), // socket(domain, type, protocol)
		/* 10 */ jeq(unix.AF_UNIX, 6, 7), // 17, or 18
		/* 11 */ ld(dataArg0), // socketpair(domain, type, protocol, sv)
		/* 12 */ jeq(unix.AF_UNIX, 0, 5), // 13, or 18
		/* 13 */ ld(dataArg1),
		/* 14 */ stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, 0xf), // the type without SOCK_CLOEXEC, SOCK_NONBLOCK
		/* 15 */ jeq(unix.SOCK_STREAM, 2, 0), // 18, or 16
		/* 16 */ jeq(unix.SOCK_SEQPACKET, 1, 0), // 18, or 17
		/* 17 */ ret(retEACCES),
		/* 18 */ ret(retAllow),
		/* 19 */ ret(retENOSYS),
		/* 20 */ ret(retKill), // x32
	}
}

// nativeArch is the filter's view of the architecture this runs on.
func nativeArch() (seccompArch, error) {
	switch runtime.GOARCH {
	case "amd64":
		return archAMD64, nil
	case "arm64":
		return archARM64, nil
	}
	return seccompArch{}, fmt.Errorf("strict's seccomp filter knows amd64 and arm64, not %s", runtime.GOARCH)
}

// errNoSeccomp wraps a refused filter: strict does not run without it.
var errNoSeccomp = errors.New("the kernel refused the filter")

// restrictUnixSockets installs unixFilter on this thread (no_new_privs is
// set): the exec that follows makes it the server's, and every process it
// starts inherits it. The helper locked the goroutine to its thread.
func restrictUnixSockets() error {
	a, err := nativeArch()
	if err != nil {
		return fmt.Errorf("%s %w", stageSeccomp, err)
	}
	f := unixFilter(a)
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("%s %w: %w", stageSeccomp, errNoSeccomp, err)
	}
	runtime.KeepAlive(f)
	return nil
}
