package guard

// The hand-written scanner the guard used before jsontext, kept only as the
// oracle of FuzzScanDifferential while the two are compared.

import (
	"encoding/json"
	"fmt"
)

// The guard looks at every line twice as often as a client does, so it does
// not decode messages into maps: a small validating oldScanner walks each line
// once, without allocating, and hands back the byte spans of the few members
// that need a look (id, method, params, result). Everything else is only
// validated and forwarded as it came.

const oldMaxDepth = 10000

type oldScanner struct {
	b   []byte
	pos int
}

func (s *oldScanner) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errSyntax, what, s.pos+1)
}

func (s *oldScanner) ws() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value validates one value starting at pos (whitespace skipped).
func (s *oldScanner) value(depth int) error {
	s.ws()
	if s.pos >= len(s.b) {
		return s.fail("unexpected end")
	}
	switch c := s.b[s.pos]; {
	case c == '{':
		return s.object(depth+1, nil)
	case c == '[':
		return s.array(depth+1, nil)
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	}
	return s.fail("unexpected character")
}

func (s *oldScanner) lit(l string) error {
	if len(s.b)-s.pos < len(l) || string(s.b[s.pos:s.pos+len(l)]) != l {
		return s.fail("invalid literal")
	}
	s.pos += len(l)
	return nil
}

// str scans a string and reports whether it holds escapes.
func (s *oldScanner) str() (escaped bool, err error) {
	s.pos++ // opening quote
	for s.pos < len(s.b) {
		// Most of a message is string bytes that need no attention: skip
		// them in a tight loop.
		for s.pos < len(s.b) && oldPlainByte[s.b[s.pos]] {
			s.pos++
		}
		if s.pos >= len(s.b) {
			break
		}
		c := s.b[s.pos]
		switch {
		case c == '"':
			s.pos++
			return escaped, nil
		case c == '\\':
			escaped = true
			if s.pos+1 >= len(s.b) {
				return escaped, s.fail("unterminated string")
			}
			switch s.b[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.b) {
					return escaped, s.fail("short \\u escape")
				}
				for _, h := range s.b[s.pos+2 : s.pos+6] {
					if !oldIsHex(h) {
						return escaped, s.fail("bad \\u escape")
					}
				}
				s.pos += 6
			default:
				return escaped, s.fail("bad escape")
			}
		case c < 0x20:
			return escaped, s.fail("control character in string")
		default:
			s.pos++
		}
	}
	return escaped, s.fail("unterminated string")
}

