// Package review is the base review of a pull request: what the pull
// request's lock approves over the base branch's lock. The live check
// cannot answer that: in a pull request the author can change the server
// and the lock in the same commit, so the server matches the PR's lock and
// the live check passes. What the PR really asks reviewers to approve is
// the difference between the base branch's lock and the PR's. That
// difference is listed as approval-added / approval-changed notes, and the
// new content is inspected as if it had been seen live: invisible text in
// a new approval fails the check unless the PR's lock acknowledges it, so
// a PR cannot approve what nobody could see.
//
// The review is a finding source and nothing more: it reads two locks and
// returns findings. The check settles them with the live findings, once
// (the policy, the acknowledgements, the exit code are the check's).
package review

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// ServerApprovals is what a pull request's lock approves for one server.
type ServerApprovals struct {
	Server string
	// Findings are the approval-added and approval-changed notes: the
	// server's launch first, then serverInfo, capabilities and instructions,
	// then tools, prompts, resources and templates by name (one finding per
	// changed field), then new acknowledgements.
	Findings []finding.Finding
	// Inspection holds the inspection findings (hidden-characters,
	// terminal-escape, model-instruction, sensitive-path, tool-shadowing,
	// confusable-name, ambiguous-json) on the added or changed content,
	// bound to its canonical hash, with the PR lock's acknowledgements
	// applied.
	Inspection []finding.Finding
}

// Approvals compares a pull request's lock (pr, read from lockPath whose
// bytes are lockData, for line numbers) with the base branch's lock (base;
// nil when the base has no lock: first adoption, everything is a new
// approval). It returns one ServerApprovals per server of pr with anything
// to approve, sorted by server name. Servers the PR removes approve
// nothing and are not listed.
//
// Entries are compared by the canonical hash of their definitions, never by
// the lock's recorded sha256, which a hand-edited lock could leave stale.
func Approvals(base, pr *lock.File, lockPath string, lockData []byte) []ServerApprovals {
	if pr == nil {
		return nil
	}
	idx := lock.Index(lockData)
	var out []ServerApprovals
	// changed records every added or changed tool and prompt, so that
	// shadowing found across the whole PR lock is kept only for them: the
	// live check reports the rest.
	changed := map[string]string{} // server\x00kind\x00key -> canonical sha256
	at := map[string]int{}         // server -> index in out
	for _, name := range slices.Sorted(maps.Keys(pr.Servers)) {
		ps := pr.Servers[name]
		var bs *lock.Server
		if base != nil {
			bs = base.Servers[name]
		}
		a := reviewServer(name, bs, ps, base == nil, changed)
		if len(a.Findings) == 0 && len(a.Inspection) == 0 {
			continue
		}
		at[name] = len(out)
		out = append(out, a)
	}

	// Shadowing and confusable names are judged against every server of
	// the PR's lock, as the live check judges them against every
	// configured server.
	var subjects []inspect.Subject
	for _, name := range slices.Sorted(maps.Keys(pr.Servers)) {
		ps := pr.Servers[name]
		for _, kind := range []lock.Kind{lock.KindTool, lock.KindPrompt} {
			entries := ps.Entries(kind, false)
			for _, key := range slices.Sorted(maps.Keys(entries)) {
				subjects = append(subjects, inspect.Subject{Server: name, Kind: kind, Name: key, Raw: entries[key].Canonical().Bytes})
			}
		}
	}
	// A collision is new against the base branch's lock: that is what
	// the pull request asks to approve.
	for _, f := range inspect.AcrossLock(subjects, PinnedIn(base)) {
		sum, ok := changed[f.Server+"\x00"+string(f.Kind)+"\x00"+f.Subject]
		if !ok {
			continue
		}
		f.ContentSHA256 = sum
		i := at[f.Server]
		out[i].Inspection = append(out[i].Inspection, f)
	}

	for i := range out {
		a := &out[i]
		ps := pr.Servers[a.Server]
		a.Inspection = finding.Dedup(a.Inspection)
		ApplyAcks(a.Inspection, ps)
		for _, fs := range [][]finding.Finding{a.Findings, a.Inspection} {
			for j := range fs {
				f := &fs[j]
				kind := f.Kind
				if kind == finding.KindServer {
					kind = ""
				}
				f.File, f.Line = lockPath, idx.Line(a.Server, kind, f.Subject)
			}
		}
		finding.Sort(a.Inspection)
	}
	return out
}

