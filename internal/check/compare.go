package check

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/timestamps"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// snapshot is an observation in comparable form: every definition
// canonicalized once.
type snapshot struct {
	obs          probe.Observation
	serverInfo   lock.Canonical
	capabilities lock.Canonical
	instructions lock.Canonical
	// protocolVersion is the version negotiated ("" in the lock view of
	// an old lock without one).
	protocolVersion string
	entries         map[lock.Kind]map[string]lock.Canonical // kind -> key -> canonical
	order           map[lock.Kind][]string                  // kind -> keys in listed order
	dups            []finding.Finding                       // keys listed twice
	raw             map[lock.Kind]map[string][]byte         // kind -> key -> raw
	// at is the clock the server read when it showed this phase (the
	// run's, moved by a clock launch's offset); approved, in a lock
	// view, is each entry's approvedAt instead: what a value that
	// follows the clock is measured from (clockOf).
	at       time.Time
	approved map[lock.Kind]map[string]time.Time
}

// clockOf is the clock the definition kind/key was seen at: its
// approvedAt in a lock view, the phase's clock in a live snapshot; zero
// when not known (an entry without approvedAt), and then no value in it
// follows the clock.
func (s *snapshot) clockOf(kind lock.Kind, key string) time.Time {
	if s.approved != nil {
		return s.approved[kind][key]
	}
	return s.at
}

func newSnapshot(server string, o probe.Observation) *snapshot {
	return newSnapshotCached(server, o, nil)
}

// canonCache remembers the canonical form of raw definitions already seen
// in a run, keyed by the sha256 of the raw bytes: a server re-lists the same
// bytes in every phase, and JCS is most of the cost of a large manifest.
// It also redacts: what it returns is what the lock and every finding see.
type canonCache struct {
	mu  sync.Mutex
	m   map[[32]byte]redacted
	red *redact.Redactor
}

// redacted is a definition after redaction: its canonical form, and the
// bytes that stand for it from then on (the raw bytes as received when no
// secret was in them, else the redacted canonical bytes).
type redacted struct {
	canon lock.Canonical
	raw   []byte
}

// newSnapshotCached is newSnapshot sharing a cache across the phases of one
// run (nil: none).
func newSnapshotCached(server string, o probe.Observation, cache *canonCache) *snapshot {
	o = cache.redactObservation(o)
	s := &snapshot{
		obs:             o,
		protocolVersion: o.ProtocolVersion,
		serverInfo:      lock.CanonicalizeOptional(o.ServerInfo),
		capabilities:    lock.CanonicalizeOptional(o.Capabilities),
		instructions:    lock.CanonicalizeOptional(o.Instructions),
		entries:         map[lock.Kind]map[string]lock.Canonical{},
		order:           map[lock.Kind][]string{},
		raw:             map[lock.Kind]map[string][]byte{},
	}
	for _, kind := range probe.Kinds {
		defs, ok := o.Lists[kind]
		if !ok {
			continue
		}
		m := map[string]lock.Canonical{}
		r := map[string][]byte{}
		canon := canonicalizeAll(defs, cache)
		for i, d := range defs {
			d.Key = cache.redactor().String(d.Key)
			d.Raw = canon[i].raw
			if _, dup := m[d.Key]; dup {
				s.dups = append(s.dups, inspect.DuplicateEntry(server, kind, d.Key, o.Phase))
				continue
			}
			m[d.Key] = canon[i].canon
			r[d.Key] = d.Raw
			s.order[kind] = append(s.order[kind], d.Key)
		}
		s.entries[kind] = m
		s.raw[kind] = r
	}
	return s
}

// canonicalizeAll canonicalizes definitions on every CPU: JCS is most of
// the cost of comparing a large manifest, and definitions are independent.
func canonicalizeAll(defs []probe.Def, cache *canonCache) []redacted {
	out := make([]redacted, len(defs))
	workers := min(runtime.GOMAXPROCS(0), len(defs)/32+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(defs); i += workers {
				out[i] = cache.canonicalize(defs[i].Raw)
			}
		}()
	}
	wg.Wait()
	return out
}

func (c *canonCache) canonicalize(raw []byte) redacted {
	if c == nil {
		return redactDef(raw, nil)
	}
	key := sha256.Sum256(raw)
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = redactDef(raw, c.red)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[[32]byte]redacted{}
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}

func (c *canonCache) redactor() *redact.Redactor {
	if c == nil {
		return nil
	}
	return c.red
}

