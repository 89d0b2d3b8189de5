package check

import (
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/review"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// inspectRun inspects every distinct definition the probe saw, in any
// phase, matched or not: a server poisoned from day one passes its pin.
// When the probe streamed its phases (streamPhases), most of the work is
// already done.
func inspectRun(run *serverRun) []finding.Finding {
	in := run.inspector
	run.inspector = nil
	if in == nil {
		in = newInspector(run.cfg.Name)
		for _, s := range run.snaps {
			in.add(s)
		}
	}
	// What the warm-up calls returned is model input too.
	var calls []probe.CallRecord
	if run.res != nil {
		calls = run.res.Calls
	}
	in.addCalls(calls)
	return in.finish()
}

// inspector inspects one server's snapshots as they come, so inspection
// overlaps with driving the server. Definitions are independent: they are
// inspected on every CPU, and the findings kept in the order the
// definitions were first seen, so the result does not depend on timing.
type inspector struct {
	server string
	// red is what definitions went through (placeholders for the run's
	// paths): call results are inspected in the same form, so the hash a
	// finding is bound to does not change with the run directory.
	red   *redact.Redactor
	seen  map[string]bool
	out   []finding.Finding // found while queueing (duplicates, ambiguous JSON)
	jobs  []*inspectJob
	queue chan *inspectJob
	wg    sync.WaitGroup
}

func newInspector(server string) *inspector {
	in := &inspector{server: server, seen: map[string]bool{}, queue: make(chan *inspectJob, 256)}
	for range runtime.GOMAXPROCS(0) {
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			for j := range in.queue {
				j.run()
			}
		}()
	}
	return in
}

func (in *inspector) job(j *inspectJob) {
	in.jobs = append(in.jobs, j)
	in.queue <- j
}

// add queues what snapshot s shows that no earlier snapshot showed.
func (in *inspector) add(s *snapshot) {
	seen, server := in.seen, in.server
	in.out = append(in.out, s.dups...)
	if len(s.obs.Instructions) > 0 && !seen["i"+s.instructions.SHA256] {
		seen["i"+s.instructions.SHA256] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindServer, Name: "instructions", Raw: s.obs.Instructions, Phase: s.obs.Phase}, sum: s.instructions.SHA256})
	}
	canon := map[string]lock.Canonical{"instructions": s.instructions, "serverInfo": s.serverInfo, "capabilities": s.capabilities}
	for _, field := range []string{"instructions", "serverInfo", "capabilities"} {
		c := canon[field]
		if c.Ambiguous != "" && !seen["a"+field+c.SHA256] {
			seen["a"+field+c.SHA256] = true
			in.out = append(in.out, inspect.AmbiguousField(server, field, s.obs.Phase, c))
		}
	}
	// serverInfo's name and title are shown to users and models too.
	if len(s.obs.ServerInfo) > 0 && !seen["s"+s.serverInfo.SHA256] {
		seen["s"+s.serverInfo.SHA256] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindServer, Name: "serverInfo", Raw: s.obs.ServerInfo, Phase: s.obs.Phase}, sum: s.serverInfo.SHA256, prefix: "serverInfo"})
	}
	// What a prompt expands to is model input as much as its listing:
	// text its authors wrote for the model, judged as a definition is.
	for _, name := range slices.Sorted(maps.Keys(s.obs.PromptGets)) {
		raw := s.obs.PromptGets[name]
		sum := lock.Sum(raw)
		if seen["g"+name+sum] {
			continue
		}
		seen["g"+name+sum] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindPrompt, Name: name, Raw: raw, Phase: s.obs.Phase}, sum: sum, prefix: "prompts/get", answer: &inspect.AnswerOptions{}})
	}
	// So is what a resource holds: data the server read, judged by the
	// same rules but for a credential path named alone (AnswerOptions).
	for _, uri := range slices.Sorted(maps.Keys(s.obs.ResourceReads)) {
		raw := s.obs.ResourceReads[uri]
		sum := lock.Sum(raw)
		if seen["r"+uri+"\x00"+sum] {
			continue
		}
		seen["r"+uri+"\x00"+sum] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: finding.KindResource, Name: uri, Raw: raw, Phase: s.obs.Phase}, sum: sum, prefix: "resources/read", answer: &inspect.AnswerOptions{Data: true}})
	}
	for _, kind := range probe.Kinds {
		for _, key := range s.order[kind] {
			c := s.entries[kind][key]
			id := string(kind) + "\x00" + key + "\x00" + c.SHA256
			if seen[id] {
				continue
			}
			seen[id] = true
			if c.Ambiguous != "" {
				in.out = append(in.out, inspect.AmbiguousEntry(server, kind, key, s.obs.Phase, c))
			}
			in.job(&inspectJob{subject: inspect.Subject{Server: server, Kind: kind, Name: key, Raw: s.raw[kind][key], Phase: s.obs.Phase}, sum: c.SHA256})
		}
	}
}