// reviewServer lists what ps approves over bs (nil: the server is new, or
// the base has no lock at all when first is set) and inspects the new
// content. It records added and changed tools and prompts in changed.
func reviewServer(name string, bs, ps *lock.Server, first bool, changed map[string]string) ServerApprovals {
	a := ServerApprovals{Server: name}
	note := func(rule finding.RuleID, kind lock.Kind, subject, field, msg, before, after string) *finding.Finding {
		f := finding.New(rule, name)
		f.Kind, f.Subject, f.Field, f.Message, f.Before, f.After = kind, subject, field, msg, before, after
		a.Findings = append(a.Findings, f)
		return &a.Findings[len(a.Findings)-1]
	}

	// The launch comes first: a new version or new arguments is what
	// brings the changed text below it.
	approveLaunch(name, bs, ps, first, note)

	var empty lock.Server
	if bs == nil {
		bs = &empty
	}
	pm := ps.Manifest()
	for _, c := range lock.Diff(bs.Manifest(), pm) {
		if c.Kind == lock.KindServer {
			approveOwn(&a, c, note)
			continue
		}
		if c.Op == lock.Removed {
			// Dropping an entry approves nothing new.
			continue
		}
		approveEntry(&a, c, ps, first, changed, note)
	}

	// What a prompt expands to is pinned with it (promptAnswers): a new
	// or changed pinned answer is an approval as a definition is, and its
	// text is inspected as check inspects a live answer, or a pull
	// request could approve a poisoned expansion nobody read.
	for _, name := range slices.Sorted(maps.Keys(ps.PromptAnswers)) {
		approvePromptAnswer(&a, name, bs.PromptAnswers[name], ps.PromptAnswers[name], note)
	}

	// An acknowledgement silences a finding: adding one is an approval
	// too, and reviewers should read its reason.
	for _, k := range ps.Acknowledgements {
		if hasAck(bs.Acknowledgements, k) {
			continue
		}
		msg := fmt.Sprintf("this pull request acknowledges %s on %s %q: %q", k.Rule, k.Kind, k.Subject, k.Reason)
		f := note(finding.ApprovalAdded, k.Kind, k.Subject, "acknowledgements/"+k.Rule, msg, "", ackedText(ps, pm, k))
		f.ContentSHA256 = k.SHA256
		if k.By != "" || k.At != "" {
			f.Detail = strings.TrimSpace("acknowledged by " + k.By + " " + k.At)
		}
	}
	return a
}

// noteFunc adds an approval finding for the server under review and
// returns it for further detail.
type noteFunc = func(rule finding.RuleID, kind lock.Kind, subject, field, msg, before, after string) *finding.Finding

// approveLaunch notes a new server, or a changed launch of an existing one.
func approveLaunch(name string, bs, ps *lock.Server, first bool, note noteFunc) {
	switch {
	case bs == nil:
		msg := fmt.Sprintf("server %q is new in this pull request's lock: everything it holds is a new approval", name)
		if first {
			msg = fmt.Sprintf("the base branch has no lock (first adoption): server %q and everything it holds is a new approval", name)
		}
		note(finding.ApprovalAdded, finding.KindServer, name, "launch", msg, "", launchIdentity(ps.Launch))
	case !bs.Launch.Equal(ps.Launch):
		note(finding.ApprovalChanged, finding.KindServer, name, "launch",
			"this pull request changes how the server is launched (command, arguments, environment names or URL)",
			launchIdentity(bs.Launch), launchIdentity(ps.Launch))
	}
}

