package synth

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// maxPatternString caps the strings built from a pattern: x{1000}{1000}
// parses, but a warm-up argument has no use for a million characters.
const maxPatternString = 4 * maxCount

// patternStrings builds candidate strings for a pattern by walking its
// parsed form: the shortest string the expression matches, the same with
// the first open-ended repetition stretched to reach minLength, and the
// shortest string padded either side (JSON Schema patterns are not
// anchored, so padding often still matches). The caller checks every
// candidate against the compiled pattern; these are guesses, not proofs.
func patternStrings(p string, minLen int) []string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var out []string
	b := &builder{}
	b.walk(re)
	if b.failed {
		return nil
	}
	base := b.String()
	out = append(out, base)
	if short := minLen - utf8.RuneCountInString(base); short > 0 {
		b = &builder{grow: short}
		b.walk(re)
		if !b.failed {
			out = append(out, b.String())
		}
		pad := strings.Repeat("a", short)
		out = append(out, base+pad, pad+base)
	}
	return out
}

type builder struct {
	strings.Builder
	// grow is how many extra repetitions the first star or plus takes.
	grow   int
	failed bool
}

func (b *builder) walk(re *syntax.Regexp) {
	if b.failed || b.Len() > maxPatternString {
		b.failed = true
		return
	}
	switch re.Op {
	case syntax.OpNoMatch:
		b.failed = true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		r, ok := classRune(re.Rune)
		if !ok {
			b.failed = true
			return
		}
		b.WriteRune(r)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte('a')
	case syntax.OpCapture:
		b.walk(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			b.walk(sub)
		}
	case syntax.OpAlternate:
		b.walk(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		n := 0
		if re.Op == syntax.OpPlus {
			n = 1
		}
		if b.grow > 0 {
			n += b.grow
			b.grow = 0
		}
		for range n {
			b.walk(re.Sub[0])
		}
	case syntax.OpRepeat:
		// Simplify rewrites repeats away; kept for safety.
		for range re.Min {
			b.walk(re.Sub[0])
		}
	case syntax.OpQuest, syntax.OpEmptyMatch,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Match the empty string: contribute nothing.
	default:
		b.failed = true
	}
}

// classRune picks a member of a character class (pairs of inclusive
// ranges), preferring a letter or digit a server is likely to accept.
func classRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	for _, want := range "a0A_-." {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want, true
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		// Skip control characters when the class offers anything else.
		lo := max(ranges[i], ' '+1)
		if lo <= ranges[i+1] {
			return lo, true
		}
	}
	return ranges[0], true
}
