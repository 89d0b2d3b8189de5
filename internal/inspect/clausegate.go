package inspect

import (
	"bytes"
	"regexp"
	"sync"
)

// Each class is a few RE2 expressions, and RE2 pays for every byte of every
// clause it is run on. Most clauses hold none of the words an expression
// needs, so each expression carries the words at least one of which every
// match contains (its gate): a clause is cut into words once, the words'
// gates are OR-ed into a mask, and an expression runs only where its gate
// is in the mask. A gate that leaves out a word an expression can match
// with is a match missed; the tests of each class hold the gates to their
// expressions.

// gate is an expression with its gate bits: one per word list it needs,
// each kept as the mask word it is in and the bit (w1 and b1 for the
// first list, w2 and b2 for the second; the same for a gate of one list),
// so that a clause's mask is tested with two ANDs.
type gate struct {
	w1, w2 uint8
	b1, b2 uint64
	re     func() *regexp.Regexp
	// pre is prefilter(expr): a clause holding none of its strings
	// holds no match.
	pre func() [][]byte
	// word, when set, is what the expression's first group must be for
	// a match to count: a word list too long for an alternation (the
	// backtracker tries each word at each place) is looked up instead.
	word map[string]bool
	// find, when set, finds the match word by word instead of an
	// expression.
	find func(c []byte) []int
}

// findIn is x's first match in clause c, whose gates are open for x.
func (x *gate) findIn(c []byte) []int {
	if x.find != nil {
		return x.find(c)
	}
	if pre := x.pre(); pre != nil && !holdsAny(c, pre) {
		return nil
	}
	if x.word == nil {
		return x.re().FindIndex(c)
	}
	for _, m := range x.re().FindAllSubmatchIndex(c, -1) {
		if m[2] >= 0 && x.word[string(c[m[2]:m[3]])] {
			return m[:2]
		}
	}
	return nil
}

// matches reports whether x matches clause c, whose gates are open for x.
func (x *gate) matches(c []byte) bool {
	if x.word != nil || x.find != nil {
		return x.findIn(c) != nil
	}
	if pre := x.pre(); pre != nil && !holdsAny(c, pre) {
		return false
	}
	return x.re().Match(c)
}

// withFind is x found by f instead of its expression.
func (x gate) withFind(f func(c []byte) []int) gate {
	x.find = f
	return x
}

// withWord is x matching only where its first group is one of words.
func (x gate) withWord(words []string) gate {
	x.word = make(map[string]bool, len(words))
	for _, w := range words {
		x.word[w] = true
	}
	return x
}

// newGate is the gate of the word lists whose bits are a and b.
func newGate(a, b mask, expr string) gate {
	g := gate{re: lazyRegexp(expr), pre: lazyPrefilter(expr)}
	g.w1, g.b1 = a.single()
	g.w2, g.b2 = b.single()
	return g
}

// single is the word and the bit of a mask holding one bit.
func (m mask) single() (uint8, uint64) {
	for i, w := range m {
		if w != 0 {
			return uint8(i), w
		}
	}
	panic("inspect: a gate with no bit")
}

// gateLists is each gating word list (space-separated) with its bit,
// given once. Splitting the lists into words waits for the first clause
// (gateWords): this package is linked into the sandbox helper, which is
// re-executed for every launch and must not pay for tables it never uses.
var (
	gateLists = map[string]mask{}
	gateCount uint
	gatesDone bool // set once gateWords is built: no gate may register after
)

// gateWords maps each gating word to the gates it opens. Some words are
// punctuation a match needs: "<", "[", "`", "|", ">", "@", "+", "#", "$".
var gateWords = sync.OnceValue(func() map[string]mask {
	gatesDone = true
	words := map[string]mask{}
	for list, bit := range gateLists {
		for _, w := range splitWords(list) {
			words[w] = words[w].or(bit)
		}
	}
	return words
})

// gated registers expr behind the words of words (space-separated).
func gated(words, expr string) gate {
	b := gateBit(words)
	return newGate(b, b, expr)
}

// gated2 registers expr behind two lists: a clause needs a word of each,
// for an expression whose every match holds a word of both (a common verb
// and a rarer noun).
func gated2(words, more, expr string) gate {
	return newGate(gateBit(words), gateBit(more), expr)
}

// gateBit is the bit of a word list: a new one, given to each of its
// words, unless the same list has one already.
func gateBit(words string) mask {
	if b, ok := gateLists[words]; ok {
		return b
	}
	if gatesDone {
		panic("inspect: a gate registered after the first clause was read")
	}
	if gateCount == 64*uint(len(mask{})) {
		panic("inspect: more gate word lists than a mask holds")
	}
	var bit mask
	bit[gateCount/64] = 1 << (gateCount % 64)
	gateCount++
	gateLists[words] = bit
	return bit
}

