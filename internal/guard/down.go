package guard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// writeClient writes one line to the client unless the session stopped.
// It is flushed at once unless the server-to-client loop has another whole
// line behind it (more).
func (s *session) writeClient(line []byte) bool {
	s.omu.Lock()
	defer s.omu.Unlock()
	if s.stopped.Load() {
		return false
	}
	if _, err := s.out.Write(line); err != nil {
		return false
	}
	if !s.more.Load() {
		return s.out.Flush() == nil
	}
	return true
}

// flushClient writes out what the client's buffer holds.
func (s *session) flushClient() {
	s.omu.Lock()
	defer s.omu.Unlock()
	if !s.stopped.Load() {
		s.out.Flush()
	}
}

// down forwards server lines to the client, checking every answer that
// carries text for the model before it goes out.
func (s *session) down(r io.Reader) {
	defer close(s.downDone)
	lr := newLineReader(r, s.o.MaxMessageBytes)
	defer s.flushClient()
	for {
		line, err := lr.next()
		s.more.Store(err == nil && lr.hasLine())
		if len(line) > 0 {
			if s.stopped.Load() {
				// Drain so the server is not blocked writing while it is
				// being stopped; nothing reaches the client.
			} else {
				s.fromServer(line)
			}
		}
		if !s.more.Load() {
			s.flushClient()
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) && !s.stopped.Load() {
				s.misbehaved(fmt.Sprintf("sent a line over --max-message-bytes=%d", s.o.MaxMessageBytes))
				// Keep draining to EOF.
				for {
					if _, err := lr.next(); err != nil && !errors.Is(err, errLineTooLong) {
						break
					}
				}
			}
			s.events <- event{kind: "server-eof"}
			return
		}
	}
}

// misbehaved refuses the session for something the server did that is not
// drift: every pending request gets an error, the session ends with 1.
func (s *session) misbehaved(what string) {
	s.logf("server %q %s: refusing the session", s.o.Server, what)
	s.failPending("mcp-lockcheck guard: server " + quote(s.o.Server) + " " + what)
	s.refuse(ExitRefused)
	s.events <- event{kind: "refused"}
}

// failPending answers every request in flight with CodeRefused.
func (s *session) failPending(msg string) {
	s.pmu.Lock()
	ps := make([]pendingReq, 0, len(s.pending))
	for k, p := range s.pending {
		ps = append(ps, p)
		delete(s.pending, k)
	}
	s.pmu.Unlock()
	for _, p := range ps {
		s.writeClient(errorLine(p.id, CodeRefused, msg, nil))
	}
}

// skipLine logs a line of the server's stdout that is not a JSON-RPC
// message: the first few quoted (escaped, cut), then a count every so often
// so a chatty server cannot flood the log.
func (s *session) skipLine(t []byte) {
	n := s.skipped.Add(1)
	if n <= 5 || n%1000 == 0 {
		s.logf("server %q wrote a line to stdout that is not a JSON-RPC message (its own output; skipped, as clients skip it; %d so far): %s", s.o.Server, n, quote(string(t[:min(len(t), 200)])))
	}
}

func (s *session) fromServer(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return // a blank line carries nothing; forwarding it could confuse a strict reader
	}
	if !transport.IsMessageLine(t) {
		// A banner, a log line, telemetry (Elastic's server): no
		// client reads it as a message, the TypeScript and Python SDK
		// clients skip it and read on, and so does the guard, without
		// forwarding it. What might be a message still goes on to be
		// checked whole (message), and is refused if it is not one.
		s.skipLine(t)
		return
	}
	batch := t[0] == '['
	if !batch && s.relisted(t) {
		s.writeClient(line)
		return
	}
	elems := [][]byte{t}
	if batch {
		var err error
		if elems, err = arrayElems(t); err != nil {
			s.misbehaved("sent a line that is not JSON (" + excerpt(t) + ")")
			return
		}
	}
	var drifts []*refusal
	var ids [][]byte
	changed := false
	outs := make([][]byte, 0, len(elems))
	for _, e := range elems {
		o, ok := s.message(e, !batch)
		if !ok {
			return
		}
		switch {
		case o.drift != nil:
			drifts = append(drifts, o.drift)
			ids = append(ids, o.id)
		case o.drop:
			changed = true
		case o.repl != nil:
			changed = true
			outs = append(outs, o.repl)
		default:
			outs = append(outs, e)
		}
	}
	if len(drifts) > 0 {
		s.drift(drifts, ids, line)
		return
	}
	switch {
	case !changed:
		s.writeClient(line)
	case len(outs) == 0:
	case batch:
		s.writeClient(append(append([]byte{'['}, bytes.Join(outs, []byte{','})...), ']', '\n'))
	default:
		s.writeClient(append(outs[0], '\n'))
	}
}

