package check

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// serverExpired reports that the server's own time-out, not the whole
// run's deadline or an interruption, stopped its probe.
func serverExpired(run, server context.Context) bool {
	return run.Err() == nil && errors.Is(server.Err(), context.DeadlineExceeded)
}

// heldReason says why a probe could not finish, naming the time-out that
// stopped it: timeout, set or derived from plan (with cold, a first
// start's allowance, in it).
//
// expired says the server's own deadline passed while the run's did not:
// it is asked of the contexts, not read from err, because the probe's error
// may carry the expiry only as text (a connection read cut off by it).
func heldReason(err error, timeout time.Duration, derived bool, plan Plan, cold time.Duration, expired bool) string {
	reason := err.Error()
	switch {
	case !expired:
	case derived:
		first := ""
		if cold > 0 {
			first = ", and " + cold.String() + " for a first start that installs the package"
		}
		reason += fmt.Sprintf(" (server time-out %s, its plan's: twice the estimate of %s for %s plus 1m, at least %s%s; a server slower than that needs --timeout or the policy's timeout)", timeout.Round(time.Second), About(plan.Estimate()), plan, MinServerTimeout, first)
	default:
		reason += fmt.Sprintf(" (server time-out %s)", timeout)
	}
	return reason
}

// unfinished is why a probe that ran to its end did less than its plan
// ("" if it did not): a burst the server cut short, or fewer launches
// than planned.
func unfinished(run *serverRun) string {
	if len(run.res.Unfinished) > 0 {
		return "the plan was not finished: " + strings.Join(run.res.Unfinished, "; ")
	}
	if c := coverageOf(run); c != nil && c.Planned != nil && c.Launches < c.Planned.Launches {
		return fmt.Sprintf("the plan was not finished: %d of %d launches were made", c.Launches, c.Planned.Launches)
	}
	return ""
}

// heldFinding is the server-unavailable finding of a held server.
func heldFinding(run *serverRun) finding.Finding {
	f := finding.New(finding.ServerUnavailable, run.cfg.Name)
	f.Kind, f.Subject, f.Phase = finding.KindServer, run.cfg.Name, run.res.Phase
	f.Message = "held: " + run.held
	if st := strings.TrimSpace(run.res.Stderr); st != "" {
		f.Detail = "stderr (last lines):\n" + tailLines(st, 15)
	}
	return f
}

func tailLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