// addCalls queues the distinct results of the warm-up calls.
func (in *inspector) addCalls(calls []probe.CallRecord) {
	for _, c := range calls {
		if len(c.Result) == 0 {
			continue
		}
		raw := in.red.JSON(c.Result)
		sum := lock.Sum(raw)
		if in.seen["c"+c.Tool+"\x00"+sum] {
			continue
		}
		in.seen["c"+c.Tool+"\x00"+sum] = true
		in.job(&inspectJob{subject: inspect.Subject{Server: in.server, Kind: finding.KindTool, Name: c.Tool, Raw: raw, Phase: c.Phase}, sum: sum, prefix: "tools/call result", answer: &inspect.AnswerOptions{Data: true}})
	}
}

// finish waits for the queued inspections and returns every finding: those
// found while queueing, then each job's in queue order.
func (in *inspector) finish() []finding.Finding {
	close(in.queue)
	in.wg.Wait()
	out := in.out
	for _, j := range in.jobs {
		out = append(out, j.out...)
	}
	return out
}

type inspectJob struct {
	subject inspect.Subject
	sum     string
	prefix  string // put before each finding's field path
	// answer, when set, marks an answer (a warm-up call's result, a
	// prompts/get or resources/read answer): inspect.Answer reads it,
	// with the text encoded in it, under these options.
	answer *inspect.AnswerOptions
	out    []finding.Finding // set by run
}

// run inspects the job's subject. An answer gets the definitions' rules
// at the definitions' levels: what the guard refuses in a session (hidden
// text, control sequences) fails the check that sees it, and what it
// logs is a warning here too. It cannot be pinned, and an answer that
// varies from run to run is not acknowledged for good by one hash: a
// server whose answers need that is one to run behind the guard in
// sanitize mode.
func (j *inspectJob) run() {
	var fs []finding.Finding
	if j.answer != nil {
		fs = withHash(inspect.Answer(j.subject, *j.answer), j.sum)
	} else {
		fs = withHash(inspect.Definition(j.subject), j.sum)
	}
	if p := j.prefix; p != "" {
		for k := range fs {
			// Field is already a path: prefix it, do not
			// escape it again.
			fs[k].Field = lock.JoinFieldPaths(p, fs[k].Field)
		}
	}
	j.out = fs
}

// withHash binds inspection findings to the canonical hash of their
// content, the hash an acknowledgement in the lock must match.
func withHash(fs []finding.Finding, sum string) []finding.Finding {
	for i := range fs {
		fs[i].ContentSHA256 = sum
	}
	return fs
}

// acrossRuns checks names across servers (shadowing, confusables) on what
// each server listed first, judging name collisions against lk (nil: no
// lock), the lock the run compares with or replaces.
func acrossRuns(runs []*serverRun, lk *lock.File) []finding.Finding {
	var subjects []inspect.Subject
	for _, r := range runs {
		if len(r.snaps) == 0 {
			continue
		}
		s := r.snaps[0]
		for _, kind := range []lock.Kind{probe.KindTool, probe.KindPrompt} {
			for _, key := range s.order[kind] {
				subjects = append(subjects, inspect.Subject{Server: r.cfg.Name, Kind: kind, Name: key, Raw: s.raw[kind][key], Phase: s.obs.Phase})
			}
		}
		// The instructions and what prompts expand to are prose the
		// model reads too: naming another server's tool there steers.
		if len(s.obs.Instructions) > 0 {
			subjects = append(subjects, inspect.Subject{Server: r.cfg.Name, Kind: finding.KindServer, Name: "instructions", Raw: s.obs.Instructions, Phase: s.obs.Phase})
		}
		for _, name := range slices.Sorted(maps.Keys(s.obs.PromptGets)) {
			subjects = append(subjects, inspect.Subject{Server: r.cfg.Name, Kind: promptGetKind, Name: name, Raw: s.obs.PromptGets[name], Phase: s.obs.Phase})
		}
	}
	// Bind each finding to the canonical hash the lock and its
	// acknowledgements use, not to the raw bytes' hash.
	sums := map[string]string{}
	for _, r := range runs {
		if len(r.snaps) == 0 {
			continue
		}
		for kind, m := range r.snaps[0].entries {
			for key, c := range m {
				sums[r.cfg.Name+"\x00"+string(kind)+"\x00"+key] = c.SHA256
			}
		}
	}
	for _, r := range runs {
		if len(r.snaps) == 0 {
			continue
		}
		s := r.snaps[0]
		sums[r.cfg.Name+"\x00"+string(finding.KindServer)+"\x00instructions"] = s.instructions.SHA256
		for name, raw := range s.obs.PromptGets {
			sums[r.cfg.Name+"\x00"+promptGetKind+"\x00"+name] = lock.Sum(raw)
		}
	}
	fs := inspect.AcrossLock(subjects, review.PinnedIn(lk))
	for i, f := range fs {
		if sum, ok := sums[f.Server+"\x00"+string(f.Kind)+"\x00"+f.Subject]; ok {
			fs[i].ContentSHA256 = sum
		}
		if f.Kind == promptGetKind {
			// A prompt's expansion: the prompt's finding, at the path
			// inspection gives it (inspectJob's prefix).
			fs[i].Kind, fs[i].Field = finding.KindPrompt, lock.JoinFieldPaths("prompts/get", f.Field)
		}
	}
	return fs
}

// promptGetKind marks a prompts/get answer among the subjects acrossRuns
// hands to inspect.AcrossLock: only its prose is looked at there.
const promptGetKind = "prompts/get"
