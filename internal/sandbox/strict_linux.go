//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockABI is the kernel's Landlock ABI version, 0 if it has none.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// strictSupported fails closed when the kernel has no Landlock at all.
// Missing newer features (TCP rules before ABI 4, scopes before ABI 6) are
// tolerated: the network namespace is the network deny.
func strictSupported() error {
	if v := landlockABI(); v < 1 {
		return fmt.Errorf("sandbox: %w: strict needs Linux 5.13+ with landlock in the lsm= boot list; use --sandbox basic to run with less isolation", ErrNoLandlock)
	}
	return nil
}

// setNamespaces makes the helper start in new user, network, PID and mount
// namespaces, mapping the checker's uid and gid to themselves. DESIGN: "A new
// user+network namespace (CLONE_NEWUSER|CLONE_NEWNET with a uid/gid map to
// oneself) is the real deny and works unprivileged here (loopback exists but
// is down)". A root checker maps root to root: the sandboxee keeps root's
// file ownership but holds capabilities only over its own namespaces.
//
// The PID namespace (with its own /proc, mounted by the helper in the new
// mount namespace) means the server sees only its own processes: not the
// checker, not a sibling step's process holding ACTIONS_RUNTIME_TOKEN. Its
// first process is the namespace's init, so when it dies the kernel kills
// everything it left behind, however often that re-forked.
func setNamespaces(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	// Unprivileged gid maps require setgroups to be denied.
	a.GidMappingsEnableSetgroups = false
}

// userNamespaceError explains a failed clone into new namespaces.
func userNamespaceError(err error) error {
	var hints []string
	if b, rerr := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); rerr == nil && strings.TrimSpace(string(b)) == "1" {
		hints = append(hints, "AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1, the default on Ubuntu 24.04 and GitHub's ubuntu-24.04 runners)")
	}
	if b, rerr := os.ReadFile("/proc/sys/user/max_user_namespaces"); rerr == nil && strings.TrimSpace(string(b)) == "0" {
		hints = append(hints, "user.max_user_namespaces=0")
	}
	if b, rerr := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); rerr == nil && strings.TrimSpace(string(b)) == "0" {
		hints = append(hints, "kernel.unprivileged_userns_clone=0")
	}
	hint := ""
	if len(hints) > 0 {
		hint = " (" + strings.Join(hints, "; ") + ")"
	}
	return fmt.Errorf("sandbox: %w: %v%s; allow them with `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (and user.max_user_namespaces > 0), or use --sandbox basic to run with less isolation",
		ErrNoUserNamespace, err, hint)
}

// devFiles are the device files every sandboxee gets.
var (
	devRW = []string{"/dev/null"}
	devRO = []string{"/dev/zero", "/dev/random", "/dev/urandom", "/dev/full"}
)

// restrictSelf sets no_new_privs (all levels: a server has no business
// gaining privileges through a setuid binary) and, for Strict, enforces the
// Landlock ruleset on this thread, which the exec that follows turns into the
// whole process. The goroutine stays locked to its thread on purpose.
//
// The config is V6 in best-effort mode: filesystem rights (read-only RO,
// read-write RW, /dev/null), TCP bind/connect denied (ABI 4+), and the
// signal and abstract-socket scopes (ABI 6+), so a sandboxee cannot signal
// the checker. A kernel without Landlock is refused (fail closed), not
// downgraded to nothing.
func restrictSelf(p policy) error {
	runtime.LockOSThread() // Never unlocked: see above.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if p.WriteOnly {
		return restrictWrites(p.RW)
	}
	if !p.Landlock {
		return nil
	}
	if err := mountProc(); err != nil {
		return err
	}
	if landlockABI() < 1 {
		return fmt.Errorf("%w: strict refuses to run without it", ErrNoLandlock)
	}
	var rules []landlock.Rule
	add := func(paths []string, rw bool) error {
		for _, path := range paths {
			fi, err := os.Stat(path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("landlock rule for %s: %w", path, err)
			}
			switch {
			case fi.IsDir() && rw:
				// Refer lets tools rename between directories of the
				// run dir (npm installs do); it never reaches outside.
				rules = append(rules, landlock.RWDirs(path).WithRefer())
			case fi.IsDir():
				rules = append(rules, landlock.RODirs(path))
			case rw:
				rules = append(rules, landlock.RWFiles(path))
			default:
				rules = append(rules, landlock.ROFiles(path))
			}
		}
		return nil
	}
	// The /proc just mounted shows this PID namespace only.
	if err := add(append([]string{"/proc"}, p.RO...), false); err != nil {
		return err
	}
	if err := add(devRO, false); err != nil {
		return err
	}
	if err := add(p.RW, true); err != nil {
		return err
	}
	if err := add(devRW, true); err != nil {
		return err
	}
	fd, flags, err := landlock.V6.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("%w: nothing to enforce on this kernel", ErrNoLandlock)
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// mountProc replaces /proc, in the helper's own mount namespace, with a proc
// of its own PID namespace. Mount events must not propagate back to the
// checker's namespace, so every mount is made private first. Failing here
// fails the launch (and Strict's preflight): a server never runs with the
// checker's /proc.
func mountProc() error {
	if os.Getpid() != 1 {
		return errors.New("the helper is not in a PID namespace of its own: refusing to mount /proc")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private in the sandbox's mount namespace: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting the sandbox's own /proc: %w", err)
	}
	return nil
}

// rlimitNPROC is RLIMIT_NPROC, which package syscall does not name.
const rlimitNPROC = unix.RLIMIT_NPROC

// writeRights are the filesystem rights that change something.
const writeRights = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
	ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// restrictWrites is Basic's Landlock ruleset: only the rights that write
// are handled, so reads are untouched, and writes are allowed beneath rw
// (and to /dev/null). Best effort: on a kernel without Landlock nothing is
// enforced, and the report's isolation line says so.
func restrictWrites(rw []string) error {
	if landlockABI() < 1 {
		return nil
	}
	rules := []landlock.Rule{landlock.PathAccess(ll.AccessFSWriteFile|ll.AccessFSTruncate, devRW...).IgnoreIfMissing()}
	for _, p := range rw {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			rules = append(rules, landlock.PathAccess(writeRights, p))
		} else {
			rules = append(rules, landlock.PathAccess(ll.AccessFSWriteFile|ll.AccessFSTruncate, p))
		}
	}
	// Enforced on this (locked) thread only, as Strict's is: the exec that
	// follows makes it the whole process. Config.RestrictPaths would
	// enforce it on every thread through libpsx, which in a cgo build
	// polls /proc/self/task for each thread's acknowledgement: about half
	// of the helper's time on a loaded machine, on every launch.
	fd, flags, err := landlock.Config{HandledAccessFS: writeRights}.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock (basic, writes): %w", err)
	}
	if fd < 0 {
		return nil // best effort: nothing to enforce on this kernel
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock (basic, writes): landlock_restrict_self: %w", err)
	}
	return nil
}