// oldPlainByte marks the bytes a string may hold as they are.
var oldPlainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func oldIsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *oldScanner) digits() int {
	n := 0
	for s.pos < len(s.b) && s.b[s.pos] >= '0' && s.b[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

func (s *oldScanner) number() error {
	if s.b[s.pos] == '-' {
		s.pos++
	}
	if s.pos < len(s.b) && s.b[s.pos] == '0' {
		s.pos++
	} else if s.digits() == 0 {
		return s.fail("bad number")
	}
	if s.pos < len(s.b) && s.b[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return s.fail("bad number")
		}
	}
	if s.pos < len(s.b) && (s.b[s.pos] == 'e' || s.b[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.b) && (s.b[s.pos] == '+' || s.b[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return s.fail("bad number")
		}
	}
	return nil
}

// object scans an object; when out is not nil it collects the members.
func (s *oldScanner) object(depth int, out *[]member) error {
	if depth > oldMaxDepth {
		return s.fail("nested too deeply")
	}
	s.pos++ // {
	s.ws()
	if s.pos < len(s.b) && s.b[s.pos] == '}' {
		s.pos++
		return nil
	}
	for {
		s.ws()
		if s.pos >= len(s.b) || s.b[s.pos] != '"' {
			return s.fail("expected object key")
		}
		ks := s.pos
		escaped, err := s.str()
		if err != nil {
			return err
		}
		ke := s.pos
		s.ws()
		if s.pos >= len(s.b) || s.b[s.pos] != ':' {
			return s.fail("expected ':'")
		}
		s.pos++
		s.ws()
		vs := s.pos
		if err := s.value(depth); err != nil {
			return err
		}
		if out != nil {
			key, err := oldDecodeKey(s.b[ks:ke], escaped)
			if err != nil {
				return err
			}
			*out = append(*out, member{key: key, fold: fold(key), val: s.b[vs:s.pos], off: vs, koff: ks})
		}
		if done, err := s.after('}'); done || err != nil {
			return err
		}
	}
}

// array scans an array; when out is not nil it collects the elements.
func (s *oldScanner) array(depth int, out *[][]byte) error {
	if depth > oldMaxDepth {
		return s.fail("nested too deeply")
	}
	s.pos++ // [
	s.ws()
	if s.pos < len(s.b) && s.b[s.pos] == ']' {
		s.pos++
		return nil
	}
	for {
		s.ws()
		vs := s.pos
		if err := s.value(depth); err != nil {
			return err
		}
		if out != nil {
			*out = append(*out, s.b[vs:s.pos])
		}
		if done, err := s.after(']'); done || err != nil {
			return err
		}
	}
}

// after reads what follows a member or element: a comma (more to come) or
// the container's closing byte (done).
func (s *oldScanner) after(closing byte) (done bool, err error) {
	s.ws()
	if s.pos >= len(s.b) {
		return false, s.fail("unexpected end")
	}
	switch s.b[s.pos] {
	case ',':
		s.pos++
		return false, nil
	case closing:
		s.pos++
		return true, nil
	}
	return false, s.fail("expected ',' or '" + string(closing) + "'")
}

// end checks that only whitespace follows the value.
func (s *oldScanner) end() error {
	s.ws()
	if s.pos != len(s.b) {
		return s.fail("data after the JSON value")
	}
	return nil
}

func oldDecodeKey(raw []byte, escaped bool) (string, error) {
	if !escaped {
		return string(raw[1 : len(raw)-1]), nil
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", fmt.Errorf("%w: object key: %v", errSyntax, err)
	}
	return k, nil
}

// oldObjectMembers validates b as one JSON object and returns its members.
// Two keys that fold to the same string are refused: encoding/json (and so
// the Go SDK's typed client) matches keys case-insensitively with Unicode
// folding and keeps the last, other decoders keep the first or match
// exactly, so `"result"` beside `"Result"` or `"reſult"` would let the
// guard check one answer and a client read another.
func oldObjectMembers(b []byte) ([]member, error) {
	s := &oldScanner{b: b}
	s.ws()
	if s.pos >= len(s.b) || s.b[s.pos] != '{' {
		return nil, s.fail("expected an object")
	}
	var ms []member
	if err := s.object(1, &ms); err != nil {
		return nil, err
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	for i := 1; i < len(ms); i++ {
		for j := 0; j < i; j++ {
			if ms[i].fold == ms[j].fold {
				return nil, fmt.Errorf("%w: key %q given twice (as %q and %q): decoders disagree on which one counts", errAmbiguous, ms[i].key, ms[j].key, ms[i].key)
			}
		}
	}
	return ms, nil
}

// oldArrayElems validates b as one JSON array and returns its elements.
func oldArrayElems(b []byte) ([][]byte, error) {
	s := &oldScanner{b: b}
	s.ws()
	if s.pos >= len(s.b) || s.b[s.pos] != '[' {
		return nil, s.fail("expected an array")
	}
	var out [][]byte
	if err := s.array(1, &out); err != nil {
		return nil, err
	}
	return out, s.end()
}

// oldValidJSON validates b as one JSON value.
func oldValidJSON(b []byte) error {
	s := &oldScanner{b: b}
	if err := s.value(0); err != nil {
		return err
	}
	return s.end()
}

// oldJSONString decodes a JSON string value.
func oldJSONString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
