package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"
)

// extraCandidates is how many more candidates than asked for the type
// synthesizers offer, for the validator to choose from.
const extraCandidates = 4

// one returns the preferred value for schema s.
func (g *gen) one(s any, depth int) (any, error) {
	vs, err := g.values(s, depth, 1)
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// values returns up to n distinct values valid against s, most preferred
// first, and at least one unless it returns an error. More than one is
// asked for only where uniqueItems needs distinct items.
func (g *gen) values(s any, depth, n int) ([]any, error) {
	if depth > maxDepth {
		return nil, errDepth
	}
	f := newFlat()
	if err := g.flatten(s, depth, f); err != nil {
		return nil, err
	}
	vs, err := g.fromFlat(s, f, depth, n)
	if g.exhausted {
		return nil, errBudget
	}
	return vs, err
}

// fromFlat generates for the flattened schema f, validating every candidate
// against the original schema orig.
func (g *gen) fromFlat(orig any, f *flat, depth, n int) ([]any, error) {
	if f.never {
		return nil, errors.New("the schema admits no value (false)")
	}
	if len(f.groups) > 0 {
		return g.fromChoice(orig, f, depth, n)
	}
	c := &collector{g: g, orig: orig, n: n}
	if done, err := c.suggested(f); done {
		if err != nil {
			return nil, err
		}
		return c.out, nil
	}
	return c.synthesized(f, depth)
}

// fromChoice generates for f's first anyOf / oneOf: the first branch,
// merged with everything else the schema says, that yields a valid value.
// Validation against orig also enforces oneOf's "exactly one".
func (g *gen) fromChoice(orig any, f *flat, depth, n int) ([]any, error) {
	grp := f.groups[0]
	var out []any
	// Only the first branch's failure is kept: joining them all
	// would build error text exponential in the nesting of choices.
	var firstErr error
	for i, b := range grp.branches {
		if g.exhausted {
			return nil, errBudget
		}
		nf := f.clone()
		nf.groups = nf.groups[1:]
		err := g.flatten(b, depth+1, nf)
		var vs []any
		if err == nil {
			vs, err = g.fromFlat(orig, nf, depth+1, n-len(out))
		}
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s/%d: %w", grp.keyword, i, err)
			}
			continue
		}
		out = appendDistinct(out, vs...)
		if len(out) >= n {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("none of the %d branches of %s yields a valid value; the first: %w", len(grp.branches), grp.keyword, firstErr)
	}
	return out, nil
}

// collector gathers up to n distinct values valid against orig.
type collector struct {
	g    *gen
	orig any
	n    int
	out  []any
}

// try keeps v if it is new and valid, and reports whether enough are kept.
func (c *collector) try(v any) bool {
	if !containsValue(c.out, v) && c.g.valid(c.orig, v) {
		c.out = append(c.out, v)
	}
	return len(c.out) >= c.n
}

// suggested tries the schema's own suggestions first: the author's default
// is the value most likely to be harmless to the server. done means the
// values (or err) are final: enough were found, or const / enum leave no
// other choice.
func (c *collector) suggested(f *flat) (done bool, err error) {
	for _, v := range f.defaults {
		if c.try(v) {
			return true, nil
		}
	}
	for _, v := range f.consts {
		if c.try(v) {
			return true, nil
		}
	}
	for _, e := range f.enums {
		for _, v := range e {
			if c.g.exhausted {
				return true, errBudget
			}
			if c.try(v) {
				return true, nil
			}
		}
	}
	for _, v := range f.examples {
		if c.try(v) {
			return true, nil
		}
	}
	if len(f.consts) > 0 || len(f.enums) > 0 {
		if len(c.out) > 0 {
			return true, nil
		}
		return true, errors.New("no const or enum value satisfies the rest of the schema")
	}
	return false, nil
}

// synthesized adds values synthesized for each type in turn.
func (c *collector) synthesized(f *flat, depth int) ([]any, error) {
	g := c.g
	var firstErr error
	for _, t := range f.typeOrder() {
		vs, err := g.synthType(t, f, depth, c.n)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", t, err)
			}
			continue
		}
		for _, v := range vs {
			if g.exhausted {
				return nil, errBudget
			}
			if c.try(v) {
				return c.out, nil
			}
		}
	}
	if len(c.out) > 0 {
		return c.out, nil
	}
	if g.exhausted {
		return nil, errBudget
	}
	if f.typed && len(f.types) == 0 {
		return nil, errors.New("the schema's type constraints exclude each other")
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, errors.New("no synthesized value satisfies the schema (not, if/then/else, oneOf overlap or conflicting constraints)")
}

