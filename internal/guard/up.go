package guard

import (
	"bytes"
	"errors"
	"io"
)

// up forwards client lines to the server, recording each request's id and
// method on the way.
func (s *session) up() {
	lr := newLineReader(s.o.Stdin, s.o.MaxMessageBytes)
	for {
		line, err := lr.next()
		s.upMore.Store(err == nil && lr.hasLine())
		if len(line) > 0 && !s.stopped.Load() && !s.forward(line) {
			return
		}
		if !s.upMore.Load() {
			s.flushServer()
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				s.logf("the client sent a line over --max-message-bytes=%d: the guard cannot look at it, so the session ends", s.o.MaxMessageBytes)
				s.failPending("the client sent a message over the guard's --max-message-bytes")
				s.refuse(ExitUsage)
				s.events <- event{kind: "refused"}
				return
			}
			if !errors.Is(err, io.EOF) && !s.stopped.Load() {
				s.logf("reading from the client: %v", err)
			}
			s.events <- event{kind: "client-eof"}
			return
		}
	}
}

// forward takes one client line to the server, recording its requests;
// false when the session was refused instead (the launch's artifact,
// checked once more before the first message reaches the server: the
// launcher has installed what it runs by now).
func (s *session) forward(line []byte) bool {
	fwd := s.fromClient(line)
	if !s.artifactHeld {
		s.artifactHeld = true
		if rule, why := s.artifactNow(); rule != "" {
			s.logf("server %q: %s: %s: refusing the session", s.o.Server, rule, why)
			s.failPending(string(rule) + ": " + why)
			s.refuse(ExitRefused)
			s.events <- event{kind: "refused"}
			return false
		}
	}
	if fwd {
		if werr := s.writeServer(line); werr != nil && !s.stopped.Load() {
			// The server is gone; down sees its output end.
			s.logf("writing to server %q: %v", s.o.Server, werr)
		}
	}
	return true
}

// fromClient records the requests in one client line and reports whether
// the line goes to the server. Lines that are not JSON are forwarded: the
// server answers them (with id null), and a client's message is not what
// the guard holds to the lock.
func (s *session) fromClient(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return true
	}
	var msgs [][]byte
	if t[0] == '[' {
		elems, err := arrayElems(t)
		if err != nil {
			return true
		}
		msgs = elems
	} else {
		msgs = [][]byte{t}
	}
	var reqs []pendingReq
	var keys []string
	for _, m := range msgs {
		ms, err := objectMembers(m)
		if err != nil {
			continue
		}
		mraw, hasMethod := get(ms, "method")
		idRaw, hasID := get(ms, "id")
		if !hasMethod || !hasID {
			continue // a notification, or the client's answer to the server
		}
		key, ok := idKey(idRaw)
		if !ok {
			continue
		}
		method, _ := jsonString(mraw)
		p := pendingReq{id: bytes.Clone(idRaw), method: method}
		switch method {
		case "prompts/get", "tools/call", "resources/read":
			prm, _ := get(ms, "params")
			p.subject = requestSubject(method, prm)
			if method == "prompts/get" {
				p.params = bytes.Clone(prm)
			}
		}
		p.n = s.count(method)
		reqs = append(reqs, p)
		keys = append(keys, key)
	}
	if len(reqs) == 0 {
		return true
	}
	s.pmu.Lock()
	var clash []pendingReq
	for i, k := range keys {
		if _, busy := s.pending[k]; busy || slicesIndex(keys[:i], k) >= 0 {
			clash = append(clash, reqs[i])
		}
	}
	if len(clash) == 0 {
		for i, k := range keys {
			s.pending[k] = reqs[i]
		}
	}
	s.pmu.Unlock()
	if len(clash) == 0 {
		return true
	}
	// Two requests in flight with one id: the guard could not tell which
	// answer is which, so it would not know which to check. The line is
	// not forwarded; the client learns why.
	for _, p := range reqs {
		s.writeClient(errorLine(p.id, -32600, "mcp-lockcheck guard: request id already in use by a request in flight", nil))
	}
	return false
}

// count numbers the session's requests of one method (only the up loop
// calls it). The methods are the client's: a client that sends ten
// thousand distinct ones has them counted apart no further.
func (s *session) count(method string) int {
	if s.counts == nil {
		s.counts = map[string]int{}
	}
	if _, ok := s.counts[method]; !ok && len(s.counts) >= 256 {
		return 0
	}
	s.counts[method]++
	return s.counts[method]
}

// requestSubject is what a request's params name: "name" for tools/call
// and prompts/get, "uri" for resources/read ("" when absent or not a
// string).
func requestSubject(method string, params []byte) string {
	if len(params) == 0 {
		return ""
	}
	ms, err := objectMembers(params)
	if err != nil {
		return ""
	}
	key := "name"
	if method == "resources/read" {
		key = "uri"
	}
	v, _ := get(ms, key)
	name, _ := jsonString(v)
	return name
}

func slicesIndex(ks []string, k string) int {
	for i, x := range ks {
		if x == k {
			return i
		}
	}
	return -1
}

// idKey makes a JSON-RPC id a map key that keeps strings and numbers apart:
// "1" and 1 are different requests. Strings are compared decoded ("\u0031"
// is "1"), numbers by their literal.
func idKey(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		v, ok := jsonString(raw)
		return "s" + v, ok
	case c == '-' || c >= '0' && c <= '9':
		return "n" + string(raw), true
	}
	return "", false // null, objects, arrays: not a valid request id
}

// writeServer writes one line to the server: the client's lines, and the
// guard's own answers to server requests it refused. It is flushed at
// once unless the client-to-server loop has another whole line behind it
// (upMore).
func (s *session) writeServer(line []byte) error {
	if s.remote != nil {
		// The bridge ends the session itself on a failure.
		s.remote.send(line)
		return nil
	}
	s.imu.Lock()
	defer s.imu.Unlock()
	if _, err := s.sw.Write(line); err != nil {
		return err
	}
	if s.upMore.Load() {
		return nil
	}
	return s.sw.Flush()
}

// flushServer writes out what the server's buffer holds.
func (s *session) flushServer() {
	if s.remote != nil {
		return
	}
	s.imu.Lock()
	defer s.imu.Unlock()
	if err := s.sw.Flush(); err != nil && !s.stopped.Load() {
		s.logf("writing to server %q: %v", s.o.Server, err)
	}
}
