package report

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// contextWords is how many unchanged words a word diff keeps on each side of
// a change; longer unchanged runs are cut to "…".
const contextWords = 8

// wordDiff renders a word-level diff of before and after as the lines of a
// `diff` block: " " unchanged words, "-" removed, "+" added. Both texts are
// escaped first, so a newline or a hidden character is a visible word part
// and every output line is single-line, printable text.
//
// A description is one paragraph more often than many lines, so a line diff
// would show the whole text twice for one inserted sentence; splitting on
// spaces and diffing the words (go-udiff's LCS over word "lines") shows the
// sentence.
func wordDiff(before, after string) []string { return wordDiffContext(before, after, contextWords) }

// wordDiffContext is wordDiff keeping keep unchanged words on each side of
// a change; keep < 0 keeps them all, so the whole before and after can be
// read from the diff.
func wordDiffContext(before, after string, keep int) []string {
	a := splitWords(escape(before))
	b := splitWords(escape(after))
	switch {
	case len(a) == 0 && len(b) == 0:
		return nil
	case len(a) == 0:
		return []string{"+" + strings.Join(b, " ")}
	case len(b) == 0:
		return []string{"-" + strings.Join(a, " ")}
	}
	diffs := lcs.DiffLines(a, b)
	if len(diffs) == 0 {
		return []string{" " + strings.Join(a, " ")}
	}
	var out []string
	context := func(words []string, first, last bool) {
		if len(words) == 0 {
			return
		}
		switch {
		case keep < 0:
		case first && len(words) > keep:
			words = append([]string{"…"}, words[len(words)-keep:]...)
		case last && len(words) > keep:
			words = append(words[:keep:keep], "…")
		case !first && !last && len(words) > 2*keep+1:
			words = append(append(words[:keep:keep], "…"), words[len(words)-keep:]...)
		}
		out = append(out, " "+strings.Join(words, " "))
	}
	pos := 0
	for i, d := range diffs {
		context(a[pos:d.Start], i == 0, false)
		if d.End > d.Start {
			out = append(out, "-"+strings.Join(a[d.Start:d.End], " "))
		}
		if d.ReplEnd > d.ReplStart {
			out = append(out, "+"+strings.Join(b[d.ReplStart:d.ReplEnd], " "))
		}
		pos = d.End
	}
	context(a[pos:], false, true)
	return out
}

// splitWords splits escaped text on spaces. Runs of spaces are kept as empty
// words, so a doubled space is still a difference.
func splitWords(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}
