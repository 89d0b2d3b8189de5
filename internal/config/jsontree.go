package config

import (
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
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

// buildTree decodes clean (valid JSON, already checked) into nodes, reading
// through jsontok, the project's one token reader, whose options keep every
// duplicate key for get to report. Positions are the offsets jsontok gives
// for each token and value.
func buildTree(clean []byte) (*node, error) {
	d := jsontok.Get(clean)
	defer jsontok.Put(d)
	n, err := treeValue(d)
	if err != nil {
		return nil, err
	}
	return n, d.End()
}

// treeValue reads one value. Recursion is bounded: jsontok refuses nesting
// deeper than 10000 levels before it gets here.
func treeValue(d *jsontok.Decoder) (*node, error) {
	switch d.PeekKind() {
	case '{':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		n := &node{kind: '{', off: d.Offset() - 1}
		for d.PeekKind() != '}' {
			k, koff, err := d.ReadSpan()
			if err != nil {
				return nil, err
			}
			val, err := treeValue(d)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: string(jsontok.AppendString(nil, k)), keyOff: koff, val: val})
		}
		_, err := d.ReadToken()
		return n, err
	case '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		n := &node{kind: '[', off: d.Offset() - 1}
		for d.PeekKind() != ']' {
			val, err := treeValue(d)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, val)
		}
		_, err := d.ReadToken()
		return n, err
	}
	v, off, err := d.ReadSpan()
	if err != nil {
		return nil, err
	}
	n := &node{off: off}
	switch v[0] {
	case '"':
		n.kind, n.str = '"', string(jsontok.AppendString(nil, v))
	case 'n':
		n.kind = 'n'
	case 't', 'f':
		n.kind, n.str = 'b', string(v)
	default:
		n.kind, n.str = '0', string(v)
	}
	return n, nil
}
