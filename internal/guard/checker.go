package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/timestamps"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// errorRules are the inspection rules whose findings say what the text is
// (invisible characters, terminal control sequences), not what it means:
// --mode sanitize can strip exactly what they flag. model-instruction is
// an error when the text asks the model for an error's action (run a
// command, send data to a fixed destination, read secrets, override,
// hide): the guard refuses that answer in every mode, since there is no
// span to strip that leaves the rest safe; its warnings, and
// sensitive-path's, are logged and the answer goes on, as check reports
// them for a human's review and still passes.
var errorRules = map[finding.RuleID]bool{finding.HiddenCharacters: true, finding.TerminalEscape: true}

// maxAccepted bounds the cache of definitions already checked; past it the
// cache starts over (each definition is then checked again, never skipped).
const maxAccepted = 10000

// checker holds answers up against one lock entry. It is used from the
// server-to-client loop only.
type checker struct {
	server   string
	lockPath string
	ls       *lock.Server
	locked   map[lock.Kind]map[string]lock.Canonical // kind -> key -> canonical
	instr    lock.Canonical
	info     lock.Canonical
	caps     lock.Canonical

	// accepted maps kind+"\x00"+key to the exact bytes of the definition
	// last checked for it: a byte-identical re-list (the common case after
	// list_changed) is not canonicalized again. Comparing the bytes, not a
	// hash of them, leaves nothing to collide.
	accepted map[string][]byte
	// pages holds list results already accepted whole, by a seeded hash of
	// method and bytes; a re-list whose result is byte-identical to one of
	// them costs a hash and a compare (knownPage). pageBytes bounds them.
	pages     map[uint64][]byte
	pageBytes int
	seed      maphash.Seed
	// promptPins is the session pin of prompts/get: canonical params (without
	// _meta) -> the canonical first answer.
	promptPins map[string]lock.Canonical
	// logged avoids repeating a warning (serverInfo, capabilities).
	logged map[string]bool
	// warnings counts the answer warnings logged, by rule, subject and
	// field (warnAnswer): the first of each is logged whole, the rest
	// counted, so a chatty tool cannot flood the client's log. wmu
	// guards them: a forwarding loop that outlived its session may
	// still log.
	wmu          sync.Mutex
	warnings     map[string]int
	warningLines int
	// warn takes warning-level differences, which are logged, not refused.
	warn io.Writer
	// red redacts live text the way pin redacted what it recorded: a
	// definition that held a secret is in the lock as its redacted
	// canonical form, so the live one is compared in that form too.
	red *redact.Redactor
}

// asPinned is raw in the form pin records it (canonical, secrets redacted).
func (c *checker) asPinned(raw []byte) lock.Canonical {
	return pinned.Canonical(raw, c.red)
}

func newChecker(server string, ls *lock.Server, lockPath string) *checker {
	c := &checker{
		server: server, lockPath: orLock(lockPath), ls: ls,
		instr:      lock.CanonicalizeOptional(ls.Instructions),
		info:       lock.CanonicalizeOptional(ls.ServerInfo),
		caps:       lock.CanonicalizeOptional(ls.Capabilities),
		accepted:   map[string][]byte{},
		pages:      map[uint64][]byte{},
		seed:       maphash.MakeSeed(),
		promptPins: map[string]lock.Canonical{},
		logged:     map[string]bool{},
	}
	c.locked = ls.Manifest().Entries
	return c
}

// problem is one thing wrong with an answer.
type problem struct {
	rule finding.RuleID
	// kind is an entry kind or lock.KindServer; for text no lock pins,
	// the part it is ("result", "error", "request").
	kind    lock.Kind
	subject string
	fields  []string // changed field paths; "" is the whole definition
	what    string   // for a human: "is not in the lock", "changed", ...
	changes []lock.FieldChange
	// first is set when the reference is the session's first answer
	// (prompts/get), not the lock.
	first bool
	// msg and detail are an inspection finding's message and detail
	// (escaped by inspect): the decoded hidden text, the sequences found.
	msg, detail string
	// hidden marks a model-instruction finding whose every match was in
	// hidden text: stripping the hidden characters removes it.
	hidden bool
	// phase is where in the session an answer's finding was made
	// (pendingReq.where); "" for drift from the lock.
	phase string
}

