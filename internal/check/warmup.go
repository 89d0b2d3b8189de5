package check

import (
	"encoding/json"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/synth"
)

// warmupPlanner plans a server's warm-up calls: one rule for local and
// remote servers (synth.Plan: reads only, round-robin over every eligible
// tool, realistic values, paths under dir). A stdio server's calls run in
// a sandbox, but what a tool does with the credentials its config passes
// (a Slack token, a local Redis) is done to the user's world all the same,
// so neither kind calls a tool that reads as a write. A call the policy
// names is the only way to make one: such a tool is not reported skipped.
//
// Each plan (a launch's timed calls, the burst's) goes on where the last
// one stopped, so a second launch reaches the tools and values the first
// did not. note is given,
// once, the line that names the skipped tools and why.
func warmupPlanner(popts *probe.Options, dir string, note func(string)) func([]json.RawMessage, int) []probe.Call {
	named := map[string]bool{}
	for _, c := range popts.Calls {
		named[c.Tool] = true
	}
	var mu sync.Mutex
	start, noted := 0, false
	return func(tools []json.RawMessage, n int) []probe.Call {
		mu.Lock()
		defer mu.Unlock()
		planned, skips := synth.Plan(tools, n, synth.Values{Dir: dir, Start: start})
		start += n
		if !noted {
			noted = true
			kept := skips[:0:0]
			for _, s := range skips {
				if !named[s.Tool] {
					kept = append(kept, s)
				}
			}
			if line := synth.Describe(tools, kept); line != "" {
				note(line + "; name a tool under calls in the policy file to call it")
			}
		}
		calls := make([]probe.Call, 0, len(planned))
		for _, c := range planned {
			calls = append(calls, probe.Call{Tool: c.Tool, Arguments: c.Arguments})
		}
		return calls
	}
}
