package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The safety net under the generator is santhosh-tekuri/jsonschema, the
// validator the tests already trust: every value Arguments returns, and
// every candidate the generator weighs, is validated by it against the
// schema the server published. The library is fed attacker-controlled text,
// so it is fenced in three ways:
//
//   - it fetches nothing: its loader refuses every URL (http, file, any), so
//     a $ref or a nested $schema that points outside the inputSchema fails
//     compilation, and with it the tool;
//   - it compiles nothing big: the document is measured before compiling
//     (nesting, values, containers, numbers), since compilation slows down
//     steeply with nesting and with the number of subschemas;
//   - it validates nothing costly: before each validation the subschema
//     visits it will make are bounded from above over the compiled schema
//     (cost), and charged to the call's work budget. A nest of anyOf makes
//     the number of visits exponential in the depth; the bound sees that
//     before the library starts.

// schemaURL is the name the inputSchema has inside the compiler: a name,
// never a place to fetch from. Its path is hierarchical so that a relative
// $ref ("other.json") resolves to another document, which the loader
// refuses, not (as under a URN) to the inputSchema itself.
const schemaURL = "mcp-lockcheck:///input-schema.json"

// Limits on the document handed to the compiler. The largest schema in
// testdata/corpus nests 14 levels and has 264 values.
const (
	// maxNesting bounds JSON nesting: compilation costs grow about with
	// its cube (1000 levels of "not" take seconds, 5000 minutes).
	maxNesting = 64
	// maxValues bounds the values in the document (every object, array,
	// string, number, boolean and null): a draft-04 metaschema checks
	// enum and required for uniqueness pairwise.
	maxValues = 8192
	// maxContainers bounds its objects and arrays, the possible
	// subschemas: compilation is quadratic in the number of subschemas.
	maxContainers = 2048
)

// refuseLoader is the compiler's only way to fetch a document, and it
// fetches none: the probe never reaches out to wherever a server's schema
// points, nor reads a local file it names. The draft metaschemas are built
// into the library and are not loaded through it.
type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("refusing to load %q: only local references (inside the inputSchema) are followed", u)
}

// aliasFormats are formats the library does not know, so would take any
// string for, checked as the standard format they are spelled after: "url"
// (common in real schemas) as "uri", and the internationalized email and
// hostname as their ASCII forms, which is all the generator offers for
// them. Each is the library's own check, reached through a schema of one
// keyword.
var aliasFormats = sync.OnceValue(func() []*jsonschema.Format {
	var out []*jsonschema.Format
	for _, a := range []struct{ name, as string }{{"url", "uri"}, {"idn-email", "email"}, {"idn-hostname", "hostname"}} {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		c.UseLoader(refuseLoader{})
		loc := "urn:mcp-lockcheck:format:" + a.as
		if err := c.AddResource(loc, map[string]any{"format": a.as}); err != nil {
			panic(err)
		}
		sch := c.MustCompile(loc)
		out = append(out, &jsonschema.Format{Name: a.name, Validate: sch.Validate})
	}
	return out
})

// knownDraft maps the $schema values the library knows without loading
// anything to the draft's year (4, 6, 7 for the drafts before 2019-09).
func knownDraft(s string) (int, bool) {
	s = strings.TrimSuffix(s, "#")
	s, ok := strings.CutPrefix(s, "http://")
	if !ok {
		s, _ = strings.CutPrefix(s, "https://")
	}
	switch s {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return 2020, true
	case "json-schema.org/draft/2019-09/schema":
		return 2019, true
	case "json-schema.org/draft-07/schema":
		return 7, true
	case "json-schema.org/draft-06/schema":
		return 6, true
	case "json-schema.org/draft-04/schema":
		return 4, true
	}
	return 0, false
}

// draftOf is the draft the whole package reads doc by: the one its root
// $schema names, or 2020-12. A $schema the library does not know (a typo,
// a vendor URL, draft-03) is removed from doc, at the root and in every
// subschema (see forgetUnknownDrafts), so that the compiler does not try
// to load it and reads that schema by the default draft.
func draftOf(doc any) int {
	forgetUnknownDrafts(doc, 0)
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"].(string); ok {
			d, _ := knownDraft(s)
			return d
		}
	}
	return 2020
}

// Where subschemas sit, by keyword: a schema, an array of schemas, or an
// object whose values are schemas. "items" and "dependencies" take more
// than one shape and are read by theirs.
var (
	schemaKeywords     = []string{"additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if", "items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
	schemaListKeywords = []string{"allOf", "anyOf", "items", "oneOf", "prefixItems"}
	schemaMapKeywords  = []string{"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"}
)

// forgetUnknownDrafts removes a $schema the library does not know from s
// and every subschema under it, found by keyword, never from a value (a
// "default" object, a property named "$schema"). A subschema the walk
// does not reach keeps its $schema, and the loader refuses it: the tool
// is skipped, not guessed at. Depth is bounded like the document.
func forgetUnknownDrafts(s any, depth int) {
	m, ok := s.(map[string]any)
	if !ok || depth > maxNesting {
		return
	}
	if d, ok := m["$schema"].(string); ok {
		if _, known := knownDraft(d); !known {
			delete(m, "$schema")
		}
	}
	for _, k := range schemaKeywords {
		forgetUnknownDrafts(m[k], depth+1)
	}
	for _, k := range schemaListKeywords {
		if list, ok := m[k].([]any); ok {
			for _, sub := range list {
				forgetUnknownDrafts(sub, depth+1)
			}
		}
	}
	for _, k := range schemaMapKeywords {
		if subs, ok := m[k].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(subs)) {
				forgetUnknownDrafts(subs[name], depth+1)
			}
		}
	}
}

