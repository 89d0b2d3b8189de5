package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
)

// Reason says why a tool gets no warm-up call.
type Reason string

// The reasons a tool is skipped, in the order a note lists them.
const (
	// SkipWriteName: the name reads as a write (create_issue, hset,
	// getOrCreateUser). It wins over any annotation: a tool that calls
	// itself "delete_entities" and claims readOnlyHint is not believed.
	SkipWriteName Reason = "whose name reads as a write"
	// SkipAnnotation: annotated with readOnlyHint false, or with
	// destructiveHint and no readOnlyHint.
	SkipAnnotation Reason = "annotated as not read-only"
	// SkipDescription: no read/write annotation, and the description's
	// leading verb is a write ("Creates ...").
	SkipDescription Reason = "whose description reads as a write"
	// SkipNotRead: no read/write annotation, and neither the name nor the
	// description reads as a read ("echo", "open_nodes").
	SkipNotRead Reason = "with no annotation and no read-like name"
	// SkipWriteArgument: a required argument only takes values that read
	// as writes (an enum of "create" and "delete").
	SkipWriteArgument Reason = "whose required argument takes only write-like values"
	// SkipRealHost: a required argument only takes URLs on real hosts
	// (a const, an enum, a pattern "^https://api\.example\.com/"): a
	// warm-up call never reaches a real host.
	SkipRealHost Reason = "whose required argument takes only URLs on real hosts"
	// SkipNoArguments: no arguments valid against its inputSchema could
	// be synthesized.
	SkipNoArguments Reason = "for which no arguments could be synthesized"
)

// Reasons lists every Reason in the order a note gives them.
var Reasons = []Reason{SkipWriteName, SkipAnnotation, SkipDescription, SkipNotRead, SkipWriteArgument, SkipRealHost, SkipNoArguments}

// Skip is a tool that gets no warm-up call, and why.
type Skip struct {
	Tool   string
	Reason Reason
}

// Values steers the values synthesized for warm-up calls toward realistic
// and harmless ones.
type Values struct {
	// Dir is the directory synthesized paths point into: the sandbox's own
	// temporary directory, so a read touches nothing of the user's. ""
	// gives relative paths (a remote server, which has no run dir here).
	Dir string
	// Start is the index of the first call: the calls earlier launches of
	// the same probe made, so the round-robin goes on where it stopped
	// instead of repeating the first round.
	Start int
}

// mcpGoDefaults are the hints mark3labs/mcp-go gives every tool whose
// author did not set them: readOnlyHint false, destructiveHint true,
// idempotentHint false, openWorldHint true. A server built on it says this
// of every tool, its reads too, so these exact four say nothing about the
// tool and count as no annotation.
var mcpGoDefaults = map[string]bool{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}

// hints are a tool's boolean annotation hints. A hint that is not a JSON
// boolean ("true", 1) is not one the protocol defines, and is absent.
type hints map[string]bool

func readHints(raw json.RawMessage) hints {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	h := hints{}
	for k := range mcpGoDefaults {
		switch string(bytes.TrimSpace(m[k])) {
		case "true":
			h[k] = true
		case "false":
			h[k] = false
		}
	}
	if len(h) == len(mcpGoDefaults) {
		blanket := true
		for k, v := range mcpGoDefaults {
			blanket = blanket && h[k] == v
		}
		if blanket {
			return nil
		}
	}
	return h
}

// tool is one definition as the planner reads it.
type tool struct {
	name        string
	description string
	schema      json.RawMessage
	hints       hints
}

