// Package clip shortens text that a message quotes (a stdout line, a
// cursor, a resource uri, a prompt's answer, a tool's name, a sentence of
// a description) to a length a note, an error or a report can carry, never
// splitting a rune.
//
// The limits differ in what they count, because the places differ in what
// bounds them: [Bytes] counts bytes and marks a cut with "...", for text
// quoted in notes and errors whose size is what matters; [Runes] counts
// the runes kept, and marks a cut with "…" after them, for text a finding
// or a report shows a person; [Fit] counts the room the text is given, the
// mark included, for a report's columns and regions, which have a width;
// [Tail] keeps the end of a tool's output, where its error is.
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

// Runes returns s when it has at most n runes, and otherwise its first n
// runes with "…" after them to mark the cut (n+1 runes in all).
func Runes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Fit returns s when it has at most n runes, and otherwise its first n-1
// runes and "…": at most n runes in all, the mark included, for a column or
// a region n runes wide. A limit of 0 or less is no limit.
func Fit(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return Runes(s, n-1)
}

// Tail returns s when it is at most n bytes long, and otherwise its last n
// bytes or fewer, cut at a rune boundary: what a failed command (npm, a
// container runtime) printed last says why it failed, after pages of
// progress. No mark: the error quoting it says what it is.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - max(n, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
