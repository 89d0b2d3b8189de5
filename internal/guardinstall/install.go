// Package guardinstall rewrites client configs so that each pinned server
// runs behind mcp-lockcheck's guard (a url entry behind the guard's bridge),
// and back: guard install and guard uninstall. It edits a config's bytes in
// place, so that uninstall restores them exactly; the guard itself (the
// proxy, package internal/guard) is not linked.
package guardinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/tailscale/hujson"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Options say how Install puts servers behind the guard.
type Options struct {
	// Lock is the lock; only servers with an entry in it are wrapped.
	Lock *lock.File
	// LockPath is the lock's path as written into each server's args:
	// relative to the config's project (the guard looks for it from its
	// working directory up), or absolute for a config outside it.
	LockPath string
	// Executable is the command written: "mcp-lockcheck" when it is on
	// PATH, else its absolute path.
	Executable string
	// Flags are extra guard flags written before "--" ("--mode", "warn").
	Flags []string
}

// Change is what Install or Uninstall did to one server.
type Change struct {
	Server string
	// Action is "guarded", "guarded (remote)" (a url entry now runs the
	// guard's bridge), "restored", or why the server was left alone:
	// "already guarded", "not pinned", "not stdio", "not bridged" (a url
	// entry install does not rewrite; Warning says why), "not guarded".
	Action string
	// Warning is set when the config's launch differs from the approved
	// one, or says why a server was not bridged or restored.
	Warning string
}

// guardArg is the first argument of a guarded server: how Uninstall knows
// a server it put behind the guard.
const guardArg = "guard"

// Install rewrites one client config (JSON or JSONC: the "mcpServers" and
// "servers" shapes, and opencode's "mcp") so that each pinned stdio server
// runs behind the guard:
//
//	"command": "mcp-lockcheck",
//	"args": ["guard", "--lock", "mcp-lock.json", "--server", NAME, "--", OLD-COMMAND, OLD-ARGS...]
//
// The file is edited in place, by inserting and replacing a few byte spans,
// never by re-encoding: comments, key order, whitespace and every member it
// does not touch stay as they were, and each edit is one Uninstall can undo
// exactly, from the file alone:
//   - the command's value is replaced, and its original token (bytes as
//     written, escapes and all) becomes the element after "--";
//   - the guard's arguments are inserted before the first original
//     argument, each followed by "," and the separator the array already
//     uses (a newline and its indent, or a space), so Uninstall removes
//     everything from the first element up to the first original one;
//   - with no "args", one is added right after the command, in a compact
//     form (elements joined by "," alone) that an "args" written as [] can
//     never take after Install (its elements are joined by ", "), so
//     Uninstall knows to remove the member rather than empty it.
//
// opencode's "command": [PROGRAM, ARGS...] gets the guard's command and
// arguments inserted before PROGRAM the same way.
//
// A pinned url entry of the "mcpServers" and "servers" shapes becomes the
// guard's bridge to that server, the whole entry replaced and its bytes
// kept for Uninstall (installRemote).
//
// Servers without a lock entry are left alone and reported: the guard
// would refuse them, which would break the client rather than protect it.
func Install(name string, data []byte, o Options) ([]byte, []Change, error) {
	servers, err := config.Parse(name, data)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]config.Server{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	exe, _ := marshalNoEscape(o.Executable)
	prior := false
	out, changes, err := rewrite(name, data, func(d *doc, e *srvEntry) ([]splice, Change, error) {
		ch := Change{Server: e.name}
		l, err := e.launch(d)
		if err != nil {
			ch.Action = "not stdio"
			return nil, ch, err
		}
		if l == nil {
			if s, ok := byName[e.name]; ok && s.URL != "" {
				edits, err := installRemote(d, e, s, o, &ch)
				return edits, ch, err
			}
			ch.Action = "not stdio"
			return nil, ch, nil
		}
		_, remote := config.ParseRemoteGuardWrap(l.args)
		if _, _, ok := config.ParseGuardWrap(l.args); ok || remote {
			ch.Action = "already guarded"
			prior = true
			return nil, ch, nil
		}
		ls := o.Lock.Servers[e.name]
		if ls == nil {
			ch.Action = "not pinned"
			return nil, ch, nil
		}
		if s, ok := byName[e.name]; ok {
			l := pinned.Launch(s)
			l.Network = ls.Launch.Network // the guard runs with the lock's allowance
			if !l.Equal(ls.Launch) {
				ch.Warning = fmt.Sprintf("the config's launch (%s %s) differs from the lock's approved one (%s %s); mcp-lockcheck check reports launch-changed",
					l.Command, strings.Join(l.Args, " "), ls.Launch.Command, strings.Join(ls.Launch.Args, " "))
			}
		}
		ch.Action = "guarded"
		return guardEdits(d, e, l, exe, o), ch, nil
	})
	if err != nil {
		return nil, nil, err
	}
	// The promise is that Uninstall gives these bytes back. Hold Install
	// to it here rather than leave a file nobody can restore exactly.
	if !prior && !bytes.Equal(out, data) {
		if _, err := config.Parse(name, out); err != nil {
			return nil, nil, fmt.Errorf("%s: guard install would leave a config that does not parse (%v); edit it by hand (see README, guard)", name, err)
		}
		if back, _, err := Uninstall(name, out); err != nil || !bytes.Equal(back, data) {
			return nil, nil, fmt.Errorf("%s: guard install cannot rewrite this file so that guard uninstall restores it byte for byte; edit it by hand (see README, guard)", name)
		}
	}
	return out, changes, nil
}

