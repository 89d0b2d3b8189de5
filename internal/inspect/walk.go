package inspect

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

var errSyntax = errors.New("inspect: not JSON")

// textRef is one string of a definition: a value, or an object key (keys are
// model-visible too: property names of an input schema are read by the
// model as the parameter's meaning). The path is joined only when a finding
// needs it: most strings produce none.
type textRef struct {
	segs []string // valid only during the visit
	key  bool
	// b is the decoded string, valid only during the visit: a view into the
	// definition, or into a buffer the next string reuses. Most strings
	// ("string", "object", property names) are dismissed from b without
	// ever being copied.
	b []byte
}

// value copies the string out.
func (r textRef) value() string { return string(r.b) }

// path is the field path of the string (lock.AppendFieldPath's form, the
// one the report shows for drift too).
func (r textRef) path() string {
	p := ""
	for _, s := range r.segs {
		p = lock.AppendFieldPath(p, s)
	}
	return p
}

// walkStrings visits every string (keys and values) of a JSON document with
// the keys and indexes that lead to it (joined into a field path only when
// a finding needs it).
//
// It reads through jsontok, the project's one token reader, with a small
// path stack on top: it keeps duplicate keys (each is visited; a model may
// see either), it never builds maps, and it decodes each string once, so a
// 1,000-tool manifest is walked in well under a millisecond per tool. It
// returns errSyntax on anything that is not one JSON value (nesting deeper
// than jsontok's 10000 levels included), possibly after visiting some
// strings; the caller then discards what it saw and scans the raw bytes as
// text.
func walkStrings(data []byte, visit func(textRef)) error {
	d := jsontok.Get(data)
	defer jsontok.Put(d)
	w := walker{d: d, visit: visit}
	if err := w.value(); err != nil {
		return errSyntax
	}
	if d.End() != nil {
		return errSyntax
	}
	return nil
}

type walker struct {
	d     *jsontok.Decoder
	path  []string
	visit func(textRef)
	buf   []byte // decoded string with escapes, reused
}

// commonKey interns the keys every definition repeats, so the path stack
// costs no allocation for them. A switch, not a map: every key of every
// definition is looked up, twice a tool (Definition and Across), and the
// compiled comparisons cost a third of a map lookup's hashing.
func commonKey(k []byte) (string, bool) {
	switch string(k) {
	case "name":
		return "name", true
	case "title":
		return "title", true
	case "description":
		return "description", true
	case "inputSchema":
		return "inputSchema", true
	case "outputSchema":
		return "outputSchema", true
	case "annotations":
		return "annotations", true
	case "_meta":
		return "_meta", true
	case "type":
		return "type", true
	case "properties":
		return "properties", true
	case "items":
		return "items", true
	case "required":
		return "required", true
	case "enum":
		return "enum", true
	case "default":
		return "default", true
	case "additionalProperties":
		return "additionalProperties", true
	case "$schema":
		return "$schema", true
	case "format":
		return "format", true
	case "minimum":
		return "minimum", true
	case "maximum":
		return "maximum", true
	case "anyOf":
		return "anyOf", true
	case "oneOf":
		return "oneOf", true
	case "allOf":
		return "allOf", true
	case "not":
		return "not", true
	case "const":
		return "const", true
	case "examples":
		return "examples", true
	case "readOnlyHint":
		return "readOnlyHint", true
	case "destructiveHint":
		return "destructiveHint", true
	case "idempotentHint":
		return "idempotentHint", true
	case "openWorldHint":
		return "openWorldHint", true
	case "uri":
		return "uri", true
	case "mimeType":
		return "mimeType", true
	case "uriTemplate":
		return "uriTemplate", true
	case "arguments":
		return "arguments", true
	case "execution":
		return "execution", true
	case "taskSupport":
		return "taskSupport", true
	case "minLength":
		return "minLength", true
	case "maxLength":
		return "maxLength", true
	case "pattern":
		return "pattern", true
	case "minItems":
		return "minItems", true
	case "maxItems":
		return "maxItems", true
	case "exclusiveMinimum":
		return "exclusiveMinimum", true
	case "exclusiveMaximum":
		return "exclusiveMaximum", true
	case "size":
		return "size", true
	case "icons":
		return "icons", true
	case "src":
		return "src", true
	case "sizes":
		return "sizes", true
	case "$ref":
		return "$ref", true
	case "$defs":
		return "$defs", true
	case "definitions":
		return "definitions", true
	case "nullable":
		return "nullable", true
	}
	return "", false
}