// outcome is what becomes of one server message: forwarded as it came (the
// zero value), replaced (repl, without a newline), dropped, or a drift that
// ends the session (enforce and sanitize modes).
type outcome struct {
	repl  []byte
	drop  bool
	drift *refusal
	id    []byte
}

// message checks one server message. ok is false when the session was
// refused for misbehaviour (nothing is to be forwarded).
//
// Each message is validated whole and classified (classify): exactly one
// of request, notification or response, from its members as JSON-RPC
// spells them. Then it is checked: list pages, initialize and prompts/get
// against the lock, every other result, every error and the params of
// every request and notification from the server with the no-judgement
// inspection rules. (A re-list of an accepted page never gets here: see
// relisted.)
func (s *session) message(m []byte, whole bool) (o outcome, ok bool) {
	ms, err := objectMembers(m)
	if err != nil {
		if errors.Is(err, errAmbiguous) {
			s.misbehaved("sent ambiguous JSON: " + err.Error())
		} else {
			s.misbehaved("sent a line that is not JSON (" + excerpt(m) + ")")
		}
		return o, false
	}
	r, err := classify(ms)
	if err != nil {
		s.misbehaved("sent a message clients read two ways: " + err.Error())
		return o, false
	}
	var p pendingReq
	found := false
	if r.kind == kindResponse {
		if key, valid := idKey(r.id); valid {
			s.pmu.Lock()
			p, found = s.pending[key]
			delete(s.pending, key)
			s.pmu.Unlock()
		}
	}
	var rf *refusal
	switch r.kind {
	case kindRequest, kindNotification:
		if len(r.params) > 0 {
			// A request of the server's own (sampling, elicitation)
			// puts its text before the model or the user as the
			// server wrote it: every rule. A notification (progress,
			// a log line) is judged by the two that need no
			// judgement only: they are many, and no client hands them
			// to the model as an answer.
			part, o := "request", inspect.AnswerOptions{}
			if r.kind == kindNotification {
				part, o = "notification", inspect.AnswerOptions{ControlsOnly: true}
			}
			rf = s.check.content(part, pendingReq{method: r.method}, r.params, o)
		}
	case kindResponse:
		switch {
		case !found && r.result != nil:
			s.logf("server %q answered a request the client did not make (id %s): dropped", s.o.Server, excerpt(r.id))
			return outcome{drop: true}, true
		case r.err != nil:
			if p.method == "" {
				p.method = "error"
			}
			rf = s.check.content("error", p, r.err, inspect.AnswerOptions{Data: true})
		default:
			rf = s.check.answer(p, r.result)
			if rf == nil && whole {
				s.remember(p.method, m, ms)
			}
		}
	}
	if rf == nil {
		return o, true
	}
	return s.refused1(m, r, p, rf), true
}

// relist is a list answer the guard accepted, as a template: the bytes of
// its line before and after the value of its id.
type relist struct {
	method    string
	pre, post []byte
}

// maxRelistBytes bounds the templates kept.
const maxRelistBytes = 8 << 20

// remember keeps an accepted list answer (a whole line) as a template for
// relisted.
func (s *session) remember(method string, m []byte, ms []member) {
	if _, ok := lock.InfoOfMethod(method); !ok {
		return
	}
	var id *member
	for i := range ms {
		if ms[i].key == "id" {
			id = &ms[i]
		}
	}
	if id == nil || len(m) > maxRelistBytes {
		return
	}
	for _, r := range s.relists {
		if r.method == method && len(r.pre) == id.off && bytes.Equal(r.pre, m[:id.off]) && bytes.Equal(r.post, m[id.off+len(id.val):]) {
			return
		}
	}
	if s.relistBytes+len(m) > maxRelistBytes || len(s.relists) >= 64 {
		s.relists, s.relistBytes = nil, 0
	}
	s.relists = append(s.relists, relist{method: method, pre: bytes.Clone(m[:id.off]), post: bytes.Clone(m[id.off+len(id.val):])})
	s.relistBytes += len(m)
}