// redactObservation redacts the handshake values, prompts/get answers and
// resources/read answers of an observation; definitions are redacted as they are canonicalized.
func (c *canonCache) redactObservation(o probe.Observation) probe.Observation {
	r := c.redactor()
	o.ServerInfo = r.JSON(o.ServerInfo)
	o.Capabilities = r.JSON(o.Capabilities)
	o.Instructions = r.JSON(o.Instructions)
	if len(o.PromptGets) > 0 {
		pg := make(map[string]json.RawMessage, len(o.PromptGets))
		for k, v := range o.PromptGets {
			pg[r.String(k)] = r.JSON(v)
		}
		o.PromptGets = pg
	}
	if len(o.ResourceReads) > 0 {
		rr := make(map[string]json.RawMessage, len(o.ResourceReads))
		for k, v := range o.ResourceReads {
			rr[r.String(k)] = r.JSON(v)
		}
		o.ResourceReads = rr
	}
	return o
}

// redactDef is pinned.Definition as the cache keeps it.
func redactDef(raw []byte, r *redact.Redactor) redacted {
	c, b := pinned.Definition(raw, r)
	return redacted{canon: c, raw: b}
}

// lockView is the lock entry in the same comparable form.
func lockView(ls *lock.Server) *snapshot {
	m := ls.Manifest()
	approved := map[lock.Kind]map[string]time.Time{}
	for _, kind := range lock.Kinds {
		at := map[string]time.Time{}
		for key, e := range ls.Entries(kind, false) {
			at[key] = e.Approved()
		}
		approved[kind] = at
	}
	return &snapshot{
		protocolVersion: m.ProtocolVersion,
		serverInfo:      m.ServerInfo,
		capabilities:    m.Capabilities,
		instructions:    m.Instructions,
		entries:         m.Entries,
		approved:        approved,
	}
}

// manifest is the snapshot as lock.Diff compares it.
func (s *snapshot) manifest() *lock.Manifest {
	return &lock.Manifest{
		ProtocolVersion: s.protocolVersion,
		ServerInfo:      s.serverInfo,
		Capabilities:    s.capabilities,
		Instructions:    s.instructions,
		Entries:         s.entries,
	}
}

// compare turns what differs between a reference (the lock, or an earlier
// phase) and a phase into findings: drift against the lock, or
// unstable-manifest between phases (stability).
func compare(server string, ref, live *snapshot, phase string, stability bool) []finding.Finding {
	fs, _ := compareClock(server, ref, live, phase, stability)
	return fs
}

// clockMove is a definition whose only difference from its reference is
// date-shaped values that moved with the clock (timestamps.FollowClock):
// not a change, but said in a note, and its inspection findings are bound
// to the reference's hash (an acknowledgement in the lock keeps holding).
type clockMove struct {
	kind          lock.Kind
	key           string
	before, after lock.Canonical
	// from and to are the first pair of tokens that moved.
	from, to string
}

// note is what the report says of m; where is "than the lock" or
// "between phases", phase the phase it was seen in.
func (m clockMove) note(where, phase string) string {
	return fmt.Sprintf("%s %q differs %s only in dates that moved with the clock (%q, then %q at %s): read as the clock, not as a change", m.kind, m.key, where, clip.Bytes(m.from, 60), clip.Bytes(m.to, 60), phase)
}

