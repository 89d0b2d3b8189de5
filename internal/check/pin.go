package check

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/approval"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// Pin probes every configured server through all phases and builds the
// new lock. It returns a nil lock, so nothing is written, when any server
// showed different manifests in different phases, or when no server
// could be pinned: an entry is only ever written from a complete, stable
// probe. A server that could not be probed (held) is not pinned: the lock
// keeps its old entry, or has none, and the others are pinned; the
// report's exit code (3, or 1 when a finding fails it) says the pin is
// not whole, and check still holds the server (its status is held).
//
// Its findings are settled as check settles them (settle: the same
// policy, acknowledgements and statuses), so a finding that would fail a
// check of the lock pin writes fails pin too: the report's exit code is 1
// then, and the lock is still returned, so that the acknowledgements the
// report asks for can be recorded in it (approve --ack). That includes a
// server that sent back a planted secret: its entry is written, and every
// check fails on the leak until someone acknowledges it with a reason.
//
// Entries whose content is unchanged keep their earlier approval; servers
// not probed (filtered out with --server) are kept as they were.
func Pin(ctx context.Context, opts Options, who approval.Approver) (*lock.File, *report.Report) {
	runs, finish := probeAll(ctx, &opts)
	finish()
	next := lock.New()
	if opts.Lock != nil && !opts.All {
		for name, s := range opts.Lock.Servers {
			next.Servers[name] = s
		}
	}
	r := &report.Report{LockfileVersion: lock.Version, Servers: []report.Server{}}
	failed, held := false, false
	across := acrossRuns(runs, opts.Lock)
	for _, run := range runs {
		name := run.cfg.Name
		srv, prev, unstable := opts.settleProbe(run, across)
		switch {
		case run.held != "":
			held = true
			// Fail closed: what the lock held for it stays as it
			// was (or absent), whatever --server or --all say.
			if opts.Lock != nil && opts.Lock.Servers[name] != nil {
				next.Servers[name] = opts.Lock.Servers[name]
			}
		case len(unstable) > 0 || len(run.snaps) == 0:
			failed = true
			srv.Status = report.StatusDrift
		default:
			next.Servers[name] = buildEntry(run, prev, who)
			keepClockMoved(next.Servers[name], prev, run.snaps[0])
			pinPrompts(next.Servers[name], run, prev, who, opts.pinPromptsFor(name))
		}
		r.Servers = append(r.Servers, srv)
	}
	report.Summarize(r, opts.FailOn, failed)
	if failed || held && r.Summary.Held == len(r.Servers) {
		return nil, r
	}
	pinned.RedactLock(next, opts.Redactor)
	return next, r
}

// probeFindings is what pin and approve report for one probed server: what
// the probe itself saw (canary leaks) and launch hygiene first, since a
// leak is observed behaviour, not a heuristic; then stability, inspection
// and cross-server findings. unstable is the stability part. It is what
// check reports too, less the comparison with the lock.
func probeFindings(run *serverRun, prev *lock.Server, across []finding.Finding) (fs, unstable []finding.Finding) {
	fs = append([]finding.Finding(nil), run.findings...)
	for _, f := range launchHygiene(run, prev) {
		// What pin and approve record: shown, so the new artifact is
		// seen, but recording it is what was asked (approve refuses
		// artifact-changed without --force on its own).
		if f.Rule == finding.PackageChanged || f.Rule == finding.ArtifactChanged {
			f.Severity = finding.Note
		}
		fs = append(fs, f)
	}
	fs = append(fs, unknownKeys(run.cfg)...)
	fs = append(fs, envDependence(run.cfg)...)
	unstable = stabilityFindings(run)
	fs = append(fs, unstable...)
	fs = append(fs, inspectRun(run)...)
	for _, f := range across {
		if f.Server == run.cfg.Name {
			fs = append(fs, f)
		}
	}
	return fs, unstable
}

// leaked reports an error-level canary finding no acknowledgement covers,
// among a server's settled findings: a server caught reading planted
// secrets has no change approved until someone acknowledges the leak.
func leaked(fs []finding.Finding) bool {
	for _, f := range fs {
		if (f.Rule == finding.CanaryLeak || f.Rule == finding.CanaryUsed) && f.Severity >= finding.Error && !f.Acknowledged {
			return true
		}
	}
	return false
}

