package policy

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Reading a policy is three steps:
//
//  1. The YAML parser builds the document; it refuses syntax errors and
//     duplicate keys, with their positions. nesting bounds, before the
//     parser runs, how deeply the file's collections nest.
//  2. refuse rejects what a policy has no use for anywhere in the file:
//     aliases, tags and merge keys. This runs before anything is decoded,
//     so an alias is never expanded (the "billion laughs" bomb is bounded
//     by the file's size).
//  3. Each section (the file, defaults, a server, a call) is decoded
//     strictly (yaml.Strict) into the tagged structs below, which are the
//     format's schema: a key no struct field names is an error, and the
//     "known:" lists in messages are read from the tags. The semantic
//     pass (semantic.go) then checks each value: ranges, rule ids,
//     durations, names. Sections whose keys the file chooses (servers,
//     rules, a call's arguments) are read in file order by entries.
//
// section does not take the decoder's word alone: the decoder reports one
// of several unknown keys at random, and a key that is a number or a
// boolean makes it decode none of the section, without an error. Both are
// caught from the keys as written (hostile_test.go).
//
// The structs keep each value as the node written (raw), not as a Go
// value the decoder converted: the checks need the value's position for
// their messages, and its YAML kind as written ("launches: '2'" is a
// string, which a policy refuses rather than a decoder coercing it).

// fileDoc is the policy file's top level.
type fileDoc struct {
	Version     raw `yaml:"version"`
	Defaults    raw `yaml:"defaults"`
	Rules       raw `yaml:"rules"`
	Servers     raw `yaml:"servers"`
	Acknowledge raw `yaml:"acknowledge"`
}

// settingsDoc is the defaults section, and what a server section shares
// with it.
type settingsDoc struct {
	Profile        raw `yaml:"profile"`
	WarmupCalls    raw `yaml:"warmup-calls"`
	Launches       raw `yaml:"launches"`
	Sandbox        raw `yaml:"sandbox"`
	Timeout        raw `yaml:"timeout"`
	RequestTimeout raw `yaml:"request-timeout"`
	CallTimeout    raw `yaml:"call-timeout"`
	PassEnv        raw `yaml:"pass-env"`
	PinPrompts     raw `yaml:"pin-prompts"`
}

// serverDoc is one section under servers: the settings, plus what only a
// server can have (calls name its tools; its rules override the top-level
// ones).
type serverDoc struct {
	Settings settingsDoc `yaml:",inline"`
	Calls    raw         `yaml:"calls"`
	Rules    raw         `yaml:"rules"`
	Network  raw         `yaml:"network"`
}

// callDoc is one entry of a server's calls.
type callDoc struct {
	Tool      raw `yaml:"tool"`
	Arguments raw `yaml:"arguments"`
}

// raw keeps a value as the node written. The decoder does not call
// UnmarshalYAML for a null value: a key written with nothing after it
// leaves node nil, as does a key not written (section tells the two apart
// by the keys written).
type raw struct{ node ast.Node }

// UnmarshalYAML implements yaml.NodeUnmarshaler.
func (r *raw) UnmarshalYAML(n ast.Node) error {
	r.node = n
	return nil
}