func (w *walker) value() error {
	d := w.d
	switch d.PeekKind() {
	case '{':
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		for d.PeekKind() != '}' {
			raw, err := d.ReadValue()
			if err != nil {
				return err
			}
			k := w.str(raw)
			seg, ok := commonKey(k)
			if !ok {
				seg = string(k)
			}
			w.path = append(w.path, seg)
			w.visit(textRef{segs: w.path, key: true, b: k})
			if err := w.value(); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
		}
		_, err := d.ReadToken()
		return err
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		for i := 0; d.PeekKind() != ']'; i++ {
			w.path = append(w.path, index(i))
			if err := w.value(); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
		}
		_, err := d.ReadToken()
		return err
	case '"':
		raw, err := d.ReadValue()
		if err != nil {
			return err
		}
		w.visit(textRef{segs: w.path, b: w.str(raw)})
		return nil
	}
	// A number or literal, or the error of what is neither.
	_, err := d.ReadValue()
	return err
}

// str decodes raw, a JSON string jsontok validated, into w.buf when it has
// escapes (valid until the next call). Invalid UTF-8 is kept as is (the
// rune scan reports it as U+FFFD; ambiguous-json is another package's
// rule) and a lone surrogate escape becomes U+FFFD.
func (w *walker) str(raw []byte) []byte {
	body := raw[1 : len(raw)-1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body
	}
	var b []byte
	if fast, ok := appendSimpleUnquote(w.buf[:0], body); ok {
		b = fast
	} else if utf8.Valid(body) {
		// jsontext's only complaint left about validated text is a lone
		// surrogate, which it decodes as U+FFFD.
		b, _ = jsontext.AppendUnquote(w.buf[:0], raw)
	} else {
		b = appendKeepingInvalid(w.buf[:0], body)
	}
	w.buf = b[:0]
	return b
}

// appendSimpleUnquote decodes body, a validated JSON string's text without
// its quotes, when its escapes are the one-letter ones (\n, \t, \", \\,
// \/, \b, \f, \r) and it is ASCII: prose is full of \n, and decoding it
// here costs a copy where jsontext's decoder costs several times that.
// ok is false for anything else (a \u escape, a non-ASCII byte), which
// the caller decodes as before.
func appendSimpleUnquote(dst, body []byte) ([]byte, bool) {
	dst = slices.Grow(dst, len(body))
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			i = len(body)
		}
		for _, c := range body[:i] {
			if c >= utf8.RuneSelf {
				return dst, false
			}
		}
		dst = append(dst, body[:i]...)
		if i == len(body) {
			break
		}
		if i+1 >= len(body) {
			return dst, false
		}
		var c byte
		switch body[i+1] {
		case 'n':
			c = '\n'
		case 't':
			c = '\t'
		case 'r':
			c = '\r'
		case '"', '\\', '/':
			c = body[i+1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		default:
			return dst, false
		}
		dst = append(dst, c)
		body = body[i+2:]
	}
	return dst, true
}

// appendKeepingInvalid decodes body (a string's text without its quotes,
// escapes and invalid UTF-8 both in it) with each invalid byte kept as it
// is: jsontext would write U+FFFD for it, and the inspection quotes the
// bytes it saw. The runs between invalid bytes hold only whole escape
// sequences (an escape is ASCII, and jsontok validated them), so each run
// is decoded alone.
func appendKeepingInvalid(dst, body []byte) []byte {
	var run []byte
	for len(body) > 0 {
		n := 0
		for n < len(body) {
			r, size := utf8.DecodeRune(body[n:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			n += size
		}
		if n > 0 {
			run = append(append(append(run[:0], '"'), body[:n]...), '"')
			dst, _ = jsontext.AppendUnquote(dst, run)
			body = body[n:]
			continue
		}
		dst = append(dst, body[0])
		body = body[1:]
	}
	return dst
}

var smallIndex = func() []string {
	s := make([]string, 64)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func index(i int) string {
	if i < len(smallIndex) {
		return smallIndex[i]
	}
	return strconv.Itoa(i)
}
