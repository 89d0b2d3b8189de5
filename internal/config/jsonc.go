package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tailscale/hujson"
)

// VS Code, Cursor, Zed and opencode accept JSON with comments and trailing
// commas (JSONC). github.com/tailscale/hujson reads it: its Standardize
// turns comments and trailing commas into spaces and keeps every newline,
// so the standard JSON it gives has the file's length, and an offset into
// it (from encoding/json, or from the duplicate-keeping tree) is an offset
// into the file the user wrote.
//
// A config can come from a pull request, so the input is bounded before
// hujson sees it: hujson parses by recursion (two frames a level, about
// 2 KiB of stack each level: depth 300 000 takes 500 MB, and depth
// 1 000 000 exceeds Go's 1 GB stack, which kills the process) and builds a
// tree node of about 240 bytes for every value.
const (
	// MaxJSONCOpeners bounds the '[' and '{' bytes of a file that is not
	// plain JSON, and so its depth: 10000 is the depth encoding/json
	// refuses beyond (plain JSON is bounded by it).
	MaxJSONCOpeners = 10000
	// MaxJSONCSeparators bounds the ',' and ':' bytes of a file read as a
	// tree, and so its number of values: at the bound, hujson allocates
	// about 60 MB and takes 0.4 s (BenchmarkStandardJSON, widest JSONC).
	MaxJSONCSeparators = 1 << 17
)

// JSONCError is why a file could not be read as JSONC, at a byte offset.
type JSONCError struct {
	Offset int
	Msg    string
	// Unterminated is set for a /* comment that never ends (at Offset).
	Unterminated bool
	// EOF is set when the file ends before the value does.
	EOF bool
	// Limit is set when a bound below refused the file unread.
	Limit bool
}

func (e *JSONCError) Error() string { return e.Msg }

// JSONC is a JSON or JSONC file as read by hujson.
type JSONC struct {
	// Tree is every value of the file, with offsets into the file.
	Tree hujson.Value
	// Clean is the file as standard JSON of the same length: comments,
	// trailing commas and a byte order mark are spaces, newlines stay.
	Clean []byte
}

// ReadJSONC parses data (JSON or JSONC) into a tree whose offsets are
// offsets into data, within the bounds above. An error is a *JSONCError.
func ReadJSONC(data []byte) (*JSONC, error) {
	if json.Valid(data) {
		// Plain JSON: encoding/json has bounded its depth.
		if err := checkCount(data, ",:", MaxJSONCSeparators, sepMsg); err != nil {
			return nil, err
		}
	} else if err := checkBounds(data); err != nil {
		return nil, err
	}
	return readJSONC(data)
}

// standardJSON returns data as standard JSON of the same length (see
// JSONC.Clean). Plain JSON is returned as it is without building a tree,
// so a large plain config costs what it did before hujson.
func standardJSON(data []byte) ([]byte, error) {
	if json.Valid(data) {
		return data, nil
	}
	if err := checkBounds(data); err != nil {
		return nil, err
	}
	j, err := readJSONC(data)
	if err != nil {
		return nil, err
	}
	return j.Clean, nil
}

func checkBounds(data []byte) error {
	if err := checkCount(data, "[{", MaxJSONCOpeners, openMsg); err != nil {
		return err
	}
	return checkCount(data, ",:", MaxJSONCSeparators, sepMsg)
}

var (
	openMsg = fmt.Sprintf("more than %d '[' and '{' in a file that is not plain JSON: refused, as it may nest too deep to read safely", MaxJSONCOpeners)
	sepMsg  = fmt.Sprintf("more than %d ',' and ':': refused as too large to read safely", MaxJSONCSeparators)
)

// checkCount refuses data holding more than limit of the bytes in set,
// pointing at the first one past the limit. It counts bytes in strings and
// comments too: a bound, not a parse.
func checkCount(data []byte, set string, limit int, msg string) error {
	n, off := 0, 0
	for {
		i := bytes.IndexAny(data[off:], set)
		if i < 0 {
			return nil
		}
		off += i
		if n++; n > limit {
			return &JSONCError{Offset: off, Msg: msg, Limit: true}
		}
		off++
	}
}