// guardEdits are the splices that put the guard in front of the launch l
// of entry e: exe and the guard's arguments before the program and its
// arguments.
func guardEdits(d *doc, e *srvEntry, l *launchSpans, exe []byte, o Options) []splice {
	guard := append([]string{guardArg, "--lock", o.LockPath, "--server", e.name}, o.Flags...)
	guard = append(guard, "--")
	var raw [][]byte
	for _, a := range guard {
		b, _ := marshalNoEscape(a)
		raw = append(raw, b)
	}
	if e.opencode {
		// "command": [exe, "guard", ..., "--", PROGRAM, ARGS...]
		return []splice{insertElems(d, l.cmdArr, append([][]byte{exe}, raw...))}
	}
	prefix := append(raw, d.data[l.cmd.from:l.cmd.to])
	edits := []splice{{l.cmd.from, l.cmd.to, exe}}
	if l.arr == nil {
		text := d.argsLead(e, l) + "[" + string(bytes.Join(prefix, []byte(","))) + "]"
		edits = append(edits, splice{l.cmd.to, l.cmd.to, []byte(text)})
	} else {
		edits = append(edits, insertElems(d, l.arr, prefix))
	}
	return edits
}

// Uninstall undoes Install: each server whose arguments are a guard
// invocation gets back the command and arguments after the guard's "--",
// byte for byte as they were before Install (see Install); a bridge to a
// remote server gets back the entry it was (uninstallRemote).
func Uninstall(name string, data []byte) ([]byte, []Change, error) {
	if _, err := config.Parse(name, data); err != nil {
		return nil, nil, err
	}
	return rewrite(name, data, func(d *doc, e *srvEntry) ([]splice, Change, error) {
		ch := Change{Server: e.name, Action: "not guarded"}
		l, err := e.launch(d)
		if err != nil || l == nil {
			return nil, ch, err
		}
		if _, ok := config.ParseRemoteGuardWrap(l.args); ok && !d.toml && !d.yaml && !e.opencode {
			edits, err := uninstallRemote(d, e, &ch)
			return edits, ch, err
		}
		_, k, ok := config.ParseGuardWrap(l.args)
		if !ok {
			return nil, ch, nil
		}
		ch.Action = "restored"
		if e.opencode {
			// args are command[1:]: the program is element k+1.
			el := l.cmdArr.elems
			return []splice{{el[0].from, el[k+1].from, nil}}, ch, nil
		}
		el := l.arr.elems
		edits := []splice{{l.cmd.from, l.cmd.to, bytes.Clone(d.data[el[k].from:el[k].to])}}
		if l.arr.block {
			lines := l.arr.lines
			if k+1 < len(lines) {
				return append(edits, splice{lines[0].from, lines[k+1].from, nil}), ch, nil
			}
			return append(edits, splice{lines[0].from, lines[k].to, nil}), ch, nil
		}
		switch {
		case k+1 < len(el):
			edits = append(edits, splice{el[0].from, el[k+1].from, nil})
		case d.addedArgs(e, l):
			edits = append(edits, splice{l.cmd.to, l.arr.span.to, nil})
		default:
			edits = append(edits, splice{el[0].from, el[k].to, nil})
		}
		return edits, ch, nil
	})
}

