package synth

import (
	"encoding/json"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// valid reports whether v satisfies schema s. It is the safety net under
// the generator: every value Arguments returns has passed it. It is strict
// where it is unsure: a keyword value it cannot read (a non-numeric
// minimum, a pattern RE2 cannot compile, a remote $ref) fails the value, so
// the caller reports an error instead of returning a guess.
//
// unevaluatedProperties and unevaluatedItems are approximated: a property
// counts as evaluated when any in-place subschema names it, matched or not.
func (g *gen) valid(s any, v any, depth int) bool {
	if depth > 2*maxDepth || !g.spend() {
		return false
	}
	var m map[string]any
	switch s := s.(type) {
	case bool:
		return s
	case map[string]any:
		m = g.view(s)
	default:
		return false
	}
	if ref, ok := m["$ref"]; ok {
		target, err := g.resolve(ref)
		if err != nil || !g.valid(target, v, depth+1) {
			return false
		}
		if g.legacy {
			return true
		}
	}
	if _, ok := m["$dynamicRef"]; ok {
		return false
	}
	if _, ok := m["$recursiveRef"]; ok {
		return false
	}
	if t, ok := m["type"]; ok && !typeMatches(t, v) {
		return false
	}
	if c, ok := m["const"]; ok && !jsonEqual(c, v) {
		return false
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || !containsValue(list, v) {
			return false
		}
	}
	if !g.applicators(m, v, depth) {
		return false
	}
	switch v := v.(type) {
	case string:
		return g.validString(m, v)
	case json.Number:
		return validNumber(m, v)
	case []any:
		return g.validArray(m, v, depth)
	case map[string]any:
		return g.validObject(m, v, depth)
	}
	return true
}

func (g *gen) applicators(m map[string]any, v any, depth int) bool {
	if all, ok := m["allOf"]; ok {
		list, ok := all.([]any)
		if !ok {
			return false
		}
		for _, s := range list {
			if !g.valid(s, v, depth+1) {
				return false
			}
		}
	}
	if anyOf, ok := m["anyOf"]; ok {
		list, ok := anyOf.([]any)
		if !ok {
			return false
		}
		found := false
		for _, s := range list {
			if g.valid(s, v, depth+1) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if oneOf, ok := m["oneOf"]; ok {
		list, ok := oneOf.([]any)
		if !ok {
			return false
		}
		matched := 0
		for _, s := range list {
			if g.valid(s, v, depth+1) {
				matched++
			}
		}
		if matched != 1 {
			return false
		}
	}
	if not, ok := m["not"]; ok {
		if g.valid(not, v, depth+1) || g.exhausted {
			return false
		}
	}
	if cond, ok := m["if"]; ok {
		branch := "else"
		if g.valid(cond, v, depth+1) {
			branch = "then"
		}
		if s, ok := m[branch]; ok && !g.valid(s, v, depth+1) {
			return false
		}
	}
	return true
}

func typeMatches(t any, v any) bool {
	switch t := t.(type) {
	case string:
		return isType(t, v)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && isType(s, v) {
				return true
			}
		}
	}
	return false
}

func isType(t string, v any) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		// Since draft-06 an integer is any number with a zero fractional
		// part: 1.0 is an integer.
		r, ok := ratOf(v)
		return ok && r.IsInt()
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

func (g *gen) validString(m map[string]any, s string) bool {
	l := utf8.RuneCountInString(s)
	if !countOK(m, "minLength", l, true) || !countOK(m, "maxLength", l, false) {
		return false
	}
	if p, ok := m["pattern"]; ok {
		ps, ok := p.(string)
		if !ok {
			return false
		}
		re, err := g.regexp(ps)
		if err != nil || !re.MatchString(s) {
			return false
		}
	}
	if f, ok := m["format"].(string); ok && !formatOK(f, s) {
		return false
	}
	return true
}

// countOK checks a non-negative integer keyword; absent is fine, unreadable
// is not.
func countOK(m map[string]any, k string, n int, isMin bool) bool {
	v, ok := m[k]
	if !ok {
		return true
	}
	r, ok := ratOf(v)
	if !ok || !r.IsInt() {
		return false
	}
	if !r.Num().IsInt64() {
		return !isMin // a huge minimum fails, a huge maximum passes
	}
	lim := r.Num().Int64()
	if isMin {
		return int64(n) >= lim
	}
	return int64(n) <= lim
}

func validNumber(m map[string]any, n json.Number) bool {
	r, ok := ratOf(n)
	if !ok {
		return false
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		b, ok := m[k]
		if !ok {
			continue
		}
		lower := k == "minimum" || k == "exclusiveMinimum"
		exclusive := k == "exclusiveMinimum" || k == "exclusiveMaximum"
		if flag, ok := b.(bool); ok {
			// Draft-04: a boolean that makes the sibling bound exclusive.
			if !exclusive {
				return false
			}
			if !flag {
				continue
			}
			sib := "minimum"
			if !lower {
				sib = "maximum"
			}
			if b, ok = m[sib]; !ok {
				continue
			}
		}
		lim, ok := ratOf(b)
		if !ok {
			return false
		}
		c := r.Cmp(lim)
		if lower && (c < 0 || (c == 0 && exclusive)) {
			return false
		}
		if !lower && (c > 0 || (c == 0 && exclusive)) {
			return false
		}
	}
	if mo, ok := m["multipleOf"]; ok {
		d, ok := ratOf(mo)
		if !ok || d.Sign() <= 0 {
			return false
		}
		if q := r.Quo(r, d); !q.IsInt() {
			return false
		}
	}
	return true
}

func (g *gen) validArray(m map[string]any, a []any, depth int) bool {
	if !countOK(m, "minItems", len(a), true) || !countOK(m, "maxItems", len(a), false) {
		return false
	}
	if m["uniqueItems"] == true {
		for i := range a {
			if containsValue(a[:i], a[i]) {
				return false
			}
		}
	}
	prefix, _ := m["prefixItems"].([]any)
	var rest any = true
	hasRest := false
	switch items := m["items"].(type) {
	case nil:
	case []any:
		prefix = items
		if ai, ok := m["additionalItems"]; ok {
			rest, hasRest = ai, true
		}
	default:
		rest, hasRest = items, true
	}
	if _, ok := m["prefixItems"]; ok && prefix == nil {
		return false
	}
	for i, x := range a {
		s := rest
		if i < len(prefix) {
			s = prefix[i]
		} else if !hasRest {
			if ue, ok := m["unevaluatedItems"]; ok {
				s = ue
			}
		}
		if !g.valid(s, x, depth+1) {
			return false
		}
	}
	if c, ok := m["contains"]; ok {
		matched := 0
		for _, x := range a {
			if g.valid(c, x, depth+1) {
				matched++
			}
		}
		_, hasMin := m["minContains"]
		if !hasMin && matched == 0 {
			return false
		}
		if !countOK(m, "minContains", matched, true) || !countOK(m, "maxContains", matched, false) {
			return false
		}
	}
	return true
}

func (g *gen) validObject(m map[string]any, o map[string]any, depth int) bool {
	if !countOK(m, "minProperties", len(o), true) || !countOK(m, "maxProperties", len(o), false) {
		return false
	}
	if r, ok := m["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return false
		}
		for _, name := range list {
			s, ok := name.(string)
			if !ok {
				return false
			}
			if _, ok := o[s]; !ok {
				return false
			}
		}
	}
	props, _ := m["properties"].(map[string]any)
	if _, ok := m["properties"]; ok && props == nil {
		return false
	}
	pprops, _ := m["patternProperties"].(map[string]any)
	if _, ok := m["patternProperties"]; ok && pprops == nil {
		return false
	}
	patterns := sortedKeys(pprops)
	for _, name := range sortedKeys(o) {
		val := o[name]
		matched := false
		if s, ok := props[name]; ok {
			matched = true
			if !g.valid(s, val, depth+1) {
				return false
			}
		}
		for _, p := range patterns {
			re, err := g.regexp(p)
			if err != nil {
				return false
			}
			if re.MatchString(name) {
				matched = true
				if !g.valid(pprops[p], val, depth+1) {
					return false
				}
			}
		}
		if ap, ok := m["additionalProperties"]; ok && !matched {
			if !g.valid(ap, val, depth+1) {
				return false
			}
		}
		if pn, ok := m["propertyNames"]; ok && !g.valid(pn, name, depth+1) {
			return false
		}
		if up, ok := m["unevaluatedProperties"]; ok && !g.evaluated(m, name, depth) {
			if !g.valid(up, val, depth+1) {
				return false
			}
		}
	}
	for _, k := range []string{"dependentRequired", "dependentSchemas", "dependencies"} {
		dm, ok := m[k].(map[string]any)
		if !ok {
			if _, present := m[k]; present {
				return false
			}
			continue
		}
		for _, name := range sortedKeys(dm) {
			if _, ok := o[name]; !ok {
				continue
			}
			if list, ok := dm[name].([]any); ok && k != "dependentSchemas" {
				for _, dep := range list {
					s, ok := dep.(string)
					if !ok {
						return false
					}
					if _, ok := o[s]; !ok {
						return false
					}
				}
			} else if !g.valid(dm[name], o, depth+1) {
				return false
			}
		}
	}
	return true
}

// evaluated reports whether some in-place subschema of m names property
// name (the approximation of unevaluatedProperties described at valid).
func (g *gen) evaluated(m map[string]any, name string, depth int) bool {
	if depth > 2*maxDepth || !g.spend() {
		return false
	}
	m = g.view(m)
	if _, ok := m["additionalProperties"]; ok {
		return true
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[name]; ok {
			return true
		}
	}
	if pprops, ok := m["patternProperties"].(map[string]any); ok {
		for _, p := range sortedKeys(pprops) {
			if re, err := g.regexp(p); err == nil && re.MatchString(name) {
				return true
			}
		}
	}
	var subs []any
	if ref, ok := m["$ref"]; ok {
		if t, err := g.resolve(ref); err == nil {
			subs = append(subs, t)
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := m[k].([]any); ok {
			subs = append(subs, list...)
		}
	}
	for _, k := range []string{"if", "then", "else"} {
		if s, ok := m[k]; ok {
			subs = append(subs, s)
		}
	}
	for _, s := range subs {
		if sm, ok := s.(map[string]any); ok && g.evaluated(sm, name, depth+1) {
			return true
		}
	}
	return false
}

var uuidRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

// formatOK checks the formats this package synthesizes, so that a default
// or enum value that breaks its own format is passed over. It follows the
// RFCs loosely; an unknown format is an annotation and always passes.
func formatOK(format, s string) bool {
	switch format {
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
		return err == nil
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "time":
		for _, layout := range []string{"15:04:05Z07:00", "15:04:05.999999999Z07:00"} {
			if _, err := time.Parse(layout, strings.ToUpper(s)); err == nil {
				return true
			}
		}
		return false
	case "email", "idn-email":
		at := strings.LastIndexByte(s, '@')
		return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " \t\r\n")
	case "uri", "url", "iri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != ""
	case "uri-reference", "iri-reference", "uri-template":
		_, err := url.Parse(s)
		return err == nil
	case "uuid":
		return uuidRE().MatchString(s)
	case "ipv4":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	case "ipv6":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && a.Zone() == ""
	case "hostname", "idn-hostname":
		return hostnameOK(s)
	case "duration":
		return len(s) > 1 && s[0] == 'P'
	case "json-pointer":
		return s == "" || s[0] == '/'
	case "relative-json-pointer":
		return s != "" && s[0] >= '0' && s[0] <= '9'
	case "regex":
		_, err := regexp.Compile(s)
		return err == nil
	}
	return true
}

func hostnameOK(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return true
}