// validator is an inputSchema compiled by the library, with the way back
// from a subschema the generator holds (a node of the decoded document) to
// where it sits in the document.
type validator struct {
	c *jsonschema.Compiler
	// at maps each object in the document, by identity (its address:
	// the document is alive as long as the validator), to its JSON
	// pointer.
	at       map[uintptr]string
	compiled map[string]*jsonschema.Schema
}

// compile measures doc and compiles it. doc must be read by draftOf
// first. Every error says what in the schema stopped it.
func compile(doc any) (*validator, error) {
	v := &validator{at: map[uintptr]string{}, compiled: map[string]*jsonschema.Schema{}}
	var n counts
	if err := v.index(doc, "", 0, &n); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Formats are assertions in every draft: a default that is not the
	// uuid its format asks for is passed over, not sent.
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	for _, f := range aliasFormats() {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	v.c = c
	if _, err := v.schema(""); err != nil {
		return nil, fmt.Errorf("inputSchema: %s", strings.ReplaceAll(err.Error(), schemaURL, ""))
	}
	return v, nil
}

// counts are the values and containers index has seen.
type counts struct{ values, containers int }

// index records where each object of the document sits, and checks the
// limits on its size and shape.
func (v *validator) index(x any, ptr string, depth int, n *counts) error {
	n.values++
	if n.values > maxValues {
		return fmt.Errorf("inputSchema has more than %d values, this package's limit", maxValues)
	}
	if depth > maxNesting {
		return fmt.Errorf("inputSchema nests deeper than %d levels, this package's limit", maxNesting)
	}
	switch x.(type) {
	case map[string]any, []any:
		n.containers++
		if n.containers > maxContainers {
			return fmt.Errorf("inputSchema has more than %d objects and arrays, this package's limit", maxContainers)
		}
	}
	switch x := x.(type) {
	case map[string]any:
		v.at[reflect.ValueOf(x).Pointer()] = ptr
		for _, k := range slices.Sorted(maps.Keys(x)) {
			tok := strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			if err := v.index(x[k], ptr+"/"+url.PathEscape(tok), depth+1, n); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := v.index(e, ptr+"/"+strconv.Itoa(i), depth+1, n); err != nil {
				return err
			}
		}
	case json.Number:
		// A huge exponent would make the library's big.Rat build a
		// number with a billion digits.
		if _, ok := ratOf(x); !ok {
			return fmt.Errorf("inputSchema: number %.40s at %q is too large for this package", x, ptr)
		}
	}
	return nil
}

// schema is the compiled subschema at JSON pointer ptr (URL-escaped).
func (v *validator) schema(ptr string) (*jsonschema.Schema, error) {
	if s, ok := v.compiled[ptr]; ok {
		return s, nil
	}
	var s *jsonschema.Schema
	err := recovered(func() (err error) {
		s, err = v.c.Compile(schemaURL + "#" + ptr)
		return err
	})
	if err != nil {
		return nil, err
	}
	v.compiled[ptr] = s
	return s, nil
}

// valid reports whether value satisfies s: a node of the document, a
// boolean schema, or a conjunction the generator built ({"allOf": [...]}
// of nodes, and {"type": "object"}, which Arguments puts above the root).
// It is strict where it is unsure: a node it cannot place or compile, a
// validation the budget cannot pay for, a $dynamicRef or $recursiveRef
// fail the value, so the caller reports an error instead of returning a
// guess.
func (g *gen) valid(s any, value any) bool {
	if g.exhausted || !g.spend() {
		return false
	}
	var m map[string]any
	switch s := s.(type) {
	case bool:
		return s
	case map[string]any:
		m = s
	default:
		return false
	}
	ptr, inDoc := g.v.at[reflect.ValueOf(m).Pointer()]
	if !inDoc {
		return g.validBuilt(m, value)
	}
	sch, err := g.v.schema(ptr)
	if err != nil {
		return false
	}
	est := coster{limit: maxSteps - g.steps, memo: map[costKey]int{}, busy: map[costKey]bool{}}
	n, err := est.cost(sch, value, "")
	if err != nil {
		if errors.Is(err, errBudget) {
			g.exhausted = true
		}
		return false
	}
	g.steps += n
	return recovered(func() error { return sch.Validate(value) }) == nil
}

// recovered runs f, turning a panic inside the library (a schema or value
// it did not expect) into an error: a hostile schema costs its tool the
// warm-up call, not the probe its process.
func recovered(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the schema library failed on this schema: %v", r)
		}
	}()
	return f()
}