// span is a byte range [from, to) of the file.
type span struct{ from, to int }

// splice replaces a span with new bytes (nil removes it).
type splice struct {
	from, to int
	with     []byte
}

// doc is the file being edited: data as written, and clean, the same bytes
// with comments and trailing commas blanked (same offsets), which is where
// the bytes of a JSON value are taken from.
type doc struct {
	data, clean []byte
	toml        bool // a Codex config.toml rather than JSON
	yaml        bool // a Continue block file
}

// field is one member of a JSON object of the file: its key as decoded,
// its value's bytes (from doc.clean), and where both are in the file.
type field struct {
	key  string
	val  []byte
	off  int // offset of the value
	koff int // offset of the key's opening quote
	// node is hujson's tree of the value (nil for a field Install makes).
	node *hujson.Value
}

// jarray is an array value and its elements' spans.
type jarray struct {
	span  span
	elems []span
	// block is a YAML block sequence: one "- x" line per element, lines
	// holds each element's line (its newline included).
	block bool
	lines []span
}

// srvEntry is one server object of the file.
type srvEntry struct {
	name     string
	holder   string // the key of the object holding it ("mcpServers", ...)
	line     int    // 1-based line of the entry, for errors
	obj      span
	members  []field
	opencode bool
	// pre is the launch of a TOML entry, found by tomlEntries (preErr when
	// its shape is one this package does not edit).
	pre    *launchSpans
	preErr error
}

// launchSpans are where an entry's launch is written.
type launchSpans struct {
	cmd    span    // the "command" string value (mcpServers shape)
	cmdKey int     // offset of the "command" key
	arr    *jarray // "args", nil when absent
	cmdArr *jarray // opencode's "command" array
	args   []string
}

// member returns the member named exactly key (as config.Parse reads it).
func (e *srvEntry) member(key string) *field {
	for i := range e.members {
		if e.members[i].key == key {
			return &e.members[i]
		}
	}
	return nil
}

// launch finds the entry's launch; nil when it has none this package can
// edit (a remote server, Zed's command object).
func (e *srvEntry) launch(d *doc) (*launchSpans, error) {
	if d.toml || d.yaml {
		return e.pre, e.preErr
	}
	cm := e.member("command")
	if cm == nil {
		return nil, nil
	}
	if e.opencode {
		if t := e.member("type"); t == nil || string(t.val) != `"local"` {
			return nil, nil
		}
		arr, strs, err := d.array(cm)
		if err != nil || len(strs) == 0 {
			return nil, fmt.Errorf("server %q: \"command\" must be an array of strings", e.name)
		}
		return &launchSpans{cmdArr: arr, args: strs[1:]}, nil
	}
	if len(cm.val) == 0 || cm.val[0] != '"' {
		return nil, nil
	}
	l := &launchSpans{cmd: span{cm.off, cm.off + len(cm.val)}, cmdKey: cm.koff}
	if am := e.member("args"); am != nil {
		if string(am.val) == "null" {
			return nil, fmt.Errorf("server %q: \"args\" is null: write [] or remove it, then install again", e.name)
		}
		arr, strs, err := d.array(am)
		if err != nil {
			return nil, fmt.Errorf("server %q: \"args\" must be an array of strings", e.name)
		}
		l.arr, l.args = arr, strs
	}
	return l, nil
}

// array reads a member's value as an array of strings.
func (d *doc) array(m *field) (*jarray, []string, error) {
	if m.node == nil {
		return nil, nil, fmt.Errorf("not an array")
	}
	arr, ok := m.node.Value.(*hujson.Array)
	if !ok {
		return nil, nil, fmt.Errorf("not an array")
	}
	a := &jarray{span: span{m.off, m.off + len(m.val)}}
	var strs []string
	for _, el := range arr.Elements {
		s, ok := d.str(&el)
		if !ok {
			return nil, nil, fmt.Errorf("not a string")
		}
		a.elems = append(a.elems, span{el.StartOffset, el.EndOffset})
		strs = append(strs, s)
	}
	return a, strs, nil
}

// str decodes a string value.
func (d *doc) str(v *hujson.Value) (string, bool) {
	if lit, ok := v.Value.(hujson.Literal); !ok || lit.Kind() != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(d.clean[v.StartOffset:v.EndOffset], &s); err != nil {
		return "", false
	}
	return s, true
}