// readTools parses the definitions: those that are not JSON objects, have
// no string name, or repeat an earlier name are dropped. The result is
// sorted by name, so a server that reorders its list, which is not drift,
// gets the same calls.
func readTools(raw []json.RawMessage) []tool {
	var out []tool
	seen := map[string]bool{}
	for _, r := range raw {
		var def struct {
			Name        *string         `json:"name"`
			Description any             `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations json.RawMessage `json:"annotations"`
		}
		if json.Unmarshal(r, &def) != nil || def.Name == nil || seen[*def.Name] {
			continue
		}
		seen[*def.Name] = true
		desc, _ := def.Description.(string)
		out = append(out, tool{name: *def.Name, description: desc, schema: def.InputSchema, hints: readHints(def.Annotations)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// eligibility says whether a warm-up call may use t, and if not, why.
//
// A name that reads as a write is never called: not even when annotated
// read-only, since an annotation is the server's word and the name is what
// the user sees. Otherwise a tool annotated readOnlyHint true is called
// (whatever its destructiveHint, which the protocol says means nothing on
// a read-only tool); one that carries a read/write hint but not that one
// is not. A tool with neither hint (no annotations, only
// idempotentHint or openWorldHint, or mcp-go's blanket defaults) is called
// when its name, or failing that its description's leading verb, reads as
// a read, and the description does not open with a write.
func eligibility(t tool) (Reason, bool) {
	name := ClassifyName(t.name)
	if name == Write {
		return SkipWriteName, false
	}
	ro, hasRO := t.hints["readOnlyHint"]
	_, hasD := t.hints["destructiveHint"]
	if hasRO || hasD {
		// "destructiveHint ... is meaningful only when readOnlyHint ==
		// false" (the MCP schema): mcp-go's WithReadOnlyHintAnnotation
		// leaves its default destructiveHint true beside readOnlyHint
		// true, on reads.
		if ro {
			return "", true
		}
		return SkipAnnotation, false
	}
	desc := ClassifyDescription(t.description)
	if desc == Write {
		return SkipDescription, false
	}
	if name == Read || desc == Read {
		return "", true
	}
	return SkipNotRead, false
}

// Select splits the tools into those a warm-up call may use, each with its
// minimal arguments (see Arguments), in name order, and those it must not,
// with why (see eligibility).
func Select(tools []json.RawMessage) ([]Call, []Skip) {
	calls, skips, _ := selectTools(tools)
	return calls, skips
}

// selectTools is Select, also giving each picked tool's compiled schema,
// so that Plan compiles each schema once.
//
// The eligible tools' arguments are worked out on every CPU: each tool's
// schema is compiled and its arguments generated on their own, and a
// server with many large schemas (an API's tools generated from its
// OpenAPI description) kept the probe waiting tens of milliseconds per
// launch for one CPU to do them in turn. The result is in the tools'
// order whatever finished first.
func selectTools(tools []json.RawMessage) ([]Call, []Skip, map[string]*gen) {
	type made struct {
		skip bool
		why  Reason
		args json.RawMessage
		g    *gen
		err  error
	}
	ts := readTools(tools)
	out := make([]made, len(ts))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, t := range ts {
		if why, ok := eligibility(t); !ok {
			out[i].skip, out[i].why = true, why
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i].args, out[i].g, out[i].err = toolArguments(t)
		}()
	}
	wg.Wait()
	var calls []Call
	var skips []Skip
	gens := map[string]*gen{}
	for i, t := range ts {
		switch m := out[i]; {
		case m.skip:
			skips = append(skips, Skip{t.name, m.why})
		case m.err != nil:
			skips = append(skips, Skip{t.name, SkipNoArguments})
		default:
			calls = append(calls, Call{Tool: t.name, Arguments: m.args})
			gens[t.name] = m.g
		}
	}
	return calls, skips, gens
}

// toolArguments is arguments for one tool, with an error that names it.
func toolArguments(t tool) (json.RawMessage, *gen, error) {
	args, g, err := arguments(t.schema)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %q: %w", clip.Runes(t.name, nameLimit), err)
	}
	return args, g, nil
}

// Plan returns n warm-up calls and the tools it skipped. The calls go
// round-robin over every tool Select finds eligible, so a decoy cannot
// absorb them all. Arguments are realistic, not minimal: in the first
// round every required top-level property takes its first candidate
// value (the schema's examples, enum values and default, then a value for
// its format or its name: a path under v.Dir, an https URL on an .invalid
// host, "example" for a query), and each later round sets every top-level
// property, optional ones too, to its next candidate. A value is kept only
// if the whole object still validates against the schema, else the
// property keeps its minimal value or stays absent. Values from the
// schema that read as writes (an enum's "delete") or are URLs on real
// hosts are never chosen; a tool whose arguments are left with one (a
// const, the only enum values, at any depth) is skipped. Booleans keep
// their minimal value (the schema's default, which a "dry_run" flag needs
// kept, else false): a "force" or "recursive" flag is not for a warm-up.
// The output is deterministic.
func Plan(tools []json.RawMessage, n int, v Values) ([]Call, []Skip) {
	picked, skips, gens := selectTools(tools)
	if len(picked) == 0 {
		return nil, skips
	}
	// Round 0 decides which tools stay: one left with a harmful value is
	// skipped.
	first := map[string]json.RawMessage{}
	var elig []Call
	for _, c := range picked {
		args, why := realistic(gens[c.Tool], c.Arguments, 0, v)
		if why != "" {
			skips = append(skips, Skip{c.Tool, why})
			continue
		}
		first[c.Tool] = args
		elig = append(elig, c)
	}
	if len(elig) == 0 || n <= 0 {
		return nil, skips
	}
	out := make([]Call, 0, n)
	start := max(v.Start, 0)
	for i := start; i < start+n; i++ {
		c := elig[i%len(elig)]
		if round := i / len(elig); round == 0 {
			c.Arguments = first[c.Tool]
		} else if args, why := realistic(gens[c.Tool], c.Arguments, round, v); why == "" {
			c.Arguments = args
		} else {
			c.Arguments = first[c.Tool]
		}
		out = append(out, c)
	}
	return out, skips
}

// realistic is the minimal arguments with top-level properties set to
// their round-th candidate (required ones only in round 0), where the
// schema still accepts it. It gives a reason instead when a required
// string argument is left with a harmful value (see harmful).
func realistic(g *gen, minimal json.RawMessage, round int, v Values) (json.RawMessage, Reason) {
	base, err := decode(minimal)
	if err != nil {
		return minimal, ""
	}
	obj, ok := base.(map[string]any)
	if !ok {
		return minimal, ""
	}
	// g is nil for an empty schema, which has no properties to set.
	var props map[string]any
	var doc any
	if g != nil {
		doc = g.root
		if m, ok := doc.(map[string]any); ok {
			props, _ = m["properties"].(map[string]any)
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		old, had := obj[name]
		if round == 0 && !had {
			continue
		}
		cands := candidates(name, props[name], v)
		set := false
		for j := range cands {
			obj[name] = cands[(round+j)%len(cands)]
			if g.fresh().valid(doc, obj) {
				set = true
				break
			}
		}
		if !set {
			if !had {
				delete(obj, name)
				continue
			}
			obj[name] = old
		}
	}
	// What is left of the minimal arguments came from the schema (a
	// const, the only enum values, a default deep in a nested object):
	// a tool whose arguments then read as a write or name a real host
	// is not called.
	orig, _ := decode(minimal)
	origObj, _ := orig.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if o, had := origObj[k]; had && jsonEqual(o, obj[k]) {
			if why := harmfulIn(obj[k], 0); why != "" {
				return nil, why
			}
		}
	}
	out, err := encode(obj)
	if err != nil {
		return minimal, ""
	}
	return out, ""
}

// harmfulIn is harmful for every string in a JSON value (bounded in
// depth like the generator).
func harmfulIn(v any, depth int) Reason {
	if depth > maxDepth {
		return ""
	}
	switch v := v.(type) {
	case string:
		return harmful(v)
	case []any:
		for _, x := range v {
			if why := harmfulIn(x, depth+1); why != "" {
				return why
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if why := harmfulIn(v[k], depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// harmful says why a string from the schema must not be sent: it reads
// as a write (an enum's "delete"), or it is a URL on a host outside
// .invalid (an example's "https://api.github.com/..."). A warm-up call
// reads, and reaches no real host.
func harmful(s string) Reason {
	if ClassifyName(s) == Write {
		return SkipWriteArgument
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil {
			return SkipRealHost
		}
		if h := strings.TrimSuffix(strings.ToLower(u.Hostname()), "."); h != "" && h != "invalid" && !strings.HasSuffix(h, ".invalid") {
			return SkipRealHost
		}
	}
	return ""
}

// candidates are the values a property is tried with across rounds: what
// the schema suggests first, then values for its type, format and name.
// None reads as a write.
func candidates(name string, s any, v Values) []any {
	m, ok := s.(map[string]any)
	if !ok {
		return nil
	}
	var out []any
	// Values from the schema may read as writes (an enum's "delete") or
	// name real hosts; ours are chosen not to, and a path under a run dir
	// named, say, /run is not a verb.
	add := func(x any) {
		if str, ok := x.(string); ok && harmful(str) != "" {
			return
		}
		if _, ok := x.(bool); ok {
			return // not even an example's "force": true
		}
		if !containsValue(out, x) {
			out = append(out, x)
		}
	}
	ours := func(x any) {
		if !containsValue(out, x) {
			out = append(out, x)
		}
	}
	if ex, ok := m["examples"].([]any); ok {
		for _, x := range ex {
			add(x)
		}
	}
	if x, ok := m["example"]; ok {
		add(x)
	}
	if en, ok := m["enum"].([]any); ok {
		for _, x := range en {
			add(x)
		}
	}
	if d, ok := m["default"]; ok {
		add(d)
	}
	format, _ := m["format"].(string)
	switch {
	case hasType(m, "string") || (m["type"] == nil && len(out) == 0):
		for _, x := range stringsFor(name, format, v) {
			ours(x)
		}
	case hasType(m, "integer") || hasType(m, "number"):
		// Small and positive: a count or limit of one first.
		for _, x := range []any{json.Number("1"), json.Number("10"), json.Number("2")} {
			ours(x)
		}
	case hasType(m, "array"):
		items, _ := m["items"].(map[string]any)
		if items != nil && hasType(items, "string") {
			f, _ := items["format"].(string)
			for _, x := range stringsFor(name, f, v) {
				ours([]any{x})
			}
		}
	}
	return out
}

// hasType reports whether schema m's type is t or a list holding t.
func hasType(m map[string]any, t string) bool {
	switch typ := m["type"].(type) {
	case string:
		return typ == t
	case []any:
		for _, x := range typ {
			if x == t {
				return true
			}
		}
	}
	return false
}

// nameValues are realistic strings for a property, by the words of its
// name: the first group with a word in common wins. Every one is harmless
// to use: hosts are under .invalid (RFC 2606: never resolves), ids and
// names name nothing that exists.
var nameValues = []struct {
	words  map[string]bool
	values []string
}{
	{words(`url urls uri uris link links href endpoint website homepage webhook site`), []string{"https://example.invalid/", "https://example.invalid/docs", "https://www.example.invalid/index.html"}},
	{words(`email emails mail`), []string{"user@example.invalid", "team@example.invalid"}},
	{words(`host hostname domain server`), []string{"example.invalid", "api.example.invalid"}},
	{words(`id ids uuid key keys slug identifier`), []string{"example-id", "1", "abc123"}},
	{words(`branch ref sha commit revision`), []string{"main", "HEAD"}},
	{words(`repo repository repositories project package library lib module`), []string{"example-repo", "example"}},
	{words(`owner org organization user username login author namespace workspace team account`), []string{"example-org", "example-user"}},
	{words(`query q search keyword keywords term terms text prompt question message content input body filter pattern topic subject`), []string{"example", "hello world", "test"}},
	{words(`name names title titles label labels`), []string{"example", "Example name"}},
	{words(`lang language locale`), []string{"en", "en-US"}},
	{words(`date since until day`), []string{"2026-01-01", "2026-01-02"}},
	{words(`city location place address region country`), []string{"Paris", "London"}},
}

var (
	fileWords = words(`path paths file files filename filenames filepath`)
	dirWords  = words(`dir dirs directory directories folder folders root roots cwd`)
)

// stringsFor is realistic strings for a property: by its format, a path
// under v.Dir for a path or directory, by its name, then the name itself.
func stringsFor(name, format string, v Values) []string {
	if ex, ok := formatExamples[format]; ok {
		return ex
	}
	ws := Words(name)
	has := func(set map[string]bool) bool {
		for _, w := range ws {
			if set[w] {
				return true
			}
		}
		return false
	}
	join := filepath.Join
	dir := v.Dir
	if dir == "" {
		dir, join = ".", path.Join
	}
	switch {
	case has(dirWords):
		return []string{dir, join(dir, "docs"), join(dir, "notes.txt")}
	case has(fileWords):
		return []string{join(dir, "notes.txt"), join(dir, "docs", "README.md"), dir}
	}
	var out []string
	for _, g := range nameValues {
		if has(g.words) {
			out = append(out, g.values...)
			break
		}
	}
	if name != "" && ClassifyName(name) != Write {
		// "sample update_mask" would read as a write.
		out = append(out, name, "sample "+name, name+"-2")
	}
	return out
}

// Describe is one line naming the tools skipped among tools, by reason, a
// few each and a count of the rest, so a server with 200 tools gives one
// short line; "" when nothing was skipped. Long names are clipped.
func Describe(tools []json.RawMessage, skips []Skip) string {
	if len(skips) == 0 {
		return ""
	}
	eligible := max(len(readTools(tools))-len(skips), 0)
	by := map[Reason][]string{}
	for _, s := range skips {
		by[s.Reason] = append(by[s.Reason], s.Tool)
	}
	var parts []string
	for _, r := range Reasons {
		names := by[r]
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		const show = 3
		shown := make([]string, 0, show)
		for _, n := range names[:min(show, len(names))] {
			shown = append(shown, clip.Runes(n, nameLimit))
		}
		list := strings.Join(shown, ", ")
		if len(names) > show {
			list += fmt.Sprintf(" and %d more", len(names)-show)
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s)", len(names), r, list))
	}
	return fmt.Sprintf("warm-up: %d of %d tools eligible; not called: %s", eligible, eligible+len(skips), strings.Join(parts, "; "))
}

// nameLimit is how many runes of a tool's name a note or an error quotes
// (clip.Runes): a hostile name may be 10 KB.
const nameLimit = 60
