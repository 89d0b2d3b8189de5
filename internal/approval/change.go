package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Change operations.
const (
	OpAdded   = string(lock.Added)
	OpRemoved = string(lock.Removed)
	OpChanged = string(lock.Changed)
	OpRenamed = "renamed"
)

// KindServer is the Change kind of the server's own fields: Name is
// "launch", "protocolVersion", "serverInfo", "capabilities" or
// "instructions".
const KindServer = lock.KindServer

// Change is one unit of approval: an entry added, removed, changed or
// renamed, or one of the server's own fields (the launch among them).
// lock.Change is a difference between two manifests; a Change is what a
// user approves, so it also knows its server and pairs a removal with an
// addition into a rename.
type Change struct {
	Server string
	Kind   lock.Kind // lock.KindTool ... or KindServer
	Name   string    // the entry key (the new key of a rename)
	Op     string
	// From is the old key of a rename.
	From string
	// Before and After are the canonical bytes in the lock and live
	// (nil when absent).
	Before, After []byte
	// Fields are the field-level differences of a change or rename.
	Fields []lock.FieldChange
}

// ID is "server/kind/name", the form approve takes.
func (c Change) ID() string { return c.Server + "/" + string(c.Kind) + "/" + c.Name }

// approvalView is a lock entry (nil: none) as approve compares it. The
// server's own fields are read from their JSON only: ApplyChanges writes
// them back from there, and a value kept as raw bytes has none.
func approvalView(s *lock.Server) *lock.Manifest {
	if s == nil {
		return &lock.Manifest{}
	}
	m := s.Manifest()
	m.ServerInfo, m.Capabilities, m.Instructions = lock.CanonicalizeOptional(s.ServerInfo), lock.CanonicalizeOptional(s.Capabilities), lock.CanonicalizeOptional(s.Instructions)
	return m
}

// launchOf is a lock entry's launch in canonical JSON (nil: no entry).
func launchOf(s *lock.Server) lock.Canonical {
	if s == nil {
		return lock.Canonical{}
	}
	b, _ := json.Marshal(s.Launch)
	return lock.CanonicalizeOptional(b)
}

// Changes lists what differs between a server's lock entry (nil: not
// pinned) and what it showed live: its own fields first (the launch, then
// lock.Diff's), then entries by kind and key. A removed and an added entry
// of one kind whose definitions are the same apart from the name (and at
// most one other field) are one rename.
func Changes(server string, prev, live *lock.Server) []Change {
	var out []Change
	of := func(d lock.Change) Change {
		return Change{Server: server, Kind: d.Kind, Name: d.Name, Op: string(d.Op), Before: d.Before.Bytes, After: d.After.Bytes, Fields: d.Fields}
	}
	// The launch is not something the server shows; approving it is
	// approve's own.
	if d, ok := lock.DiffOne(KindServer, "launch", launchOf(prev), launchOf(live)); ok {
		out = append(out, of(d))
	}
	diff := lock.Diff(approvalView(prev), approvalView(live))
	for _, d := range diff {
		if d.Kind == KindServer {
			out = append(out, of(d))
		}
	}
	for _, kind := range lock.Kinds {
		var added, removed []Change
		for _, d := range diff {
			if d.Kind != kind {
				continue
			}
			switch d.Op {
			case lock.Added:
				added = append(added, of(d))
			case lock.Removed:
				removed = append(removed, of(d))
			default:
				out = append(out, of(d))
			}
		}
		out = append(out, pairRenames(added, removed)...)
	}
	return append(out, answerChanges(server, prev, live, out)...)
}