// refusal is a refused answer: every problem found in it.
type refusal struct {
	server   string
	lockPath string
	method   string
	problems []problem
	// content is set for text the lock does not pin (a tool result, a
	// resource, an error, a server request): refusing it refuses that
	// message, not the session.
	content bool
}

// onlyControls reports whether every problem is one of the no-judgement
// inspection rules, or an instruction in text they hide: what --mode
// sanitize may strip.
func (r *refusal) onlyControls() bool {
	for _, p := range r.problems {
		if !errorRules[p.rule] && !p.hidden {
			return false
		}
	}
	return len(r.problems) > 0
}

// onlyText reports whether every problem is a text rule's (hidden text,
// escapes, an instruction): such a message is refused alone, and the
// session goes on.
func (r *refusal) onlyText() bool {
	for _, p := range r.problems {
		if !errorRules[p.rule] && p.rule != finding.ModelInstruction {
			return false
		}
	}
	return len(r.problems) > 0
}

// label names a problem as the client and the log show it:
// "summarize (description)", "delete_everything (not in the lock)".
func (p problem) label() string {
	var detail string
	switch {
	case len(p.fields) > 0:
		fs := make([]string, len(p.fields))
		for i, f := range p.fields {
			if f == "" {
				f = "whole definition"
			}
			fs[i] = escape(f)
		}
		detail = strings.Join(fs, ", ")
		if errorRules[p.rule] || p.rule == finding.ModelInstruction {
			detail += ": " + string(p.rule)
		}
	default:
		detail = p.what
	}
	return escape(p.subject) + " (" + detail + ")"
}

func (r *refusal) message() string {
	labels := make([]string, len(r.problems))
	for i, p := range r.problems {
		labels[i] = p.label()
	}
	if r.content {
		what := "hidden characters or terminal escapes"
		if !r.onlyControls() {
			what = "text that asks the model for what no tool should ask"
		}
		return fmt.Sprintf("mcp-lockcheck guard refused this %s from server %s: %s in %s", r.what(), quote(r.server), what, strings.Join(labels, "; "))
	}
	return fmt.Sprintf("mcp-lockcheck guard refused this %s answer from server %s: %s", escape(r.method), quote(r.server), strings.Join(labels, "; "))
}

// what names a content refusal's message: "tools/call result",
// "sampling/createMessage request".
func (r *refusal) what() string {
	if len(r.problems) == 0 {
		return escape(r.method)
	}
	return escape(r.method) + " " + string(r.problems[0].kind)
}

// data is the error's machine-readable part.
func (r *refusal) data() any {
	type item struct {
		Rule    finding.RuleID `json:"rule"`
		Kind    lock.Kind      `json:"kind"`
		Subject string         `json:"subject"`
		Fields  []string       `json:"fields,omitempty"`
		Phase   string         `json:"phase,omitempty"`
	}
	d := struct {
		Server  string `json:"server"`
		Lock    string `json:"lock"`
		Method  string `json:"method"`
		Refused []item `json:"refused"`
	}{Server: r.server, Lock: r.lockPath, Method: r.method}
	for _, p := range r.problems {
		d.Refused = append(d.Refused, item{p.rule, p.kind, p.subject, p.fields, p.phase})
	}
	return d
}

// log writes the refusal and its diff to the guard's stderr, every piece
// of server text escaped.
func (r *refusal) log(w io.Writer, mode Mode) {
	verb := "refused"
	if mode == Warn {
		verb = "WARNING (--mode warn, forwarded)"
	}
	r.logAs(w, verb)
}

