package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inspect"
)

// sanitize strips what hidden-characters and terminal-escape flag from
// every string of one valid JSON message (keys included) and returns the
// message with only those strings re-encoded: every other byte is
// forwarded as it came. removed says what went (inspect.Strip's phrases,
// counted over the message). ok is false when the stripped message would
// still be flagged (a sequence rebuilt by the removal), or when a key hides
// something (stripped, it could become another key's twin): the message
// is then refused, not forwarded.
func sanitize(m []byte) (clean []byte, removed []string, ok bool) {
	out := make([]byte, 0, len(m))
	counts := map[string]int{}
	var order []string
	at := 0
	for i := 0; i < len(m); {
		if m[i] != '"' {
			i++
			continue
		}
		end, closed := skipString(m, i)
		if !closed {
			return nil, nil, false
		}
		raw := m[i:end]
		if plainASCII(raw) {
			i = end
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, false
		}
		c, rm := inspect.Strip(s)
		if len(rm) == 0 {
			i = end
			continue
		}
		if isKey(m, end) {
			// Stripping a key could make it another key's twin: a
			// message with two "text" members is one clients read two
			// ways. Refuse it instead.
			return nil, nil, false
		}
		for _, r := range rm {
			if _, seen := counts[r]; !seen {
				order = append(order, r)
			}
			counts[r]++
		}
		out = append(out, m[at:i]...)
		out = appendJSONString(out, c)
		at, i = end, end
	}
	out = append(out, m[at:]...)
	if len(order) == 0 {
		return nil, nil, false
	}
	if fs := inspect.Controls(inspect.Subject{Raw: out}); len(fs) > 0 {
		return nil, nil, false
	}
	for _, r := range order {
		if n := counts[r]; n > 1 {
			r = fmt.Sprintf("%s (in %d strings)", r, n)
		}
		removed = append(removed, r)
	}
	return out, slices.Clip(removed), true
}

// isKey reports whether the string ending at end is an object key: the
// next byte that is not whitespace is a colon.
func isKey(m []byte, end int) bool {
	for ; end < len(m); end++ {
		switch m[end] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// plainASCII reports whether a JSON string token holds only printable
// ASCII and no escapes: nothing in it can be hidden or a control.
func plainASCII(raw []byte) bool {
	for _, c := range raw {
		if c < 0x20 || c >= 0x7F || c == '\\' {
			return false
		}
	}
	return true
}

// appendJSONString appends s as a JSON string, without the HTML escaping
// encoding/json does by default (the client decodes either the same way,
// and fewer changed bytes are easier to read in a log).
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return append(b, `""`...)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
}

// skipString returns the end of the JSON string whose opening quote is at
// pos, and false when it is not closed.
func skipString(b []byte, pos int) (int, bool) {
	p := pos + 1
	for {
		i := bytes.IndexByte(b[p:], '"')
		if i < 0 {
			return len(b), false
		}
		q := p + i
		n := 0
		for k := q - 1; k > pos && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		p = q + 1
	}
}
