package olddiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/sandbox"
)

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
	f, perr := parser.ParseBytes(data, 0)
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

// yamlErr turns the YAML parser's error into an *Error at its token.
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

// entry is one key: value of a mapping.
type entry struct {
	key   string
	keyN  ast.Node
	value ast.Node
}

// unwrap strips an anchor (harmless: it only names a node) and refuses
// what a policy has no use for and a reader could be misled by: aliases
// (a value defined elsewhere; also the YAML "billion laughs" expansion),
// tags (a value whose type is not what it looks like) and merge keys.
func (d *decoder) unwrap(n ast.Node) (ast.Node, error) {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
			continue
		case *ast.AliasNode:
			return nil, d.at(v, "aliases (*name) are not supported in a policy: write the value out")
		case *ast.TagNode:
			return nil, d.at(v, "tags (%s) are not supported in a policy", tokenValue(v.Start))
		case *ast.MergeKeyNode:
			return nil, d.at(v, "merge keys (<<) are not supported in a policy")
		case *ast.MappingKeyNode:
			n = v.Value
			continue
		}
		return n, nil
	}
}

func tokenValue(tk *token.Token) string {
	if tk == nil {
		return ""
	}
	return tk.Value
}

// mapping reads a mapping's entries in order. A null (a key with nothing
// after it) is an empty mapping.
func (d *decoder) mapping(n ast.Node, what string) ([]entry, error) {
	n, err := d.unwrap(n)
	if err != nil {
		return nil, err
	}
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
		kn, err := d.unwrap(mv.Key)
		if err != nil {
			return nil, err
		}
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
	n, err := d.unwrap(n)
	if err != nil {
		return "", nil, err
	}
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

func keys(ks []string) string { return strings.Join(ks, ", ") }

var (
	topKeys      = []string{"version", "defaults", "rules", "servers"}
	settingKeys  = []string{"profile", "warmup-calls", "launches", "sandbox", "timeout", "request-timeout", "call-timeout", "pass-env", "pin-prompts"}
	serverKeys   = append(slices.Clone(settingKeys), "calls", "rules")
	callKeys     = []string{"tool", "arguments"}
	ruleLevelsOK = "off, note, warning or error"
)

func (d *decoder) top(body ast.Node, p *Policy) error {
	es, err := d.mapping(body, "the policy")
	if err != nil {
		return err
	}
	haveVersion := false
	for _, e := range es {
		switch e.key {
		case "version":
			s, n, err := d.text(e.value, "version", e.keyN)
			if err != nil {
				return err
			}
			if s != strconv.Itoa(Version) {
				return d.at(n, "version %q is not supported: this build reads version %d", s, Version)
			}
			haveVersion = true
		case "defaults":
			d.mark("defaults", e.keyN)
			d.prefix = "defaults."
			ds, err := d.mapping(e.value, "defaults")
			if err != nil {
				return err
			}
			for _, de := range ds {
				if !slices.Contains(settingKeys, de.key) {
					hint := ""
					switch de.key {
					case "calls":
						hint = " (calls name a server's tools: put them under servers.NAME.calls)"
					case "rules":
						hint = " (rules for every server go in the top-level rules:)"
					}
					return d.at(de.keyN, "unknown key %q in defaults%s; known: %s", de.key, hint, keys(settingKeys))
				}
				if err := d.setting(de, &p.Defaults); err != nil {
					return err
				}
			}
		case "rules":
			d.mark("rules", e.keyN)
			r, err := d.rules(e.value, "rules")
			if err != nil {
				return err
			}
			p.Defaults.Rules = r
		case "servers":
			ss, err := d.mapping(e.value, "servers")
			if err != nil {
				return err
			}
			for _, se := range ss {
				s, err := d.server(se)
				if err != nil {
					return err
				}
				p.Servers = append(p.Servers, s)
			}
		default:
			return d.at(e.keyN, "unknown key %q; known: %s", e.key, keys(topKeys))
		}
	}
	if !haveVersion {
		return d.at(body, "the policy has no \"version: %d\"", Version)
	}
	return nil
}

func (d *decoder) server(se entry) (Server, error) {
	s := Server{Name: se.key}
	s.Line, s.Column = pos(se.keyN)
	d.prefix = "servers." + se.key + "."
	d.mark("servers."+se.key, se.keyN)
	if strings.TrimSpace(se.key) == "" {
		return s, d.at(se.keyN, "a server name is empty")
	}
	es, err := d.mapping(se.value, fmt.Sprintf("server %q", se.key))
	if err != nil {
		return s, err
	}
	for _, e := range es {
		switch {
		case e.key == "calls":
			d.mark(d.prefix+"calls", e.keyN)
			calls, err := d.calls(e.value, se.key)
			if err != nil {
				return s, err
			}
			s.Calls = calls
		case e.key == "rules":
			d.mark(d.prefix+"rules", e.keyN)
			r, err := d.rules(e.value, fmt.Sprintf("servers.%s.rules", se.key))
			if err != nil {
				return s, err
			}
			s.Rules = r
		case slices.Contains(settingKeys, e.key):
			if err := d.setting(e, &s.Settings); err != nil {
				return s, err
			}
		default:
			return s, d.at(e.keyN, "unknown key %q in server %q; known: %s", e.key, se.key, keys(serverKeys))
		}
	}
	return s, nil
}

// envName is what pass-env accepts: a POSIX environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// setting reads one of settingKeys into st.
func (d *decoder) setting(e entry, st *Settings) error {
	d.mark(d.prefix+e.key, e.keyN)
	switch e.key {
	case "warmup-calls", "launches":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		lo, hi := 0, MaxWarmupCalls
		if e.key == "launches" {
			lo, hi = 1, MaxLaunches
		}
		v, err := strconv.Atoi(s)
		if _, isInt := n.(*ast.IntegerNode); err != nil || !isInt {
			return d.at(n, "%s: want a whole number from %d to %d, got %q", e.key, lo, hi, s)
		}
		if v < lo || v > hi {
			return d.at(n, "%s: %d is out of range: want %d to %d", e.key, v, lo, hi)
		}
		if e.key == "launches" {
			st.Launches = &v
		} else {
			st.WarmupCalls = &v
		}
	case "profile":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		if ProfileRank(s) < 0 {
			return d.at(n, "profile: unknown profile %q; want %s or %s", s, ProfileQuick, ProfileDeep)
		}
		st.Profile = s
	case "sandbox":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		l, err := sandbox.ParseLevel(s)
		if err != nil {
			return d.at(n, "sandbox: %v", err)
		}
		st.Sandbox = l
	case "timeout", "request-timeout", "call-timeout":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return d.at(n, "%s: %q is not a duration (write e.g. 90s, 2m or 1m30s)", e.key, s)
		}
		if v <= 0 {
			return d.at(n, "%s: %s: want a duration above zero", e.key, s)
		}
		if limit := MaxTimeout; e.key == "timeout" && v > limit || e.key != "timeout" && v > MaxRequestTimeout {
			if e.key != "timeout" {
				limit = MaxRequestTimeout
			}
			// A policy travels with pull requests: an hour-long time-out
			// would hold the job until the runner gives up.
			return d.at(n, "%s: %s is above the cap of %s", e.key, s, limit)
		}
		switch e.key {
		case "timeout":
			st.Timeout = v
		case "request-timeout":
			st.RequestTimeout = v
		default:
			st.CallTimeout = v
		}
	case "pin-prompts":
		s, n, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return err
		}
		if _, isBool := n.(*ast.BoolNode); !isBool || s != "true" && s != "false" {
			return d.at(n, "pin-prompts: want true or false, got %q", s)
		}
		v := s == "true"
		st.PinPrompts = &v
	case "pass-env":
		items, err := d.list(e.value, "pass-env")
		if err != nil {
			return err
		}
		for _, it := range items {
			s, n, err := d.text(it.value, "pass-env", it.at)
			if err != nil {
				return err
			}
			if !envName.MatchString(s) {
				return d.at(n, "pass-env: %q is not an environment variable name", s)
			}
			if !slices.Contains(st.PassEnv, s) {
				st.PassEnv = append(st.PassEnv, s)
			}
		}
	}
	return nil
}

