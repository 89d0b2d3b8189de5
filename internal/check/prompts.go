package check

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/timestamps"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// PinPrompts says which prompts/get answers pin records for a server, from
// its policy's pin-prompts: unset pins the answers of prompts that take no
// required argument (the answer a client gets when it sends none, which
// is how a client opens such a prompt, so the guard can hold a session's
// first answer to the lock); true pins every answered prompt, for the
// arguments pin sent (required ones filled with "example"); false pins
// none.
type PinPrompts int

const (
	PinNoPrompts PinPrompts = iota
	PinArgumentlessPrompts
	PinAllPrompts
)

// PinPromptsOf reads a policy's pin-prompts (nil: unset).
func PinPromptsOf(p *bool) PinPrompts {
	switch {
	case p == nil:
		return PinArgumentlessPrompts
	case *p:
		return PinAllPrompts
	}
	return PinNoPrompts
}

// pinPromptsFor is what opts' policy says for server name (no policy: the
// default).
func (opts *Options) pinPromptsFor(name string) PinPrompts {
	if opts.Policy == nil {
		return PinArgumentlessPrompts
	}
	return PinPromptsOf(opts.settings(name).PinPrompts)
}

// pinnable reports whether a prompt answered with args is one mode pins.
func (m PinPrompts) pinnable(args []byte) bool {
	switch m {
	case PinAllPrompts:
		return true
	case PinArgumentlessPrompts:
		return string(lock.CanonicalArguments(args)) == "{}"
	}
	return false
}

// pinPrompts records in s the prompts/get answers of the run's first
// phase that mode pins: the guard then holds a session's first answer to
// the same arguments to the lock, not only its later ones to the first.
// An answer unchanged since prev keeps its approval. A prompt whose
// answer changed during the probe is not pinned here: the probe's
// stability findings already refuse the lock.
func pinPrompts(s *lock.Server, run *serverRun, prev *lock.Server, who approval.Approver, mode PinPrompts) {
	if len(run.snaps) == 0 || mode == PinNoPrompts {
		return
	}
	obs := run.snaps[0].obs
	at := who.At.UTC().Format(time.RFC3339)
	for name, args := range obs.PromptArgs {
		raw, ok := obs.PromptGets[name]
		if !ok || !mode.pinnable(args) {
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
// the answer the lock pins for the same arguments (prompt-changed), as
// definitions are compared: check fails in CI on what the guard would
// refuse at run time. Two kinds of difference are not drift. An answer
// that differs from the pin only in timestamp-shaped tokens is the time
// of the request (a note), as it is between two reads of one probe. And a
// prompt whose answers differ between the run's own reads (a random id, a
// counter) is unstable text: stabilityFindings reports it as
// unstable-manifest, and comparing one of its reads with the pin would
// only say the same twice.
//
// mode is what pin would record for the server now: a prompt it would
// pin that the lock holds no answer for is noted, so a lock pinned before
// answers were pinned by default says how to get the guard to hold them.
func promptAnswerFindings(server string, ls *lock.Server, run *serverRun, mode PinPrompts) []finding.Finding {
	if ls == nil {
		return nil
	}
	unstable, matched := unstablePrompts(run, ls)
	var out []finding.Finding
	now := time.Now()
	for _, s := range run.snaps {
		for _, name := range slices.Sorted(maps.Keys(s.obs.PromptGets)) {
			want := ls.PromptAnswers[name]
			args, ok := s.obs.PromptArgs[name]
			if want == nil {
				if ok && mode.pinnable(args) && ls.Entries(lock.KindPrompt, false)[name] != nil {
					run.note(fmt.Sprintf("prompts/get %q is answered, but the lock pins no answer for it: pin records it (pin-prompts is on by default), and until then the guard holds it only to a session's first answer", name))
				}
				continue
			}
			if unstable[name] && !matched[name] {
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
			if before, after, same := timestamps.OnlyDiffer(pinned.Bytes, live.Bytes, now); ok && same {
				run.note(fmt.Sprintf("prompts/get %q differs from the answer pinned in the lock only in timestamp-shaped tokens (%q, then %q): read as the time of the request, not as a change", name, clip.Bytes(before, 60), clip.Bytes(after, 60)))
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

// unstablePrompts are the prompts whose prompts/get answers differ between
// two reads of the run in more than timestamp-shaped tokens: what
// promptGetFindings reports as unstable-manifest. matched are the prompts
// that answered at least once exactly as the lock pins them: an unstable
// one of those gave the approved answer and then another, a rug pull to
// report as drift too, where one that never matched the pin (a random id
// in every answer) is unstable text and nothing more.
func unstablePrompts(run *serverRun, ls *lock.Server) (unstable, matched map[string]bool) {
	out, matched := map[string]bool{}, map[string]bool{}
	prev := map[string]lock.Canonical{}
	now := time.Now()
	for _, s := range run.snaps {
		for name, raw := range s.obs.PromptGets {
			c := lock.Canonicalize(raw)
			if a := ls.PromptAnswers[name]; a != nil && a.Canonical().SHA256 == c.SHA256 {
				matched[name] = true
			}
			p, ok := prev[name]
			prev[name] = c
			if !ok || p.SHA256 == c.SHA256 {
				continue
			}
			if _, _, same := timestamps.OnlyDiffer(p.Bytes, c.Bytes, now); !same {
				out[name] = true
			}
		}
	}
	return out, matched
}