// answerChanges lists the prompts whose pinned prompts/get answer differs
// between prev and live while their definitions do not (a prompt whose
// definition changed carries its answer along, ApplyChanges): approving a
// prompt approves what it expands to as well, since check reports a
// changed answer as prompt-changed. The fields are the answer's, under
// "prompts/get" as check's findings name them.
func answerChanges(server string, prev, live *lock.Server, defs []Change) []Change {
	if live == nil {
		return nil
	}
	var prevAnswers map[string]*lock.PromptAnswer
	if prev != nil {
		prevAnswers = prev.PromptAnswers
	}
	var out []Change
	for _, name := range slices.Sorted(maps.Keys(live.PromptAnswers)) {
		a, b := prevAnswers[name], live.PromptAnswers[name]
		if a != nil && a.SHA256 == b.SHA256 && string(a.Arguments) == string(b.Arguments) {
			continue
		}
		if slices.ContainsFunc(defs, func(c Change) bool { return c.Kind == lock.KindPrompt && c.Name == name }) {
			continue
		}
		c := Change{Server: server, Kind: lock.KindPrompt, Name: name, Op: OpChanged, After: b.Canonical().Bytes}
		if a != nil {
			c.Before = a.Canonical().Bytes
		}
		for _, fc := range lock.FieldDiff(c.Before, c.After) {
			fc.Path = lock.JoinFieldPaths("prompts/get", fc.Path)
			c.Fields = append(c.Fields, fc)
		}
		out = append(out, c)
	}
	return out
}

