package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/procgroup"
	"golang.org/x/sys/windows"
)

// execServer runs the server under a kill-on-close Job Object. Windows has
// no exec, so the helper stays as the server's parent: it joins a fresh
// job first (its children are in the job from their first instruction,
// no race with a server that spawns at once), starts the server on its
// own stdio, and exits with the server's status. The helper holds the
// job's only handle, so when it ends, killed or not, the kernel terminates
// the server and everything it started.
func execServer(path string, argv, env []string) error {
	job, err := procgroup.NewKillOnCloseJob()
	if err != nil {
		return err
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		return fmt.Errorf("joining the server's job object: %w", err)
	}
	cmd := exec.Command(path)
	cmd.Args = argv
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", path, err)
	}
	os.Exit(0)
	return nil
}

// setLimits: Windows has no rlimits. The job could cap memory and process
// count, but Basic promises rlimits only where the platform has them, and
// the report says so ([Run.Isolation]).
func setLimits(Limits) error { return nil }

// closeOnExecAbove3: the helper starts the server with its stdio only
// (exec.Cmd passes no other handle).
func closeOnExecAbove3() error { return nil }
