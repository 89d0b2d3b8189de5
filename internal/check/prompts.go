package check

import (
	"fmt"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// pinPrompts records in s the prompts/get answers of the run's first
// phase, for a server whose policy sets pin-prompts: the guard then holds
// a session's first answer to the same arguments to the lock, not only its
// later ones to the first. An answer unchanged since prev keeps its
// approval.
func pinPrompts(s *lock.Server, run *serverRun, prev *lock.Server, who Approval) {
	if len(run.snaps) == 0 {
		return
	}
	obs := run.snaps[0].obs
	at := who.At.UTC().Format(time.RFC3339)
	for name, args := range obs.PromptArgs {
		raw, ok := obs.PromptGets[name]
		if !ok {
			continue
		}
		a := lock.NewPromptAnswer(args, raw)
		if prev != nil {
			if old := prev.PromptAnswers[name]; old != nil && old.SHA256 == a.SHA256 && string(old.Arguments) == string(a.Arguments) && old.ApprovedAt != "" {
				a.ApprovedBy, a.ApprovedAt = old.ApprovedBy, old.ApprovedAt
			}
		}
		if a.ApprovedAt == "" {
			a.ApprovedBy, a.ApprovedAt = who.By, at
		}
		if s.PromptAnswers == nil {
			s.PromptAnswers = map[string]*lock.PromptAnswer{}
		}
		s.PromptAnswers[name] = a
	}
}

// promptAnswerFindings compares every prompts/get answer of the run with
// the answer the lock pins for the same arguments (prompt-changed): check
// fails in CI on what the guard would refuse at run time.
func promptAnswerFindings(server string, ls *lock.Server, run *serverRun) []finding.Finding {
	if ls == nil || len(ls.PromptAnswers) == 0 {
		return nil
	}
	var out []finding.Finding
	for _, s := range run.snaps {
		for _, name := range sortedKeys(s.obs.PromptGets) {
			want := ls.PromptAnswers[name]
			args, ok := s.obs.PromptArgs[name]
			if want == nil {
				continue
			}
			live := lock.Canonicalize(s.obs.PromptGets[name])
			if ok && string(lock.CanonicalArguments(args)) != string(want.Arguments) {
				continue // other arguments: the pin does not speak to them
			}
			pinned := want.Canonical()
			if ok && pinned.SHA256 == live.SHA256 {
				continue
			}
			changes := lock.FieldDiff(pinned.Bytes, live.Bytes)
			if !ok || len(changes) == 0 {
				changes = changes[:0]
				changes = append(changes, lock.FieldChange{Before: string(pinned.Bytes), After: string(live.Bytes)})
			}
			for _, ch := range changes {
				f := finding.New(finding.PromptChanged, server)
				f.Kind, f.Subject, f.Field, f.Phase = finding.KindPrompt, name, lock.JoinFieldPaths("prompts/get", ch.Path), s.obs.Phase
				f.Message = fmt.Sprintf("prompts/get %q answers differently than the answer pinned in the lock (%s)", name, orWhole(ch.Path))
				f.Before, f.After = ch.Before, ch.After
				out = append(out, f)
			}
		}
	}
	return out
}