// fields reads v as an object. Two keys that fold to the same string
// (Unicode simple folding, as encoding/json matches keys) are refused:
// clients that match keys differently would each read another one.
func (d *doc) fields(v *hujson.Value) ([]field, error) {
	if v == nil {
		return nil, fmt.Errorf("expected an object")
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("expected an object at byte %d", v.StartOffset+1)
	}
	fs := make([]field, 0, len(obj.Members))
	seen := make(map[string]string, len(obj.Members))
	for i := range obj.Members {
		m := &obj.Members[i]
		key, _ := d.str(&m.Name)
		if first, dup := seen[foldKey(key)]; dup {
			return nil, fmt.Errorf("ambiguous JSON: key %q given twice (as %q and %q): decoders disagree on which one counts", key, first, key)
		}
		seen[foldKey(key)] = key
		fs = append(fs, field{key: key, val: d.clean[m.Value.StartOffset:m.Value.EndOffset], off: m.Value.StartOffset, koff: m.Name.StartOffset, node: &m.Value})
	}
	return fs, nil
}

// foldKey maps a key to the smallest rune of each rune's simple-folding
// orbit: two keys encoding/json would match fold to the same string.
func foldKey(k string) string {
	out := make([]rune, 0, len(k))
	for _, r := range k {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		out = append(out, m)
	}
	return string(out)
}

// insertElems inserts elements before the array's first one, each
// followed by "," and the separator the array uses, or into an empty
// array joined by ", ".
func insertElems(d *doc, a *jarray, elems [][]byte) splice {
	if a.block {
		return blockInsert(d, a, elems)
	}
	if len(a.elems) == 0 {
		return splice{a.span.from + 1, a.span.from + 1, bytes.Join(elems, []byte(", "))}
	}
	p0 := a.elems[0].from
	sep := " "
	if nl := newline(d.clean[a.span.from:p0]); nl != "" {
		sep = nl + indentAt(d.data, p0)
	}
	var b bytes.Buffer
	for _, el := range elems {
		b.Write(el)
		b.WriteString("," + sep)
	}
	return splice{p0, p0, b.Bytes()}
}

// memberSep is what separates members of the entry's object: a newline and
// the command's indent when the object spans lines, else a space.
func (d *doc) memberSep(e *srvEntry, l *launchSpans) string {
	if d.yaml {
		// A YAML key goes on a line of its own at the command's column
		// (which "- " may precede).
		nl := newline(d.data)
		if nl == "" {
			nl = "\n"
		}
		start := bytes.LastIndexByte(d.data[:l.cmdKey], '\n') + 1
		return nl + strings.Repeat(" ", l.cmdKey-start)
	}
	if d.toml {
		// A TOML key goes on a line of its own, indented like the command.
		nl := newline(d.data)
		if nl == "" {
			nl = "\n"
		}
		return nl + indentAt(d.data, l.cmdKey)
	}
	if nl := newline(d.clean[e.obj.from:e.obj.to]); nl != "" {
		return nl + indentAt(d.data, l.cmdKey)
	}
	return " "
}

// newline is the line ending b uses ("\r\n" or "\n"), or "" when b is on
// one line.
func newline(b []byte) string {
	i := bytes.IndexByte(b, '\n')
	switch {
	case i < 0:
		return ""
	case i > 0 && b[i-1] == '\r':
		return "\r\n"
	}
	return "\n"
}

// argsLead is what Install writes between the command's value and the
// array of an "args" it adds: the member separator and the key.
func (d *doc) argsLead(e *srvEntry, l *launchSpans) string {
	if d.yaml {
		return d.memberSep(e, l) + "args: "
	}
	if d.toml {
		return d.memberSep(e, l) + "args = "
	}
	return "," + d.memberSep(e, l) + `"args": `
}

