package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// A Basic launch on Linux can do without the helper. What the helper does
// before its exec (no_new_privs, Basic's Landlock write rules, the
// rlimits, close-on-exec on inherited files) can be had in the checker
// without loosening any of it:
//
//   - no_new_privs and a Landlock domain are per thread, and a child
//     inherits its forking thread's. A goroutine locked to its thread
//     sets both there and forks the server from it; it never unlocks, so
//     when it returns the runtime ends the thread instead of running
//     other work on it. New threads the runtime needs meanwhile are not
//     cloned from a locked thread (the runtime has a clean template
//     thread make them), so the restrictions stay on the one thread.
//   - rlimits are per process, so they cannot be set on a thread of the
//     checker. The server is started traced (PTRACE_TRACEME, right before
//     its execve): it stops before its first instruction, the thread that
//     forked it sets the limits with prlimit and detaches. No instruction
//     of the server runs without them, and a server that forks at once
//     forks with them.
//
// That saves the helper's own start, a second start of this binary (about
// 16 ms a launch here). Where it cannot be had, Start uses the helper: a
// launch held at its gate, a cmd with a parent-death signal (which would
// fire when the launching thread ends), or a machine that refuses
// PTRACE_TRACEME (directSupported).

// cldTrapped is CLD_TRAPPED, the siginfo code of a ptrace stop, which
// x/sys/unix does not name.
const cldTrapped = 4

// directSupported reports whether a child of this process can be started
// traced. Not where Yama allows ptrace to admins only or not at all
// (ptrace_scope 2 and 3 refuse PTRACE_TRACEME), where SELinux denies ptrace
// (deny_ptrace), under an AppArmor profile or a seccomp filter (a
// container's may refuse ptrace), nor where this process is itself traced
// (a tracer following forks would own the child). Any doubt means the
// helper, which is slower and needs none of it.
func directSupported() bool { return traceable() && !refused.Load() }

var traceable = sync.OnceValue(func() bool {
	first := func(path string) (string, bool) {
		b, err := os.ReadFile(path)
		return strings.TrimSpace(string(b)), err == nil
	}
	if s, ok := first("/proc/sys/kernel/yama/ptrace_scope"); ok && s != "0" && s != "1" {
		return false
	}
	if s, ok := first("/sys/fs/selinux/booleans/deny_ptrace"); ok && !strings.HasPrefix(s, "0") {
		return false
	}
	label, ok := first("/proc/self/attr/apparmor/current")
	if !ok {
		label, ok = first("/proc/self/attr/current")
	}
	if ok && label != "unconfined" {
		return false
	}
	status, ok := first("/proc/self/status")
	if !ok {
		return false
	}
	fields := map[string]string{}
	for line := range strings.Lines(status) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	return fields["TracerPid"] == "0" && fields["Seccomp"] == "0"
})

// refused records a traced start the kernel refused after all: the launch
// that found out fails closed, later ones use the helper.
var refused atomic.Bool

// hasParentDeathSignal reports a cmd with Pdeathsig, which the kernel
// sends when the thread that forked the child ends.
func hasParentDeathSignal(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0
}

// startDirect starts cmd, built for the helper from policy p, as the
// server itself: see the top of this file. On error nothing of the server
// ran and nothing is left to wait for.
func startDirect(cmd *exec.Cmd, p policy) error {
	errc := make(chan error, 1)
	go launchOnOwnThread(cmd, p, errc)
	return <-errc
}

// launchOnOwnThread locks its goroutine to its thread, never to unlock it:
// the thread takes the server's restrictions, and ends when this returns.
// Except the main thread, which the runtime does not end but parks for
// good, restrictions and all: holding it, another goroutine (which cannot
// be given it meanwhile) launches instead.
func launchOnOwnThread(cmd *exec.Cmd, p policy, errc chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		inner := make(chan error, 1)
		go launchOnOwnThread(cmd, p, inner)
		err := <-inner
		runtime.UnlockOSThread() // nothing was restricted here
		errc <- err
		return
	}
	errc <- launchTraced(cmd, p)
}

// launchTraced runs on a locked thread of its own.
func launchTraced(cmd *exec.Cmd, p policy) error {
	rls, err := rlimitsFor(p.Limits)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if p.WriteOnly {
		if err := restrictWrites(p.RW); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	// Files this process inherited without close-on-exec would pass to
	// the server; its own are all close-on-exec.
	if err := closeOnExecAbove3(); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		if errors.Is(err, unix.EPERM) {
			refused.Store(true)
			err = fmt.Errorf("%w (a traced start was refused here; the next launches start through the sandbox helper)", err)
		}
		return err
	}
	pid := cmd.Process.Pid
	fail := func(err error) error {
		// Killed while stopped, before any instruction of its own:
		// nothing else of it runs.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("sandbox: starting %s: %w", cmd.Path, err)
	}
	// Its stop at the exec, left in place (WNOWAIT) so that an exit
	// instead (a kill from the context) stays for cmd.Wait.
	var info unix.Siginfo
	for {
		err = unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fail(fmt.Errorf("waiting for its exec: %w", err))
	}
	if info.Code != cldTrapped {
		return fail(errors.New("it ended before its first instruction"))
	}
	// Should this process die before the detach, the server dies too
	// rather than run on without its limits.
	if err := unix.PtraceSetOptions(pid, unix.PTRACE_O_EXITKILL); err != nil {
		return fail(fmt.Errorf("ptrace: %w", err))
	}
	for _, rl := range rls {
		if err := unix.Prlimit(pid, rl.res, &unix.Rlimit{Cur: rl.lim.Cur, Max: rl.lim.Max}, nil); err != nil {
			return fail(fmt.Errorf("prlimit %s=%d: %w", rl.name, rl.lim.Cur, err))
		}
	}
	if err := unix.PtraceDetach(pid); err != nil {
		return fail(fmt.Errorf("ptrace detach: %w", err))
	}
	return nil
}