func splitWords(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, s[i:j])
		}
		i = j
	}
	return out
}

// mask is the set of gate bits a clause opens.
type mask [10]uint64

func (m mask) or(o mask) mask {
	return mask{m[0] | o[0], m[1] | o[1], m[2] | o[2], m[3] | o[3], m[4] | o[4], m[5] | o[5], m[6] | o[6], m[7] | o[7], m[8] | o[8], m[9] | o[9]}
}

// gateTable is gateWords as an open-addressed table of indexes into
// masks: every word of every clause is looked up, and a Go map's lookup is
// most of a short word's cost. Built on first use, after every gate has
// registered its words.
var gateTable = sync.OnceValues(func() (wordTable, []mask) {
	idx := map[string]uint64{}
	var masks []mask
	for w, m := range gateWords() {
		masks = append(masks, m)
		idx[w] = uint64(len(masks))
	}
	return newWordTable(idx), masks
})

// lookup is the gates of word.
func lookup(t *wordTable, masks []mask, word []byte) mask {
	if i := t.get(word); i > 0 {
		return masks[i-1]
	}
	return mask{}
}

// has reports whether g's gate is open in m. Both by pointer: the checks
// run tens of thousands of times a page, and copying a gate into each made
// the copies, not the two ANDs, their cost.
func (m *mask) has(g *gate) bool {
	return m[g.w1]&g.b1 != 0 && m[g.w2]&g.b2 != 0
}

// anyOf reports whether one of gs is open, for a judgement several
// expressions share.
func (m *mask) anyOf(gs []gate) bool {
	for i := range gs {
		if m.has(&gs[i]) {
			return true
		}
	}
	return false
}

// gateMask cuts folded text c into words (runs of letters, digits and '_')
// and ORs their gates, with the punctuation gates and two shapes no word
// list holds: a word starting "ai_" or "_ai_" (a JSON key addressed to the
// model) and digits followed by a dot and a digit (an IP address).
func gateMask(c []byte) mask {
	t, masks := gateTable()
	var m mask
	for i := 0; i < len(c); {
		ch := c[i]
		if !isGateWordByte(ch) {
			switch ch {
			case '<', '[', '`', '|', '>', '@', '+', '#', '$':
				m = m.or(lookup(&t, masks, c[i:i+1]))
			}
			i++
			continue
		}
		j := i + 1
		for j < len(c) && isGateWordByte(c[j]) {
			j++
		}
		w := c[i:j]
		m = m.or(lookup(&t, masks, w))
		// A word that a file name or a variable makes rare: ".profile",
		// "/etc", "$path", "mcp.json".
		if i > 0 && (c[i-1] == '.' || c[i-1] == '/' || c[i-1] == '$') {
			m = m.or(lookup(&t, masks, c[i-1:j]))
		}
		if j+5 <= len(c) && string(c[j:j+5]) == ".json" {
			m = m.or(lookup(&t, masks, c[i:j+5]))
		}
		// A variable named for a secret (ci_deploy_key), and a fetch
		// of a URL in script ("fetch('https://").
		if len(w) > 4 && bytes.IndexByte(w, '_') > 0 && secretVar(w) {
			m = m.or(gateWords()["_secretvar"])
		}
		if string(w) == "fetch" && j+9 <= len(c) && (string(c[j:j+6]) == "('http" || string(c[j:j+7]) == "(\"http" || string(c[j:j+7]) == "( 'http") {
			m = m.or(gateWords()["fetch_http"])
		}
		switch {
		case len(w) > 3 && (w[0] == 'a' && w[1] == 'i' && w[2] == '_' || w[0] == '_' && w[1] == 'a' && w[2] == 'i' && w[3] == '_'):
			m = m.or(gateWords()["ai_"])
		case w[0] >= '0' && w[0] <= '9' && j+1 < len(c) && c[j] == '.' && c[j+1] >= '0' && c[j+1] <= '9':
			m = m.or(gateWords()["0.0"])
		}
		i = j
	}
	return m
}

func isGateWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
}

// secretVar reports an identifier whose last word names a secret:
// ci_deploy_key, github_token, db_password.
func secretVar(w []byte) bool {
	for _, suffix := range []string{"_key", "_token", "_secret", "_password", "_passwd", "_pat"} {
		if len(w) > len(suffix) && string(w[len(w)-len(suffix):]) == suffix {
			return true
		}
	}
	return false
}