// approveEntry notes an added or changed tool, prompt or other entry,
// records it in changed, and inspects its new content.
func approveEntry(a *ServerApprovals, c lock.Change, ps *lock.Server, first bool, changed map[string]string, note noteFunc) {
	name := a.Server
	kind, key, pc := c.Kind, c.Name, c.After
	changed[name+"\x00"+string(kind)+"\x00"+key] = pc.SHA256
	who := approvedBy(ps.Entries(kind, false)[key])
	add := func(rule finding.RuleID, field, msg, before, after string) {
		f := note(rule, kind, key, field, msg, before, after)
		f.ContentSHA256, f.Detail = pc.SHA256, who
	}
	switch {
	case c.Op == lock.Added && first:
		add(finding.ApprovalAdded, "", fmt.Sprintf("%s %q is a new approval (the base branch has no lock)", kind, key), "", string(pc.Bytes))
	case c.Op == lock.Added:
		add(finding.ApprovalAdded, "", fmt.Sprintf("%s %q is new in this pull request's lock", kind, key), "", string(pc.Bytes))
	case c.Ambiguous():
		add(finding.ApprovalChanged, "", fmt.Sprintf("%s %q changes byte for byte in this pull request's lock", kind, key), string(c.Before.Bytes), string(pc.Bytes))
	default:
		for i, fc := range c.Fields {
			if i == lock.MaxFieldChanges {
				add(finding.ApprovalChanged, "", fmt.Sprintf("%s %q: %d more changed fields not listed", kind, key, len(c.Fields)-i), "", "")
				break
			}
			msg := fmt.Sprintf("%s %q changes in this pull request's lock (%s)", kind, key, orWhole(fc.Path))
			if kind == lock.KindTool && fc.Added && lock.IsInputProperty(fc.Path) {
				msg = fmt.Sprintf("tool %q gains the input %q in this pull request's lock: a new channel the model can be asked to fill", key, lastElem(fc.Path))
			}
			add(finding.ApprovalChanged, fc.Path, msg, fc.Before, fc.After)
		}
	}

	// The new content is inspected as the live check would inspect
	// it: the PR may approve text no live server shows (a server that
	// is held, or not configured here).
	if pc.Ambiguous != "" {
		a.Inspection = append(a.Inspection, inspect.AmbiguousEntry(name, kind, key, "", pc))
	}
	fs := inspect.Definition(inspect.Subject{Server: name, Kind: kind, Name: key, Raw: pc.Bytes})
	a.Inspection = append(a.Inspection, withHash(fs, pc.SHA256)...)
}

// approvePromptAnswer notes a new or changed pinned answer pa of the
// prompt name over the base's ba (nil: none), and inspects its text.
func approvePromptAnswer(a *ServerApprovals, name string, ba, pa *lock.PromptAnswer, note noteFunc) {
	after := pa.Canonical()
	var before lock.Canonical
	if ba != nil {
		before = ba.Canonical()
		if before.SHA256 == after.SHA256 && string(ba.Arguments) == string(pa.Arguments) {
			return
		}
	}
	who := ""
	if pa.ApprovedBy != "" || pa.ApprovedAt != "" {
		who = strings.TrimSpace("recorded as approved by " + pa.ApprovedBy + " " + pa.ApprovedAt)
	}
	add := func(rule finding.RuleID, field, msg, b, a string) {
		f := note(rule, lock.KindPrompt, name, field, msg, b, a)
		f.ContentSHA256, f.Detail = after.SHA256, who
	}
	switch {
	case ba == nil:
		add(finding.ApprovalAdded, "prompts/get", fmt.Sprintf("prompt %q's answer to prompts/get %s is pinned in this pull request's lock", name, pa.Arguments), "", string(after.Bytes))
	case string(ba.Arguments) != string(pa.Arguments) || before.Ambiguous != "" || after.Ambiguous != "":
		add(finding.ApprovalChanged, "prompts/get", fmt.Sprintf("prompt %q's pinned answer changes in this pull request's lock", name), string(before.Bytes), string(after.Bytes))
	default:
		for i, fc := range lock.FieldDiff(before.Bytes, after.Bytes) {
			if i == lock.MaxFieldChanges {
				add(finding.ApprovalChanged, "prompts/get", fmt.Sprintf("prompt %q's pinned answer: more changed fields not listed", name), "", "")
				break
			}
			add(finding.ApprovalChanged, lock.JoinFieldPaths("prompts/get", fc.Path), fmt.Sprintf("prompt %q's pinned answer changes in this pull request's lock (%s)", name, orWhole(fc.Path)), fc.Before, fc.After)
		}
	}
	fs := withHash(inspect.Answer(inspect.Subject{Server: a.Server, Kind: lock.KindPrompt, Name: name, Raw: after.Bytes}, inspect.AnswerOptions{}), after.SHA256)
	for i := range fs {
		fs[i].Field = lock.JoinFieldPaths("prompts/get", fs[i].Field)
	}
	a.Inspection = append(a.Inspection, fs...)
}