// logAs writes the refusal under a verb ("refused", "sanitized ...").
func (r *refusal) logAs(w io.Writer, verb string) {
	if r.content {
		fmt.Fprintf(w, "mcp-lockcheck guard: %s: %s from server %s carries text the model would read unseen:\n", verb, r.what(), quote(r.server))
	} else {
		fmt.Fprintf(w, "mcp-lockcheck guard: %s: %s answer from server %s differs from %s:\n", verb, escape(r.method), quote(r.server), r.lockPath)
	}
	for _, p := range r.problems {
		fmt.Fprintf(w, "  %s %s [%s]", p.kind, p.label(), p.rule)
		if p.phase != "" {
			fmt.Fprintf(w, " in %s", escape(p.phase))
		}
		fmt.Fprintln(w)
		if p.msg != "" {
			fmt.Fprintf(w, "    %s\n", shorten(inert.Composed(p.msg)))
		}
		if p.detail != "" {
			fmt.Fprintf(w, "    %s\n", shorten(inert.Composed(p.detail)))
		}
		for _, c := range p.changes {
			path := c.Path
			if path == "" {
				path = "whole definition"
			}
			fmt.Fprintf(w, "    %s\n", escape(path))
			ref := "lock"
			if p.first {
				ref = "first answer"
			}
			if c.Before != "" {
				fmt.Fprintf(w, "      - %s: %s\n", ref, shorten(escape(c.Before)))
			}
			if c.After != "" {
				fmt.Fprintf(w, "      + live: %s\n", shorten(escape(c.After)))
			}
		}
	}
}

// shorten cuts what the guard quotes at 2,000 bytes, never inside a rune
// (clip.Bytes), and says how much more there was.
func shorten(s string) string {
	const n = 2000
	if len(s) <= n {
		return s
	}
	c := clip.Bytes(s, n)
	return c + fmt.Sprintf(" (%d bytes more)", len(s)-(len(c)-len("...")))
}

