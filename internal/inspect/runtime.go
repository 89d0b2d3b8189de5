package inspect

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// Controls runs only the two rules that need no judgement,
// hidden-characters and terminal-escape, over every string of s.Raw (keys
// included) and the text encoded in them (see Answer). Those two say what
// the text is, not what it means, so they can refuse a message without a
// human's review: the guard runs them on what it can only refuse or strip,
// the server's notifications, and on what sanitize leaves of a message.
func Controls(s Subject) []finding.Finding {
	return Answer(s, AnswerOptions{ControlsOnly: true})
}

// eachHidden calls fn for every hidden code point of s that the
// hidden-characters rule flags, with the exceptions ordinary text needs (see
// invisible): [i, z) is its byte span, k the number of code points in it
// (a run of variation selectors is one span), cl its class.
func eachHidden(s string, fn func(i, z, k int, cl hiddenClass)) {
	var prev rune // last visible rune
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		cl := classify(c)
		if cl == visible {
			prev = c
			i += n
			continue
		}
		benign := false
		switch {
		case c == 0xFEFF && i == 0:
			benign = true
		case cl == classVariation:
			run, z := 0, i
			for z < len(s) {
				d, m := utf8.DecodeRuneInString(s[z:])
				if classify(d) != classVariation {
					break
				}
				run++
				z += m
			}
			next, _ := utf8.DecodeRuneInString(s[z:])
			// One selector after a symbol, or after a keycap's base
			// (#, *, a digit: a keycap whose U+20E3 a slug dropped), is
			// an emoji's presentation.
			if run == 1 && (next == 0x20E3 || prev >= 0x80 && !unicode.IsSpace(prev) || prev == '#' || prev == '*' || prev >= '0' && prev <= '9') {
				benign = true
			}
			if !benign {
				fn(i, z, run, cl)
			}
			i = z
			continue
		case c == 0x200D || c == 0x200C:
			next, _ := utf8.DecodeRuneInString(s[i+n:])
			if c == 0x200D && isEmoji(prev) && isEmoji(next) {
				benign = true
			}
			if prev >= 0x370 && next >= 0x370 && (unicode.IsLetter(prev) || unicode.Is(unicode.Mn, prev)) && unicode.IsLetter(next) {
				benign = true
			}
		}
		if !benign {
			fn(i, i+n, 1, cl)
		}
		i += n
	}
}

// Strip removes from s what Controls flags: every terminal control
// sequence (ESC, CSI and OSC sequences whole, with their parameters and
// payload, and the other C0/C1 controls but tab, newline and CRLF) and every
// hidden code point but the benign ones. removed says what went, one
// phrase per kind ("14 tag characters spelling "..."", "1 OSC 8
// hyperlink"), escaped for a terminal; it is empty when s is returned
// unchanged.
//
// The guard's --mode sanitize forwards the stripped text: the model then
// reads what a reviewer would see.
func Strip(s string) (clean string, removed []string) {
	type span struct{ a, z int }
	var spans []span
	seqs, _ := terminalSequences(s, math.MaxInt)
	descs := map[string]int{}
	var order []string
	note := func(d string, k int) {
		if _, ok := descs[d]; !ok {
			order = append(order, d)
		}
		descs[d] += k
	}
	for _, q := range seqs {
		spans = append(spans, span{q.start, min(q.end, len(s))})
		note(q.desc, 1)
	}
	tags := false
	eachHidden(s, func(i, z, k int, cl hiddenClass) {
		spans = append(spans, span{i, z})
		note(cl.String(), k)
		tags = tags || cl == classTag
	})
	if len(spans) == 0 {
		return s, nil
	}
	slices.SortFunc(spans, func(x, y span) int { return x.a - y.a })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		if sp.a > at {
			b.WriteString(s[at:sp.a])
		}
		at = max(at, sp.z)
	}
	if at < len(s) {
		b.WriteString(s[at:])
	}
	for _, d := range order {
		phrase := fmt.Sprintf("%d %s", descs[d], d)
		if d == classTag.String() && tags {
			if t := DecodeTags(s); t != "" {
				phrase += fmt.Sprintf(` spelling "%s"`, clip.Runes(inert.Text(t), messageLimit))
			}
		}
		removed = append(removed, phrase)
	}
	return b.String(), removed
}
