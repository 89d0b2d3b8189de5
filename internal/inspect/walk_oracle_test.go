package inspect

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// oldWalkStrings visits every string (keys and values) of a JSON document with
// the keys and indexes that lead to it (joined into a field path only when
// a finding needs it).
//
// It is a purpose-built scanner rather than encoding/json: it keeps
// duplicate keys (each is visited; a model may see either), it never builds
// maps, and it decodes each string once, so a 1,000-tool manifest is walked
// in well under a millisecond per tool. It returns errSyntax on anything
// that is not JSON, possibly after visiting some strings; the caller then
// discards what it saw and scans the raw bytes as text.
// oldMaxDepth and the walker below are the hand-written scanner walkStrings
// used before jsontok, kept only as the oracle of FuzzWalkDifferential.
const oldMaxDepth = 10000

func oldWalkStrings(data []byte, visit func(textRef)) error {
	w := oldWalker{data: data, visit: visit}
	w.skipSpace()
	if err := w.value(0); err != nil {
		return err
	}
	w.skipSpace()
	if w.pos != len(w.data) {
		return errSyntax
	}
	return nil
}

type oldWalker struct {
	data  []byte
	pos   int
	path  []string
	visit func(textRef)
	buf   []byte // decoded string with escapes, reused
}

func (w *oldWalker) skipSpace() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *oldWalker) value(depth int) error {
	if depth > oldMaxDepth {
		return errSyntax
	}
	if w.pos >= len(w.data) {
		return errSyntax
	}
	switch c := w.data[w.pos]; {
	case c == '{':
		w.pos++
		w.skipSpace()
		if w.pos < len(w.data) && w.data[w.pos] == '}' {
			w.pos++
			return nil
		}
		for {
			w.skipSpace()
			if w.pos >= len(w.data) || w.data[w.pos] != '"' {
				return errSyntax
			}
			k, err := w.str()
			if err != nil {
				return err
			}
			seg, ok := commonKeys[string(k)]
			if !ok {
				seg = string(k)
			}
			w.path = append(w.path, seg)
			w.visit(textRef{segs: w.path, key: true, b: k})
			w.skipSpace()
			if w.pos >= len(w.data) || w.data[w.pos] != ':' {
				return errSyntax
			}
			w.pos++
			w.skipSpace()
			if err := w.value(depth + 1); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
			if done, err := w.after('}'); done || err != nil {
				return err
			}
		}
	case c == '[':
		w.pos++
		w.skipSpace()
		if w.pos < len(w.data) && w.data[w.pos] == ']' {
			w.pos++
			return nil
		}
		for i := 0; ; i++ {
			w.path = append(w.path, index(i))
			w.skipSpace()
			if err := w.value(depth + 1); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
			if done, err := w.after(']'); done || err != nil {
				return err
			}
		}
	case c == '"':
		s, err := w.str()
		if err != nil {
			return err
		}
		w.visit(textRef{segs: w.path, b: s})
		return nil
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		start := w.pos
		for w.pos < len(w.data) && oldIsNumberByte(w.data[w.pos]) {
			w.pos++
		}
		if w.pos == start {
			return errSyntax
		}
		return nil
	}
	return errSyntax
}

func (w *oldWalker) literal(lit string) error {
	if !strings.HasPrefix(string(w.data[w.pos:min(len(w.data), w.pos+len(lit))]), lit) {
		return errSyntax
	}
	w.pos += len(lit)
	return nil
}

// str decodes the JSON string at w.pos, into w.buf when it has escapes
// (valid until the next call). Invalid UTF-8 is kept as is (the
// rune scan reports it as U+FFFD; ambiguous-json is another package's rule)
// and a lone surrogate escape becomes U+FFFD.
func (w *oldWalker) str() ([]byte, error) {
	w.pos++ // opening quote
	start := w.pos
	// Fast path: no escapes.
	for w.pos < len(w.data) {
		c := w.data[w.pos]
		if c == '"' {
			s := w.data[start:w.pos:w.pos]
			w.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		w.pos++
	}
	if w.pos >= len(w.data) {
		return nil, errSyntax
	}
	b := append(w.buf[:0], w.data[start:w.pos]...)
	defer func() { w.buf = b[:0] }()
	for w.pos < len(w.data) {
		c := w.data[w.pos]
		switch {
		case c == '"':
			w.pos++
			return b, nil
		case c == '\\':
			if w.pos+1 >= len(w.data) {
				return nil, errSyntax
			}
			e := w.data[w.pos+1]
			w.pos += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := w.hex4()
				if !ok {
					return nil, errSyntax
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(utf8.RuneError)
					if w.pos+1 < len(w.data) && w.data[w.pos] == '\\' && w.data[w.pos+1] == 'u' {
						save := w.pos
						w.pos += 2
						lo, ok := w.hex4()
						if ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
							r2 = utf16.DecodeRune(r, lo)
						} else {
							w.pos = save
						}
					}
					r = r2
				}
				b = utf8.AppendRune(b, r)
			default:
				return nil, errSyntax
			}
		default:
			b = append(b, c)
			w.pos++
		}
	}
	return nil, errSyntax
}

func (w *oldWalker) hex4() (rune, bool) {
	if w.pos+4 > len(w.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(w.data[w.pos:w.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	w.pos += 4
	return rune(v), true
}

func oldIsNumberByte(d byte) bool {
	return '0' <= d && d <= '9' || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E'
}

// after reads what follows a member or element: a comma (more to come) or
// the container's closing byte (done).
func (w *oldWalker) after(closing byte) (done bool, err error) {
	w.skipSpace()
	if w.pos >= len(w.data) {
		return false, errSyntax
	}
	switch w.data[w.pos] {
	case ',':
		w.pos++
		return false, nil
	case closing:
		w.pos++
		return true, nil
	}
	return false, errSyntax
}
