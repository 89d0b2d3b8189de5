// Package jsontok is the one JSON token reader every hand-made view of JSON
// in mcp-lockcheck reads through: the guard's member scanner, the
// inspection's string walk, the config tree with offsets and the lock index.
// It is go-json-experiment's jsontext with one set of options chosen on
// purpose, so that the four agree on what is JSON:
//
//   - Duplicate names are allowed: the readers must SEE them (the config
//     tree reports a duplicate server name at its line, the guard refuses
//     keys that fold together, the inspection visits both). jsontext's
//     default would reject them before a reader could say which.
//   - Invalid UTF-8 is allowed, as encoding/json allows it: it is not a
//     syntax error here (hostile text is the inspection's business, and a
//     lone surrogate escape is the ambiguous-json rule's). Decoded strings
//     carry U+FFFD for it.
//   - Nesting is bounded by jsontext at 10000 levels, the bound encoding/json
//     and the readers always had: deeper input is refused, never recursed.
//   - Exactly one value: trailing bytes other than whitespace after it
//     (garbage, or a second value) are refused by End.
package jsontok

import (
	"bytes"
	"errors"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// opts is the one option set (see the package comment).
var opts = []jsontext.Options{
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
}

// Decoder reads tokens and raw values from a byte slice. Raw values it
// returns alias that slice until the next read.
type Decoder struct {
	jsontext.Decoder
	src []byte
	bb  bytes.Buffer
}

var pool = sync.Pool{New: func() any { return new(Decoder) }}

// Get returns a decoder over b from a pool: the guard reads every message a
// server sends, and a fresh jsontext decoder per message would be most of
// its allocation. Put it back with Put when done.
func Get(b []byte) *Decoder {
	d := pool.Get().(*Decoder)
	d.src = b
	d.bb = *bytes.NewBuffer(b)
	d.Reset(&d.bb, opts...)
	return d
}

// Put returns d to the pool; d and the values it returned must not be used
// after.
func Put(d *Decoder) {
	d.src = nil
	d.bb = bytes.Buffer{}
	pool.Put(d)
}

// Offset is the offset in b just past the last token or value read.
func (d *Decoder) Offset() int { return int(d.InputOffset()) }

// ReadSpan reads the next value whole and returns it as a sub-slice of b
// with its offset. The slice keeps b's capacity, so a caller may find an
// element's place inside an enclosing value from cap (the guard's config
// rewriter does).
func (d *Decoder) ReadSpan() (val []byte, off int, err error) {
	v, err := d.ReadValue()
	if err != nil {
		return nil, 0, err
	}
	end := d.Offset()
	off = end - len(v)
	return d.src[off:end], off, nil
}

// ErrTrailing is End's error for bytes after the value.
var ErrTrailing = errors.New("data after the JSON value")

// End checks that only whitespace follows what was read: jsontext reads a
// stream of values, and a second value or garbage must not pass as the
// rest of the first.
func (d *Decoder) End() error {
	for _, c := range d.src[d.Offset():] {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return ErrTrailing
		}
	}
	return nil
}

// Valid reports whether b is exactly one JSON value under the package's
// options.
func Valid(b []byte) bool {
	d := Get(b)
	defer Put(d)
	if err := d.SkipValue(); err != nil {
		return false
	}
	return d.End() == nil
}

// AppendString appends the decoded text of raw, a JSON string as ReadValue
// returns it (quotes included, already validated), to dst. Invalid UTF-8 and
// lone surrogate escapes become U+FFFD, as encoding/json decodes them.
func AppendString(dst, raw []byte) []byte {
	// jsontext reports invalid UTF-8 as an error after decoding all of raw
	// (with U+FFFD in its place); raw was validated, so that is the only
	// error left and the text is complete.
	out, _ := jsontext.AppendUnquote(dst, raw)
	return out
}