// Parse reads a policy file's bytes; name is used in messages. Every
// error is an *Error wrapping ErrInvalid.
func Parse(name string, data []byte) (p *Policy, err error) {
	if len(data) > MaxFileBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("the file is %d bytes; a policy may have at most %d", len(data), MaxFileBytes)}
	}
	// The YAML parser is a dependency reading hand-written but
	// unreviewed input; if it panics the run must still stop with exit 2,
	// not crash or go on without the policy.
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &Error{File: name, Msg: fmt.Sprintf("the YAML parser failed on this file: %v", r)}
		}
	}()
	d := &decoder{file: name}
	tks := lexer.Tokenize(string(data))
	if err := d.nesting(tks); err != nil {
		return nil, err
	}
	f, perr := parser.Parse(tks, 0)
	if perr != nil {
		return nil, d.yamlErr(perr)
	}
	var docs []*ast.DocumentNode
	for _, doc := range f.Docs {
		if doc != nil && doc.Body != nil {
			docs = append(docs, doc)
		}
	}
	if len(docs) == 0 {
		return nil, &Error{File: name, Line: 1, Column: 1, Msg: fmt.Sprintf("the policy is empty: it needs at least \"version: %d\"", Version)}
	}
	if len(docs) > 1 {
		return nil, d.at(docs[1].Body, "a policy is one YAML document; this is a second one")
	}
	if err := d.refuse(docs[0].Body); err != nil {
		return nil, err
	}
	p = &Policy{File: name}
	d.pos = map[string]Position{}
	if err := d.top(docs[0].Body, p); err != nil {
		return nil, err
	}
	p.pos = d.pos
	return p, nil
}

type decoder struct {
	file string
	// prefix is the section being read ("defaults.", "servers.fs."), and
	// pos where each setting's key was found under its dotted path
	// ("servers.fs.warmup-calls", "rules.sensitive-path"): a finding about
	// a setting points at it.
	prefix string
	pos    map[string]Position
}

// mark records where the key of the setting at path is.
func (d *decoder) mark(path string, keyN ast.Node) {
	if d.pos != nil {
		line, col := pos(keyN)
		d.pos[path] = Position{line, col}
	}
}

// yamlErr turns the YAML library's error into an *Error at its token.
func (d *decoder) yamlErr(err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &Error{File: d.file, Msg: ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Column = tk.Position.Line, tk.Position.Column
		}
		return e
	}
	return &Error{File: d.file, Msg: err.Error()}
}

