//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestStrictCause forces each reason Strict can fail for, on a faked
// machine, and checks that the message names that reason and its one fix,
// and no sysctl that was not the cause.
func TestStrictCause(t *testing.T) {
	fork := func(errno syscall.Errno) error {
		return &os.PathError{Op: "fork/exec", Path: "/x/mcp-lockcheck", Err: errno}
	}
	sysctls := []string{"kernel.apparmor_restrict_unprivileged_userns", "user.max_user_namespaces", "kernel.unprivileged_userns_clone"}
	for _, c := range []struct {
		name     string
		uid      int
		sysctl   map[string]string
		seccomp  string
		start    error
		helper   string
		sentinel error
		want     []string
		sysctlOK string // the one sysctl the message may name
	}{
		{name: "max_user_namespaces=0", uid: 1001, sysctl: map[string]string{"user/max_user_namespaces": "0", "kernel/apparmor_restrict_unprivileged_userns": "0"},
			start: fork(syscall.ENOSPC), sentinel: ErrNoUserNamespace, want: []string{"user.max_user_namespaces", "no space left"}, sysctlOK: "user.max_user_namespaces"},
		{name: "namespaces used up", uid: 0, sysctl: map[string]string{"user/max_user_namespaces": "3"},
			start: fork(syscall.ENOSPC), sentinel: ErrNoUserNamespace, want: []string{"switched off or used up"}, sysctlOK: "user.max_user_namespaces"},
		{name: "Debian's unprivileged_userns_clone=0", uid: 1001, sysctl: map[string]string{"kernel/unprivileged_userns_clone": "0", "user/max_user_namespaces": "15000"},
			start: fork(syscall.EPERM), sentinel: ErrNoUserNamespace, want: []string{"kernel.unprivileged_userns_clone=0"}, sysctlOK: "kernel.unprivileged_userns_clone"},
		{name: "seccomp filter", uid: 1001, sysctl: map[string]string{"user/max_user_namespaces": "15000"}, seccomp: "2",
			start: fork(syscall.EPERM), sentinel: ErrNoUserNamespace, want: []string{"seccomp filter", "Seccomp: 2", "seccomp=unconfined"}},
		{name: "AppArmor denies the clone", uid: 1001, sysctl: map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1", "user/max_user_namespaces": "15000"},
			start: fork(syscall.EACCES), sentinel: ErrNoUserNamespace, want: []string{"AppArmor restricts"}, sysctlOK: "kernel.apparmor_restrict_unprivileged_userns"},
		{name: "AppArmor denies the maps", uid: 1001, sysctl: map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"},
			helper: stageMaps + " /proc/self/uid_map: write /proc/self/uid_map: operation not permitted", sentinel: ErrNoUserNamespace,
			want: []string{"uid and gid maps", "AppArmor restricts"}, sysctlOK: "kernel.apparmor_restrict_unprivileged_userns"},
		{name: "AppArmor denies the mount", uid: 1001, sysctl: map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"},
			helper: stageMount + " mounting the sandbox's own /proc: operation not permitted", sentinel: ErrNoUserNamespace,
			want: []string{"mount its own /proc", "AppArmor restricts"}, sysctlOK: "kernel.apparmor_restrict_unprivileged_userns"},
		{name: "root is not restricted by AppArmor", uid: 0, sysctl: map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"},
			helper: stageMount + " mounting the sandbox's own /proc: operation not permitted", sentinel: ErrNoUserNamespace,
			want: []string{"mount its own /proc", "not partly masked"}},
		{name: "map write refused", uid: 1001, sysctl: map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "0"},
			helper: stageMaps + " /proc/self/gid_map: write /proc/self/gid_map: operation not permitted", sentinel: ErrNoUserNamespace,
			want: []string{"uid and gid maps failed", "gid_map"}},
		{name: "proc mount refused in a container", uid: 1001, sysctl: map[string]string{},
			helper: stageMount + " mounting the sandbox's own /proc: operation not permitted", sentinel: ErrNoUserNamespace,
			want: []string{"could not mount its own /proc", "not partly masked"}},
		{name: "seccomp filter refused", uid: 1001, sysctl: map[string]string{},
			helper: stageSeccomp + " the kernel refused the filter: invalid argument", sentinel: ErrNoLandlock,
			want: []string{"seccomp filter", "Unix-domain sockets", "CONFIG_SECCOMP_FILTER"}},
		{name: "landlock refused", uid: 1001, sysctl: map[string]string{},
			helper: stageLandlock + " landlock_restrict_self: operation not permitted", sentinel: ErrNoLandlock,
			want: []string{"Landlock ruleset", "lsm="}},
		{name: "helper not executable", uid: 1001, sysctl: map[string]string{"user/max_user_namespaces": "15000"},
			start: fork(syscall.EACCES), sentinel: ErrNoHelper, want: []string{"starting the sandbox helper", "permission denied"}},
		{name: "nothing explains it", uid: 1001, sysctl: map[string]string{"user/max_user_namespaces": "15000", "kernel/apparmor_restrict_unprivileged_userns": "0"}, seccomp: "0",
			start: fork(syscall.EPERM), sentinel: ErrNoUserNamespace, want: []string{"no setting this checker can read explains it"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := machine{uid: c.uid, seccomp: c.seccomp, sysctl: func(name string) (string, bool) {
				v, ok := c.sysctl[name]
				return v, ok
			}}
			err := m.cause(c.start, c.helper)
			if !errors.Is(err, c.sentinel) {
				t.Errorf("%v: not %v", err, c.sentinel)
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
			for _, s := range sysctls {
				if s != c.sysctlOK && strings.Contains(msg, "sysctl -w "+s) {
					t.Errorf("message suggests %s, which was not the cause:\n%s", s, msg)
				}
			}
			if c.sysctlOK != "" && !strings.Contains(msg, "sysctl -w "+c.sysctlOK) {
				t.Errorf("message does not give the fix (sysctl -w %s):\n%s", c.sysctlOK, msg)
			}
		})
	}
}

// TestStrictCauseForced forces a real cause: user namespaces switched off
// (user.max_user_namespaces=0) inside a user namespace of the test's own
// (made by unshare(1), as an unprivileged user can), where the kernel then
// refuses the helper's clone.
func TestStrictCauseForced(t *testing.T) {
	if os.Getenv(forcedCause) == "1" {
		fmt.Println(selfTest(testExe(t), Strict))
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("needs unshare(1) (util-linux)")
	}
	cmd := exec.Command(unshare, "-U", "-r", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" -test.run='^TestStrictCauseForced$' -test.v`, testExe(t))
	cmd.Env = append(os.Environ(), forcedCause+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "user namespaces are switched off or used up here (user.max_user_namespaces)") ||
		!strings.Contains(string(out), "sysctl -w user.max_user_namespaces") || strings.Contains(string(out), "apparmor") {
		t.Errorf("forced max_user_namespaces=0: %s", out)
	}
}

const forcedCause = "MCP_LOCKCHECK_TEST_FORCED_CAUSE"
