package lock

import (
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
)

// Positions maps places in a lockfile to 1-based lines, so findings about a
// pinned entry point at the entry's line (SARIF, annotations).
type Positions struct {
	lines map[string]int
}

// Index walks a lockfile's JSON and records the line of every server, entry
// kind and entry key. It works on any formatting; on invalid JSON it
// records what it saw before the error. It reads through jsontok, the
// project's one token reader.
func Index(data []byte) Positions {
	p := Positions{lines: map[string]int{}}
	dec := jsontok.Get(data)
	defer jsontok.Put(dec)
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
		before := dec.Offset()
		tok, err := dec.ReadToken()
		if err != nil {
			return p
		}
		switch k := tok.Kind(); k {
		case '{', '[':
			stack = append(stack, frame{object: k == '{'})
			continue
		case '}', ']':
			stack = stack[:len(stack)-1]
			valueDone()
			continue
		}
		n := len(stack)
		if tok.Kind() == '"' && n > 0 && stack[n-1].object && !stack[n-1].haveKey {
			stack[n-1].key, stack[n-1].haveKey = tok.String(), true
			var path []string
			for _, f := range stack {
				if !f.object || !f.haveKey {
					path = nil
					break
				}
				path = append(path, f.key)
			}
			if len(path) >= 2 && len(path) <= 4 && path[0] == "servers" {
				off := before
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

// joinPath keys the positions by field path: a key may hold any
// character (NUL included), and only the field path's escaping keeps
// {"a\u0000b":..} apart from {"a":{"b":..}}.
func joinPath(p []string) string {
	s := ""
	for _, k := range p {
		s = AppendFieldPath(s, k)
	}
	return s
}

// Line returns the line of a server (kind == ""), or of one entry, or 0.
// When the entry is not in the lock the server's line is returned.
func (p Positions) Line(server string, kind Kind, key string) int {
	if kind != "" {
		if l := p.lines[joinPath([]string{"servers", server, JSONKey(kind), key})]; l > 0 {
			return l
		}
	}
	return p.lines[joinPath([]string{"servers", server})]
}