// addedArgs reports whether "args" is exactly the member Install adds to
// an entry that had none: right after the command, its elements joined by
// "," alone (an existing array gets ", " or its own separator).
func (d *doc) addedArgs(e *srvEntry, l *launchSpans) bool {
	if l.arr == nil || l.arr.span.from < l.cmd.to {
		return false
	}
	if string(d.data[l.cmd.to:l.arr.span.from]) != d.argsLead(e, l) {
		return false
	}
	var raw [][]byte
	for _, el := range l.arr.elems {
		raw = append(raw, d.data[el.from:el.to])
	}
	return string(d.data[l.arr.span.from:l.arr.span.to]) == "["+string(bytes.Join(raw, []byte(",")))+"]"
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// rewrite finds the server entries of a config (JSON, JSONC or Codex TOML)
// and applies the splices edit returns for each, leaving every other byte
// as it was.
func rewrite(name string, data []byte, edit func(d *doc, e *srvEntry) ([]splice, Change, error)) ([]byte, []Change, error) {
	var (
		d       *doc
		entries []*srvEntry
		err     error
	)
	switch strings.ToLower(filepathExt(name)) {
	case ".toml":
		d, entries, err = tomlEntries(name, data)
	case ".yaml", ".yml":
		d, entries, err = yamlEntries(name, data)
	default:
		d, entries, err = jsonEntries(name, data)
	}
	if err != nil {
		return nil, nil, err
	}
	var splices []splice
	var changes []Change
	for _, e := range entries {
		next, ch, err := edit(d, e)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, e.line, err)
		}
		changes = append(changes, ch)
		splices = append(splices, next...)
	}
	slices.SortStableFunc(splices, func(a, b splice) int { return a.from - b.from })
	var out bytes.Buffer
	last := 0
	for _, s := range splices {
		if s.from < last {
			return nil, nil, fmt.Errorf("%s: overlapping edits (a bug): file left unchanged", name)
		}
		out.Write(data[last:s.from])
		out.Write(s.with)
		last = s.to
	}
	out.Write(data[last:])
	return out.Bytes(), changes, nil
}

// jsonEntries finds the server objects of a JSON or JSONC config in
// hujson's tree of it. Only the tree's offsets are used: the edits stay
// byte splices, because hujson's Patch writes an inserted element or
// member without the separator and indent the array or object uses
// (["guard","--",\n      "-y"]), and Uninstall can only give the file back
// byte for byte when it knows exactly what Install wrote.
func jsonEntries(name string, data []byte) (*doc, []*srvEntry, error) {
	j, err := config.ReadJSONC(data)
	if err != nil {
		var je *config.JSONCError
		if errors.As(err, &je) {
			line, col := lock.LineCol(data, je.Offset)
			return nil, nil, fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
		}
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	d := &doc{data: data, clean: j.Clean}
	root, err := d.fields(&j.Tree)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	opencode := false
	switch strings.ToLower(filepathBase(name)) {
	case "opencode.json", "opencode.jsonc":
		opencode = true
	}
	var holders []field
	for _, top := range root {
		switch {
		case opencode && top.key == "mcp":
			ms, err := d.fields(top.node)
			if err != nil {
				continue
			}
			holder := top
			for _, m := range ms {
				if m.key != "servers" {
					continue
				}
				if inner, err := d.fields(m.node); err == nil && !slices.ContainsFunc(inner, func(x field) bool { return x.key == "type" }) {
					holder = m
				}
			}
			holders = append(holders, holder)
		case !opencode && (top.key == "mcpServers" || top.key == "servers" || top.key == "context_servers"):
			holders = append(holders, top)
		}
	}
	if len(holders) == 0 {
		return nil, nil, fmt.Errorf(`%s: no "mcpServers", "servers", "context_servers" or opencode "mcp" object`, name)
	}
	var entries []*srvEntry
	for _, h := range holders {
		servers, err := d.fields(h.node)
		if err != nil {
			continue // null or not an object: config.Parse said what it allows
		}
		for _, sm := range servers {
			ms, err := d.fields(sm.node)
			if err != nil {
				continue
			}
			line, _ := lock.LineCol(data, sm.koff)
			entries = append(entries, &srvEntry{name: sm.key, holder: h.key, line: line, obj: span{sm.off, sm.off + len(sm.val)}, members: ms, opencode: opencode})
		}
	}
	return d, entries, nil
}

// filepathBase is the last element of a slash- or backslash-separated path.
func filepathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func filepathExt(p string) string {
	b := filepathBase(p)
	if i := strings.LastIndexByte(b, '.'); i >= 0 {
		return b[i:]
	}
	return ""
}

// indentAt is the leading whitespace of the line holding offset off.
func indentAt(data []byte, off int) string {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}