// pos is where a node starts: a mapping's first key, a sequence's first
// entry, else the node's own token.
func pos(n ast.Node) (line, col int) {
	if n == nil {
		return 0, 0
	}
	switch v := n.(type) {
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			return pos(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return pos(v.Key)
	case *ast.MappingKeyNode:
		if v.Start != nil && v.Start.Position != nil {
			return v.Start.Position.Line, v.Start.Position.Column
		}
	case *ast.SequenceNode:
		if !v.IsFlowStyle && len(v.Entries) > 0 && v.Entries[0].Start != nil && v.Entries[0].Start.Position != nil {
			return v.Entries[0].Start.Position.Line, v.Entries[0].Start.Position.Column
		}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}

func (d *decoder) at(n ast.Node, format string, args ...any) error {
	line, col := pos(n)
	return &Error{File: d.file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// maxNesting bounds how deeply a policy's collections may nest. The
// parser's time grows with the square of the depth: 16,000 "[" took it 15
// seconds, and a file of MaxFileBytes of them would hold a check for hours
// (the file comes with pull requests). A policy needs a few levels for its
// sections and at most maxDepth more in a call's arguments.
const maxNesting = maxDepth + 36

// nesting refuses a file whose collections nest more than maxNesting
// deep, counting flow collections ([ and {) and, on one line, block
// entries written one inside the other ("- - - x", "? ? x"), the two
// forms whose depth the file's size does not already bound (nesting by
// indentation costs the square of the depth in bytes).
func (d *decoder) nesting(tks token.Tokens) error {
	flow, line, compact := 0, -1, 0
	for _, tk := range tks {
		deeper := false
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
			deeper = true
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		case token.SequenceEntryType, token.MappingKeyType:
			if tk.Position == nil || tk.Position.Line != line {
				compact = 0
				if tk.Position != nil {
					line = tk.Position.Line
				}
			}
			compact++
			deeper = true
		}
		if deeper && flow+compact > maxNesting {
			e := &Error{File: d.file, Msg: fmt.Sprintf("the file nests lists and mappings more than %d levels deep", maxNesting)}
			if tk.Position != nil {
				e.Line, e.Column = tk.Position.Line, tk.Position.Column
			}
			return e
		}
	}
	return nil
}

// refuse rejects, anywhere in the document and before any decoding, what
// a policy has no use for and a reader could be misled by: aliases (a
// value defined elsewhere; also the YAML "billion laughs" expansion),
// tags (a value whose type is not what it looks like: !!binary, !!str)
// and merge keys (settings that arrive from another section). The decoder
// would otherwise expand, convert and merge all three silently. Anchors
// are harmless (they only name a node) and are allowed.
func (d *decoder) refuse(body ast.Node) error {
	r := &refuser{d: d}
	ast.Walk(r, body)
	return r.err
}

// refuser is refuse's ast.Visitor; it stops at the first node refused,
// in document order.
type refuser struct {
	d   *decoder
	err error
}

func (r *refuser) Visit(n ast.Node) ast.Visitor {
	if r.err != nil {
		return nil
	}
	switch v := n.(type) {
	case *ast.AliasNode:
		if v.Value != nil && strings.HasPrefix(v.Value.String(), ".") {
			// *.example.com:443 in a network allowance, unquoted.
			r.err = r.d.at(v, "aliases (*name) are not supported in a policy: a wildcard destination is quoted: \"*%s\"", v.Value.String())
			break
		}
		r.err = r.d.at(v, "aliases (*name) are not supported in a policy: write the value out")
	case *ast.TagNode:
		r.err = r.d.at(v, "tags (%s) are not supported in a policy", tokenValue(v.Start))
	case *ast.MergeKeyNode:
		r.err = r.d.at(v, "merge keys (<<) are not supported in a policy")
	}
	if r.err != nil {
		return nil
	}
	return r
}

func tokenValue(tk *token.Token) string {
	if tk == nil {
		return ""
	}
	return tk.Value
}

// bare strips what only wraps a value: an anchor (refuse let it through)
// and the explicit-key form's "? key" marker.
func bare(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.MappingKeyNode:
			n = v.Value
		default:
			return n
		}
	}
}

// entry is one key: value of a mapping.
type entry struct {
	key   string
	keyN  ast.Node
	value ast.Node
}

// entries reads a mapping's entries in file order: the sections whose keys
// are names the file chooses (servers, rules, arguments) are read this
// way, and the key positions of a decoded section come from it. A null (a
// key with nothing after it) is an empty mapping.
func (d *decoder) entries(n ast.Node, what string) ([]entry, error) {
	n = bare(n)
	var values []*ast.MappingValueNode
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.MappingNode:
		values = v.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{v}
	default:
		return nil, d.at(n, "%s must be a mapping (key: value lines), not %s", what, describe(n))
	}
	out := make([]entry, 0, len(values))
	seen := map[string]bool{}
	for _, mv := range values {
		kn := bare(mv.Key)
		key, ok := scalar(kn)
		if !ok {
			return nil, d.at(mv.Key, "a key in %s must be a plain name, not %s", what, describe(kn))
		}
		// The parser refuses duplicate keys already; this guards the
		// explicit-key and flow forms it might let through.
		if seen[key] {
			return nil, d.at(kn, "%q appears twice in %s", key, what)
		}
		seen[key] = true
		out = append(out, entry{key: key, keyN: kn, value: mv.Value})
	}
	return out, nil
}

