package inspect

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"
)

// A gate's words say a clause may hold a match; many clauses that hold
// them ("use", "this", "file") still hold none, and RE2 pays for every byte
// of such a clause to say so. Most expressions need a literal string that
// their words do not: "no longer", "://", ".json". prefilter reads an
// expression's syntax for strings of which every match holds at least one,
// and a clause without any of them is ruled out by a substring search,
// which costs a fraction of running the expression.

// Bounds on a useful prefilter: a few strings (each is a search of the
// clause), none shorter than minPrefilterLen (a short one is in every
// clause).
const (
	maxPrefilterStrings = 24
	minPrefilterLen     = 3
)

// lazyPrefilter is prefilter(expr), worked out on first use.
func lazyPrefilter(expr string) func() [][]byte {
	return sync.OnceValue(func() [][]byte { return prefilter(expr) })
}

// prefilter is the strings of which every match of expr holds one, or nil
// when there is no useful such list.
func prefilter(expr string) [][]byte {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	set := required(re.Simplify())
	if set == nil {
		return nil
	}
	if !usable(set) {
		return nil
	}
	return set
}

// required is a list of strings of which every match of re holds one; nil
// says nothing is known (re may match with none of a few literal strings,
// or the empty string).
func required(re *syntax.Regexp) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		var b []byte
		for _, r := range re.Rune {
			if r == utf8.RuneError {
				// Matched by any invalid byte too.
				return nil
			}
			b = utf8.AppendRune(b, r)
		}
		return [][]byte{b}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		// Every match holds a match of each part: the part whose list
		// is the most selective serves.
		var best [][]byte
		for _, sub := range re.Sub {
			if s := required(sub); s != nil && (best == nil || better(s, best)) {
				best = s
			}
		}
		return best
	case syntax.OpAlternate:
		// Every match is a match of one branch: each must have a list.
		var all [][]byte
		for _, sub := range re.Sub {
			s := required(sub)
			if s == nil {
				return nil
			}
			for _, x := range s {
				if !slices.ContainsFunc(all, func(y []byte) bool { return bytes.Equal(x, y) }) {
					all = append(all, x)
				}
			}
			if len(all) > maxPrefilterStrings {
				return nil
			}
		}
		return all
	}
	return nil
}

// better reports whether list a rules out more clauses than list b: its
// shortest string is longer, or as long in fewer strings.
func better(a, b [][]byte) bool {
	if ua, ub := usable(a), usable(b); ua != ub {
		return ua
	}
	ma, mb := shortest(a), shortest(b)
	if ma != mb {
		return ma > mb
	}
	return len(a) < len(b)
}

// usable reports whether set is worth a search: no string in it is
// shorter than minPrefilterLen.
func usable(set [][]byte) bool { return shortest(set) >= minPrefilterLen }

func shortest(set [][]byte) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// holdsAny reports whether c holds one of set.
func holdsAny(c []byte, set [][]byte) bool {
	for _, s := range set {
		if bytes.Contains(c, s) {
			return true
		}
	}
	return false
}
