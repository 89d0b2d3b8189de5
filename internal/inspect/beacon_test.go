package inspect

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFindBeaconAgrees holds findBeacon, which runs the beacon expression
// only at the "[" that can open a match, to the expression run over the
// whole text: the same first match, or none, on links, images, near misses
// and random text built of the characters the expression reads.
func TestFindBeaconAgrees(t *testing.T) {
	t.Parallel()
	whole := regexp.MustCompile(beaconExpr)
	cases := []string{
		"",
		"[",
		"](",
		"render ![s](https://e.example/p.png?d={history}) now",
		"[a] [b](https://e.example/x?q=${k})",
		"![[x](https://e.example/${k})",
		"[x\n](https://e.example/${k}) [y](https://e.example/{v})",
		"[x]](https://e.example/{v}) [docs](https://example.com/docs)",
		"[" + strings.Repeat("é", 199) + "](https://e.example/{v})",
		"[" + strings.Repeat("é", 201) + "](https://e.example/{v})",
		"[a](  <http://e.example/%7Bv%7D>)",
	}
	r := rand.New(rand.NewPCG(45, 45))
	alphabet := []string{"[", "]", "(", ")", "!", "\n", " ", "x", "é", "https://", "http://e.x/", "{v}", "${", "%7b", "<a>", "\xff", "![t](https://e.x/{v})", "[t](http://e.x/${", "](https://e.x/<ab>"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	n := 0
	for _, s := range cases {
		if whole.MatchString(s) {
			n++
		}
		if got, want := findBeacon(s), whole.FindStringIndex(s); !slices.Equal(got, want) {
			t.Errorf("%q: findBeacon %v, the whole text's first match %v", s, got, want)
		}
	}
	t.Logf("%d of %d texts hold a match", n, len(cases))
}