// compareClock is compare, and the definitions it did not count as
// changed because they differ only in values that follow the clock.
func compareClock(server string, ref, live *snapshot, phase string, stability bool) ([]finding.Finding, []clockMove) {
	var out []finding.Finding
	var moves []clockMove
	add := func(rule finding.RuleID, kind lock.Kind, subject, field, msg, before, after string) {
		if stability {
			msg = "changed during the probe: " + msg
			rule = finding.UnstableManifest
		}
		f := finding.New(rule, server)
		f.Kind, f.Subject, f.Field, f.Phase, f.Message, f.Before, f.After = kind, subject, field, phase, msg, before, after
		out = append(out, f)
	}
	changes := lock.Diff(ref.manifest(), live.manifest())
	changes = slices.DeleteFunc(changes, func(c lock.Change) bool {
		if c.Kind == lock.KindServer || c.Op != lock.Changed || c.Ambiguous() {
			return false
		}
		from, to, ok := timestamps.FollowClock(c.Before.Bytes, c.After.Bytes, ref.clockOf(c.Kind, c.Name), live.clockOf(c.Kind, c.Name))
		if ok {
			moves = append(moves, clockMove{kind: c.Kind, key: c.Name, before: c.Before, after: c.After, from: from, to: to})
		}
		return ok
	})
	own := map[string]lock.Change{}
	for _, c := range changes {
		if c.Kind == lock.KindServer {
			own[c.Name] = c
		}
	}
	if c, ok := own["instructions"]; ok {
		add(finding.InstructionsChanged, finding.KindServer, "instructions", "instructions",
			"the server's initialize instructions differ", c.Before.Text(), c.After.Text())
	}
	// An old lock without a protocol version speaks to no version.
	if c, ok := own["protocolVersion"]; ok && c.Op == lock.Changed {
		add(finding.ServerInfoChanged, finding.KindServer, "protocolVersion", "protocolVersion",
			"the negotiated protocol version differs", ref.protocolVersion, live.protocolVersion)
	}
	if c, ok := own["serverInfo"]; ok {
		add(finding.ServerInfoChanged, finding.KindServer, "serverInfo", "serverInfo",
			"serverInfo differs", string(c.Before.Bytes), string(c.After.Bytes))
	}
	if c, ok := own["capabilities"]; ok {
		add(finding.CapabilitiesChanged, finding.KindServer, "capabilities", "capabilities",
			"capabilities differ", string(c.Before.Bytes), string(c.After.Bytes))
	}
	for _, c := range changes {
		if c.Kind == lock.KindServer {
			continue
		}
		kind, key, rule := c.Kind, c.Name, finding.EntryRule(c.Kind, c.Op)
		switch {
		case c.Op == lock.Added:
			add(rule, kind, key, "", fmt.Sprintf("%s %q is not in the %s", kind, key, refName(stability)), "", string(c.After.Bytes))
		case c.Op == lock.Removed:
			add(rule, kind, key, "", fmt.Sprintf("%s %q is no longer listed", kind, key), string(c.Before.Bytes), "")
		case c.Ambiguous():
			add(rule, kind, key, "", fmt.Sprintf("%s %q differs byte for byte", kind, key), string(c.Before.Bytes), string(c.After.Bytes))
		default:
			for i, fc := range c.Fields {
				if i == lock.MaxFieldChanges {
					add(rule, kind, key, "", fmt.Sprintf("%s %q: %d more changed fields not listed", kind, key, len(c.Fields)-i), "", "")
					break
				}
				add(rule, kind, key, fc.Path, fmt.Sprintf("%s %q changed (%s)", kind, key, orWhole(fc.Path)), fc.Before, fc.After)
				if kind == lock.KindTool && !stability {
					for _, p := range newInputProperties(fc) {
						add(finding.NewInputProperty, kind, key, p, fmt.Sprintf("tool %q accepts a new input %q", key, lastElem(p)), "", fc.After)
					}
				}
			}
		}
	}
	return out, moves
}

func refName(stability bool) string {
	if stability {
		return "first phase"
	}
	return "lock"
}

func orWhole(field string) string {
	if field == "" {
		return "whole definition"
	}
	return field
}

func lastElem(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// entryFindings compare a configured server with its lock entry ls as a
// whole: server-not-pinned when there is none, launch-changed when the
// launch differs from the approved one.
func entryFindings(run *serverRun, ls *lock.Server) []finding.Finding {
	name := run.cfg.Name
	if ls == nil {
		f := finding.New(finding.ServerNotPinned, name)
		f.Kind, f.Subject = finding.KindServer, name
		f.Message = fmt.Sprintf("server %q is configured in %s but has no entry in the lock", name, run.cfg.File)
		return []finding.Finding{f}
	}
	if want := liveLaunch(run); !want.Equal(ls.Launch) {
		f := finding.New(finding.LaunchChanged, name)
		f.Kind, f.Subject, f.Field = finding.KindServer, name, "launch"
		f.Message = "the configured launch differs from the approved one"
		f.Before, f.After = pinned.LaunchText(ls.Launch), pinned.LaunchText(want)
		return []finding.Finding{f}
	}
	return nil
}

// orphanedFinding is lock-entry-orphaned: the lock holds server name,
// and no config names it.
func orphanedFinding(name string) finding.Finding {
	f := finding.New(finding.LockEntryOrphaned, name)
	f.Kind, f.Subject = finding.KindServer, name
	f.Message = fmt.Sprintf("the lock holds server %q but no config names it", name)
	return f
}
