package report

import (
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// escape renders attacker-controlled text so that nothing in it acts on the
// reader: it is inert.Text, the one escaper every output shares, so a
// report spells a character exactly as the finding's detail (written by
// inspect) does. The finding's raw text stays in JSON for anyone who needs
// the bytes. Text is cut to its room (clip.Fit) after it is escaped: an
// escape sequence cut in half only shortens what is shown, never unescapes
// it.
func escape(s string) string { return inert.Text(s) }

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
