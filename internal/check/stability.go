package check

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/timestamps"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// stabilityFindings compares every phase with the first: a manifest that
// changes during one probe is unstable whatever the lock says.
func stabilityFindings(run *serverRun) []finding.Finding {
	if len(run.snaps) < 2 {
		return nil
	}
	first := run.snaps[0]
	var out []finding.Finding
	out = append(out, promptGetFindings(run)...)
	noted := map[string]bool{}
	for _, s := range run.snaps[1:] {
		fs, moves := compareClock(run.cfg.Name, first, s, s.obs.Phase, true)
		for _, m := range moves {
			// One note an entry, at the first phase it moved in.
			if id := string(m.kind) + "\x00" + m.key; !noted[id] {
				noted[id] = true
				run.note(m.note("between phases", s.obs.Phase))
			}
		}
		for i := range fs {
			if s.obs.Identity.Name != first.obs.Identity.Name {
				fs[i].Message += fmt.Sprintf(" (client identity %s vs %s)", s.obs.Identity, first.obs.Identity)
			}
		}
		out = append(out, fs...)
	}
	return out
}

// promptGetFindings compares each prompts/get answer with the first answer
// to the same request in the run.
func promptGetFindings(run *serverRun) []finding.Finding {
	var out []finding.Finding
	firstSeen := map[string]lock.Canonical{}
	for _, s := range run.snaps {
		for _, name := range slices.Sorted(maps.Keys(s.obs.PromptGets)) {
			c := lock.Canonicalize(s.obs.PromptGets[name])
			prev, ok := firstSeen[name]
			if !ok {
				firstSeen[name] = c
				continue
			}
			if prev.SHA256 == c.SHA256 {
				continue
			}
			if before, after, ok := timestamps.OnlyDiffer(prev.Bytes, c.Bytes, time.Now()); ok {
				run.note(fmt.Sprintf("prompts/get %q answers differently between reads only in timestamp-shaped tokens (%q, then %q): read as the time of the request, not as a change", name, clip.Bytes(before, 60), clip.Bytes(after, 60)))
				firstSeen[name] = c
				continue
			}
			for _, ch := range lock.FieldDiff(prev.Bytes, c.Bytes) {
				f := finding.New(finding.UnstableManifest, run.cfg.Name)
				f.Kind, f.Subject, f.Field, f.Phase = finding.KindPrompt, name, lock.JoinFieldPaths("prompts/get", ch.Path), s.obs.Phase
				f.Message = fmt.Sprintf("changed during the probe: prompts/get %q answers differently than earlier in the run (%s)", name, orWhole(ch.Path))
				f.Before, f.After = ch.Before, ch.After
				out = append(out, f)
			}
			firstSeen[name] = c
		}
	}
	return out
}
