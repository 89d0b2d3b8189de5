package inert

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShellWord is s as one shell word that means exactly s: as is when it is
// plain, single-quoted when it is printable, and in ANSI-C quoting
// ($'...', bash, zsh and ksh) with escapes when it holds characters a
// terminal would act on or hide. Either way it is inert: pasted, it
// expands nothing; printed, it moves no cursor. (A name holding NUL cannot
// be one argument of any command; its word is inert and names less.)
func ShellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r == '@' || r == '/' || r == ':' || r == '+' || r == ',' || r == '=' || unicode.IsLetter(r) && r < 128 || unicode.IsDigit(r) && r < 128) {
			plain = false
		}
	}
	if plain {
		return s
	}
	if Safe(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02X`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case Unsafe(r):
			if r <= 0xFFFF {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				fmt.Fprintf(&b, `\U%08X`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}
