// Package clip shortens text that a message quotes (a stdout line, a
// cursor, a resource uri, a prompt's answer) to a length a note or an
// error can carry.
package clip

import "unicode/utf8"

// Bytes returns s when it is at most n bytes long, and otherwise its first
// n bytes or fewer, cut at a rune boundary so no rune is split, with "..."
// after them to mark the cut.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