// relisted is the fast path of a re-list: a line that is byte for byte an
// accepted list answer but for the value of its id, which is a plain
// number or string naming a request in flight for the same method. Such a
// line is valid JSON with the same members as the accepted one, classified
// the same, with the same result: it costs two compares (no more than
// hashing it would) and is forwarded.
func (s *session) relisted(t []byte) bool {
	for _, r := range s.relists {
		n := len(t) - len(r.pre) - len(r.post)
		if n <= 0 || n > 64 || !bytes.HasPrefix(t, r.pre) || !bytes.HasSuffix(t, r.post) {
			continue
		}
		id := t[len(r.pre) : len(t)-len(r.post)]
		if !plainID(id) {
			continue
		}
		key, _ := idKey(id)
		s.pmu.Lock()
		p, found := s.pending[key]
		if found && p.method == r.method {
			delete(s.pending, key)
		}
		s.pmu.Unlock()
		return found && p.method == r.method
	}
	return false
}

// plainID reports whether b is one JSON token that is a request id: an
// integer, or a string of printable ASCII without escapes.
func plainID(b []byte) bool {
	if b[0] == '"' {
		return len(b) >= 2 && b[len(b)-1] == '"' && plainASCII(b) && !bytes.ContainsRune(b[1:len(b)-1], '"')
	}
	d := b
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] == '0' && len(d) > 1 {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// refused1 decides what becomes of one message with problems. Drift (the
// lock's definitions, instructions, prompt answers) ends the session unless
// in warn mode; a message whose only problems are the text rules' (hidden
// characters, terminal escapes, an instruction asking for an error's
// action) in text the lock does not pin is refused alone (enforce),
// stripped when stripping removes them all (sanitize), or forwarded
// (warn), and the session goes on.
func (s *session) refused1(m []byte, r rpc, p pendingReq, rf *refusal) outcome {
	controls := rf.onlyControls()
	text := rf.onlyText()
	if s.o.Mode == Warn {
		if !text {
			return outcome{drift: rf, id: p.id}
		}
		rf.logAs(s.o.Stderr, "WARNING (--mode warn, forwarded)")
		s.warned.Store(true)
		return outcome{}
	}
	if s.o.Mode == Sanitize && controls {
		if clean, removed, ok := sanitize(m); ok {
			rf.logAs(s.o.Stderr, "sanitized (--mode sanitize): stripped "+strings.Join(removed, "; ")+"; forwarded the rest")
			s.warned.Store(true)
			return outcome{repl: clean}
		}
	}
	if !text || !rf.content {
		return outcome{drift: rf, id: p.id}
	}
	rf.logAs(s.o.Stderr, "refused")
	s.warned.Store(true)
	switch r.kind {
	case kindResponse:
		id := r.id
		if p.id != nil {
			id = p.id
		}
		return outcome{repl: bytes.TrimSuffix(errorLine(id, CodeRefused, rf.message(), rf.data()), []byte{'\n'})}
	case kindRequest:
		// The server asked the client something the model would read: the
		// guard answers for the client, and the client never sees it.
		if err := s.writeServer(errorLine(r.id, CodeRefused, rf.message(), nil)); err != nil && !s.stopped.Load() {
			s.logf("writing to server %q: %v", s.o.Server, err)
		}
	}
	return outcome{drop: true}
}

// drift handles refused answers: in warn mode they are logged and the line
// forwarded; in enforce mode the client gets CodeRefused in place of the
// answer(s) and the session ends.
func (s *session) drift(rs []*refusal, ids [][]byte, line []byte) {
	for _, r := range rs {
		r.log(s.o.Stderr, s.o.Mode)
	}
	if s.o.Mode == Warn {
		s.warned.Store(true)
		s.writeClient(line)
		return
	}
	// The session ends: every other request in flight is answered too,
	// so a client does not wait for an answer that will never come.
	s.pmu.Lock()
	others := make([]pendingReq, 0, len(s.pending))
	for k, p := range s.pending {
		others = append(others, p)
		delete(s.pending, k)
	}
	s.pmu.Unlock()
	s.omu.Lock()
	if !s.stopped.Load() {
		for i, r := range rs {
			if ids[i] != nil {
				s.out.Write(errorLine(ids[i], CodeRefused, r.message(), r.data()))
			}
		}
		for _, p := range others {
			s.out.Write(errorLine(p.id, CodeRefused, "mcp-lockcheck guard: the session with server "+quote(s.o.Server)+" ended: "+rs[0].message(), nil))
		}
		s.out.Flush()
	}
	s.stopped.Store(true)
	s.omu.Unlock()
	s.refused.CompareAndSwap(0, ExitRefused)
	s.events <- event{kind: "refused"}
}
