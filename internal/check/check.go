package check

import (
	"context"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Compare probes every server of opts and compares it with opts.Lock,
// already read: the probe and comparison step of Loaded.Check, which reads
// the inputs first. With opts.Base it also reviews what the lock approves
// over the base branch's: one more finding source, settled with the
// others.
func Compare(ctx context.Context, opts Options) *report.Report {
	runs, finish, err := probeBeside(ctx, &opts)
	// The sweep and the run directories' removal go on while the runs are
	// compared; the report waits for them.
	defer finish()
	r := &report.Report{LockfileVersion: lock.Version, Servers: []report.Server{}}
	if err != nil {
		return stopped(r, opts, err)
	}
	// Where in the lock each entry is: only a finding about a pinned
	// entity needs it, and most runs have none, so the lock is indexed
	// (a pass over its tokens) the first time one is placed.
	idx := sync.OnceValue(func() lock.Positions { return lock.Index(opts.LockData) })
	across := acrossRuns(runs, opts.Lock)
	approvals := opts.approvals()
	for _, run := range runs {
		name := run.cfg.Name
		if run.held == "" && len(run.snaps) == 0 {
			// Nothing was compared: never a pass.
			run.held = "the probe saw no complete phase"
		}
		var ls *lock.Server
		if opts.Lock != nil {
			ls = opts.Lock.Servers[name]
		}
		fs := append([]finding.Finding(nil), run.findings...)
		fs = append(fs, entryFindings(run, ls)...)
		var moved []clockMove
		if ls != nil {
			ref := lockView(ls)
			noted := map[string]bool{}
			for _, s := range run.snaps {
				cfs, moves := compareClock(name, ref, s, s.obs.Phase, false)
				fs = append(fs, cfs...)
				moved = append(moved, moves...)
				for _, m := range moves {
					// One note an entry, at the first phase it moved in.
					if id := string(m.kind) + "\x00" + m.key; !noted[id] {
						noted[id] = true
						run.note(m.note("from the lock", s.obs.Phase))
					}
				}
			}
			fs = append(fs, promptAnswerFindings(name, ls, run, opts.pinPromptsFor(name))...)
		}
		fs = append(fs, launchHygiene(run, ls)...)
		if n := missingIdentity(run, ls); n != "" {
			run.notes = append(run.notes, n)
		}
		fs = append(fs, envDependence(run.cfg)...)
		fs = append(fs, unknownKeys(run.cfg)...)
		fs = append(fs, stabilityFindings(run)...)
		fs = append(fs, inspectRun(run)...)
		for _, f := range across {
			if f.Server == name {
				fs = append(fs, f)
			}
		}
		if run.held != "" {
			fs = append(fs, heldFinding(run))
		}
		rebindMoved(fs, moved)
		place := func(fs []finding.Finding) { locate(fs, run, ls != nil, opts.LockPath, idx) }
		r.Servers = append(r.Servers, opts.settle(serverEntry(run), fs, runLaunch(run), ls, place, approvals[name]))
	}
	if opts.All && opts.Lock != nil {
		configured := map[string]bool{}
		for _, s := range opts.Servers {
			configured[s.Name] = true
		}
		for _, name := range slices.Sorted(maps.Keys(opts.Lock.Servers)) {
			if configured[name] {
				continue
			}
			f := orphanedFinding(name)
			f.File, f.Line = opts.LockPath, idx().Line(name, "", "")
			r.Servers = append(r.Servers, opts.settle(report.Server{Name: name, Phases: []string{}}, []finding.Finding{f}, nil, nil, nil, approvals[name]))
		}
	}
	sort.SliceStable(r.Servers, func(i, j int) bool { return r.Servers[i].Name < r.Servers[j].Name })
	if opts.repository != nil {
		r.Repository = opts.settleRepository(opts.repository())
	}
	report.Summarize(r, opts.FailOn, false)
	return r
}

// stopped is the report of a run that preflight stopped. The
// caller, which wrote it, reports its error and exits 2; a caller that
// did not would still not pass: every configured server is held with it.
func stopped(r *report.Report, opts Options, err error) *report.Report {
	for _, s := range opts.Servers {
		r.Servers = append(r.Servers, report.Server{Name: s.Name, Config: s.File, ConfigLine: s.Line,
			Status: report.StatusHeld, Reason: "the run stopped before any server was compared: " + err.Error(), Phases: []string{}})
	}
	report.Summarize(r, opts.FailOn, false)
	return r
}

// serverEntry is a probed server's report entry before its findings are
// settled: where it is configured, how it was probed, what it noted.
func serverEntry(run *serverRun) report.Server {
	srv := report.Server{
		Name: run.cfg.Name, Config: run.cfg.File, ConfigLine: run.cfg.Line, Reason: run.held,
		Isolation: run.isolation, Phases: phasesOf(run), Coverage: coverageOf(run), Calls: callsOf(run),
		Notes: append([]string(nil), run.notes...),
	}
	if run.cfg.Guard != nil {
		srv.Notes = append(srv.Notes, run.cfg.Guard.Note())
	}
	return srv
}

// noPositions places nothing in a lock: for pin and approve, whose
// findings point at configs.
func noPositions() lock.Positions { return lock.Positions{} }

// locate points each finding at a line in the repository: the entry's line
// in the lock for a pinned entity, the server's line in its config for
// launch and availability findings and for servers with no lock entry.
func locate(fs []finding.Finding, run *serverRun, pinned bool, lockPath string, idx func() lock.Positions) {
	for i := range fs {
		f := &fs[i]
		useConfig := !pinned
		switch f.Rule {
		case finding.UnknownConfigKey:
			f.File = run.cfg.File // the key's own line, set by unknownKeys
			continue
		case finding.ServerNotPinned, finding.LaunchChanged, finding.ServerUnavailable, finding.UnpinnedPackage, finding.LaunchDependsOnEnv:
			useConfig = true
		}
		if useConfig {
			f.File, f.Line = run.cfg.File, run.cfg.Line
			continue
		}
		kind := f.Kind
		if kind == finding.KindServer {
			kind = ""
		}
		f.File, f.Line = lockPath, idx().Line(run.cfg.Name, kind, f.Subject)
	}
}

// rebindMoved binds a finding about a definition that differs from its
// lock entry only in values that follow the clock to the entry's hash,
// not the live one: the text the finding is about is the text the lock
// approved, so an acknowledgement recorded for it keeps holding while the
// date moves.
func rebindMoved(fs []finding.Finding, moved []clockMove) {
	for _, m := range moved {
		for i := range fs {
			if f := &fs[i]; f.Kind == m.kind && f.Subject == m.key && f.ContentSHA256 == m.after.SHA256 {
				f.ContentSHA256 = m.before.SHA256
			}
		}
	}
}
