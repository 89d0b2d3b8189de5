package testproc

import (
	"fmt"
	"os"
	"testing"
)

// NoPrivilege ends a test that cannot run here for lack of privilege (a
// strict sandbox the kernel refuses this user). On a developer's machine
// that is a skip. In CI (CI set, as .ci/run and GitHub set it) it is a
// failure: CI's machines allow strict both as root and as an ordinary
// user, so a skip there can only hide a regression, as it once hid that
// strict failed for every user but root.
func NoPrivilege(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s (CI=%s: this machine must allow it, so this is a failure, not a skip)", msg, os.Getenv("CI"))
	}
	tb.Skip(msg)
}
