package guardinstall

import (
	"fmt"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
)

// tomlEntries finds the launches of a Codex config.toml's servers, for the
// same splices as JSON: the span of the command's string, and the args
// array with the span of each element. The toml package gives the line of
// each key; the values on it are read by a small scanner that knows only
// what a launch is made of (single-line strings, arrays of them, comments
// and whitespace between). Only the shape `codex mcp add` writes is
// edited: `command = ...` and `args = [...]` as keys of their own lines in
// a [mcp_servers.NAME] table. Any other shape (an inline table, a dotted
// key, a multi-line string) is refused with a message, never guessed at.
func tomlEntries(name string, data []byte) (*doc, []*srvEntry, error) {
	lines, err := config.TOMLFieldLines(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	d := &doc{data: data, clean: data, toml: true}
	starts := lineStarts(data)
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return lines[names[i]]["command"] < lines[names[j]]["command"] })
	var entries []*srvEntry
	for _, n := range names {
		fl := lines[n]
		e := &srvEntry{name: n, line: fl["command"]}
		entries = append(entries, e)
		cl, ok := fl["command"]
		if !ok {
			continue // a remote server: no launch to edit
		}
		l, err := tomlLaunch(data, starts, cl, fl["args"])
		if err != nil {
			e.preErr = fmt.Errorf("server %q: %v: edit this entry by hand", n, err)
			continue
		}
		e.pre = l
	}
	return d, entries, nil
}

func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// tomlLaunch reads `command = STRING` on line cl and `args = [...]` from
// line al (0: no args).
func tomlLaunch(data []byte, starts []int, cl, al int) (*launchSpans, error) {
	if cl <= 0 || cl > len(starts) {
		return nil, fmt.Errorf("the command's line is unknown")
	}
	key, val, err := tomlKeyValue(data, starts[cl-1], "command")
	if err != nil {
		return nil, err
	}
	end, err := tomlString(data, val)
	if err != nil {
		return nil, fmt.Errorf("\"command\": %v", err)
	}
	l := &launchSpans{cmd: span{val, end}, cmdKey: key}
	if al <= 0 {
		return l, nil
	}
	if al > len(starts) {
		return nil, fmt.Errorf("the args' line is unknown")
	}
	_, aval, err := tomlKeyValue(data, starts[al-1], "args")
	if err != nil {
		return nil, err
	}
	arr, strs, err := tomlArray(data, aval)
	if err != nil {
		return nil, fmt.Errorf("\"args\": %v", err)
	}
	l.arr, l.args = arr, strs
	return l, nil
}

// tomlKeyValue expects the line at off to be `KEY = ` (KEY bare or in
// double quotes, indentation allowed) and returns the offsets of the key
// and of the value.
func tomlKeyValue(data []byte, off int, key string) (keyOff, valOff int, err error) {
	i := skipBlank(data, off)
	keyOff = i
	switch {
	case hasAt(data, i, key):
		i += len(key)
	case hasAt(data, i, `"`+key+`"`):
		i += len(key) + 2
	default:
		return 0, 0, fmt.Errorf("%q is not written as `%s = ...` on a line of its own", key, key)
	}
	i = skipBlank(data, i)
	if i >= len(data) || data[i] != '=' {
		return 0, 0, fmt.Errorf("%q is not written as `%s = ...` on a line of its own", key, key)
	}
	return keyOff, skipBlank(data, i+1), nil
}

func hasAt(data []byte, i int, s string) bool {
	return i+len(s) <= len(data) && string(data[i:i+len(s)]) == s
}

func skipBlank(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return i
}

// tomlString returns the end of the single-line basic ("...") or literal
// ('...') string at i.
func tomlString(data []byte, i int) (int, error) {
	if i >= len(data) || (data[i] != '"' && data[i] != '\'') {
		return 0, fmt.Errorf("not a string")
	}
	q := data[i]
	if hasAt(data, i, `"""`) || hasAt(data, i, "'''") {
		return 0, fmt.Errorf("a multi-line string")
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\n':
			return 0, fmt.Errorf("an unterminated string")
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("an unterminated string")
}

// tomlArray reads an array of single-line strings at i: elements, commas,
// whitespace, newlines and comments.
func tomlArray(data []byte, i int) (*jarray, []string, error) {
	if i >= len(data) || data[i] != '[' {
		return nil, nil, fmt.Errorf("not an array")
	}
	a := &jarray{span: span{from: i}}
	var strs []string
	for j := i + 1; j < len(data); {
		switch c := data[j]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',':
			j++
		case c == '#':
			for j < len(data) && data[j] != '\n' {
				j++
			}
		case c == ']':
			a.span.to = j + 1
			return a, strs, nil
		default:
			end, err := tomlString(data, j)
			if err != nil {
				return nil, nil, err
			}
			var v struct{ S string }
			if _, err := toml.Decode("S = "+string(data[j:end]), &v); err != nil {
				return nil, nil, fmt.Errorf("an element that is not a string")
			}
			a.elems = append(a.elems, span{j, end})
			strs = append(strs, v.S)
			j = end
		}
	}
	return nil, nil, fmt.Errorf("an unterminated array")
}
