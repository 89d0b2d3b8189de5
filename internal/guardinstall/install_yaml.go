package guardinstall

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
)

// yamlEntries finds the launches of a Continue block file's servers, for
// the same splices as JSON and TOML. The YAML parser gives each key's
// line; the values on it are read by a small scanner for the shape
// Continue documents: `command: SCALAR` and `args:` followed by a block
// sequence (`- x` lines) or a one-line flow sequence (`[x, y]`). Any other
// shape (a multi-line scalar, a nested flow, a tag) is refused with a
// message.
func yamlEntries(name string, data []byte) (*doc, []*srvEntry, error) {
	pos, err := config.YAMLFieldPos(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	d := &doc{data: data, clean: data, yaml: true}
	starts := lineStarts(data)
	names := make([]string, 0, len(pos))
	for n := range pos {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return pos[names[i]]["name"][0] < pos[names[j]]["name"][0] })
	var entries []*srvEntry
	for _, n := range names {
		fp := pos[n]
		e := &srvEntry{name: n, line: fp["name"][0]}
		entries = append(entries, e)
		cp, ok := fp["command"]
		if !ok {
			continue // a remote server: no launch to edit
		}
		l, err := yamlLaunch(data, starts, cp[0], fp["args"][0])
		if err != nil {
			e.preErr = fmt.Errorf("server %q: %v: edit this entry by hand", n, err)
			continue
		}
		e.pre = l
	}
	return d, entries, nil
}

// yamlKey expects the line at off to hold KEY: (after indentation and an
// optional "- ") and returns the offsets of the key and of what follows the
// colon and its blanks.
func yamlKey(data []byte, off int, key string) (keyOff, valOff int, err error) {
	i := skipBlank(data, off)
	if hasAt(data, i, "- ") {
		i = skipBlank(data, i+2)
	}
	if !hasAt(data, i, key+":") {
		return 0, 0, fmt.Errorf("%q is not written as `%s: ...`", key, key)
	}
	return i, skipBlank(data, i+len(key)+1), nil
}

// lineEnd is the offset of the end of the line holding i (before "\r\n"
// or "\n").
func lineEnd(data []byte, i int) int {
	j := bytes.IndexByte(data[i:], '\n')
	if j < 0 {
		return len(data)
	}
	j += i
	if j > i && data[j-1] == '\r' {
		j--
	}
	return j
}

// yamlScalar returns the end of the one-line scalar at i: a quoted one, or
// a plain one up to a comment or the end of the line. flow stops a plain
// scalar at "," and "]" too.
func yamlScalar(data []byte, i int, flow bool) (int, error) {
	end := lineEnd(data, i)
	if i >= end {
		return 0, fmt.Errorf("an empty value")
	}
	switch c := data[i]; c {
	case '"', '\'':
		for j := i + 1; j < end; j++ {
			switch {
			case c == '"' && data[j] == '\\':
				j++
			case c == '\'' && data[j] == '\'' && j+1 < end && data[j+1] == '\'':
				j++
			case data[j] == c:
				return j + 1, nil
			}
		}
		return 0, fmt.Errorf("a quoted value that spans lines")
	case '|', '>', '&', '*', '!', '[', '{', '-', '?', ':', '#', '%', '@', '`':
		if c != '-' || i+1 >= end || data[i+1] == ' ' {
			return 0, fmt.Errorf("a value YAML reads as more than a plain string")
		}
	}
	j := i
	for j < end {
		if data[j] == '#' && j > i && (data[j-1] == ' ' || data[j-1] == '\t') {
			break
		}
		if flow && (data[j] == ',' || data[j] == ']' || data[j] == '[' || data[j] == '{' || data[j] == '}') {
			break
		}
		j++
	}
	for j > i && (data[j-1] == ' ' || data[j-1] == '\t') {
		j--
	}
	return j, nil
}

// yamlDecode reads one scalar token as YAML does.
func yamlDecode(tok []byte) (string, error) {
	var v struct {
		S string `yaml:"s"`
	}
	if err := yaml.Unmarshal([]byte("s: "+string(tok)+"\n"), &v); err != nil {
		return "", fmt.Errorf("a value that is not a plain string")
	}
	return v.S, nil
}

