package lock

import (
	"bytes"
	"encoding/json"
)

// oldIndex is the encoding/json-based Index that jsontok replaced, kept only
// as the oracle of FuzzIndexDifferential (with UseNumber; see below).
// oldIndex walks a lockfile's JSON and records the line of every server, entry
// kind and entry key. It works on any formatting; on invalid JSON it
// records what it saw before the error.
func oldIndex(data []byte) Positions {
	p := Positions{lines: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	// The one change from the old Index: without UseNumber, a number out of
	// float64's range (1e999999) was a decode error that ended the index
	// early; jsontok reads it as the token it is. TestIndexHugeNumber pins
	// that difference.
	dec.UseNumber()
	type frame struct {
		object  bool
		key     string
		haveKey bool
	}
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].haveKey = false
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return p
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				stack = append(stack, frame{object: d == '{'})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		}
		n := len(stack)
		if s, ok := tok.(string); ok && n > 0 && stack[n-1].object && !stack[n-1].haveKey {
			stack[n-1].key, stack[n-1].haveKey = s, true
			var path []string
			for _, f := range stack {
				if !f.object || !f.haveKey {
					path = nil
					break
				}
				path = append(path, f.key)
			}
			if len(path) >= 2 && len(path) <= 4 && path[0] == "servers" {
				off := int(before)
				for off < len(data) && data[off] != '"' {
					off++
				}
				line, _ := LineCol(data, off)
				p.lines[joinPath(path)] = line
			}
			continue
		}
		valueDone()
	}
}
