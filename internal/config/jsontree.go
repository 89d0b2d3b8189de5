package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// node is a JSON value with the byte offset where it starts. Objects keep
// their members in order, duplicates included, because encoding/json would
// silently keep the last of two equal keys and a client may keep the other:
// a duplicate server name or "command" must be an error, not a coin toss.
type node struct {
	kind    byte // '{' object, '[' array, '"' string, '0' number, 'b' bool, 'n' null
	off     int
	str     string // string value, or the literal text of a number or bool
	members []member
	elems   []*node
}

type member struct {
	key    string
	keyOff int
	val    *node
}

// kindName says what a node is, for messages like "must be a string, not an array".
func (n *node) kindName() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}

// get returns the member named key, or nil. A key given twice is reported
// through dup so that the caller can point at the second one.
func (n *node) get(key string) (m *member, dup *member) {
	for i := range n.members {
		if n.members[i].key != key {
			continue
		}
		if m != nil {
			return m, &n.members[i]
		}
		m = &n.members[i]
	}
	return m, nil
}

// buildTree decodes clean (valid JSON, already checked) into nodes, using the
// decoder's token stream for values and InputOffset for positions. This is
// the "small offset-tracking pass": encoding/json does the parsing.
func buildTree(clean []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.UseNumber()
	t := &treeBuilder{dec: dec, data: clean}
	return t.value(0)
}

type treeBuilder struct {
	dec  *json.Decoder
	data []byte
}

// next returns the offset of the next token: InputOffset points just past
// the previous token, and the separators between are consumed lazily.
func (t *treeBuilder) next() int {
	i := int(t.dec.InputOffset())
	for i < len(t.data) {
		switch t.data[i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
			continue
		}
		break
	}
	return i
}

// maxDepth bounds recursion; encoding/json's own limit is 10000.
const maxDepth = 10000

func (t *treeBuilder) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errors.New("exceeded max depth")
	}
	n := &node{off: t.next()}
	tok, err := t.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n.kind = '{'
			for t.dec.More() {
				koff := t.next()
				ktok, err := t.dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := ktok.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %T", ktok)
				}
				val, err := t.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key: key, keyOff: koff, val: val})
			}
		case '[':
			n.kind = '['
			for t.dec.More() {
				val, err := t.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, val)
			}
		default:
			return nil, fmt.Errorf("unexpected %q", v)
		}
		if _, err := t.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = '"', v
	case json.Number:
		n.kind, n.str = '0', string(v)
	case bool:
		n.kind, n.str = 'b', fmt.Sprint(v)
	case nil:
		n.kind = 'n'
	}
	return n, nil
}
