// Package inert makes untrusted text safe to put on one line of a terminal,
// a CI log, a markdown report or an error message.
//
// Everything a server sends, and every name or value a config or policy file
// holds, may be written by an attacker. Printed raw, such text can move the
// cursor or rewrite earlier lines (ESC, CSI, OSC), reorder what the reader
// sees (bidi controls), hide words from the reader that a model still reads
// (tag characters, zero-width and other format characters, variation
// selectors), or start a new log line that a CI runner takes as a command.
// Text renders all of that as visible escapes, so a reviewer sees exactly
// which code points are there.
//
// There is one escaper so that every output spells the same input the same
// way: a finding's detail (written by inspect), the report around it, a
// policy error and a guard message agree byte for byte. Text renders raw
// untrusted text; Composed re-checks a message the program composed around
// text Text already rendered, without escaping it twice.
package inert

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text renders untrusted text for a reader:
//
//   - printable text (letters, marks, symbols, punctuation, ordinary spaces
//     of any width) stays as it is;
//   - tab, newline and carriage return become `\t`, `\n`, `\r`;
//   - every other rune Unsafe reports (controls, format characters, tags,
//     variation selectors, private use, non-characters, unassigned code
//     points, line and paragraph separators) becomes `\u{XXXX}` (upper-case
//     hex, at least four digits);
//   - each byte of invalid UTF-8 becomes `\x{XX}`, so it is not confused with
//     a real U+FFFD;
//   - a backslash is doubled only where it would otherwise read as the start
//     of one of these escapes (before `\`, `t`, `n`, `r`, `u{`, `x{` or an
//     escaped rune), so a Windows path or a regular expression reads as
//     written while a literal "\u{202E}" never prints like a real U+202E.
//
// The output is valid UTF-8, one line, and holds no rune Unsafe reports.
// Different inputs give different outputs: the escapes decode back to the
// input (the package's tests hold a decoder that checks this).
func Text(s string) string { return text(s, "", true) }

// Composed makes text the program composed inert: a finding's message or
// detail, which quotes untrusted text already rendered by Text. It escapes
// every rune Unsafe reports exactly as Text does but leaves backslashes as
// they are, so the escapes already in the text read the same, once:
// Composed(Text(s)) == Text(s), and Composed(Composed(s)) == Composed(s).
// It is the renderers' second line of defence for messages; it cannot make
// them injective (only Text on the raw parts can), which is why raw text
// (names, values, before and after) goes through Text.
func Composed(s string) string { return text(s, "", false) }

// TextAlso is Text that also escapes each ASCII character in also as
// `\u{XXXX}`: the characters the caller's format gives a meaning to (a
// markdown table's "|", the quote around a quoted name). Characters of also
// that are not ASCII punctuation or space are ignored: letters, digits and the
// backslash keep their part in the escapes.
func TextAlso(s, also string) string { return text(s, also, true) }

// Quote is Text between double quotes, with any double quote inside escaped,
// so a quoted name ends where it seems to end.
func Quote(s string) string { return `"` + text(s, `"`, true) + `"` }

// Safe reports whether s is valid UTF-8 without a rune Unsafe reports: text a
// reader sees as it is. (Text may still double a backslash in it.)
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7F {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// Unsafe reports whether r must not reach a reader as itself: every C0 and C1
// control and DEL; every format character (Cf: bidi controls, zero-width
// characters, soft hyphen, BOM, tags, interlinear annotations); the variation
// selectors and the other default-ignorable code points that are not Cf
// (combining grapheme joiner, Hangul fillers, Mongolian free variation
// selectors, Khmer inherent vowels, the reserved rest of the tag block);
// private-use characters, which render as whatever a font wants;
// surrogates, non-characters and unassigned code points, which render as
// nothing or as a box a reader skips; and the line and paragraph separators,
// which break lines in some renderers. Ordinary spaces of other widths (Zs)
// are visible gaps and are safe.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7F || r >= 0x80 && r <= 0x9F:
		return true
	case r < 0xA0:
		return false
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0000 && r <= 0xE0FFF:
		// Variation selectors (printable marks to unicode.IsPrint) and the
		// whole tag/variation-selector-supplement block.
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r >= 0x180B && r <= 0x180F, r == 0x3164, r == 0xFFA0:
		// Default_Ignorable_Code_Point runes that are not Cf: letters and
		// marks that draw nothing.
		return true
	case unicode.Is(unicode.Cf, r):
		return true
	case unicode.IsPrint(r), unicode.Is(unicode.Zs, r):
		return false
	}
	// Zl, Zp, Co, Cs, Cn and anything else IsPrint refuses.
	return true
}

// text is Text with the ASCII characters of also escaped too, and with
// backslashes doubled where they open an escape only if double is set.
func text(s, also string, double bool) string {
	if plain(s, also, double) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(`\x{`)
			writeHex(&b, rune(s[i]), 2)
			b.WriteByte('}')
			i++
			continue
		}
		switch {
		case r == '\\':
			b.WriteByte('\\')
			if double && opensEscape(s[i+1:], also) {
				b.WriteByte('\\')
			}
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case Unsafe(r) || escapedAlso(r, also):
			b.WriteString(`\u{`)
			writeHex(&b, r, 4)
			b.WriteByte('}')
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// plain reports whether text(s, also, double) is s: printable ASCII (or
// other safe runes) with nothing of also and, if double, no backslash.
func plain(s, also string, double bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7F || double && c == '\\' || strings.IndexByte(also, c) >= 0 {
			return Safe(s) && !(double && strings.ContainsRune(s, '\\')) && !containsAlso(s, also)
		}
	}
	return true
}

func containsAlso(s, also string) bool {
	for _, r := range s {
		if escapedAlso(r, also) {
			return true
		}
	}
	return false
}

// escapedAlso reports whether the caller asked for r to be escaped. Only
// ASCII punctuation and space qualify: a letter or digit there would break
// the escapes themselves, and a backslash is handled by the doubling rule.
func escapedAlso(r rune, also string) bool {
	return r < 0x7F && r != '\\' && (r == ' ' || unicode.IsPunct(r) || unicode.IsSymbol(r)) && strings.ContainsRune(also, r)
}

// opensEscape reports whether rest, the input after a backslash, would make
// that backslash read as the start of an escape once rest is rendered: it
// begins with a rune rendered as an escape (which starts with a backslash),
// with a backslash, with t, n or r, or with "u{" or "x{".
func opensEscape(rest, also string) bool {
	if rest == "" {
		return false
	}
	r, n := utf8.DecodeRuneInString(rest)
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\\', r == 't', r == 'n', r == 'r':
		return true
	case r == 'u' || r == 'x':
		return len(rest) > 1 && rest[1] == '{'
	}
	return Unsafe(r) || escapedAlso(r, also)
}

const hexDigits = "0123456789ABCDEF"

// writeHex writes r in upper-case hex, zero-padded to width digits.
func writeHex(b *strings.Builder, r rune, width int) {
	var buf [8]byte
	i := len(buf)
	for r > 0 || len(buf)-i < width {
		i--
		buf[i] = hexDigits[r&0xF]
		r >>= 4
	}
	b.Write(buf[i:])
}
