package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// The lock must mean one thing to every reader. encoding/json lets three
// things through that would make it mean two: a key given twice in one
// object (the last one wins, but a reviewer reading the diff sees the
// first), a key the format does not have (DisallowUnknownFields reports it
// with no position), and a key that matches a field only case-insensitively
// ("LockfileVersion" beside "lockfileVersion": a second version that
// encoding/json silently folds into the first). strictCheck walks the
// token stream beside the Go types of the format and stops at the first of
// them with the line and column of the key.

// maxStrictDepth bounds the walk's recursion, as encoding/json bounds its own.
const maxStrictDepth = 10000

// strictCheck reports the first duplicate or unknown key in data, or a
// syntax error, as an error naming file, line and column (1-based).
func strictCheck(name string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := &strictWalker{name: name, data: data, dec: dec}
	return w.value(reflect.TypeOf(File{}), "", 0)
}

type strictWalker struct {
	name string
	data []byte
	dec  *json.Decoder
}

// at is "FILE:LINE:COL: invalid lockfile: MSG" at byte offset off.
func (w *strictWalker) at(off int, format string, args ...any) error {
	line, col := LineCol(w.data, off)
	return fmt.Errorf("%s:%d:%d: %w: %s", w.name, line, col, ErrInvalid, fmt.Sprintf(format, args...))
}

// next is the offset of the next token: InputOffset is just past the
// previous one, and separators are consumed lazily.
func (w *strictWalker) next() int {
	i := int(w.dec.InputOffset())
	for i < len(w.data) && strings.IndexByte(" \t\r\n,:", w.data[i]) >= 0 {
		i++
	}
	return i
}

// token reads one token; a syntax error is left for the caller (Parse
// positions it with posError).
func (w *strictWalker) token() (json.Token, error) {
	tok, err := w.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// value walks one JSON value whose Go type is t (nil: free content such
// as a definition, where any key is allowed but none twice).
func (w *strictWalker) value(t reflect.Type, path string, depth int) error {
	if depth > maxStrictDepth {
		return w.at(w.next(), "nested more than %d levels deep", maxStrictDepth)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := w.token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '[':
		err = w.array(t, path, depth)
	case '{':
		err = w.object(t, path, depth)
	}
	if err != nil {
		return err
	}
	_, err = w.token() // the closing delimiter
	return err
}

// array walks the elements of an array of type t (nil: unknown).
func (w *strictWalker) array(t reflect.Type, path string, depth int) error {
	var elem reflect.Type
	if t != nil && t.Kind() == reflect.Slice && t != rawMessageType {
		elem = t.Elem()
	}
	for i := 0; w.dec.More(); i++ {
		if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// object walks the members of an object of type t (nil: unknown),
// refusing a key given twice and, for a struct, an unknown field.
func (w *strictWalker) object(t reflect.Type, path string, depth int) error {
	fields, elem := objectShape(t)
	seen := map[string]int{}
	for w.dec.More() {
		off := w.next()
		ktok, err := w.token()
		if err != nil {
			return err
		}
		key, _ := ktok.(string)
		where := path
		if where == "" {
			where = "the top level"
		}
		if first, dup := seen[key]; dup {
			line, _ := LineCol(w.data, first)
			return w.at(off, "key %q appears twice in %s (first on line %d): JSON readers disagree on which one counts", key, where, line)
		}
		seen[key] = off
		child := elem
		if fields != nil {
			ft, known := fields[key]
			if !known {
				return w.at(off, "unknown field %q in %s; known: %s", key, where, strings.Join(slices.Sorted(mapKeys(fields)), ", "))
			}
			child = ft
		}
		if err := w.value(child, joinKey(path, key), depth+1); err != nil {
			return err
		}
	}
	return nil
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// objectShape says what keys an object of type t may have: a struct's
// JSON field names (fields non-nil, matched exactly), a map's any key
// with values of elem, or anything (both nil) for free content.
func objectShape(t reflect.Type) (fields map[string]reflect.Type, elem reflect.Type) {
	if t == nil {
		return nil, nil
	}
	switch t.Kind() {
	case reflect.Map:
		return nil, t.Elem()
	case reflect.Struct:
		fields = map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			ft := f.Type
			if ft == rawMessageType {
				ft = nil
			}
			fields[name] = ft
		}
		return fields, nil
	}
	return nil, nil
}

func mapKeys(m map[string]reflect.Type) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// joinKey extends a dotted path for messages ("servers.fs.launch").
func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// isSyntax reports whether err came from the JSON scanner rather than
// from strictCheck's own findings.
func isSyntax(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF)
}
