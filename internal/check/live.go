package check

import (
	"context"
	"fmt"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// ProbeLive probes every configured server through all phases, as pin
// does, and returns what each showed. A server that was held or whose
// phases disagreed is Refused: approval is only ever taken from a
// complete, stable probe.
func ProbeLive(ctx context.Context, opts Options, who approval.Approver) ([]*approval.Live, *report.Report) {
	runs, finish := probeAll(ctx, &opts)
	finish()
	across := acrossRuns(runs, opts.Lock)
	r := &report.Report{LockfileVersion: lock.Version, Servers: []report.Server{}}
	var out []*approval.Live
	refused := false // a server nothing may be approved from fails the run
	for _, run := range runs {
		name := run.cfg.Name
		l := &approval.Live{Name: name, Config: run.cfg}
		srv, prev, unstable := opts.settleProbe(run, across)
		switch {
		case run.held != "":
			l.Refused = "held: " + run.held
		case len(run.snaps) == 0:
			l.Refused = "the probe saw no complete phase"
		case len(unstable) > 0:
			l.Refused = fmt.Sprintf("the manifest changed during the probe (%d unstable-manifest finding(s)): a server that changes what it shows is not approvable", len(unstable))
		case leaked(srv.Findings):
			l.Leaked = "the server sent back a planted canary secret: a server caught reading credentials is not approvable until the finding is acknowledged"
		}
		if l.Refused == "" {
			l.Server = buildEntry(run, nil, who)
			keepClockMoved(l.Server, prev, run.snaps[0])
			pinPrompts(l.Server, run, nil, who, opts.pinPromptsFor(name))
			l.Server.Acknowledgements = nil
			// A version npm's cache no longer shows is unknown, not
			// changed: keep the approved one.
			if prev != nil && l.Server.Launch.Resolved == "" && l.Server.Launch.Package == prev.Launch.Package {
				l.Server.Launch.Resolved = prev.Launch.Resolved
				if l.Server.Launch.Integrity == "" {
					l.Server.Launch.Integrity = prev.Launch.Integrity
				}
			}
		}
		if l.Refused != "" || l.Leaked != "" {
			refused = true
			srv.Status = report.StatusDrift
			if run.held != "" {
				srv.Status = report.StatusHeld
			}
		}
		l.Findings = srv.Findings
		l.Refused = opts.Redactor.String(l.Refused)
		r.Servers = append(r.Servers, srv)
		out = append(out, l)
	}
	report.Summarize(r, opts.FailOn, refused)
	return out, r
}