// approveOwn notes a change of the server's serverInfo, capabilities or
// instructions; new instructions are inspected as the live check would.
// The protocol version is negotiated, not approved, and dropping a value
// approves nothing new.
func approveOwn(a *ServerApprovals, c lock.Change, note func(rule finding.RuleID, kind lock.Kind, subject, field, msg, before, after string) *finding.Finding) {
	if c.Name == "protocolVersion" || c.Op == lock.Removed {
		return
	}
	before, after := string(c.Before.Bytes), string(c.After.Bytes)
	if c.Name == "instructions" {
		// A JSON string shown as its text.
		before, after = c.Before.Text(), c.After.Text()
	}
	rule, msg := finding.ApprovalChanged, fmt.Sprintf("this pull request changes the server's %s", c.Name)
	if c.Op == lock.Added {
		rule, msg = finding.ApprovalAdded, fmt.Sprintf("this pull request approves the server's %s", c.Name)
	}
	f := note(rule, finding.KindServer, c.Name, c.Name, msg, before, after)
	f.ContentSHA256 = c.After.SHA256
	if c.Name == "instructions" {
		fs := inspect.Definition(inspect.Subject{Server: a.Server, Kind: finding.KindServer, Name: "instructions", Raw: c.After.Bytes})
		a.Inspection = append(a.Inspection, withHash(fs, c.After.SHA256)...)
	}
}

// ackedText is the content an acknowledgement silences, as the reports
// show it (hidden tag text decoded beside it): a reviewer reads what the
// pull request asks them to let through, not only its reason. "" when
// the lock holds no content with the acknowledged hash.
func ackedText(ps *lock.Server, pm *lock.Manifest, k lock.Ack) string {
	if k.Kind == finding.KindServer && k.Subject == "instructions" {
		if pm.Instructions.SHA256 == k.SHA256 {
			return pm.Instructions.Text()
		}
		return ""
	}
	if e := ps.Entries(k.Kind, false)[k.Subject]; e != nil {
		if c := e.Canonical(); c.SHA256 == k.SHA256 {
			return string(c.Bytes)
		}
	}
	return ""
}

// hasAck reports whether list holds an acknowledgement of the same rule,
// subject and content as k.
func hasAck(list []lock.Ack, k lock.Ack) bool {
	for _, b := range list {
		if b.Rule == k.Rule && b.Kind == k.Kind && b.Subject == k.Subject && b.SHA256 == k.SHA256 {
			return true
		}
	}
	return false
}

// approvedBy says who the PR's lock records as approving an entry: the
// name a reviewer should expect.
func approvedBy(e *lock.Entry) string {
	if e.ApprovedBy == "" && e.ApprovedAt == "" {
		return ""
	}
	return strings.TrimSpace("recorded as approved by " + e.ApprovedBy + " " + e.ApprovedAt)
}

// launchIdentity renders a launch for a reviewer, header names included.
func launchIdentity(l lock.Launch) string {
	s := pinned.LaunchText(l)
	if len(l.Headers) > 0 {
		s += fmt.Sprintf(" (headers %v)", l.Headers)
	}
	return s
}

// PinnedIn is what lk approved, for inspect.AcrossLock (nil: no lock).
// The live check judges name collisions with it too.
func PinnedIn(lk *lock.File) inspect.Pinned {
	if lk == nil {
		return nil
	}
	return func(server, tool string) (bool, bool) {
		ls := lk.Servers[server]
		if ls == nil {
			return false, false
		}
		_, ok := ls.Entries(lock.KindTool, false)[tool]
		return true, ok
	}
}

// ApplyAcks marks findings a lock acknowledgement covers: same rule, kind,
// subject and content hash. It is the one rule of what an acknowledgement
// silences, for the review and the check's settle alike.
func ApplyAcks(fs []finding.Finding, ls *lock.Server) {
	if ls == nil {
		return
	}
	for i, f := range fs {
		for _, a := range ls.Acknowledgements {
			if a.Rule == string(f.Rule) && a.Kind == f.Kind && a.Subject == f.Subject && a.SHA256 != "" && a.SHA256 == f.ContentSHA256 {
				fs[i].Acknowledged = true
				fs[i].AckReason = a.Reason
			}
		}
	}
}

// withHash binds inspection findings to the canonical hash of their
// content, the hash an acknowledgement in the lock must match.
func withHash(fs []finding.Finding, sum string) []finding.Finding {
	for i := range fs {
		fs[i].ContentSHA256 = sum
	}
	return fs
}

func orWhole(field string) string {
	if field == "" {
		return "whole definition"
	}
	return field
}

func lastElem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
