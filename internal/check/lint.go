package check

import (
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/review"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// LintWarning opens every lint report (report.Report.Warnings, which
// every renderer shows first): what a clean lint does and does not say,
// since the renderers' verdicts are worded for a check.
const LintWarning = "mcp-lockcheck lint judged the text the lock records, with this build's rules; it started no server, so it does not say that the servers still show that text (mcp-lockcheck check does)."

// Lint judges the text a lock records with today's rules, starting no
// server: what check's inspection would find if every server showed
// exactly what its lock entry holds. Every definition, the instructions,
// serverInfo and the pinned prompt answers go through inspect.Definition
// (inspect.Answer for an answer) and the selected servers through
// inspect.AcrossLock, each finding bound to the lock's canonical hash, as
// check binds it; then the one settle (policy rules, the lock's
// acknowledgements, the entry's line in the lock, redaction) and the
// summary check uses, under opts.FailOn.
//
// opts.Lock (required), LockPath, LockData, FailOn, Policy and
// Redactor are read; only lists the servers to judge (nil: every server
// of the lock; a name the lock does not hold is the caller's to refuse).
func Lint(opts Options, only []string) *report.Report {
	r := &report.Report{LockfileVersion: lock.Version, Servers: []report.Server{}, Warnings: []string{LintWarning}}
	lk := opts.Lock
	if lk == nil {
		lk = lock.New()
	}
	names := only
	if names == nil {
		names = slices.Sorted(maps.Keys(lk.Servers))
	}
	inspect.Compile()
	idx := sync.OnceValue(func() lock.Positions { return lock.Index(opts.LockData) })
	// Definitions are independent: each server's are judged on its own
	// goroutine, the findings kept in the servers' order.
	found := make([][]finding.Finding, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		if ls := lk.Servers[name]; ls != nil {
			wg.Go(func() { found[i] = lintServer(name, ls) })
		}
	}
	wg.Wait()
	across := lintAcross(lk, names)
	for i, name := range names {
		ls := lk.Servers[name]
		if ls == nil {
			continue
		}
		fs := found[i]
		for _, f := range across {
			if f.Server == name {
				fs = append(fs, f)
			}
		}
		place := func(fs []finding.Finding) {
			for i := range fs {
				kind := fs[i].Kind
				if kind == finding.KindServer {
					kind = ""
				}
				fs[i].File, fs[i].Line = opts.LockPath, idx().Line(name, kind, fs[i].Subject)
			}
		}
		launch := ls.Launch
		srv := report.Server{Name: name, Phases: []string{}}
		r.Servers = append(r.Servers, opts.settle(srv, fs, &launch, ls, place, nil))
	}
	sort.SliceStable(r.Servers, func(i, j int) bool { return r.Servers[i].Name < r.Servers[j].Name })
	report.Summarize(r, opts.FailOn, false)
	return r
}

// lintServer inspects one lock entry's text, as the inspector inspects a
// probe's first sight of it: the same subjects, field prefixes and hashes.
func lintServer(name string, ls *lock.Server) []finding.Finding {
	var out []finding.Finding
	inspectOne := func(s inspect.Subject, sum, prefix string, answer *inspect.AnswerOptions) {
		j := &inspectJob{subject: s, sum: sum, prefix: prefix, answer: answer}
		j.run()
		out = append(out, j.out...)
	}
	for _, field := range []string{"instructions", "serverInfo", "capabilities"} {
		var value []byte
		switch field {
		case "instructions":
			value = ls.Instructions
		case "serverInfo":
			value = ls.ServerInfo
		case "capabilities":
			value = ls.Capabilities
		}
		c := ls.Handshake(field, value)
		if len(c.Bytes) == 0 {
			continue
		}
		if c.Ambiguous != "" {
			out = append(out, inspect.AmbiguousField(name, field, "", c))
		}
		switch field {
		case "instructions":
			inspectOne(inspect.Subject{Server: name, Kind: finding.KindServer, Name: "instructions", Raw: c.Bytes}, c.SHA256, "", nil)
		case "serverInfo":
			inspectOne(inspect.Subject{Server: name, Kind: finding.KindServer, Name: "serverInfo", Raw: c.Bytes}, c.SHA256, "serverInfo", nil)
		}
	}
	for _, pname := range slices.Sorted(maps.Keys(ls.PromptAnswers)) {
		a := ls.PromptAnswers[pname]
		if a == nil {
			continue
		}
		c := a.Canonical()
		inspectOne(inspect.Subject{Server: name, Kind: finding.KindPrompt, Name: pname, Raw: c.Bytes}, c.SHA256, "prompts/get", &inspect.AnswerOptions{})
	}
	for _, kind := range lock.Kinds {
		entries := ls.Entries(kind, false)
		for _, key := range slices.Sorted(maps.Keys(entries)) {
			e := entries[key]
			if e == nil {
				continue
			}
			c := e.Canonical()
			if c.Ambiguous != "" {
				out = append(out, inspect.AmbiguousEntry(name, kind, key, "", c))
			}
			inspectOne(inspect.Subject{Server: name, Kind: kind, Name: key, Raw: c.Bytes}, c.SHA256, "", nil)
		}
	}
	return out
}

// lintAcross is acrossRuns over lock entries: names across the servers
// (shadowing, confusables) of names, judged against the lock itself, as a
// check of the same servers against the same lock judges them.
func lintAcross(lk *lock.File, names []string) []finding.Finding {
	var subjects []inspect.Subject
	sums := map[string]string{}
	for _, name := range names {
		ls := lk.Servers[name]
		if ls == nil {
			continue
		}
		for _, kind := range []lock.Kind{lock.KindTool, lock.KindPrompt} {
			entries := ls.Entries(kind, false)
			for _, key := range slices.Sorted(maps.Keys(entries)) {
				if entries[key] == nil {
					continue
				}
				c := entries[key].Canonical()
				subjects = append(subjects, inspect.Subject{Server: name, Kind: kind, Name: key, Raw: c.Bytes})
				sums[name+"\x00"+string(kind)+"\x00"+key] = c.SHA256
			}
		}
		if c := ls.Handshake("instructions", ls.Instructions); len(c.Bytes) > 0 {
			subjects = append(subjects, inspect.Subject{Server: name, Kind: finding.KindServer, Name: "instructions", Raw: c.Bytes})
			sums[name+"\x00"+string(finding.KindServer)+"\x00instructions"] = c.SHA256
		}
		for _, pname := range slices.Sorted(maps.Keys(ls.PromptAnswers)) {
			if a := ls.PromptAnswers[pname]; a != nil {
				c := a.Canonical()
				subjects = append(subjects, inspect.Subject{Server: name, Kind: promptGetKind, Name: pname, Raw: c.Bytes})
				sums[name+"\x00"+promptGetKind+"\x00"+pname] = c.SHA256
			}
		}
	}
	fs := inspect.AcrossLock(subjects, review.PinnedIn(lk))
	for i, f := range fs {
		if sum, ok := sums[f.Server+"\x00"+string(f.Kind)+"\x00"+f.Subject]; ok {
			fs[i].ContentSHA256 = sum
		}
		if f.Kind == promptGetKind {
			fs[i].Kind, fs[i].Field = finding.KindPrompt, lock.JoinFieldPaths("prompts/get", f.Field)
		}
	}
	return fs
}
