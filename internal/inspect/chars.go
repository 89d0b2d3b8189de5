package inspect

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// hiddenClass names why a code point is invisible to a reviewer. The zero
// value means the rune is visible (or at least rendered).
type hiddenClass uint8

const (
	visible hiddenClass = iota
	classTag
	classZeroWidth
	classBidi
	classVariation
	classPrivateUse
	classNonCharacter
	classFormat // other Cf and default-ignorable code points
)

var classNames = [...]string{
	visible:           "visible",
	classTag:          "tag characters",
	classZeroWidth:    "zero-width characters",
	classBidi:         "bidirectional controls",
	classVariation:    "variation selectors",
	classPrivateUse:   "private-use characters",
	classNonCharacter: "non-characters",
	classFormat:       "invisible format characters",
}

func (c hiddenClass) String() string { return classNames[c] }

// classify says which invisible class r belongs to.
//
// The set is Unicode's Default_Ignorable_Code_Point property (which Go's
// unicode package does not expose as a table, so the ranges are listed here)
// plus every Cf, private-use and non-character: all of them render as nothing
// (or as a box the reviewer skips) while a model still reads them.
func classify(r rune) hiddenClass {
	if r < 0xAD {
		return visible
	}
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return classTag
	case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF:
		return classZeroWidth
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return classBidi
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return classVariation
	case r >= 0xE000 && r <= 0xF8FF, r >= 0xF0000 && r <= 0xFFFFD, r >= 0x100000 && r <= 0x10FFFD:
		return classPrivateUse
	case r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return classNonCharacter
	case r == 0xAD, r == 0x34F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r >= 0x180B && r <= 0x180F, r == 0x3164, r == 0xFFA0, r >= 0xFFF0 && r <= 0xFFF8,
		r >= 0xE0080 && r <= 0xE0FFF:
		return classFormat
	case unicode.Is(unicode.Cf, r):
		return classFormat
	}
	return visible
}

// DecodeTags returns the ASCII text spelled by Unicode tag characters
// (U+E0020..U+E007E map to ' '..'~') in s, or "" if there are none. Tag
// characters were meant for language tagging and render as nothing, which is
// why they are the favourite way to smuggle instructions past a reviewer.
// Other tag-block code points (U+E0001 LANGUAGE TAG, U+E007F CANCEL TAG) carry
// no letter and are skipped.
func DecodeTags(s string) string {
	var b []byte
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			b = append(b, byte(r-0xE0000))
		}
	}
	return string(b)
}

// decodeVariationBytes returns the bytes smuggled in runs of two or more
// variation selectors (the "emoji smuggling" encoding: U+FE00..U+FE0F carry
// 0..15, U+E0100..U+E01EF carry 16..255), or "" if there are no such runs or
// the bytes are not printable UTF-8 text. Single selectors are ordinary emoji
// presentation and are not decoded.
func decodeVariationBytes(s string) string {
	var out, run []byte
	flush := func() {
		if len(run) >= 2 {
			out = append(out, run...)
			out = append(out, ' ')
		}
		run = run[:0]
	}
	for _, r := range s {
		switch {
		case r >= 0xFE00 && r <= 0xFE0F:
			run = append(run, byte(r-0xFE00))
		case r >= 0xE0100 && r <= 0xE01EF:
			run = append(run, byte(r-0xE0100+16))
		default:
			flush()
		}
	}
	flush()
	if len(out) == 0 || !utf8.Valid(out) {
		return ""
	}
	printable := 0
	total := 0
	for _, r := range string(out) {
		total++
		if unicode.IsPrint(r) || unicode.IsSpace(r) {
			printable++
		}
	}
	if printable*10 < total*9 {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// isEmoji approximates Extended_Pictographic: enough to tell an emoji
// presentation sequence (a base followed by U+FE0F, or emoji joined by
// U+200D) from the same code points used to hide text.
func isEmoji(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF,
		r >= 0x2190 && r <= 0x21FF,
		r >= 0x2300 && r <= 0x23FF,
		r >= 0x2460 && r <= 0x27BF,
		r >= 0x2900 && r <= 0x297F,
		r >= 0x2B00 && r <= 0x2BFF,
		r == 0x00A9, r == 0x00AE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139,
		r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299:
		return true
	}
	return false
}

// escapeSpan renders s[start:end] for a Detail: the span plus a little
// context on each side, escaped, cut to about limit bytes with "…" marking
// every cut, so a 10 MB description costs nothing to report.
func escapeSpan(s string, start, end, limit int) string {
	const ctx = 24
	a := start
	for k := 0; k < ctx && a > 0; k++ {
		_, n := utf8.DecodeLastRuneInString(s[:a])
		a -= n
	}
	z := end
	for k := 0; k < ctx && z < len(s); k++ {
		_, n := utf8.DecodeRuneInString(s[z:])
		z += n
	}
	cut := false
	if z-a > 4*limit {
		z = a + 4*limit
		for z > a && !utf8.RuneStart(s[z]) {
			z--
		}
		cut = true
	}
	e := inert.Text(s[a:z])
	if len(e) > limit {
		e = e[:limit]
		for len(e) > 0 && !utf8.ValidString(e) {
			e = e[:len(e)-1]
		}
		// Do not leave half an escape (`\u{E00` or a lone `\`) at the end.
		if k := strings.LastIndexByte(e, '\\'); k >= 0 && k >= len(e)-10 {
			if t := e[k:]; !strings.Contains(t, "}") && (len(t) == 1 || t[1] == 'u' || t[1] == 'x') {
				e = e[:k]
			}
		}
		cut = true
	}
	if a > 0 {
		e = "…" + e
	}
	if cut || z < len(s) {
		e += "…"
	}
	return e
}
