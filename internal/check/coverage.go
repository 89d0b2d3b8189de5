package check

import (
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

func phasesOf(run *serverRun) []string {
	out := []string{}
	for _, s := range run.snaps {
		out = append(out, s.obs.Phase)
	}
	return out
}

func callsOf(run *serverRun) []report.Call {
	var out []report.Call
	for _, c := range run.res.Calls {
		out = append(out, report.Call{Phase: c.Phase, Tool: c.Tool, Arguments: c.Arguments, Outcome: c.Outcome})
	}
	return out
}

// countIdentities is how many distinct clientInfo identities a probe with
// popts plans to present.
func countIdentities(popts probe.Options) int {
	seen := map[string]bool{}
	if popts.Identity.Name != "" {
		seen[popts.Identity.String()] = true
	}
	for _, id := range popts.ExtraIdentities {
		seen[id.String()] = true
	}
	return max(len(seen), 1)
}

// coverageOf counts what the probe of run spent, beside what its plan
// asked: nil for a server that was never launched (held before its probe,
// or orphaned). Launches, identities and clock shifts count those that
// reached a recorded phase; calls count every call made.
func coverageOf(run *serverRun) *report.Coverage {
	if run.res == nil || !run.probed {
		return nil
	}
	launches := map[int]bool{}
	ids := map[string]bool{}
	for _, s := range run.snaps {
		launches[s.obs.Launch] = true
		ids[s.obs.Identity.String()] = true
	}
	shifts := 0
	for _, n := range run.clockLaunches {
		if launches[n] {
			shifts++
		}
	}
	burst := 0
	for _, c := range run.res.Calls {
		if strings.Contains(c.Phase, "/burst-") {
			burst++
		}
	}
	p := run.plan
	return &report.Coverage{
		Calls: len(run.res.Calls), Launches: len(launches), Identities: len(ids), ClockShifts: shifts, BurstCalls: burst,
		Planned:  &report.Planned{Calls: p.Launches*p.Calls + p.Burst, Launches: p.Launches, Identities: p.Identities, ClockShifts: p.ClockShifts, BurstCalls: p.Burst},
		Finished: run.res.Err == nil && len(run.res.Unfinished) == 0 && len(launches) >= p.Launches,
	}
}
