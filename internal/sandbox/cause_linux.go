//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// machine is what strictCause reads of this machine to tell why Strict
// failed. Tests fake it; [thisMachine] reads the real one.
type machine struct {
	uid int
	// sysctl reads /proc/sys/NAME (NAME with slashes); ok is false when
	// the file does not exist on this kernel.
	sysctl func(name string) (value string, ok bool)
	// seccomp is the Seccomp field of /proc/self/status: "0" none, "1"
	// strict, "2" a filter (a container runtime's, most often).
	seccomp string
}

func thisMachine() machine {
	m := machine{uid: os.Getuid(), sysctl: func(name string) (string, bool) {
		b, err := os.ReadFile("/proc/sys/" + name)
		return strings.TrimSpace(string(b)), err == nil
	}}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "Seccomp:"); ok {
				m.seccomp = strings.TrimSpace(v)
			}
		}
	}
	return m
}

// strictCause explains why Strict could not be applied: startErr is the
// error of starting the helper (the clone into new namespaces, or its
// exec), helperMsg what a helper that started said before it gave up.
func strictCause(startErr error, helperMsg string) error {
	return thisMachine().cause(startErr, helperMsg)
}

// The fixes strictCause names, one per cause.
const (
	fixBasic         = "or use --sandbox basic to run with less isolation"
	fixAppArmor      = "allow them with `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (the action does this when the runner has sudo), " + fixBasic
	fixMaxNS         = "allow them with `sudo sysctl -w user.max_user_namespaces=15000`, " + fixBasic
	fixUsernsOn      = "allow them with `sudo sysctl -w kernel.unprivileged_userns_clone=1`, " + fixBasic
	fixSeccomp       = "run the check on the host or a VM, or give the container a seccomp profile that allows user namespaces (docker: --security-opt seccomp=unconfined), " + fixBasic
	fixProc          = "run the check on the host or a VM, or in a container whose /proc is not partly masked (the kernel refuses a new /proc where parts of the old one are hidden), " + fixBasic
	fixSeccompFilter = "run the check on amd64 or arm64 Linux with seccomp filters (CONFIG_SECCOMP_FILTER), " + fixBasic
	fixLandlock      = "boot with landlock in the kernel's lsm= list (Linux 5.13+), " + fixBasic
)

// cause is strictCause against m. It names the step that failed and, where
// the machine shows why, the one setting behind it: never a sysctl that was
// not the cause.
func (m machine) cause(startErr error, helperMsg string) error {
	is := func(name, value string) bool {
		v, ok := m.sysctl(name)
		return ok && v == value
	}
	apparmor := m.uid != 0 && is("kernel/apparmor_restrict_unprivileged_userns", "1")
	if startErr != nil {
		var errno syscall.Errno
		errors.As(startErr, &errno)
		switch {
		case errno == syscall.EACCES && !apparmor || errno == syscall.ENOENT || errno == syscall.ENOEXEC:
			// The exec of the helper, not the clone: a checker
			// binary the user cannot execute, or one removed
			// under a running check.
			return fmt.Errorf("sandbox: %w: starting the sandbox helper: %v", ErrNoHelper, startErr)
		case is("user/max_user_namespaces", "0") || errno == syscall.ENOSPC || errno == syscall.EUSERS:
			return fmt.Errorf("sandbox: %w: %v: user namespaces are switched off or used up here (user.max_user_namespaces); %s",
				ErrNoUserNamespace, startErr, fixMaxNS)
		case m.uid != 0 && is("kernel/unprivileged_userns_clone", "0"):
			return fmt.Errorf("sandbox: %w: %v: unprivileged user namespaces are switched off here (kernel.unprivileged_userns_clone=0); %s",
				ErrNoUserNamespace, startErr, fixUsernsOn)
		case m.seccomp != "" && m.seccomp != "0":
			return fmt.Errorf("sandbox: %w: %v: this process runs under a seccomp filter (Seccomp: %s in /proc/self/status, as in a container) that refuses new namespaces; %s",
				ErrNoUserNamespace, startErr, m.seccomp, fixSeccomp)
		case apparmor:
			return fmt.Errorf("sandbox: %w: %v: AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1, the default on Ubuntu 24.04 and GitHub's ubuntu-24.04 runners); %s",
				ErrNoUserNamespace, startErr, fixAppArmor)
		}
		return fmt.Errorf("sandbox: %w: the kernel refused new user, network, PID and mount namespaces: %v; no setting this checker can read explains it (user namespaces allowed, no seccomp filter, no AppArmor restriction): %s",
			ErrNoUserNamespace, startErr, strings.TrimPrefix(fixBasic, "or "))
	}
	switch {
	case strings.HasPrefix(helperMsg, stageMaps), strings.HasPrefix(helperMsg, stageMount):
		step := "writing the sandbox's own uid and gid maps failed"
		fix := "the user namespace was created but its id maps were refused; " + fixBasic
		if strings.HasPrefix(helperMsg, stageMount) {
			step = "the sandbox could not mount its own /proc"
			fix = fixProc
		}
		if apparmor {
			// Ubuntu lets the namespace be made, then denies every
			// capability in it: the maps or the mount fail.
			return fmt.Errorf("sandbox: %w: %s (%s): AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1); %s",
				ErrNoUserNamespace, step, helperMsg, fixAppArmor)
		}
		return fmt.Errorf("sandbox: %w: %s (%s); %s", ErrNoUserNamespace, step, helperMsg, fix)
	case strings.HasPrefix(helperMsg, stageSeccomp):
		return fmt.Errorf("sandbox: %w: the helper could not install its seccomp filter, which keeps a strict server off the host's Unix-domain sockets (%s); %s", ErrNoLandlock, helperMsg, fixSeccompFilter)
	case strings.HasPrefix(helperMsg, stageLandlock):
		return fmt.Errorf("sandbox: %w: the helper could not apply its Landlock ruleset (%s); %s", ErrNoLandlock, helperMsg, fixLandlock)
	}
	return fmt.Errorf("sandbox: %w: the helper could not restrict itself: %s; %s", ErrNoLandlock, helperMsg, fixBasic)
}