// item is one entry of a list, with the node its position is reported
// at: the entry's dash in a block list, else the value itself.
type item struct{ value, at ast.Node }

// list reads a sequence; a single scalar is not a list (it is almost
// always a forgotten dash or bracket, and guessing would be silent).
func (d *decoder) list(n ast.Node, what string) ([]item, error) {
	n, err := d.unwrap(n)
	if err != nil {
		return nil, err
	}
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

func (d *decoder) rules(n ast.Node, what string) (map[string]RuleLevel, error) {
	es, err := d.mapping(n, what)
	if err != nil {
		return nil, err
	}
	out := map[string]RuleLevel{}
	for _, e := range es {
		if _, ok := finding.Lookup(e.key); !ok {
			return nil, d.at(e.keyN, "unknown rule %q in %s%s", e.key, what, suggest(e.key))
		}
		if e.key == finding.ServerUnavailable {
			// A held server is held by its status, not by this finding:
			// a level here would change nothing and read as if it did.
			return nil, d.at(e.keyN, "%s cannot be turned off or re-levelled: a server that could not be probed is always held (exit 3)", e.key)
		}
		s, vn, err := d.text(e.value, e.key, e.keyN)
		if err != nil {
			return nil, err
		}
		var l RuleLevel
		if strings.EqualFold(s, "off") {
			l.Off = true
		} else {
			sev, err := finding.ParseSeverity(s)
			if err != nil || sev == finding.Never {
				return nil, d.at(vn, "%s: %q is not a rule level: want %s", e.key, s, ruleLevelsOK)
			}
			l.Severity = sev
		}
		if enforcesLock[e.key] {
			if def := finding.DefaultSeverity(e.key); l.Off || l.Severity < def {
				// The policy file travels with pull requests: if it could
				// switch off what binds approval to content, a PR could
				// approve anything by editing it. Raising is fine.
				return nil, d.at(vn, "%s enforces the lock and cannot be turned off or lowered below %s (it can be raised)", e.key, def)
			}
		}
		d.mark(what+"."+e.key, e.keyN)
		out[e.key] = l
	}
	return out, nil
}

// enforcesLock are the rules that bind approval to content or report
// observed misbehaviour; a policy may raise them but never lower them.
var enforcesLock = map[string]bool{
	finding.ToolAdded: true, finding.ToolChanged: true,
	finding.PromptAdded: true, finding.PromptChanged: true,
	finding.ResourceAdded: true, finding.ResourceChanged: true,
	finding.ResourceTemplateAdded: true, finding.ResourceTemplateChanged: true,
	finding.InstructionsChanged: true, finding.LaunchChanged: true,
	finding.ServerNotPinned: true, finding.NewInputProperty: true,
	finding.UnstableManifest: true, finding.CanaryLeak: true, finding.CanaryUsed: true,
	finding.AmbiguousJSON: true, finding.HiddenCharacters: true,
	finding.TerminalEscape: true,
	// What keeps a pull request from lowering the bar or hiding a config.
	finding.PolicyWeakened: true, finding.UncheckedConfig: true,
}

// suggest names the closest rule id to a misspelt one, if any is close.
func suggest(id string) string {
	best, bestD := "", 4
	for _, r := range finding.Rules {
		if dd := distance(id, r.ID); dd < bestD {
			best, bestD = r.ID, dd
		}
	}
	if best == "" {
		return " (the rule ids are listed in the README)"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// distance is the Levenshtein distance, enough to catch a typo.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (d *decoder) calls(n ast.Node, server string) ([]probe.Call, error) {
	items, err := d.list(n, fmt.Sprintf("servers.%s.calls", server))
	if err != nil {
		return nil, err
	}
	var out []probe.Call
	for i, it := range items {
		what := fmt.Sprintf("call %d of server %q", i+1, server)
		es, err := d.mapping(it.value, what)
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			return nil, d.at(it.at, "%s is empty: it needs a tool", what)
		}
		var c probe.Call
		for _, e := range es {
			switch e.key {
			case "tool":
				s, _, err := d.text(e.value, "tool", e.keyN)
				if err != nil {
					return nil, err
				}
				c.Tool = s
			case "arguments":
				raw, err := d.arguments(e.value)
				if err != nil {
					return nil, err
				}
				c.Arguments = raw
			default:
				return nil, d.at(e.keyN, "unknown key %q in %s; known: %s", e.key, what, keys(callKeys))
			}
		}
		if c.Tool == "" {
			return nil, d.at(it.at, "%s has no tool: name the tool to call with \"tool: NAME\"", what)
		}
		out = append(out, c)
	}
	return out, nil
}

// arguments turns a YAML mapping into the JSON object sent as the call's
// arguments, keys in the order written. Absent or null is no arguments
// (the probe sends {}).
func (d *decoder) arguments(n ast.Node) (json.RawMessage, error) {
	u, err := d.unwrap(n)
	if err != nil {
		return nil, err
	}
	switch u.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.MappingNode, *ast.MappingValueNode:
	default:
		return nil, d.at(u, "arguments must be a mapping (name: value), not %s", describe(u))
	}
	var b bytes.Buffer
	if err := d.json(&b, u, 0); err != nil {
		return nil, err
	}
	return json.RawMessage(b.Bytes()), nil
}

