package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escape renders attacker-controlled text so that nothing in it acts on the
// reader: every control, format (Cf), tag, zero-width, bidi, variation
// selector, private-use and line/paragraph separator character becomes
// \u{XXXX}; tab and newline become \t and \n. The output is a single line of
// printable text, so it cannot start a new terminal line, a markdown block or
// a workflow command.
//
// It follows the convention of inspect.Escape (same output for the same
// input) but is a separate copy: report must not depend on inspect, which is
// written in parallel and imports more than a renderer needs. Backslashes are
// not doubled, as in inspect.Escape; the finding's raw text stays in JSON for
// anyone who needs to tell a literal "\u{202E}" from an escaped one. Invalid
// UTF-8 bytes become \x{XX}, so they are not confused with a real U+FFFD.
func escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x{%02X}`, s[i])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case hidden(r):
			fmt.Fprintf(&b, `\u{%04X}`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || hidden(r) {
			return true
		}
		i += size
	}
	return false
}

// hidden reports whether r is a character a reader cannot see or that changes
// how the text around it is displayed. Tab and newline are included: the
// caller spells them \t and \n.
func hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7F && r <= 0x9F: // C0, DEL, C1 (ESC starts ANSI sequences)
		return true
	case unicode.Is(unicode.Cf, r): // bidi controls, zero-width, soft hyphen, tags, BOM
		return true
	case unicode.Is(unicode.Co, r): // private use: renders as anything a font wants
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators break lines
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF: // variation selectors
		return true
	case r >= 0xE0000 && r <= 0xE007F: // tag block (unassigned ones too)
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x180E:
		// combining grapheme joiner and Hangul fillers: invisible, but not Cf.
		return true
	case r >= 0xFFF0 && r <= 0xFFFB: // specials (interlinear annotation anchors)
		return true
	}
	return false
}

// decodeTags returns the ASCII text spelled by Unicode tag characters
// (U+E0020..U+E007E map to ' '..'~'), the usual way to hide instructions in a
// description. It is shown beside the escaped text so a reviewer reads what
// the model would read, not a run of \u{E00xx}.
func decodeTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// truncate shortens already-escaped text to at most n runes, marking the cut
// with an ellipsis. Cutting after escaping means an escape sequence may be
// cut in half, which only shortens what is shown, never unescapes it.
func truncate(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}
