package probe

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
)

// A list page is the result of tools/list (prompts/list, ...): an object
// whose member field is the array of definitions, each an object named by
// its member key, and whose nextCursor is the next page's cursor. It is
// read with jsontok, which walks a large tools/list (Notion's is 82 KB)
// several times faster than encoding/json's three decodes did (one of
// the result, one of its array, one of each definition); what it accepts
// and what it refuses are encoding/json's (TestListPageMatchesStd):
//
//   - a member given twice counts the last time, as a Go map keeps it;
//   - a null result is an empty page, and a null field or nextCursor is
//     absent;
//   - a definition is kept byte for byte as the server sent it.

// pageErr says what is wrong with a list page, or with its item-th
// definition (from 1); list puts the method and the page in front.
type pageErr struct {
	item int
	msg  string
}

func (e *pageErr) Error() string {
	if e.item > 0 {
		return fmt.Sprintf("item %d: %s", e.item, e.msg)
	}
	return e.msg
}

var errNotJSON = errors.New("not JSON")

// listPage reads one page: the definitions with their keys, and the next
// cursor ("" at the last page).
func listPage(raw []byte, field, key string) ([]Def, string, error) {
	members, isNull, err := objectMembers(raw, field, "nextCursor")
	if err != nil {
		return nil, "", &pageErr{msg: "result is not an object"}
	}
	if isNull {
		return nil, "", nil
	}
	var defs []Def
	if arr := members[0]; arr != nil && string(arr) != "null" {
		items, err := arrayValues(arr)
		if err != nil {
			return nil, "", &pageErr{msg: fmt.Sprintf("%q is not an array", field)}
		}
		for i, it := range items {
			m, isNull, err := objectMembers(it, key)
			if err != nil {
				return nil, "", &pageErr{item: i + 1, msg: "not an object"}
			}
			k := ""
			if !isNull {
				k, _ = stringValue(m[0]) // "" unless a string
			}
			if k == "" {
				return nil, "", &pageErr{item: i + 1, msg: fmt.Sprintf("no %q", key)}
			}
			defs = append(defs, Def{Key: k, Raw: bytes.Clone(it)})
		}
	}
	next := ""
	if c := members[1]; c != nil && string(c) != "null" {
		if next, err = stringValue(c); err != nil {
			return nil, "", &pageErr{msg: "nextCursor is not a string"}
		}
	}
	return defs, next, nil
}

// objectMembers reads raw as one object and returns the value of each of
// names, the last one where a name repeats (nil when absent). isNull is a
// null instead of an object.
func objectMembers(raw []byte, names ...string) (vals [][]byte, isNull bool, err error) {
	d := jsontok.Get(raw)
	defer jsontok.Put(d)
	tok, err := d.ReadToken()
	if err != nil {
		return nil, false, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, true, d.End()
	case '{':
	default:
		return nil, false, errNotJSON
	}
	vals = make([][]byte, len(names))
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, false, err
		}
		name := tok.String() // before the next read voids tok
		v, _, err := d.ReadSpan()
		if err != nil {
			return nil, false, err
		}
		for i, n := range names {
			if name == n {
				vals[i] = v
			}
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, false, err
	}
	return vals, false, d.End()
}

// arrayValues reads raw as one array and returns its elements.
func arrayValues(raw []byte) ([][]byte, error) {
	d := jsontok.Get(raw)
	defer jsontok.Put(d)
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '[' {
		return nil, errNotJSON
	}
	var out [][]byte
	for d.PeekKind() != ']' {
		v, _, err := d.ReadSpan()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	return out, d.End()
}

// stringValue decodes raw, one JSON value, as a string: a null or an
// absent value (nil) is "", as encoding/json leaves a string it is asked to
// fill with null.
func stringValue(raw []byte) (string, error) {
	switch {
	case raw == nil || string(raw) == "null":
		return "", nil
	case len(raw) > 0 && raw[0] == '"':
		return string(jsontok.AppendString(nil, raw)), nil
	}
	return "", errNotJSON
}