// pairRenames turns a removed and an added entry whose definitions are
// near-identical apart from the name into one rename: with the old name
// replaced by the new one everywhere (a description may say its own
// name), the definitions are equal, or differ in one string field by a
// small edit (see similar).
func pairRenames(added, removed []Change) []Change {
	used := map[int]bool{}
	var out []Change
	for _, a := range added {
		match := -1
		var fields []lock.FieldChange
		for i, r := range removed {
			if used[i] || a.After == nil || r.Before == nil {
				continue
			}
			renamed := lock.Canonicalize(bytes.ReplaceAll(r.Before, []byte(jsonText(r.Name)), []byte(jsonText(a.Name))))
			if renamed.Ambiguous != "" {
				continue
			}
			if d := lock.FieldDiff(renamed.Bytes, a.After); len(d) == 0 || (len(d) == 1 && similar(d[0].Before, d[0].After)) {
				match, fields = i, lock.FieldDiff(r.Before, a.After)
				break
			}
		}
		if match < 0 {
			out = append(out, a)
			continue
		}
		used[match] = true
		r := removed[match]
		out = append(out, Change{Server: a.Server, Kind: a.Kind, Name: a.Name, From: r.Name, Op: OpRenamed, Before: r.Before, After: a.After, Fields: fields})
	}
	for i, r := range removed {
		if !used[i] {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// similar reports whether two texts share at least 80% of the longer
// one as a common prefix and suffix: an edited sentence, not a new text.
func similar(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	n := max(len(ra), len(rb))
	if n == 0 {
		return true
	}
	p := 0
	for p < len(ra) && p < len(rb) && ra[p] == rb[p] {
		p++
	}
	q := 0
	for q < len(ra)-p && q < len(rb)-p && ra[len(ra)-1-q] == rb[len(rb)-1-q] {
		q++
	}
	return (p+q)*5 >= n*4
}

// jsonText is s as it appears inside a JSON string token.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// Selector names what to approve: a whole server (Kind "") or one entry
// ("fs/tool/read_text_file"). Resource keys are URIs and may hold "/":
// everything after the kind is the name.
type Selector struct {
	Server string
	Kind   lock.Kind
	Name   string
}

func (s Selector) String() string {
	if s.Kind == "" {
		return s.Server
	}
	return s.Server + "/" + string(s.Kind) + "/" + s.Name
}

// errSelector marks a SERVER/KIND/NAME argument that cannot be read.
var errSelector = errors.New("bad selector")

// ParseSelector reads SERVER or SERVER/KIND/NAME, KIND one of tool,
// prompt, resource, template (and server, for acknowledging the
// instructions: "fs/server/instructions").
func ParseSelector(arg string) (Selector, error) {
	parts := strings.SplitN(arg, "/", 3)
	switch {
	case parts[0] == "":
		return Selector{}, fmt.Errorf("%w %q: no server name", errSelector, arg)
	case len(parts) == 1:
		return Selector{Server: parts[0]}, nil
	case len(parts) == 2 || parts[2] == "":
		return Selector{}, fmt.Errorf("%w %q: want SERVER or SERVER/KIND/NAME", errSelector, arg)
	}
	kind := lock.Kind(parts[1])
	if !kind.Valid() {
		return Selector{}, fmt.Errorf("%w %q: kind %q is not tool, prompt, resource or template", errSelector, arg, parts[1])
	}
	return Selector{Server: parts[0], Kind: kind, Name: parts[2]}, nil
}

// matches reports whether the selector names the change. A rename is one
// change: naming either its old or its new name names it.
func (s Selector) matches(c Change) bool {
	if s.Server != c.Server {
		return false
	}
	if s.Kind == "" {
		return true
	}
	return s.Kind == c.Kind && (s.Name == c.Name || (c.Op == OpRenamed && s.Name == c.From))
}

// known reports whether the selector names something the lock or the live
// server holds (changed or not).
func (s Selector) known(prev, live *lock.Server) bool {
	if s.Kind == "" {
		return true
	}
	if s.Kind == KindServer {
		return true
	}
	for _, ls := range []*lock.Server{prev, live} {
		if ls == nil {
			continue
		}
		if _, ok := ls.Entries(s.Kind, false)[s.Name]; ok {
			return true
		}
	}
	return false
}

// ApplyChanges writes the given changes of one server, and nothing else,
// into the lock: added and changed entries from the live server (approved
// by who), removed entries deleted, a rename both. The server's own
// fields are taken from live only when a change names them, except for a
// server the lock does not hold yet, which cannot exist without them.
func ApplyChanges(lk *lock.File, server string, live *lock.Server, changes []Change, who Approver) {
	cur := lk.Servers[server]
	if cur == nil {
		cur = &lock.Server{
			Launch: live.Launch, ProtocolVersion: live.ProtocolVersion, ServerInfo: live.ServerInfo,
			Capabilities: live.Capabilities, Instructions: live.Instructions, Tools: map[string]*lock.Entry{},
		}
		lk.Servers[server] = cur
	}
	at := who.At.UTC().Format(time.RFC3339)
	approved := func(e *lock.Entry) *lock.Entry {
		c := *e
		c.ApprovedBy, c.ApprovedAt = who.By, at
		return &c
	}
	for _, c := range changes {
		if c.Server != server {
			continue
		}
		if c.Kind == KindServer {
			switch c.Name {
			case "launch":
				cur.Launch = live.Launch
			case "protocolVersion":
				cur.ProtocolVersion = live.ProtocolVersion
			case "serverInfo":
				cur.ServerInfo = live.ServerInfo
			case "capabilities":
				cur.Capabilities = live.Capabilities
			case "instructions":
				cur.Instructions = live.Instructions
			}
			continue
		}
		m := cur.Entries(c.Kind, true)
		switch c.Op {
		case OpRemoved:
			delete(m, c.Name)
		case OpRenamed:
			delete(m, c.From)
			m[c.Name] = approved(live.Entries(c.Kind, false)[c.Name])
		default:
			if e := live.Entries(c.Kind, false)[c.Name]; e != nil {
				m[c.Name] = approved(e)
			}
		}
		if c.Kind == lock.KindPrompt {
			// A prompt's approval covers what it expands to.
			if c.Op == OpRenamed {
				delete(cur.PromptAnswers, c.From)
			}
			delete(cur.PromptAnswers, c.Name)
			if a := live.PromptAnswers[c.Name]; a != nil && c.Op != OpRemoved {
				na := *a
				na.ApprovedBy, na.ApprovedAt = who.By, at
				if cur.PromptAnswers == nil {
					cur.PromptAnswers = map[string]*lock.PromptAnswer{}
				}
				cur.PromptAnswers[c.Name] = &na
			}
			if len(cur.PromptAnswers) == 0 {
				cur.PromptAnswers = nil
			}
		}
	}
	for _, kind := range lock.Kinds[1:] {
		if m := cur.Entries(kind, false); m != nil && len(m) == 0 {
			switch kind {
			case lock.KindPrompt:
				cur.Prompts = nil
			case lock.KindResource:
				cur.Resources = nil
			case lock.KindTemplate:
				cur.ResourceTemplates = nil
			}
		}
	}
}

// errNothingToAck marks an --ack for which the live probe shows no such
// finding: an acknowledgement binds to content the finding was raised on.
var errNothingToAck = errors.New("nothing to acknowledge")

// ackFor builds the acknowledgements of rule on the selected subject, one
// per content hash the live probe raised it on (a tool's definition and
// what its warm-up call returned are two contents), each bound to that
// hash.
func ackFor(l *Live, rule finding.RuleID, sel Selector, reason string, who Approver) ([]lock.Ack, error) {
	var out []lock.Ack
	seen := map[string]bool{}
	for _, f := range l.Findings {
		if f.Rule == rule && f.Kind == sel.Kind && f.Subject == sel.Name && f.ContentSHA256 != "" && !seen[f.ContentSHA256] {
			seen[f.ContentSHA256] = true
			out = append(out, lock.Ack{Rule: string(rule), Kind: sel.Kind, Subject: sel.Name, SHA256: f.ContentSHA256,
				Reason: reason, By: who.By, At: who.At.UTC().Format(time.RFC3339)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the live probe of %q raises no %s finding on %s", errNothingToAck, l.Name, rule, sel)
	}
	return out, nil
}

// addAck records an acknowledgement in a server's lock entry, replacing
// an identical one (same rule, kind, subject and hash).
func addAck(ls *lock.Server, a lock.Ack) {
	kept := ls.Acknowledgements[:0]
	for _, o := range ls.Acknowledgements {
		if o.Rule == a.Rule && o.Kind == a.Kind && o.Subject == a.Subject && o.SHA256 == a.SHA256 {
			continue
		}
		kept = append(kept, o)
	}
	ls.Acknowledgements = append(kept, a)
}

// ErrReportMismatch marks a change that differs from what a saved report
// showed: approve --from approves exactly what was reviewed.
var ErrReportMismatch = errors.New("the live server differs from the report")

// changeRules maps a kind to its added / removed / changed rule ids.
func changeRules(kind lock.Kind) [3]finding.RuleID {
	return [3]finding.RuleID{finding.EntryRule(kind, lock.Added), finding.EntryRule(kind, lock.Removed), finding.EntryRule(kind, lock.Changed)}
}

// ReportShows reports whether a saved report's findings for a server show
// the change at all (any drift finding on its subject).
func ReportShows(fs []finding.Finding, c Change) bool {
	for _, f := range fs {
		if reportSubject(f, c) {
			return true
		}
	}
	return false
}

// reportSubject reports whether a drift finding is about the change.
func reportSubject(f finding.Finding, c Change) bool {
	if c.Kind == KindServer {
		switch c.Name {
		case "launch":
			return f.Rule == finding.LaunchChanged || f.Rule == finding.PackageChanged || f.Rule == finding.ArtifactChanged
		case "serverInfo":
			return f.Rule == finding.ServerInfoChanged
		case "capabilities":
			return f.Rule == finding.CapabilitiesChanged
		case "instructions":
			return f.Rule == finding.InstructionsChanged
		}
		return false
	}
	rules := changeRules(c.Kind)
	if f.Kind != c.Kind {
		return false
	}
	if f.Subject == c.Name || (c.Op == OpRenamed && f.Subject == c.From) {
		return f.Rule == rules[0] || f.Rule == rules[1] || f.Rule == rules[2]
	}
	return false
}

// VerifyAgainstReport checks that the live change is exactly what a saved
// `check --format json` report showed for its subject: the same full text
// of an added entry, the same field paths with the same before and after
// values of a changed one, the same removal. Anything else, including a
// report too long to hold every changed field, is ErrReportMismatch.
func VerifyAgainstReport(fs []finding.Finding, c Change) error {
	var mine []finding.Finding
	for _, f := range fs {
		if reportSubject(f, c) {
			mine = append(mine, f)
		}
	}
	mismatch := func(why string) error {
		return fmt.Errorf("%w: %s: %s", ErrReportMismatch, c.ID(), why)
	}
	if len(mine) == 0 {
		return mismatch("the report does not show this change")
	}
	if c.Kind == KindServer {
		return verifyServerField(mine, c, mismatch)
	}
	rules := changeRules(c.Kind)
	has := func(rule finding.RuleID, subject string) *finding.Finding {
		for i := range mine {
			if mine[i].Rule == rule && mine[i].Subject == subject {
				return &mine[i]
			}
		}
		return nil
	}
	switch c.Op {
	case OpAdded:
		f := has(rules[0], c.Name)
		if f == nil || f.After != string(c.After) {
			return mismatch("the live definition is not the one the report showed as added")
		}
	case OpRemoved:
		if has(rules[1], c.Name) == nil {
			return mismatch("the report does not show it removed")
		}
	case OpRenamed:
		f := has(rules[0], c.Name)
		if f == nil || f.After != string(c.After) || has(rules[1], c.From) == nil {
			return mismatch("the report does not show this rename")
		}
	case OpChanged:
		want := map[string][2]string{}
		for _, f := range mine {
			if f.Rule != rules[2] {
				continue
			}
			if f.Field == "" && f.Before == "" && f.After == "" {
				return mismatch("the report lists only some of the changed fields; approve it from a live review instead")
			}
			want[f.Field] = [2]string{f.Before, f.After}
		}
		got := map[string][2]string{}
		if c.Fields == nil {
			got[""] = [2]string{string(c.Before), string(c.After)}
		}
		for _, fc := range c.Fields {
			got[fc.Path] = [2]string{fc.Before, fc.After}
		}
		if len(got) != len(want) {
			return mismatch(fmt.Sprintf("the report shows %d changed field(s), the live server %d", len(want), len(got)))
		}
		for p, v := range got {
			if w, ok := want[p]; !ok || w != v {
				if p == "" {
					p = "whole definition"
				}
				return mismatch(fmt.Sprintf("field %q is not what the report showed", p))
			}
		}
	}
	return nil
}

func verifyServerField(mine []finding.Finding, c Change, mismatch func(string) error) error {
	for _, f := range mine {
		var live string
		switch f.Rule {
		case finding.InstructionsChanged:
			live = lock.Canonical{Bytes: c.After}.Text()
		case finding.ServerInfoChanged, finding.CapabilitiesChanged:
			live = string(c.After)
		case finding.LaunchChanged:
			var l lock.Launch
			if json.Unmarshal(c.After, &l) != nil {
				return mismatch("cannot read the live launch")
			}
			live = pinned.LaunchText(l)
		case finding.PackageChanged:
			var l lock.Launch
			if json.Unmarshal(c.After, &l) != nil {
				return mismatch("cannot read the live launch")
			}
			live = l.Resolved
		case finding.ArtifactChanged:
			var l lock.Launch
			if json.Unmarshal(c.After, &l) != nil {
				return mismatch("cannot read the live launch")
			}
			switch f.Field {
			case "launch/integrity":
				live = l.Integrity
			case "launch/digest":
				live = l.Digest
			case "launch/fileSha256":
				live = l.FileSHA256
			}
		}
		if f.After != live {
			return mismatch("the live value is not the one the report showed")
		}
	}
	return nil
}
