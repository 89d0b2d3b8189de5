package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// oldBuildTree is the encoding/json-based tree builder buildTree replaced,
// kept only as the oracle of FuzzTreeDifferential.
//
// oldBuildTree decodes clean (valid JSON, already checked) into nodes, using the
// decoder's token stream for values and InputOffset for positions. This is
// the "small offset-tracking pass": encoding/json does the parsing.
func oldBuildTree(clean []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.UseNumber()
	t := &oldTreeBuilder{dec: dec, data: clean}
	return t.value(0)
}

type oldTreeBuilder struct {
	dec  *json.Decoder
	data []byte
}

// next returns the offset of the next token: InputOffset points just past
// the previous token, and the separators between are consumed lazily.
func (t *oldTreeBuilder) next() int {
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

// oldMaxDepth bounds recursion; encoding/json's own limit is 10000.
const oldMaxDepth = 10000

func (t *oldTreeBuilder) value(depth int) (*node, error) {
	if depth > oldMaxDepth {
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
