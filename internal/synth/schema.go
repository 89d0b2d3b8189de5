package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Limits on what a schema can make this package do. A schema is
// attacker-controlled: without them `{"minLength": 1e9}` would allocate a
// gigabyte and `{"$ref": "#"}` would recurse forever.
const (
	// maxDepth bounds how many subschemas deep generation goes, $ref hops
	// included. Real tool schemas nest a handful of levels.
	maxDepth = 48
	// maxSteps is the work budget of one Arguments call, counted in
	// subschemas visited while generating, plus, for each validation, the
	// bound on the subschema visits it makes (coster), charged before it
	// runs. Nested anyOf branches that all fail multiply; the budget turns
	// that into an error after a fraction of a second instead of an
	// exponential search; the largest real schema in testdata/corpus takes
	// under 50 steps.
	maxSteps = 100_000
	// maxCount caps minLength, minItems and minProperties: a warm-up call
	// needs no argument larger than this.
	maxCount = 1024
	// maxNumberExp caps the decimal exponent of numbers read from a schema,
	// so that math/big never builds a number with a billion digits.
	maxNumberExp = 1000
)

var (
	errBudget = errors.New("schema too large, deep or branchy to explore within the work budget")
	errDepth  = fmt.Errorf("schema nests deeper than %d levels (recursive $ref?)", maxDepth)
)

// gen holds the state of one Arguments call.
type gen struct {
	// root is the whole inputSchema, the document local $refs point into.
	root any
	// legacy is true for draft-04/06/07 schemas, where "$ref" replaces the
	// schema it appears in and its siblings are ignored.
	legacy bool
	// ignored holds keywords that do not exist in the schema's draft.
	ignored map[string]bool
	steps   int
	// exhausted is set once the budget is spent, so that the validator's
	// bool answers do not hide it.
	exhausted bool
	res       map[string]*regexp.Regexp
	resErr    map[string]error
	// v is the library's compiled schema, which judges every value.
	v *validator
}

// newGen compiles doc for the validator and reads its draft. It fails
// when the schema does not compile (see compile).
func newGen(doc any) (*gen, error) {
	g := &gen{root: doc, res: map[string]*regexp.Regexp{}, resErr: map[string]error{}}
	draft := draftOf(doc)
	v, err := compile(doc)
	if err != nil {
		return nil, err
	}
	g.v = v
	g.legacy = draft <= 7
	g.ignored = map[string]bool{}
	// A keyword from another draft is an unknown keyword, which validators
	// ignore: a draft-07 schema's "unevaluatedProperties" constrains
	// nothing, and 2019-09 replaced "dependencies".
	ignore := func(ks ...string) {
		for _, k := range ks {
			g.ignored[k] = true
		}
	}
	if draft <= 7 {
		ignore("prefixItems", "unevaluatedProperties", "unevaluatedItems",
			"dependentRequired", "dependentSchemas", "minContains", "maxContains")
	} else {
		ignore("dependencies")
	}
	if draft <= 6 {
		ignore("if", "then", "else")
	}
	if draft <= 4 {
		ignore("const", "contains", "propertyNames", "examples")
	}
	return g, nil
}

