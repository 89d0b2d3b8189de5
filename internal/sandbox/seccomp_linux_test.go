//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter runs a classic BPF seccomp filter on one system call, as the
// kernel would, for the instructions unixFilter uses; the steps are
// bounded by the program's length, since its jumps go forward only.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	var data [64]byte // struct seccomp_data
	binary.LittleEndian.PutUint32(data[dataNR:], nr)
	binary.LittleEndian.PutUint32(data[dataArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[dataArg0+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			if in.K%4 != 0 || in.K+4 > uint32(len(data)) {
				t.Fatalf("instruction %d loads at %d", pc, in.K)
			}
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			taken := acc == in.K
			if in.Code&0xf0 == unix.BPF_JSET {
				taken = acc&in.K != 0
			}
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x is not one the filter uses", pc, in.Code)
		}
	}
	t.Fatalf("the filter ran off its end")
	return 0
}

// TestSeccompFilter: strict's filter, for amd64 and arm64, refuses every
// new Unix-domain socket but connected stream and seqpacket pairs, and
// io_uring, and kills a call of another ABI; it leaves everything else.
func TestSeccompFilter(t *testing.T) {
	const (
		cloexec  = unix.SOCK_CLOEXEC
		nonblock = unix.SOCK_NONBLOCK
		high     = 1 << 32 // the kernel reads an int argument's low half
	)
	for _, tc := range []struct {
		name  string
		a     seccompArch
		other uint32 // the compat ABI's audit arch
	}{
		{"amd64", archAMD64, unix.AUDIT_ARCH_I386},
		{"arm64", archARM64, unix.AUDIT_ARCH_ARM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := unixFilter(tc.a)
			if len(prog) > 64 {
				t.Errorf("%d instructions", len(prog))
			}
			a := tc.a
			for _, c := range []struct {
				what string
				arch uint32
				nr   uint32
				args []uint64
				want uint32
			}{
				{"socket(AF_UNIX, SOCK_STREAM)", a.audit, a.socket, []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retEACCES},
				{"socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC)", a.audit, a.socket, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM | cloexec}, retEACCES},
				{"socket(AF_UNIX + high bits)", a.audit, a.socket, []uint64{high | unix.AF_UNIX, unix.SOCK_STREAM}, retEACCES},
				{"socket(AF_INET, SOCK_STREAM)", a.audit, a.socket, []uint64{unix.AF_INET, unix.SOCK_STREAM}, retAllow},
				{"socket(AF_INET6, SOCK_DGRAM)", a.audit, a.socket, []uint64{unix.AF_INET6, unix.SOCK_DGRAM}, retAllow},
				{"socket(AF_NETLINK)", a.audit, a.socket, []uint64{unix.AF_NETLINK, unix.SOCK_RAW}, retAllow},
				{"socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC)", a.audit, a.socketpair, []uint64{unix.AF_UNIX, unix.SOCK_STREAM | cloexec}, retAllow},
				{"socketpair(AF_UNIX, SOCK_SEQPACKET|SOCK_NONBLOCK)", a.audit, a.socketpair, []uint64{unix.AF_UNIX, unix.SOCK_SEQPACKET | nonblock}, retAllow},
				{"socketpair(AF_UNIX, SOCK_DGRAM)", a.audit, a.socketpair, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM}, retEACCES},
				{"socketpair(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC)", a.audit, a.socketpair, []uint64{unix.AF_UNIX, unix.SOCK_DGRAM | cloexec}, retEACCES},
				{"socketpair(AF_UNIX, SOCK_RAW)", a.audit, a.socketpair, []uint64{unix.AF_UNIX, unix.SOCK_RAW}, retEACCES},
				{"socketpair(AF_UNIX, high bits + SOCK_DGRAM)", a.audit, a.socketpair, []uint64{unix.AF_UNIX, high | unix.SOCK_DGRAM}, retEACCES},
				{"io_uring_setup", a.audit, a.io, []uint64{8, 0}, retENOSYS},
				{"read", a.audit, 0, nil, retAllow},
				{"socket, another ABI", tc.other, a.socket, []uint64{unix.AF_UNIX}, retKill},
				{"getpid, another ABI", tc.other, 20, nil, retKill},
			} {
				if got := runFilter(t, prog, c.arch, c.nr, c.args...); got != c.want {
					t.Errorf("%s: %#x, want %#x", c.what, got, c.want)
				}
			}
			x32 := runFilter(t, prog, a.audit, x32SyscallBit|archAMD64.socket, unix.AF_INET)
			if a.x32 && x32 != retKill || !a.x32 && x32 != retAllow {
				t.Errorf("an x32 call on %s: %#x", tc.name, x32)
			}
		})
	}
}