// typeOrder is the order in which types are tried: the declared ones with
// null last (an argument of null tends to mean "unset" and exercises less
// of the tool), or, without a type keyword, the type the other keywords
// suggest, then every other type as a fallback.
func (f *flat) typeOrder() []string {
	if f.typed {
		var out []string
		for _, t := range f.types {
			if t != "null" {
				out = append(out, t)
			}
		}
		if containsString(f.types, "null") {
			out = append(out, "null")
		}
		return out
	}
	var out []string
	if f.hintObj {
		out = append(out, "object")
	}
	if f.hintArr {
		out = append(out, "array")
	}
	if f.hintStr {
		out = append(out, "string")
	}
	if f.hintNum {
		out = append(out, "number")
	}
	for _, t := range []string{"string", "integer", "boolean", "object", "array", "null"} {
		if !containsString(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func (g *gen) synthType(t string, f *flat, depth, n int) ([]any, error) {
	switch t {
	case "null":
		return []any{nil}, nil
	case "boolean":
		return []any{false, true}, nil
	case "integer":
		return f.numbers(true, n)
	case "number":
		return f.numbers(false, n)
	case "string":
		return g.strings(f, n)
	case "array":
		return g.array(f, depth, n)
	case "object":
		return g.object(f, depth, n)
	}
	return nil, fmt.Errorf("unknown type %q", t)
}

// numbers returns the value closest to zero that respects the bounds and
// every multipleOf, then its neighbours away from zero.
func (f *flat) numbers(integer bool, n int) ([]any, error) {
	var step *big.Rat
	for _, m := range f.multiples {
		step = lcmRat(step, m)
	}
	if integer {
		step = lcmRat(step, big.NewRat(1, 1))
	}
	want := n + extraCandidates
	var cands []*big.Rat
	if step != nil {
		var err error
		cands, err = f.multiplesInRange(step, want)
		if err != nil {
			return nil, err
		}
	} else {
		cands = f.freeCandidates(want)
	}
	// Off the beaten track, for oneOf branches that overlap on the usual
	// values (oneOf: [integer, {number, minimum: 0}]): a negative integer,
	// and a number halfway between two candidates.
	cands = append(cands, big.NewRat(-1, 1))
	if step == nil && len(cands) > 1 {
		mid := new(big.Rat).Add(cands[0], cands[1])
		cands = append(cands, mid.Quo(mid, big.NewRat(2, 1)))
	}
	var out []any
	for _, r := range cands {
		if step != nil && !new(big.Rat).Quo(r, step).IsInt() {
			continue
		}
		if !f.inRange(r) {
			continue
		}
		if s, ok := ratJSON(r); ok {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no number satisfies minimum/maximum/multipleOf")
	}
	return out, nil
}

// inRange reports whether r respects the bounds.
func (f *flat) inRange(r *big.Rat) bool {
	if f.lo != nil {
		if c := r.Cmp(f.lo); c < 0 || (c == 0 && f.loEx) {
			return false
		}
	}
	if f.hi != nil {
		if c := r.Cmp(f.hi); c > 0 || (c == 0 && f.hiEx) {
			return false
		}
	}
	return true
}

// multiplesInRange returns up to want multiples of step inside the bounds,
// from the one closest to zero outwards.
func (f *flat) multiplesInRange(step *big.Rat, want int) ([]*big.Rat, error) {
	var k *big.Int
	dir := int64(1)
	switch {
	case f.inRange(new(big.Rat)):
		k = new(big.Int)
	case f.lo != nil && f.lo.Sign() >= 0:
		q := new(big.Rat).Quo(f.lo, step)
		k = ceilRat(q)
		if f.loEx && new(big.Rat).SetInt(k).Cmp(q) == 0 {
			k.Add(k, big.NewInt(1))
		}
	case f.hi != nil:
		q := new(big.Rat).Quo(f.hi, step)
		k = floorRat(q)
		if f.hiEx && new(big.Rat).SetInt(k).Cmp(q) == 0 {
			k.Sub(k, big.NewInt(1))
		}
		dir = -1
	default:
		return nil, errors.New("no multiple in range")
	}
	var cands []*big.Rat
	for i := 0; i < want; i++ {
		r := new(big.Rat).Mul(new(big.Rat).SetInt(k), step)
		if !f.inRange(r) {
			break
		}
		cands = append(cands, r)
		k.Add(k, big.NewInt(dir))
	}
	return cands, nil
}

// freeCandidates returns, with no step to respect, zero and the integers
// after it, or else the bound nearest zero, the integers past it, and the
// midpoint of the range.
func (f *flat) freeCandidates(want int) []*big.Rat {
	var cands []*big.Rat
	switch {
	case f.inRange(new(big.Rat)):
		for i := 0; i < want; i++ {
			cands = append(cands, big.NewRat(int64(i), 1))
		}
	case f.lo != nil && f.lo.Sign() >= 0:
		if !f.loEx {
			cands = append(cands, f.lo)
		}
		up := new(big.Rat).SetInt(floorRat(f.lo))
		for i := 0; i < want; i++ {
			up = new(big.Rat).Add(up, big.NewRat(1, 1))
			cands = append(cands, up)
		}
		if f.hi != nil {
			cands = append(cands, new(big.Rat).Quo(new(big.Rat).Add(f.lo, f.hi), big.NewRat(2, 1)))
		}
	case f.hi != nil:
		if !f.hiEx {
			cands = append(cands, f.hi)
		}
		down := new(big.Rat).SetInt(ceilRat(f.hi))
		for i := 0; i < want; i++ {
			down = new(big.Rat).Sub(down, big.NewRat(1, 1))
			cands = append(cands, down)
		}
		if f.lo != nil {
			cands = append(cands, new(big.Rat).Quo(new(big.Rat).Add(f.lo, f.hi), big.NewRat(2, 1)))
		}
	}
	return cands
}

func floorRat(r *big.Rat) *big.Int {
	// Euclidean division rounds towards negative infinity for a positive
	// divisor, and a Rat's denominator is always positive.
	return new(big.Int).Div(r.Num(), r.Denom())
}

func ceilRat(r *big.Rat) *big.Int {
	neg := new(big.Rat).Neg(r)
	return new(big.Int).Neg(floorRat(neg))
}

// lcmRat is the least common multiple of two positive rationals:
// lcm(a/b, c/d) = lcm(a, c) / gcd(b, d). A nil a is the identity.
func lcmRat(a, b *big.Rat) *big.Rat {
	if a == nil {
		return new(big.Rat).Set(b)
	}
	gn := new(big.Int).GCD(nil, nil, a.Num(), b.Num())
	ln := new(big.Int).Mul(a.Num(), b.Num())
	ln.Quo(ln, gn)
	gd := new(big.Int).GCD(nil, nil, a.Denom(), b.Denom())
	return new(big.Rat).SetFrac(ln, gd)
}

// formatExamples holds, per string format, values that satisfy it: the
// formats the brief and the 2020-12 vocabulary name that a tool is likely
// to use. Unknown formats are annotations only and are not steered. Hosts
// are under .invalid (RFC 2606), which never resolves: a warm-up call that
// fetches a synthesized URL or mails a synthesized address reaches no one.
var formatExamples = map[string][]string{
	"date-time":             {"1970-01-01T00:00:00Z", "1970-01-02T00:00:00Z", "1970-01-03T00:00:00Z"},
	"date":                  {"1970-01-01", "1970-01-02", "1970-01-03"},
	"time":                  {"00:00:00Z", "00:00:01Z", "00:00:02Z"},
	"email":                 {"a@example.invalid", "b@example.invalid", "c@example.invalid"},
	"idn-email":             {"a@example.invalid", "b@example.invalid", "c@example.invalid"},
	"uri":                   {"https://example.invalid/", "https://example.invalid/a", "https://example.invalid/b"},
	"url":                   {"https://example.invalid/", "https://example.invalid/a", "https://example.invalid/b"},
	"iri":                   {"https://example.invalid/", "https://example.invalid/a", "https://example.invalid/b"},
	"uri-reference":         {"https://example.invalid/", "https://example.invalid/a", "https://example.invalid/b"},
	"iri-reference":         {"https://example.invalid/", "https://example.invalid/a", "https://example.invalid/b"},
	"uri-template":          {"https://example.invalid/", "https://example.invalid/a", "https://example.invalid/b"},
	"uuid":                  {"00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"},
	"ipv4":                  {"127.0.0.1", "127.0.0.2", "127.0.0.3"},
	"ipv6":                  {"::1", "::2", "::3"},
	"hostname":              {"example.invalid", "a.example.invalid", "b.example.invalid"},
	"idn-hostname":          {"example.invalid", "a.example.invalid", "b.example.invalid"},
	"duration":              {"P1D", "P2D", "P3D"},
	"json-pointer":          {"", "/a", "/b"},
	"relative-json-pointer": {"0", "1", "2"},
	"regex":                 {"", "a", "b"},
}

// strings returns strings that respect length, format and patterns: format
// examples first, then strings built from each pattern, then runs of one
// letter of exactly minLength.
func (g *gen) strings(f *flat, n int) ([]any, error) {
	if f.maxLen >= 0 && f.maxLen < f.minLen {
		return nil, fmt.Errorf("maxLength %d < minLength %d", f.maxLen, f.minLen)
	}
	var cands []string
	if ex, ok := formatExamples[f.format]; ok {
		cands = append(cands, ex...)
		if l := utf8.RuneCountInString(ex[0]); l < f.minLen && strings.HasSuffix(ex[0], "/") {
			cands = append(cands, ex[0]+strings.Repeat("a", f.minLen-l))
		}
	}
	var bases []string
	for _, p := range f.patterns {
		ps := patternStrings(p, f.minLen)
		cands = append(cands, ps...)
		if len(ps) > 0 {
			bases = append(bases, ps[0])
		}
	}
	if len(bases) > 1 {
		// Several patterns (allOf): unanchored ones often accept the
		// strings for each, one after the other.
		cands = append(cands, strings.Join(bases, ""))
	}
	for _, c := range "abcdefgh" {
		cands = append(cands, strings.Repeat(string(c), max(f.minLen, 1)))
		if f.minLen == 0 && c == 'a' {
			cands = append(cands, "")
		}
	}
	if f.minLen == 0 {
		// Prefer the empty string when nothing asks for more.
		cands = append([]string{""}, cands...)
	}
	var out []any
	var lastErr error
	for _, c := range cands {
		if err := g.stringOK(f, c); err != nil {
			lastErr = err
			continue
		}
		out = appendDistinct(out, c)
		// A few more than asked: the caller validates against keywords
		// this function does not see (not, if/then/else, oneOf).
		if len(out) >= n+extraCandidates {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no candidate string fits: %w", lastErr)
	}
	return out, nil
}

// stringOK checks the string keywords the generator steers by; the full
// validator runs afterwards anyway.
func (g *gen) stringOK(f *flat, s string) error {
	l := utf8.RuneCountInString(s)
	if l < f.minLen || (f.maxLen >= 0 && l > f.maxLen) {
		return fmt.Errorf("length %d outside [%d, %d]", l, f.minLen, f.maxLen)
	}
	for _, p := range f.patterns {
		re, err := g.regexp(p)
		if err != nil {
			return err
		}
		if !re.MatchString(s) {
			return fmt.Errorf("%q does not match pattern %q", s, p)
		}
	}
	return nil
}

// array returns one array: minItems items (at least minContains of them
// also valid against contains), each the preferred value of its position's
// schema, distinct when uniqueItems asks.
func (g *gen) array(f *flat, depth, n int) ([]any, error) {
	needContains := 0
	if len(f.contains) > 0 {
		needContains = 1
		if f.minContains >= 0 {
			needContains = f.minContains
		}
	}
	count := max(f.minItems, needContains)
	if count > maxCount {
		return nil, fmt.Errorf("minItems/minContains %d exceeds this package's limit of %d", count, maxCount)
	}
	if f.maxItems >= 0 && count > f.maxItems {
		return nil, fmt.Errorf("needs %d items but maxItems is %d", count, f.maxItems)
	}
	items := make([]any, 0, count)
	for i := 0; i < count; i++ {
		var parts []any
		if i < len(f.prefix) {
			parts = append(parts, f.prefix[i])
		} else {
			parts = append(parts, f.items...)
		}
		if i < needContains {
			parts = append(parts, f.contains...)
		}
		want := 1
		if f.unique {
			want = i + 1
		}
		vs, err := g.values(map[string]any{"allOf": parts}, depth+1, want)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		picked := false
		for _, v := range vs {
			if !f.unique || !containsValue(items, v) {
				items = append(items, v)
				picked = true
				break
			}
		}
		if !picked {
			return nil, fmt.Errorf("uniqueItems: found no item %d distinct from the others", i)
		}
	}
	return []any{items}, nil
}

// objectNames are the properties an object gets: the required ones and
// those they depend on, then up to minProperties the declared ones and
// synthetic names the schema admits.
func (g *gen) objectNames(f *flat) []string {
	names := append([]string(nil), f.required...)
	for i := 0; i < len(names); i++ {
		for _, d := range f.dependentRequired[names[i]] {
			if !containsString(names, d) {
				names = append(names, d)
			}
		}
	}
	if f.minProps > len(names) {
		for _, name := range slices.Sorted(maps.Keys(f.props)) {
			if len(names) >= f.minProps {
				break
			}
			if !containsString(names, name) {
				names = append(names, name)
			}
		}
		for i := 0; len(names) < f.minProps && i < 2*maxCount; i++ {
			name := syntheticName(i)
			if containsString(names, name) || !g.nameOK(f, name) {
				continue
			}
			sch := g.propSchema(f, name)
			if b, ok := sch.(bool); ok && !b {
				continue
			}
			names = append(names, name)
		}
	}
	return names
}

// object returns objects with the required properties (plus those that
// dependentRequired drags in, and enough others to reach minProperties).
// When n > 1, the objects differ in their first property.
func (g *gen) object(f *flat, depth, n int) ([]any, error) {
	names := g.objectNames(f)
	if f.maxProps >= 0 && len(names) > f.maxProps {
		return nil, fmt.Errorf("needs %d properties but maxProperties is %d", len(names), f.maxProps)
	}
	obj := make(map[string]any, len(names))
	var firstVariants []any
	for i, name := range names {
		if !g.nameOK(f, name) {
			return nil, fmt.Errorf("property name %q is rejected by propertyNames", name)
		}
		want := 1
		if i == 0 {
			want = n
		}
		vs, err := g.values(g.propSchema(f, name), depth+1, want)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		obj[name] = vs[0]
		if i == 0 {
			firstVariants = vs
		}
	}
	out := []any{obj}
	for _, v := range firstVariants[min(1, len(firstVariants)):] {
		o := make(map[string]any, len(obj))
		for k, x := range obj {
			o[k] = x
		}
		o[names[0]] = v
		out = append(out, o)
	}
	return out, nil
}

// propSchema is the schema a property's value must satisfy: properties and
// matching patternProperties, or additionalProperties when neither names it.
func (g *gen) propSchema(f *flat, name string) any {
	var parts []any
	parts = append(parts, f.props[name]...)
	for _, pp := range f.patternProps {
		if re, err := g.regexp(pp.pattern); err == nil && re.MatchString(name) {
			parts = append(parts, pp.schema)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, f.additional...)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return map[string]any{"allOf": parts}
}

func (g *gen) nameOK(f *flat, name string) bool {
	for _, s := range f.propertyNames {
		if !g.valid(s, name) {
			return false
		}
	}
	return true
}

// syntheticName gives property names for minProperties: a, b, ..., z, a1, ...
func syntheticName(i int) string {
	s := string(rune('a' + i%26))
	if i >= 26 {
		s += fmt.Sprint(i / 26)
	}
	return s
}

func appendDistinct(out []any, vs ...any) []any {
	for _, v := range vs {
		if !containsValue(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if jsonEqual(x, v) {
			return true
		}
	}
	return false
}

// jsonEqual is JSON Schema's equality: numbers by value (1 equals 1.0),
// objects regardless of key order.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		ra, ok1 := ratOf(a)
		rb, ok2 := ratOf(bn)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}