// view hides the keywords the schema's draft does not have.
func (g *gen) view(m map[string]any) map[string]any {
	var hide []string
	for k := range g.ignored {
		if _, ok := m[k]; ok {
			hide = append(hide, k)
		}
	}
	if hide == nil {
		return m
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	for _, k := range hide {
		delete(c, k)
	}
	return c
}

// fresh gives g a new work budget, for judging one more candidate on its
// own account.
func (g *gen) fresh() *gen {
	g.steps, g.exhausted = 0, false
	return g
}

// spend counts one unit of work and reports whether the budget allows it.
func (g *gen) spend() bool {
	g.steps++
	if g.steps > maxSteps {
		g.exhausted = true
	}
	return !g.exhausted
}

// regexp compiles a schema pattern once per call. JSON Schema patterns are
// ECMA-262 regular expressions; Go's RE2 syntax agrees on the common subset
// and rejects the rest (look-around, back-references), which then makes the
// schema unsupported rather than guessed at.
func (g *gen) regexp(p string) (*regexp.Regexp, error) {
	if re, ok := g.res[p]; ok {
		return re, nil
	}
	if err, ok := g.resErr[p]; ok {
		return nil, err
	}
	re, err := regexp.Compile(p)
	if err != nil {
		err = fmt.Errorf("pattern %q: unsupported: %w", p, err)
		g.resErr[p] = err
		return nil, err
	}
	g.res[p] = re
	return re, nil
}

// resolve follows a local $ref ("#", "#/$defs/x", "#/definitions/x", any
// JSON pointer into the document). References to other documents are not
// followed: the probe fetches nothing a server points it at.
func (g *gen) resolve(ref any) (any, error) {
	s, ok := ref.(string)
	if !ok {
		return nil, errors.New("$ref is not a string")
	}
	if !strings.HasPrefix(s, "#") {
		return nil, fmt.Errorf("$ref %q: only local references (#...) are supported", s)
	}
	frag, err := url.PathUnescape(s[1:])
	if err != nil {
		return nil, fmt.Errorf("$ref %q: %w", s, err)
	}
	if frag == "" {
		return g.root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %q: anchors are not supported", s)
	}
	cur := g.root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("$ref %q: no %q", s, tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("$ref %q: no index %q", s, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("$ref %q: %q is not inside an object or array", s, tok)
		}
	}
	return cur, nil
}

// choice is an anyOf or oneOf whose branch is still to be chosen.
type choice struct {
	keyword  string
	branches []any
}

// flat is a schema with its allOf and $ref folded in: the keywords the
// generator steers by, merged. It only guides generation; every value is
// still validated against the original schema, so a merge that loses a
// detail costs an error, not a wrong argument.
type flat struct {
	never    bool     // false schema somewhere in the conjunction
	types    []string // nil: no type keyword
	typed    bool
	defaults []any
	consts   []any
	enums    [][]any
	examples []any

	minLen, maxLen int // maxLen < 0: none
	patterns       []string
	format         string

	lo, hi     *big.Rat
	loEx, hiEx bool
	multiples  []*big.Rat

	prefix             []any // prefixItems, or items given as an array
	items              []any // schemas for items after prefix
	minItems, maxItems int
	unique             bool
	contains           []any
	minContains        int // < 0: unset
	minProps, maxProps int
	props              map[string][]any
	patternProps       []patternProp
	additional         []any
	required           []string
	propertyNames      []any
	dependentRequired  map[string][]string
	hintObj, hintArr   bool
	hintStr, hintNum   bool
	groups             []choice
}

type patternProp struct {
	pattern string
	schema  any
}

func newFlat() *flat {
	return &flat{maxLen: -1, maxItems: -1, maxProps: -1, minContains: -1}
}

// clone copies f deeply enough that merging a branch into the copy leaves
// f as it was.
func (f *flat) clone() *flat {
	c := *f
	c.types = append([]string(nil), f.types...)
	c.defaults = append([]any(nil), f.defaults...)
	c.consts = append([]any(nil), f.consts...)
	c.enums = append([][]any(nil), f.enums...)
	c.examples = append([]any(nil), f.examples...)
	c.patterns = append([]string(nil), f.patterns...)
	c.multiples = append([]*big.Rat(nil), f.multiples...)
	c.prefix = append([]any(nil), f.prefix...)
	c.items = append([]any(nil), f.items...)
	c.contains = append([]any(nil), f.contains...)
	c.patternProps = append([]patternProp(nil), f.patternProps...)
	c.additional = append([]any(nil), f.additional...)
	c.required = append([]string(nil), f.required...)
	c.propertyNames = append([]any(nil), f.propertyNames...)
	c.groups = append([]choice(nil), f.groups...)
	if f.props != nil {
		c.props = make(map[string][]any, len(f.props))
		for k, v := range f.props {
			c.props[k] = append([]any(nil), v...)
		}
	}
	if f.dependentRequired != nil {
		c.dependentRequired = make(map[string][]string, len(f.dependentRequired))
		for k, v := range f.dependentRequired {
			c.dependentRequired[k] = append([]string(nil), v...)
		}
	}
	return &c
}

// flatten merges schema s into f: its own keywords first (so that its own
// default beats one from an allOf branch), then its $ref target, then its
// allOf branches. anyOf and oneOf are queued as choices.
func (g *gen) flatten(s any, depth int, f *flat) error {
	if depth > maxDepth {
		return errDepth
	}
	if !g.spend() {
		return errBudget
	}
	var m map[string]any
	switch s := s.(type) {
	case bool:
		if !s {
			f.never = true
		}
		return nil
	case map[string]any:
		m = g.view(s)
	default:
		return fmt.Errorf("a schema must be an object or a boolean, not %s", kindOf(s))
	}
	ref, hasRef := m["$ref"]
	if hasRef && g.legacy {
		// Draft-07 and older: "All other properties in a "$ref" object
		// MUST be ignored."
		target, err := g.resolve(ref)
		if err != nil {
			return err
		}
		return g.flatten(target, depth+1, f)
	}
	for _, k := range []string{"$dynamicRef", "$recursiveRef"} {
		if _, ok := m[k]; ok {
			return fmt.Errorf("%s is not supported", k)
		}
	}
	if err := f.own(g, m); err != nil {
		return err
	}
	if hasRef {
		target, err := g.resolve(ref)
		if err != nil {
			return err
		}
		if err := g.flatten(target, depth+1, f); err != nil {
			return err
		}
	}
	return g.applicators(m, depth, f)
}

// applicators merges m's allOf branches into f, and queues its anyOf and
// oneOf for a choice of branch.
func (g *gen) applicators(m map[string]any, depth int, f *flat) error {
	if all, ok := m["allOf"]; ok {
		branches, ok := all.([]any)
		if !ok {
			return errors.New("allOf is not an array")
		}
		for i, b := range branches {
			if err := g.flatten(b, depth+1, f); err != nil {
				return fmt.Errorf("allOf/%d: %w", i, err)
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		branches, ok := v.([]any)
		if !ok || len(branches) == 0 {
			return fmt.Errorf("%s is not a non-empty array", k)
		}
		f.groups = append(f.groups, choice{keyword: k, branches: branches})
	}
	return nil
}

// own merges the keywords of one schema object, not its subschemas'
// applicators.
func (f *flat) own(g *gen, m map[string]any) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := f.keyword(g, m, k, m[k]); err != nil {
			return err
		}
	}
	return nil
}

// keyword merges one keyword k with value v of schema object m, routed by
// the kind of instance it constrains.
func (f *flat) keyword(g *gen, m map[string]any, k string, v any) error {
	switch k {
	case "type", "default", "const", "enum", "examples":
		return f.ownValue(k, v)
	case "minLength", "maxLength", "pattern", "format":
		return f.ownString(g, k, v)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return f.ownNumber(k, v, m)
	case "prefixItems", "items", "minItems", "maxItems", "uniqueItems", "contains", "minContains":
		return f.ownArray(k, v, m)
	case "properties", "patternProperties", "additionalProperties", "required",
		"minProperties", "maxProperties", "propertyNames":
		return f.ownObject(g, k, v)
	case "dependentRequired", "dependencies":
		return f.ownDependent(k, v)
	}
	return nil
}

// ownValue merges the keywords that constrain any instance's value.
func (f *flat) ownValue(k string, v any) error {
	switch k {
	case "type":
		return f.mergeType(v)
	case "default":
		f.defaults = append(f.defaults, v)
	case "const":
		f.consts = append(f.consts, v)
	case "enum":
		e, ok := v.([]any)
		if !ok {
			return errors.New("enum is not an array")
		}
		f.enums = append(f.enums, e)
	case "examples":
		if e, ok := v.([]any); ok && len(e) > 0 {
			f.examples = append(f.examples, e[0])
		}
	}
	return nil
}

// ownString merges the string keywords.
func (f *flat) ownString(g *gen, k string, v any) error {
	switch k {
	case "minLength":
		f.hintStr = true
		return mergeCount(k, v, &f.minLen, true)
	case "maxLength":
		f.hintStr = true
		return mergeCount(k, v, &f.maxLen, false)
	case "pattern":
		f.hintStr = true
		p, ok := v.(string)
		if !ok {
			return errors.New("pattern is not a string")
		}
		if _, err := g.regexp(p); err != nil {
			return err
		}
		f.patterns = append(f.patterns, p)
	case "format":
		if s, ok := v.(string); ok && f.format == "" {
			if _, known := formatExamples[s]; known {
				f.hintStr = true
			}
			f.format = s
		}
	}
	return nil
}

// ownNumber merges the numeric keywords.
func (f *flat) ownNumber(k string, v any, m map[string]any) error {
	f.hintNum = true
	if k != "multipleOf" {
		return f.mergeBound(k, v, m)
	}
	r, ok := ratOf(v)
	if !ok || r.Sign() <= 0 {
		return errors.New("multipleOf is not a positive number")
	}
	f.multiples = append(f.multiples, r)
	return nil
}

// ownArray merges the array keywords.
func (f *flat) ownArray(k string, v any, m map[string]any) error {
	if k != "minContains" {
		f.hintArr = true
	}
	switch k {
	case "prefixItems":
		p, ok := v.([]any)
		if !ok {
			return errors.New("prefixItems is not an array")
		}
		if f.prefix == nil {
			f.prefix = p
		}
	case "items":
		f.mergeItems(v, m)
	case "minItems":
		return mergeCount(k, v, &f.minItems, true)
	case "maxItems":
		return mergeCount(k, v, &f.maxItems, false)
	case "uniqueItems":
		f.unique = f.unique || v == true
	case "contains":
		f.contains = append(f.contains, v)
	case "minContains":
		return mergeCount(k, v, &f.minContains, true)
	}
	return nil
}

// mergeItems merges items, a schema for every element or, as an array, a
// tuple.
func (f *flat) mergeItems(v any, m map[string]any) {
	p, ok := v.([]any)
	if !ok {
		f.items = append(f.items, v)
		return
	}
	// Draft 2019-09 and older: items as an array is a
	// tuple, and additionalItems covers the rest.
	if f.prefix == nil {
		f.prefix = p
	}
	if ai, ok := m["additionalItems"]; ok {
		f.items = append(f.items, ai)
	}
}

// ownObject merges the object keywords.
func (f *flat) ownObject(g *gen, k string, v any) error {
	f.hintObj = true
	switch k {
	case "properties":
		return f.mergeProperties(v)
	case "patternProperties":
		return f.mergePatternProperties(g, v)
	case "additionalProperties":
		f.additional = append(f.additional, v)
	case "required":
		return f.mergeRequired(v)
	case "minProperties":
		return mergeCount(k, v, &f.minProps, true)
	case "maxProperties":
		return mergeCount(k, v, &f.maxProps, false)
	case "propertyNames":
		f.propertyNames = append(f.propertyNames, v)
	}
	return nil
}

// mergeProperties adds each property's schema to those it already has.
func (f *flat) mergeProperties(v any) error {
	p, ok := v.(map[string]any)
	if !ok {
		return errors.New("properties is not an object")
	}
	if f.props == nil {
		f.props = map[string][]any{}
	}
	for name, s := range p {
		f.props[name] = append(f.props[name], s)
	}
	return nil
}

// mergePatternProperties adds each pattern, checked to compile, in sorted
// order.
func (f *flat) mergePatternProperties(g *gen, v any) error {
	p, ok := v.(map[string]any)
	if !ok {
		return errors.New("patternProperties is not an object")
	}
	for _, pat := range slices.Sorted(maps.Keys(p)) {
		if _, err := g.regexp(pat); err != nil {
			return err
		}
		f.patternProps = append(f.patternProps, patternProp{pat, p[pat]})
	}
	return nil
}

// mergeRequired adds the required names not already required.
func (f *flat) mergeRequired(v any) error {
	r, ok := v.([]any)
	if !ok {
		return errors.New("required is not an array")
	}
	for _, name := range r {
		s, ok := name.(string)
		if !ok {
			return errors.New("required has a non-string entry")
		}
		if !containsString(f.required, s) {
			f.required = append(f.required, s)
		}
	}
	return nil
}

// ownDependent merges dependentRequired and the array form of draft-07's
// dependencies.
func (f *flat) ownDependent(k string, v any) error {
	d, ok := v.(map[string]any)
	if !ok {
		if k == "dependentRequired" {
			return errors.New("dependentRequired is not an object")
		}
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(d)) {
		list, ok := d[name].([]any)
		if !ok {
			continue // dependencies' schema form: left to validation
		}
		if f.dependentRequired == nil {
			f.dependentRequired = map[string][]string{}
		}
		for _, dep := range list {
			if s, ok := dep.(string); ok {
				f.dependentRequired[name] = append(f.dependentRequired[name], s)
			}
		}
	}
	return nil
}

// mergeType intersects the types allowed so far with v's; "integer" is the
// part of "number" both allow.
func (f *flat) mergeType(v any) error {
	var ts []string
	switch v := v.(type) {
	case string:
		ts = []string{v}
	case []any:
		for _, t := range v {
			s, ok := t.(string)
			if !ok {
				return errors.New("type has a non-string entry")
			}
			ts = append(ts, s)
		}
	default:
		return errors.New("type is not a string or an array")
	}
	for _, t := range ts {
		switch t {
		case "null", "boolean", "object", "array", "number", "integer", "string":
		default:
			return fmt.Errorf("unknown type %q", t)
		}
	}
	if !f.typed {
		f.typed = true
		f.types = dedupe(ts)
		return nil
	}
	var out []string
	for _, t := range f.types {
		switch {
		case containsString(ts, t):
			out = append(out, t)
		case t == "integer" && containsString(ts, "number"):
			out = append(out, t)
		case t == "number" && containsString(ts, "integer"):
			out = append(out, "integer")
		}
	}
	f.types = dedupe(out)
	if f.types == nil {
		f.types = []string{}
	}
	return nil
}

// mergeBound tightens the numeric range. Draft-04 spells an exclusive bound
// as a boolean beside minimum/maximum; later drafts as a number.
func (f *flat) mergeBound(k string, v any, m map[string]any) error {
	lower := k == "minimum" || k == "exclusiveMinimum"
	exclusive := k == "exclusiveMinimum" || k == "exclusiveMaximum"
	if b, ok := v.(bool); ok {
		if !exclusive {
			return fmt.Errorf("%s is not a number", k)
		}
		if !b {
			return nil
		}
		sib := "minimum"
		if !lower {
			sib = "maximum"
		}
		if v, ok = m[sib]; !ok {
			return nil
		}
	} else if !exclusive {
		// A draft-04 boolean exclusive flag beside this bound makes it
		// exclusive; that case is handled when the flag is merged.
		flag := "exclusiveMinimum"
		if !lower {
			flag = "exclusiveMaximum"
		}
		if m[flag] == true {
			return nil
		}
	}
	r, ok := ratOf(v)
	if !ok {
		return fmt.Errorf("%s is not a number this package can handle", k)
	}
	if lower {
		if c := compareBound(r, f.lo); f.lo == nil || c > 0 || (c == 0 && exclusive) {
			f.lo, f.loEx = r, exclusive
		}
	} else {
		if c := compareBound(r, f.hi); f.hi == nil || c < 0 || (c == 0 && exclusive) {
			f.hi, f.hiEx = r, exclusive
		}
	}
	return nil
}

func compareBound(a, b *big.Rat) int {
	if b == nil {
		return 0
	}
	return a.Cmp(b)
}

// mergeCount reads a non-negative integer keyword and keeps the tighter of
// it and the value so far: the larger for a minimum, the smaller for a
// maximum (negative meaning unset).
func mergeCount(k string, v any, dst *int, isMin bool) error {
	r, ok := ratOf(v)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return fmt.Errorf("%s is not a non-negative integer", k)
	}
	n := maxCount + 1
	if r.Num().IsInt64() && r.Num().Int64() <= maxCount {
		n = int(r.Num().Int64())
	}
	if isMin {
		if n > maxCount {
			return fmt.Errorf("%s %s exceeds this package's limit of %d", k, r.RatString(), maxCount)
		}
		if n > *dst {
			*dst = n
		}
	} else if *dst < 0 || n < *dst {
		*dst = n
	}
	return nil
}

// ratOf reads a JSON number exactly. It refuses exponents beyond
// maxNumberExp, which math/big would expand into huge integers.
func ratOf(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	s := string(n)
	if len(s) > 2*maxNumberExp {
		return nil, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxNumberExp || e < -maxNumberExp {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// ratJSON writes r as a JSON number if it has a finite decimal expansion
// (a denominator of only 2s and 5s); 1/3 has none, and no JSON number is a
// multiple of 1/3 exactly.
func ratJSON(r *big.Rat) (json.Number, bool) {
	if r.IsInt() {
		return json.Number(r.Num().String()), true
	}
	d := new(big.Int).Set(r.Denom())
	digits := 0
	two, five, zero := big.NewInt(2), big.NewInt(5), big.NewInt(0)
	m := new(big.Int)
	for _, p := range []*big.Int{two, five} {
		n := 0
		for m.Mod(d, p).Cmp(zero) == 0 {
			d.Quo(d, p)
			n++
		}
		digits = max(digits, n)
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return "", false
	}
	s := r.FloatString(digits)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return json.Number(s), true
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func dedupe(ts []string) []string {
	var out []string
	for _, t := range ts {
		if !containsString(out, t) {
			out = append(out, t)
		}
	}
	return out
}