// buildEntry records the first phase of a stable probe.
func buildEntry(run *serverRun, prev *lock.Server, who approval.Approver) *lock.Server {
	first := run.snaps[0]
	s := &lock.Server{
		Launch:          launchRecord(run),
		ProtocolVersion: first.obs.ProtocolVersion,
		ServerInfo:      canonicalRaw(first.serverInfo),
		Capabilities:    canonicalRaw(first.capabilities),
		Instructions:    canonicalRaw(first.instructions),
		Tools:           map[string]*lock.Entry{},
	}
	if prev != nil {
		s.Acknowledgements = prev.Acknowledgements
	}
	for field, c := range map[string]lock.Canonical{"instructions": first.instructions, "serverInfo": first.serverInfo, "capabilities": first.capabilities} {
		if c.Ambiguous != "" && len(c.Bytes) > 0 {
			if s.Raw == nil {
				s.Raw = map[string]string{}
			}
			s.Raw[field] = base64.StdEncoding.EncodeToString(c.Bytes)
		}
	}
	at := who.At.UTC().Format(time.RFC3339)
	for _, kind := range lock.Kinds {
		keys := first.order[kind]
		if len(keys) == 0 {
			continue
		}
		m := s.Entries(kind, true)
		for _, key := range keys {
			e := lock.NewEntry(first.raw[kind][key])
			if prev != nil {
				if old := prev.Entries(kind, false)[key]; old != nil && old.SHA256 == e.SHA256 && old.ApprovedAt != "" {
					e.ApprovedBy, e.ApprovedAt = old.ApprovedBy, old.ApprovedAt
				}
			}
			if e.ApprovedAt == "" {
				e.ApprovedBy, e.ApprovedAt = who.By, at
			}
			m[key] = e
		}
	}
	return s
}

// canonicalRaw is the canonical JSON of a handshake value (nil if absent
// or ambiguous: the raw bytes cannot be embedded in the lock's JSON).
func canonicalRaw(c lock.Canonical) json.RawMessage {
	if len(c.Bytes) == 0 || c.Ambiguous != "" {
		return nil
	}
	return json.RawMessage(c.Bytes)
}

// settleProbe settles what one server showed in a probe through every
// phase, as pin and approve both take it: its lock entry (prev, nil when
// not pinned), the probe's own findings and a held server's, settled as
// check settles them. unstable are the findings of phases that disagreed.
// Findings point at the server's config entry: the lock they would point
// into is the one being written.
func (opts *Options) settleProbe(run *serverRun, across []finding.Finding) (srv report.Server, prev *lock.Server, unstable []finding.Finding) {
	if opts.Lock != nil {
		prev = opts.Lock.Servers[run.cfg.Name]
	}
	fs, unstable := probeFindings(run, prev, across)
	if run.held != "" {
		fs = append(fs, heldFinding(run))
	}
	if prev != nil && len(run.snaps) > 0 {
		// What pin and approve keep of an entry whose dates only moved
		// with the clock is the lock's (keepClockMoved): its findings
		// are bound to the lock's hash, as check binds them.
		_, moved := compareClock(run.cfg.Name, lockView(prev), run.snaps[0], run.snaps[0].obs.Phase, false)
		rebindMoved(fs, moved)
	}
	place := func(fs []finding.Finding) { locate(fs, run, false, "", noPositions) }
	return opts.settle(serverEntry(run), fs, runLaunch(run), prev, place, nil), prev, unstable
}

// keepClockMoved puts back into s, built from first, the entries of prev
// (the lock's entry for the server) that first shows differing only in
// values that follow the clock: their definition, hash and approval stay
// as approved, so a lock re-pinned or approved a month later is the same
// bytes, and its approvedAt stays the clock its dates are measured from.
func keepClockMoved(s, prev *lock.Server, first *snapshot) {
	if prev == nil || s == nil {
		return
	}
	_, moved := compareClock("", lockView(prev), first, first.obs.Phase, false)
	for _, m := range moved {
		if old := prev.Entries(m.kind, false)[m.key]; old != nil {
			s.Entries(m.kind, true)[m.key] = old
		}
	}
}