// section decodes the mapping n strictly into doc (a pointer to one of
// the schema structs), then calls visit for each key the file sets, in
// file order, with its key's node and the value the decoder put in the
// field; unknown words the error for a key the schema does not have.
// Such a key is reported before any value of its section is checked (the
// section's shape first); then keys are visited in file order, each value
// (and any section under it) checked before the next key, so that of two
// mistakes in values the first in the file is reported. It returns how
// many keys the section sets; a null section sets none.
func (d *decoder) section(n ast.Node, what string, doc any, unknown func(key string, keyN ast.Node) error, visit func(entry) error) (int, error) {
	es, err := d.entries(n, what)
	if err != nil || len(es) == 0 {
		return 0, err
	}
	derr := yaml.NodeToValue(bare(n), doc, yaml.Strict())
	decoded := map[string]*raw{}
	schemaFields(reflect.ValueOf(doc).Elem(), func(key string, r *raw) { decoded[key] = r })
	// The decoder's unknown-key error names one key, picked from a map:
	// report the first in the file instead, so the same file always gets
	// the same message. A number or boolean as a key is not refused by
	// the decoder at all (it then decodes none of the section's keys):
	// it is unknown all the same.
	for _, e := range es {
		if decoded[e.key] == nil {
			return 0, unknown(e.key, e.keyN)
		}
	}
	if derr != nil {
		return 0, d.yamlErr(derr)
	}
	for _, e := range es {
		got, want := orNil(decoded[e.key].node), orNil(bare(e.value))
		if got != want {
			// Fail closed: a value the decoder dropped would be a
			// setting silently not applied.
			return 0, d.at(e.keyN, "%s: the YAML decoder did not read this value", e.key)
		}
		e.value = got
		if err := visit(e); err != nil {
			return 0, err
		}
	}
	return len(es), nil
}

// orNil is n, or nil for a null: the decoder hands a null to raw in some
// forms (an anchored null) and not in others.
func orNil(n ast.Node) ast.Node {
	if _, null := n.(*ast.NullNode); null {
		return nil
	}
	return n
}

// schemaKeys are the keys a schema struct accepts, in its order (the
// order the "known:" lists in messages give).
func schemaKeys(doc any) []string {
	var out []string
	schemaFields(reflect.ValueOf(doc).Elem(), func(key string, _ *raw) { out = append(out, key) })
	return out
}

// schemaFields calls fn for each raw field of the struct v by its yaml
// key, descending into inline structs.
func schemaFields(v reflect.Value, fn func(key string, r *raw)) {
	t := v.Type()
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if opts == "inline" {
			schemaFields(v.Field(i), fn)
			continue
		}
		fn(name, v.Field(i).Addr().Interface().(*raw))
	}
}

// scalar is the text of a scalar node as written (a quoted string's
// content; an unquoted number, bool or null's literal text), so that
// "off", "3" and "90s" read the same however YAML would type them.
func scalar(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		tk := n.GetToken()
		if tk == nil {
			return "", false
		}
		return tk.Value, true
	}
	return "", false
}

// describe names a node's kind for messages.
func describe(n ast.Node) string {
	switch n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode:
		return "a number"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	}
	return "a " + strings.ToLower(n.Type().String())
}

// text reads a non-empty scalar value. A missing value is reported at
// keyN (the key it belongs to, when there is one): the parser places an
// empty value past the end of the line.
func (d *decoder) text(n ast.Node, key string, keyN ast.Node) (string, ast.Node, error) {
	n = bare(n)
	s, ok := scalar(n)
	if !ok {
		at := n
		if _, null := n.(*ast.NullNode); (n == nil || null) && keyN != nil {
			at = keyN
		}
		return "", nil, d.at(at, "%s: want a value, got %s", key, describe(n))
	}
	if strings.TrimSpace(s) == "" {
		return "", nil, d.at(n, "%s: the value is empty", key)
	}
	return s, n, nil
}

// item is one entry of a list, with the node its position is reported
// at: the entry's dash in a block list, else the value itself.
type item struct{ value, at ast.Node }

// list reads a sequence; a single scalar is not a list (it is almost
// always a forgotten dash or bracket, and guessing would be silent).
func (d *decoder) list(n ast.Node, what string) ([]item, error) {
	n = bare(n)
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.SequenceNode:
		out := make([]item, len(v.Values))
		for i, val := range v.Values {
			out[i] = item{val, val}
			if !v.IsFlowStyle && i < len(v.Entries) && v.Entries[i] != nil && v.Entries[i].Start != nil {
				out[i].at = v.Entries[i]
			}
		}
		return out, nil
	}
	return nil, d.at(n, "%s must be a list (- item lines or [a, b]), not %s", what, describe(n))
}
