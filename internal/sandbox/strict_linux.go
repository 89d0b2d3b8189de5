//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
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
// namespaces. docs/sandbox.md: "A new user+network namespace
// (CLONE_NEWUSER|CLONE_NEWNET with a uid/gid map to oneself) is the real
// deny". A root checker maps root to root: the sandboxee keeps root's file
// ownership but holds capabilities only over its own namespaces.
//
// The helper writes its own uid and gid maps (through /proc/self, with
// setgroups denied), not the checker: the checker is not dumpable
// (ProtectSelf), so the kernel makes its forked child's /proc files root's
// until that child execs, and an unprivileged checker may not open the
// child's uid_map (EACCES at fork/exec, every strict launch refused). The
// helper is a fresh exec, dumpable, and may map its own ids. It is handed
// CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID of its new user namespace as
// ambient capabilities, because an exec by a uid that is not root in the
// namespace drops every other: without them it could neither write the
// maps nor mount its /proc. It clears them before it execs the server.
//
// The PID namespace (with its own /proc, mounted by the helper in the new
// mount namespace) means the server sees only its own processes: not the
// checker, not a sibling step's process holding ACTIONS_RUNTIME_TOKEN. Its
// first process is the namespace's init, so when it dies the kernel kills
// everything it left behind, however often that re-forked.
func setNamespaces(a *syscall.SysProcAttr, p *policy) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
	a.AmbientCaps = append(a.AmbientCaps, unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID)
	if p.Net != nil {
		a.AmbientCaps = append(a.AmbientCaps, netCaps...)
	}
	p.MapIDs = &idMap{UID: os.Getuid(), GID: os.Getgid()}
}

// writeIDMaps maps the helper's own uid and gid (the checker's) to
// themselves in the user namespace it was cloned into.
func writeIDMaps(m *idMap) error {
	for _, w := range []struct{ file, data string }{
		// An unprivileged gid map requires setgroups to be denied; a
		// root checker's is denied too, so the sandboxee cannot drop
		// into supplementary groups either way.
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/uid_map", fmt.Sprintf("%d %d 1", m.UID, m.UID)},
		{"/proc/self/gid_map", fmt.Sprintf("%d %d 1", m.GID, m.GID)},
	} {
		if err := os.WriteFile(w.file, []byte(w.data), 0); err != nil {
			return fmt.Errorf("%s %s: %w", stageMaps, w.file, err)
		}
	}
	return nil
}

// dropAmbient clears the ambient capabilities setNamespaces gave the
// helper, on the thread that will exec the server: a server run by a
// uid other than root then holds no capability at all, as before.
func dropAmbient() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	return nil
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
	if p.Net != nil {
		if err := setupNet(p.Net); err != nil {
			return err
		}
	}
	if err := dropAmbient(); err != nil {
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
	cfg := landlock.V6
	if p.Net != nil {
		// With an allowance, Landlock restricts binds only (ABI 4+), not
		// connects: the namespace holds nothing else to connect to than
		// the allowed ports' listeners and the name server, and a
		// connect to another port must reach the namespace's loopback,
		// where the kernel resets it at once and the checker's capture
		// names it. Landlock's EACCES would refuse it unseen.
		cfg.HandledAccessNet = ll.AccessNetBindTCP
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("%s ruleset: %w", stageLandlock, err)
	}
	if fd < 0 {
		return fmt.Errorf("%w: nothing to enforce on this kernel", ErrNoLandlock)
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("%s landlock_restrict_self: %w", stageLandlock, err)
	}
	// Last: nothing of the helper's own needs a Unix socket after this.
	return restrictUnixSockets()
}

// mountProc replaces /proc, in the helper's own mount namespace, with a proc
// of its own PID namespace. Mount events must not propagate back to the
// checker's namespace, so every mount is made private first. Failing here
// fails the launch (and Strict's preflight): a server never runs with the
// checker's /proc.
func mountProc() error {
	if os.Getpid() != 1 {
		return fmt.Errorf("%s the helper is not in a PID namespace of its own: refusing to mount /proc", stageMount)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("%s making mounts private in the sandbox's mount namespace: %w", stageMount, err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("%s mounting the sandbox's own /proc: %w", stageMount, err)
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
