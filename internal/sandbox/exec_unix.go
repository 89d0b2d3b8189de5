//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"strings"
)

// basicIsolation is the report's line for Basic without Landlock.
const basicIsolation = "basic: env scrubbed, fresh HOME and TMPDIR, canaries, rlimits (writes not restricted: no landlock)"

// envAllowPlatform: nothing beyond envAllow on Unix.
var envAllowPlatform []string

// platformHome: HOME and XDG_* are all a Unix program looks at.
func (r *Run) platformHome(map[string]string) {}

// hasDir reports whether command names a path rather than a PATH lookup.
func hasDir(command string) bool { return strings.Contains(command, "/") }

// findExecutable returns p if it is an executable file.
func findExecutable(p string) (string, error) {
	if err := isExecutable(p); err != nil {
		return "", err
	}
	return p, nil
}

func isExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory", p)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", p)
	}
	return nil
}