// answer checks one result for the request it answers; nil passes.
func (c *checker) answer(p pendingReq, result []byte) *refusal {
	var ps []problem
	switch p.method {
	case "initialize", "server/discover":
		ps = c.initialize(result)
	case "prompts/get":
		ps = c.promptGet(p.params, result, p.n)
	case "":
		return nil // an answer to no request the guard recorded
	default:
		spec, ok := lock.InfoOfMethod(p.method)
		if !ok {
			// A tool result, a resource's contents, a completion: text
			// the model reads that no lock can pin, and data the server
			// read or computed for the request.
			return c.content("result", p, result, inspect.AnswerOptions{Data: true})
		}
		if c.knownPage(p.method, result) {
			return nil
		}
		ps = c.list(spec.Kind, spec.Field, spec.Key, result)
		if len(ps) == 0 {
			c.rememberPage(p.method, result)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &refusal{server: c.server, lockPath: c.lockPath, method: p.method, problems: ps}
}

// maxPageBytes bounds the list results kept for knownPage.
const maxPageBytes = 8 << 20

func (c *checker) pageHash(method string, result []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(method)
	h.WriteByte(0)
	h.Write(result)
	return h.Sum64()
}

// knownPage reports whether result is byte for byte a page of method the
// guard already accepted. The hash only finds the candidate; the bytes
// decide, so a collision cannot pass an unchecked page.
func (c *checker) knownPage(method string, result []byte) bool {
	if _, ok := lock.InfoOfMethod(method); !ok || len(c.pages) == 0 {
		return false
	}
	prev, ok := c.pages[c.pageHash(method, result)]
	return ok && bytes.Equal(prev, result)
}

func (c *checker) rememberPage(method string, result []byte) {
	if len(result) > maxPageBytes {
		return
	}
	if c.pageBytes+len(result) > maxPageBytes {
		clear(c.pages)
		c.pageBytes = 0
	}
	c.pages[c.pageHash(method, result)] = bytes.Clone(result)
	c.pageBytes += len(result)
}

// content runs the text rules over what the lock does not pin (inspect.
// Answer under o): part is what the text is ("result", "error",
// "request", "notification"), p the request it answers (its method, what
// it named, its place in the session). Error-level findings refuse the
// message, unless the lock acknowledges that content; warnings are logged
// and the message goes on.
//
// Every text rule runs before the message goes out: an answer that asks
// the model for an error's action (run a command, send data to a fixed
// destination, read secrets, override, hide) is refused as hidden text
// is, and the rest of its findings are logged as it goes on.
func (c *checker) content(part string, p pendingReq, raw []byte, o inspect.AnswerOptions) *refusal {
	subject := p.subject
	if subject == "" {
		subject = p.method
	}
	kind := answerKind(p.method)
	ps, warns := c.answerProblems(lock.Kind(part), kind, subject, p, raw, o, "")
	if len(ps) == 0 {
		c.warnAnswers(p, subject, warns)
		return nil
	}
	return &refusal{server: c.server, lockPath: c.lockPath, method: p.method, problems: ps, content: true}
}

// answerKind is the lock kind an answer's acknowledgement names: the tool
// a tools/call result is from, the prompt of prompts/get, the resource of
// resources/read ("" for any other).
func answerKind(method string) lock.Kind {
	switch method {
	case "tools/call":
		return lock.KindTool
	case "prompts/get":
		return lock.KindPrompt
	case "resources/read":
		return lock.KindResource
	}
	return ""
}

// answerProblems inspects one answer with inspect.Answer: each error-level
// finding the lock does not acknowledge is a problem of kind shown; the
// warnings are returned, for the caller to log once it knows the answer
// goes out (warnAnswers). The content an acknowledgement binds to is the
// answer's hash as check computes it (the redacted bytes), or sum when
// the caller has the canonical one (a prompt answer).
func (c *checker) answerProblems(shown, kind lock.Kind, subject string, p pendingReq, raw []byte, o inspect.AnswerOptions, sum string) (ps []problem, warns []finding.Finding) {
	fs := inspect.Answer(inspect.Subject{Server: c.server, Kind: kind, Name: subject, Raw: raw, Phase: p.where()}, o)
	if len(fs) == 0 {
		return nil, nil
	}
	var redacted string
	for _, f := range fs {
		if f.Severity < finding.Error {
			warns = append(warns, f)
			continue
		}
		if kind != "" {
			if redacted == "" {
				redacted = lock.Sum(c.red.JSON(raw))
			}
			if c.acked(f.Rule, kind, subject, redacted) || sum != "" && c.acked(f.Rule, kind, subject, sum) {
				continue
			}
		}
		ps = append(ps, problem{rule: f.Rule, kind: shown, subject: subject, fields: []string{f.Field}, what: f.Message, msg: f.Message, detail: f.Detail, phase: p.where(),
			hidden: f.Rule == finding.ModelInstruction && strings.HasSuffix(f.Message, inspect.HiddenTextNote)})
	}
	return ps, warns
}

// warnAnswers logs the warnings of an answer that goes out (warnAnswer).
func (c *checker) warnAnswers(p pendingReq, subject string, fs []finding.Finding) {
	for _, f := range fs {
		c.warnAnswer(p, subject, f)
	}
}

// maxWarningLines bounds the answer warnings logged whole in a session;
// past it each distinct one is still logged once, in one line.
const maxWarningLines = 200

// warnAnswer logs a warning-level finding on an answer that is forwarded:
// the first for each rule, subject and field whole (message and the
// offending text, escaped), then a count every 100.
func (c *checker) warnAnswer(p pendingReq, subject string, f finding.Finding) {
	if c.warn == nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.warnings == nil || len(c.warnings) >= 10000 {
		c.warnings = map[string]int{}
	}
	k := string(f.Rule) + "\x00" + subject + "\x00" + f.Field
	c.warnings[k]++
	n := c.warnings[k]
	switch {
	case n == 1 && c.warningLines < maxWarningLines:
		c.warningLines++
		fmt.Fprintf(c.warn, "mcp-lockcheck guard: warning (forwarded): %s answer %s from server %s, %s [%s] in %s:\n    %s\n", escape(p.method), quote(subject), quote(c.server), escape(orWhole(f.Field)), f.Rule, escape(p.where()), shorten(inert.Composed(f.Message)))
		if f.Detail != "" {
			fmt.Fprintf(c.warn, "    %s\n", shorten(inert.Composed(f.Detail)))
		}
	case n == 1 || n%100 == 0:
		fmt.Fprintf(c.warn, "mcp-lockcheck guard: warning (forwarded): %s answer %s from server %s, %s [%s] (%d so far)\n", escape(p.method), quote(subject), quote(c.server), escape(orWhole(f.Field)), f.Rule, n)
	}
}

func orWhole(field string) string {
	if field == "" {
		return "the whole answer"
	}
	return field
}

// list checks one page of a list answer. Every definition on it must be in
// the lock with the same canonical hash; definitions the lock has and the
// page lacks are not missing, they may be on another page.
func (c *checker) list(kind lock.Kind, field, keyField string, result []byte) []problem {
	malformed := func(why string) []problem {
		return []problem{{rule: finding.ServerUnavailable, kind: finding.KindServer, subject: field, what: "malformed answer: " + why}}
	}
	ms, err := objectMembers(result)
	if err != nil {
		return malformed(err.Error())
	}
	arr, ok := get(ms, field)
	if !ok {
		return malformed("no " + field + " array")
	}
	elems, err := arrayElems(arr)
	if err != nil {
		return malformed(field + ": " + err.Error())
	}
	var out []problem
	for i, e := range elems {
		em, err := objectMembers(e)
		if err != nil {
			out = append(out, problem{rule: finding.AmbiguousJSON, kind: kind, subject: fmt.Sprintf("%s[%d]", field, i), what: err.Error()})
			continue
		}
		kraw, _ := get(em, keyField)
		key, ok := jsonString(kraw)
		if !ok {
			out = append(out, problem{rule: finding.AmbiguousJSON, kind: kind, subject: fmt.Sprintf("%s[%d]", field, i), what: "no string " + keyField})
			continue
		}
		ck := string(kind) + "\x00" + key
		if prev, ok := c.accepted[ck]; ok && bytes.Equal(prev, e) {
			continue
		}
		ps := c.definition(kind, key, e)
		out = append(out, ps...)
		if len(ps) == 0 {
			if len(c.accepted) >= maxAccepted {
				clear(c.accepted)
			}
			c.accepted[ck] = bytes.Clone(e)
		}
	}
	return out
}

// definition checks one listed definition against its lock entry and the
// error-level inspection rules.
func (c *checker) definition(kind lock.Kind, key string, raw []byte) []problem {
	live := c.asPinned(raw)
	want, ok := c.locked[kind][key]
	if !ok {
		return []problem{{rule: finding.EntryRule(kind, lock.Added), kind: kind, subject: key, what: "not in the lock"}}
	}
	var out []problem
	ch, changed := lock.DiffOne(kind, key, want, live)
	if changed && ch.Op == lock.Changed && !ch.Ambiguous() {
		// A date that moved with the clock since the entry was approved
		// (a default of today minus 30 days) is not drift, as in check;
		// the text is judged, and acknowledged, as the lock's.
		if e := c.ls.Entries(kind, false)[key]; e != nil {
			if _, _, ok := timestamps.FollowClock(want.Bytes, live.Bytes, e.Approved(), time.Now()); ok {
				changed = false
				live.SHA256 = want.SHA256
			}
		}
	}
	if changed {
		p := problem{rule: finding.EntryRule(kind, lock.Changed), kind: kind, subject: key, what: "changed"}
		p.fill(ch)
		if len(p.fields) == 0 {
			p.fields = []string{""}
		}
		out = append(out, p)
	}
	return append(out, c.inspect(kind, key, raw, live.SHA256)...)
}

// fill sets a problem's field paths and diff from a lock change: a change
// between ambiguous bytes is one change of the whole definition.
func (p *problem) fill(ch lock.Change) {
	if ch.Ambiguous() {
		p.fields = []string{""}
		p.changes = []lock.FieldChange{{Before: string(ch.Before.Bytes), After: string(ch.After.Bytes)}}
		return
	}
	p.changes = ch.Fields
	for _, f := range ch.Fields {
		p.fields = append(p.fields, f.Path)
	}
}

// inspect runs the error-level inspection rules on text the model reads. A
// lock acknowledgement for the same rule, subject and content hash silences
// a finding, as it does in check.
func (c *checker) inspect(kind lock.Kind, name string, raw []byte, sum string) []problem {
	var out []problem
	for _, f := range inspect.Definition(inspect.Subject{Server: c.server, Kind: kind, Name: name, Raw: raw}) {
		if !errorRules[f.Rule] || f.Severity < finding.Error || c.acked(f.Rule, kind, name, sum) {
			continue
		}
		out = append(out, problem{rule: f.Rule, kind: kind, subject: name, fields: []string{f.Field}, what: f.Message, msg: f.Message, detail: f.Detail})
	}
	return out
}

func (c *checker) acked(rule finding.RuleID, kind lock.Kind, subject, sum string) bool {
	for _, a := range c.ls.Acknowledgements {
		if a.Rule == string(rule) && a.Kind == kind && a.Subject == subject && a.SHA256 != "" && a.SHA256 == sum {
			return true
		}
	}
	return false
}

// initialize checks the handshake answer: the instructions are refused when
// they differ (instructions-changed is an error); serverInfo and
// capabilities are logged (their rules are warnings, as in check).
func (c *checker) initialize(result []byte) []problem {
	ms, err := objectMembers(result)
	if err != nil {
		return []problem{{rule: finding.ServerUnavailable, kind: finding.KindServer, subject: "initialize", what: "malformed answer: " + err.Error()}}
	}
	var out []problem
	iraw, _ := get(ms, "instructions")
	live := lock.CanonicalizeOptional(c.red.JSON(iraw)) // as pin records it
	if live.SHA256 != c.instr.SHA256 {
		p := problem{rule: finding.InstructionsChanged, kind: finding.KindServer, subject: "instructions", fields: []string{"instructions"}}
		p.changes = []lock.FieldChange{{Path: "instructions", Before: stringOr(c.instr.Bytes), After: stringOr(live.Bytes)}}
		out = append(out, p)
	}
	if len(iraw) > 0 {
		out = append(out, c.inspect(finding.KindServer, "instructions", iraw, live.SHA256)...)
	}
	for _, w := range []struct {
		key  string
		rule finding.RuleID
		want lock.Canonical
	}{{"serverInfo", finding.ServerInfoChanged, c.info}, {"capabilities", finding.CapabilitiesChanged, c.caps}} {
		raw, _ := get(ms, w.key)
		got := lock.CanonicalizeOptional(c.red.JSON(raw))
		if got.SHA256 == w.want.SHA256 || c.logged[w.key+got.SHA256] {
			continue
		}
		c.logged[w.key+got.SHA256] = true
		p := problem{rule: w.rule, kind: finding.KindServer, subject: w.key, fields: []string{w.key},
			changes: []lock.FieldChange{{Path: w.key, Before: string(w.want.Bytes), After: string(got.Bytes)}}}
		if finding.DefaultSeverity(w.rule) >= finding.Error {
			out = append(out, p)
			continue
		}
		// Warnings are logged, never a reason to end the session.
		if c.warn != nil {
			(&refusal{server: c.server, lockPath: c.lockPath, method: "initialize", problems: []problem{p}}).logTo(c.warn)
		}
	}
	return out
}

func (r *refusal) logTo(w io.Writer) {
	fmt.Fprintf(w, "mcp-lockcheck guard: warning: %s answer from server %s differs from %s (forwarded: a warning-level rule):\n", r.method, quote(r.server), r.lockPath)
	for _, p := range r.problems {
		fmt.Fprintf(w, "  %s [%s]\n", p.label(), p.rule)
		for _, ch := range p.changes {
			fmt.Fprintf(w, "      - lock: %s\n      + live: %s\n", shorten(escape(ch.Before)), shorten(escape(ch.After)))
		}
	}
}

// stringOr renders a canonical JSON string as its text.
func stringOr(b []byte) string {
	if s, ok := jsonString(b); ok {
		return s
	}
	return string(b)
}

// promptGet pins each prompts/get answer for the session: the first answer
// for given arguments is remembered, a different later one is drift. The
// params are compared in canonical form without _meta (a progress token
// differs per request); the answer is compared whole.
func (c *checker) promptGet(params, result []byte, n int) []problem {
	name, pkey, args := promptParams(params)
	var out []problem
	if _, ok := c.locked[lock.KindPrompt][name]; !ok {
		out = append(out, problem{rule: finding.PromptAdded, kind: lock.KindPrompt, subject: name, what: "not in the lock"})
	}
	live := c.asPinned(result)
	out = append(out, c.lockPinProblems(name, args, live)...)
	out = append(out, c.sessionPinProblems(name, pkey, live)...)
	// What the prompt expands to is text its authors wrote for the model:
	// every rule, the first answer of a session included.
	p := pendingReq{method: "prompts/get", subject: name, n: n}
	ps, warns := c.answerProblems(lock.KindPrompt, lock.KindPrompt, name, p, result, inspect.AnswerOptions{}, live.SHA256)
	if out = append(out, ps...); len(out) == 0 {
		c.warnAnswers(p, name, warns)
	}
	return out
}

// promptParams reads a prompts/get request's params: the prompt's name,
// the key its answers are pinned by for the session (the canonical params
// without _meta), and its arguments.
func promptParams(params []byte) (name, pkey string, args []byte) {
	if len(bytes.TrimSpace(params)) == 0 {
		return "", "", nil
	}
	ms, err := objectMembers(params)
	if err != nil {
		return "", lock.Canonicalize(params).SHA256, nil
	}
	if n, ok := get(ms, "name"); ok {
		name, _ = jsonString(n)
	}
	args, _ = get(ms, "arguments")
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, m := range ms {
		if m.fold == fold("_meta") {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return name, lock.Canonicalize(b.Bytes()).SHA256, args
}

// lockPinProblems compares live with the lock's pin (pin-prompts): the
// answer pin saw for the same arguments, across sessions, first answer
// included.
func (c *checker) lockPinProblems(name string, args []byte, live lock.Canonical) []problem {
	want := c.ls.PromptAnswers[name]
	if want == nil || string(lock.CanonicalArguments(args)) != string(want.Arguments) {
		return nil
	}
	if pinned := want.Canonical(); pinned.SHA256 != live.SHA256 && onlyTimes(pinned, live) {
		// The time of the request, as between two answers of a
		// session: the pin was made at another time.
		if !c.logged["lock-time"+name] && c.warn != nil {
			c.logged["lock-time"+name] = true
			fmt.Fprintf(c.warn, "mcp-lockcheck guard: server %s: prompts/get %s differs from the answer pinned in %s only in timestamp-shaped tokens: forwarded\n", quote(c.server), quote(name), c.lockPath)
		}
	} else if ch, ok := lock.DiffOne(lock.KindPrompt, name, pinned, live); ok {
		p := problem{rule: finding.PromptChanged, kind: lock.KindPrompt, subject: name, what: "differs from the answer pinned in the lock"}
		p.fill(ch)
		return []problem{p}
	}
	return nil
}

// sessionPinProblems remembers the session's first answer for pkey, and
// compares a later one with it.
func (c *checker) sessionPinProblems(name, pkey string, live lock.Canonical) []problem {
	if first, ok := c.promptPins[pkey]; !ok {
		c.promptPins[pkey] = live
	} else if first.SHA256 != live.SHA256 && onlyTimes(first, live) {
		// The time of the request, not a rug pull: what check notes
		// and clients show as it comes.
		if !c.logged["time"+pkey] && c.warn != nil {
			c.logged["time"+pkey] = true
			fmt.Fprintf(c.warn, "mcp-lockcheck guard: server %q: prompts/get %s differs from the session's first answer only in timestamp-shaped tokens: forwarded\n", c.server, quote(name))
		}
	} else if ch, ok := lock.DiffOne(lock.KindPrompt, name, first, live); ok {
		p := problem{rule: finding.PromptChanged, kind: lock.KindPrompt, subject: name, what: "changed during the session", first: true}
		p.fill(ch)
		if ch.Ambiguous() {
			p.changes = nil // the session pin's log names the field only
		}
		return []problem{p}
	}
	return nil
}

// onlyTimes reports whether two answers differ only in timestamp-shaped
// tokens, as check's stability comparison judges them.
func onlyTimes(a, b lock.Canonical) bool {
	_, _, ok := timestamps.OnlyDiffer(a.Bytes, b.Bytes, time.Now())
	return ok
}

// errorLine is a JSON-RPC error response to id, newline-terminated.
func errorLine(id []byte, code int, msg string, data any) []byte {
	e := struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{code, msg, data}
	eb, err := json.Marshal(e)
	if err != nil {
		eb = []byte(fmt.Sprintf(`{"code":%d,"message":"mcp-lockcheck guard refused this answer"}`, code))
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":`)
	b.Write(eb)
	b.WriteString("}\n")
	return b.Bytes()
}

// escape makes untrusted text inert for a terminal and a log: the one
// escaper every output shares (inert.Text).
func escape(s string) string { return inert.Text(s) }

// quote is escape between double quotes, a quote inside escaped too, so a
// server name ends where it seems to end.
func quote(s string) string { return inert.Quote(s) }