// validBuilt validates against a schema the generator built: only the two
// shapes it builds are understood.
func (g *gen) validBuilt(m map[string]any, value any) bool {
	if len(m) != 1 {
		return false
	}
	if parts, ok := m["allOf"].([]any); ok {
		for _, p := range parts {
			if !g.valid(p, value) {
				return false
			}
		}
		return true
	}
	if m["type"] == "object" {
		_, ok := value.(map[string]any)
		return ok
	}
	return false
}

// coster bounds from above the subschema visits validating one value
// makes: every path through in-place applicators ($ref, allOf, anyOf,
// oneOf, not, if/then/else, dependentSchemas) counts, since the library
// follows each without remembering results, and every child applicator is
// taken to apply to every property or item (patternProperties to all
// names, additionalProperties as if nothing else matched). An enum costs
// one visit more for every 16 values it compares.
type coster struct {
	limit int
	memo  map[costKey]int
	busy  map[costKey]bool
}

type costKey struct {
	s  *jsonschema.Schema
	at string // where in the value, a JSON pointer; "\x00"+name for a property name
}

var errDynamic = errors.New("$dynamicRef and $recursiveRef are not supported")

// cost is the bound for validating value (at JSON pointer at) against s,
// or errBudget once it passes c.limit: the walk stops there, so that
// bounding costs no more than the budget it protects.
func (c *coster) cost(s *jsonschema.Schema, value any, at string) (int, error) {
	if s == nil {
		return 0, nil
	}
	k := costKey{s, at}
	if n, ok := c.memo[k]; ok {
		return n, nil
	}
	if c.busy[k] {
		// An in-place cycle: the library stops at its repeat with an
		// error.
		return 1, nil
	}
	if s.DynamicRef != nil || s.RecursiveRef != nil {
		return 0, errDynamic
	}
	c.busy[k] = true
	defer delete(c.busy, k)
	total := 1
	if s.Enum != nil {
		total += len(s.Enum.Values) / 16
	}
	add := func(sub *jsonschema.Schema, x any, at string) error {
		n, err := c.cost(sub, x, at)
		total += n
		if err == nil && total > c.limit {
			err = errBudget
		}
		return err
	}
	for _, sub := range inPlaceSubschemas(s) {
		if err := add(sub, value, at); err != nil {
			return 0, err
		}
	}
	var err error
	switch value := value.(type) {
	case map[string]any:
		err = objectCost(s, value, at, add)
	case []any:
		err = arrayCost(s, value, at, add)
	}
	if err != nil {
		return 0, err
	}
	c.memo[k] = total
	return total, nil
}

// inPlaceSubschemas are the subschemas of s that apply to the value
// itself, in a fixed order.
func inPlaceSubschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	var inPlace []*jsonschema.Schema
	inPlace = append(inPlace, s.Ref, s.Not, s.If, s.Then, s.Else)
	inPlace = append(inPlace, s.AllOf...)
	inPlace = append(inPlace, s.AnyOf...)
	inPlace = append(inPlace, s.OneOf...)
	for _, name := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		inPlace = append(inPlace, s.DependentSchemas[name])
	}
	for _, name := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if d, ok := s.Dependencies[name].(*jsonschema.Schema); ok {
			inPlace = append(inPlace, d)
		}
	}
	return inPlace
}

// objectCost adds, through add, the cost of each property of value (an
// object at at) against the subschemas of s that may apply to it.
func objectCost(s *jsonschema.Schema, value map[string]any, at string, add func(*jsonschema.Schema, any, string) error) error {
	var all []*jsonschema.Schema
	for _, p := range s.PatternProperties {
		all = append(all, p)
	}
	if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		all = append(all, ap)
	}
	all = append(all, s.UnevaluatedProperties)
	for _, name := range slices.Sorted(maps.Keys(value)) {
		child := at + "/" + strconv.Quote(name)
		subs := append([]*jsonschema.Schema{s.Properties[name]}, all...)
		for _, sub := range subs {
			if err := add(sub, value[name], child); err != nil {
				return err
			}
		}
		if err := add(s.PropertyNames, name, child+"\x00"); err != nil {
			return err
		}
	}
	return nil
}

// arrayCost adds, through add, the cost of each item of value (an array
// at at) against the subschemas of s that may apply to it.
func arrayCost(s *jsonschema.Schema, value []any, at string, add func(*jsonschema.Schema, any, string) error) error {
	all := []*jsonschema.Schema{s.Items2020, s.Contains, s.UnevaluatedItems}
	if it, ok := s.Items.(*jsonschema.Schema); ok {
		all = append(all, it)
	}
	if ai, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		all = append(all, ai)
	}
	tuple, _ := s.Items.([]*jsonschema.Schema)
	for i, item := range value {
		child := at + "/" + strconv.Itoa(i)
		subs := all
		if i < len(s.PrefixItems) {
			subs = append(subs[:len(subs):len(subs)], s.PrefixItems[i])
		}
		if i < len(tuple) {
			subs = append(subs[:len(subs):len(subs)], tuple[i])
		}
		for _, sub := range subs {
			if err := add(sub, item, child); err != nil {
				return err
			}
		}
	}
	return nil
}