// maxDepth bounds nesting in arguments (and the recursion converting them).
const maxDepth = 64

func (d *decoder) json(b *bytes.Buffer, n ast.Node, depth int) error {
	if depth > maxDepth {
		return d.at(n, "arguments are nested more than %d levels deep", maxDepth)
	}
	n, err := d.unwrap(n)
	if err != nil {
		return err
	}
	switch v := n.(type) {
	case nil, *ast.NullNode:
		b.WriteString("null")
	case *ast.MappingNode, *ast.MappingValueNode:
		es, err := d.mapping(v, "arguments")
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, e := range es {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e.key)
			b.WriteByte(':')
			if err := d.json(b, e.value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case *ast.SequenceNode:
		b.WriteByte('[')
		for i, it := range v.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := d.json(b, it, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *ast.StringNode:
		writeString(b, v.Value)
	case *ast.LiteralNode:
		s, _ := scalar(v)
		writeString(b, s)
	case *ast.BoolNode:
		b.WriteString(strconv.FormatBool(v.Value))
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			b.WriteString(strconv.FormatInt(x, 10))
		case uint64:
			b.WriteString(strconv.FormatUint(x, 10))
		default:
			return d.at(v, "arguments: %q is not a number JSON can carry", tokenValue(v.Token))
		}
	case *ast.FloatNode:
		if math.IsInf(v.Value, 0) || math.IsNaN(v.Value) {
			return d.at(v, "arguments: %q is not a number JSON can carry", tokenValue(v.Token))
		}
		b.WriteString(strconv.FormatFloat(v.Value, 'g', -1, 64))
	case *ast.InfinityNode, *ast.NanNode:
		return d.at(v, "arguments: %s is not a number JSON can carry", tokenValue(v.GetToken()))
	default:
		return d.at(v, "arguments: %s cannot be written as JSON", describe(v))
	}
	return nil
}

// writeString writes s as a JSON string without HTML escaping: the
// arguments are shown in reports as they will be sent.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	// Encode ends with a newline.
	b.Truncate(b.Len() - 1)
}
