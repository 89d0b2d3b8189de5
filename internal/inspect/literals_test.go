package inspect

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLitSearchFindsEvery holds the automaton to a plain search: every
// occurrence of every word of every set, overlapping ones included, on
// random words and texts over a small alphabet (so that words share
// prefixes and suffixes, and end inside one another).
func TestLitSearchFindsEvery(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(45, 7))
	str := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc d"[r.IntN(5)]
		}
		return b
	}
	for range 300 {
		sets := make([][][]byte, 1+r.IntN(4))
		for i := range sets {
			for range 1 + r.IntN(5) {
				sets[i] = append(sets[i], str(1+r.IntN(4)))
			}
		}
		ls := newLitSearch(sets)
		for range 20 {
			text := str(r.IntN(60))
			got := ls.scan(text, nil)
			for i, set := range sets {
				var want []span
				for a := range text {
					for _, w := range set {
						if bytes.HasPrefix(text[a:], w) && !slices.Contains(want, span{int32(a), int32(a + len(w))}) {
							want = append(want, span{int32(a), int32(a + len(w))})
						}
					}
				}
				g := slices.Clone(got[i])
				cmp := func(x, y span) int {
					if x.a != y.a {
						return int(x.a - y.a)
					}
					return int(x.z - y.z)
				}
				slices.SortFunc(g, cmp)
				slices.SortFunc(want, cmp)
				if !slices.Equal(g, want) {
					t.Fatalf("sets %q, text %q, set %d: found %v, want %v", sets, text, i, g, want)
				}
			}
		}
	}
}