func yamlLaunch(data []byte, starts []int, cl, al int) (*launchSpans, error) {
	if cl <= 0 || cl > len(starts) {
		return nil, fmt.Errorf("the command's line is unknown")
	}
	key, val, err := yamlKey(data, starts[cl-1], "command")
	if err != nil {
		return nil, err
	}
	end, err := yamlScalar(data, val, false)
	if err != nil {
		return nil, fmt.Errorf("\"command\": %v", err)
	}
	tok := data[val:end]
	if tok[0] != '"' && tok[0] != '\'' && bytes.ContainsAny(tok, ",[]{}") {
		// It moves into a flow sequence, where those end a plain scalar.
		return nil, fmt.Errorf("\"command\": quote a value holding , [ ] { }")
	}
	l := &launchSpans{cmd: span{val, end}, cmdKey: key}
	if al <= 0 {
		return l, nil
	}
	if al > len(starts) {
		return nil, fmt.Errorf("the args' line is unknown")
	}
	akey, aval, err := yamlKey(data, starts[al-1], "args")
	if err != nil {
		return nil, err
	}
	y := &yamlArgs{data: data, a: &jarray{}}
	if aval < len(data) && data[aval] == '[' {
		err = y.flow(aval)
	} else {
		err = y.block(starts, al, akey, aval)
	}
	if err != nil {
		return nil, err
	}
	l.arr, l.args = y.a, y.strs
	return l, nil
}

// yamlArgs collects the spans and decoded strings of an args sequence.
type yamlArgs struct {
	data []byte
	a    *jarray
	strs []string
}

func (y *yamlArgs) add(from, to int) error {
	s, err := yamlDecode(y.data[from:to])
	if err != nil {
		return err
	}
	y.a.elems = append(y.a.elems, span{from, to})
	y.strs = append(y.strs, s)
	return nil
}

// flow reads a one-line flow sequence starting at aval.
func (y *yamlArgs) flow(aval int) error {
	data, a := y.data, y.a
	a.span.from = aval
	end := lineEnd(data, aval)
	for j := aval + 1; ; {
		j = skipBlank(data, j)
		switch {
		case j >= end:
			return fmt.Errorf("\"args\": a flow sequence that spans lines")
		case data[j] == ',':
			j++
		case data[j] == ']':
			a.span.to = j + 1
			return nil
		default:
			e, err := yamlScalar(data, j, true)
			if err != nil || e == j {
				return fmt.Errorf("\"args\": %v", err)
			}
			if err := y.add(j, e); err != nil {
				return fmt.Errorf("\"args\": %v", err)
			}
			j = e
		}
	}
}

// block reads a block sequence: "- x" lines below the key (at akey on line
// al, its value at aval), indented at least as much as the key (YAML lets
// them sit at its column).
func (y *yamlArgs) block(starts []int, al, akey, aval int) error {
	data, a := y.data, y.a
	if e := lineEnd(data, aval); aval < e && data[aval] != '#' {
		return fmt.Errorf("\"args\" is neither a block nor a one-line flow sequence")
	}
	keyCol := akey - starts[al-1]
	a.block = true
	for ln := al; ln < len(starts); ln++ {
		i := skipBlank(data, starts[ln])
		end := lineEnd(data, starts[ln])
		if i >= end || data[i] == '#' {
			continue // blank or comment line
		}
		if i-starts[ln] < keyCol || !hasAt(data, i, "- ") {
			break
		}
		v := skipBlank(data, i+2)
		e, err := yamlScalar(data, v, false)
		if err != nil {
			return fmt.Errorf("\"args\": %v", err)
		}
		if rest := skipBlank(data, e); rest < end && data[rest] != '#' {
			return fmt.Errorf("\"args\": an element that is not one scalar")
		}
		if err := y.add(v, e); err != nil {
			return fmt.Errorf("\"args\": %v", err)
		}
		a.lines = append(a.lines, span{starts[ln], starts[ln] + lineLen(data, starts[ln])})
	}
	if len(a.elems) == 0 {
		return fmt.Errorf("\"args\" is empty: write [] or remove it")
	}
	a.span = span{aval, a.lines[len(a.lines)-1].to}
	return nil
}

// lineLen is the length of the line at off, its newline included.
func lineLen(data []byte, off int) int {
	j := bytes.IndexByte(data[off:], '\n')
	if j < 0 {
		return len(data) - off
	}
	return j + 1
}

// blockInsert inserts "- ELEM" lines before a block sequence's first
// element line, indented like it.
func blockInsert(d *doc, a *jarray, elems [][]byte) splice {
	first := a.lines[0].from
	indent := indentAt(d.data, a.elems[0].from)
	nl := newline(d.data)
	var b strings.Builder
	for _, el := range elems {
		b.WriteString(indent + "- " + string(el) + nl)
	}
	return splice{first, first, []byte(b.String())}
}