// readJSONC runs hujson on a copy of data: hujson's tree aliases its input
// and Standardize writes into it. A byte order mark becomes spaces; a
// newline is appended (and dropped from Clean) so a // comment on the last
// line, which hujson wants ended by a newline, needs none.
func readJSONC(data []byte) (*JSONC, error) {
	buf := make([]byte, len(data)+1)
	copy(buf, data)
	buf[len(data)] = '\n'
	if bytes.HasPrefix(buf, []byte("\xef\xbb\xbf")) {
		copy(buf, "   ")
	}
	v, err := hujson.Parse(buf)
	if err != nil {
		return nil, jsoncError(buf[:len(data)], err)
	}
	v.Standardize()
	clean := v.Pack()
	if len(clean) != len(buf) {
		// Standardize keeps the length; anything else is a hujson surprise.
		return nil, &JSONCError{Msg: "reading JSONC: the standard JSON is not the file's length"}
	}
	return &JSONC{Tree: v, Clean: clean[:len(data)]}, nil
}

// jsoncError turns hujson's "hujson: line L, column C: msg" into an offset
// and a message.
func jsoncError(data []byte, err error) *JSONCError {
	var line, col int
	msg := err.Error()
	if _, serr := fmt.Sscanf(msg, "hujson: line %d, column %d:", &line, &col); serr == nil {
		if _, rest, ok := strings.Cut(msg, fmt.Sprintf("column %d: ", col)); ok {
			msg = rest
		}
	}
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			off = len(data)
			break
		}
		off += i + 1
	}
	off = min(off+max(col-1, 0), len(data))
	e := &JSONCError{Offset: off, Msg: msg}
	switch {
	case bytes.HasPrefix(data[off:], []byte("/*")) && errors.Is(err, io.ErrUnexpectedEOF):
		e.Unterminated, e.Msg = true, "unterminated /* comment"
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.EOF = true
	}
	return e
}

// jsoncError is the *Error for a file standardJSON refused. A syntax
// error says what encoding/json says of it whenever encoding/json reads
// the file as far as hujson did (so plain JSON reads as it always has);
// otherwise (an error after a comment) hujson's words, at hujson's offset.
func (f *jsonFile) jsoncError(err error) *Error {
	var je *JSONCError
	if !errors.As(err, &je) {
		return &Error{File: f.name, Msg: fmt.Sprintf("invalid JSON: %v", err)}
	}
	if je.Unterminated || je.Limit {
		return f.errAt(je.Offset, "%s", je.Msg)
	}
	plain := bytes.Clone(f.data)
	if bytes.HasPrefix(plain, []byte("\xef\xbb\xbf")) {
		copy(plain, "   ")
	}
	var raw json.RawMessage
	var se *json.SyntaxError
	if jerr := json.Unmarshal(plain, &raw); errors.As(jerr, &se) {
		eof := strings.HasPrefix(se.Error(), "unexpected end")
		if at := int(se.Offset) - 1; eof && je.EOF || !eof && at >= je.Offset && at < len(plain) && plain[at] != '/' {
			return f.syntaxError(plain, jerr)
		}
	}
	if strings.HasPrefix(je.Msg, "invalid literal: ") {
		// hujson points at the start of a bad number, word or string;
		// encoding/json, reading from there, at the byte that is wrong.
		if jerr := json.Unmarshal(plain[je.Offset:], &raw); errors.As(jerr, &se) && !strings.HasPrefix(se.Error(), "unexpected end") {
			return f.errAt(je.Offset+int(se.Offset)-1, "invalid JSON: %s", se.Error())
		}
		je.EOF = true
	}
	if je.EOF {
		return f.errAt(len(bytes.TrimRight(f.data, " \t\r\n")), "invalid JSON: unexpected end of JSON input")
	}
	msg := je.Msg
	for _, w := range hujsonWords {
		if m, ok := strings.CutSuffix(msg, w[0]); ok && strings.HasPrefix(msg, "invalid character ") {
			msg = m + w[1]
			break
		}
	}
	return f.errAt(je.Offset, "invalid JSON: %s", msg)
}

// hujsonWords are hujson's words for where a character is wrong, and
// encoding/json's, which errors have always used.
var hujsonWords = [][2]string{
	{" at start of value", " looking for beginning of value"},
	{" after object value (expecting ',' or '}')", " after object key:value pair"},
	{" after array value (expecting ',' or ']')", " after array element"},
	{" at start of object name", " looking for beginning of object key string"},
	{" after object name", " after object key"},
}

// lineCol converts a byte offset in data to a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
	return line, col
}
