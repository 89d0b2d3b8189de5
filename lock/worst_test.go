package lock

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// ratExact is the exactness test Canonicalize used before: both values as
// big.Rat. It is the reference for the linear decimal comparison, on
// literals short enough for big.Rat to be quick.
func ratExact(lit string) bool {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return false
	}
	want, ok := new(big.Rat).SetString(lit)
	if !ok {
		return false
	}
	es6, err := jcs.NumberToJSON(f)
	if err != nil {
		return false
	}
	got, ok := new(big.Rat).SetString(es6)
	return ok && want.Cmp(got) == 0
}

var numberLiterals = []string{
	"0", "-0", "0.0", "0e5", "-0.000e-7", "1", "-1", "1.0", "1.5", "0.1", "1e2", "1E+2", "100e-2", "1.25e-1",
	"9007199254740992", "9007199254740993", "123456789012345678", "1e21", "1e22", "1e23", "1.7976931348623157e308",
	"5e-324", "4.9406564584124654e-324", "1e-400", "1e-999999", "0.30000000000000004", "0.3000000000000000444",
	"-12.50e3", "10000000000000000000000", "1e0000000000000000000000001", "0e-99999999999999999999",
	"1e-99999999999999999999", "2.5E-0", "0.000001", "1e-7", "123.456",
}

// TestExactNumberMatchesRat holds the linear comparison to the big.Rat one.
// Where big.Rat refuses the literal (an exponent beyond 1e6) the old test
// said inexact; the decimal one still knows a zero is zero.
func TestExactNumberMatchesRat(t *testing.T) {
	t.Parallel()
	refused := map[string]bool{"0e-99999999999999999999": true}
	for _, lit := range numberLiterals {
		want := ratExact(lit)
		if refused[lit] {
			want = true
		}
		if got := exactNumber(lit); got != want {
			t.Errorf("exactNumber(%q) = %v, big.Rat says %v", lit, got, want)
		}
	}
}

// FuzzExactNumber: on any JSON number literal short enough for big.Rat,
// the linear comparison agrees with it.
func FuzzExactNumber(f *testing.F) {
	for _, lit := range numberLiterals {
		f.Add(lit)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if len(lit) > 64 || !isNumberLiteral(lit) {
			return
		}
		if got, want := exactNumber(lit), ratExact(lit); got != want {
			t.Fatalf("exactNumber(%q) = %v, big.Rat says %v", lit, got, want)
		}
	})
}

// isNumberLiteral reports whether s is one JSON number and, to keep
// big.Rat quick, has an exponent of at most four digits.
func isNumberLiteral(s string) bool {
	v := strings.TrimPrefix(s, "-")
	whole, rest := v, ""
	if i := strings.IndexAny(v, ".eE"); i >= 0 {
		whole, rest = v[:i], v[i:]
	}
	if whole == "" || !allDigits(whole) || len(whole) > 1 && whole[0] == '0' {
		return false
	}
	if strings.HasPrefix(rest, ".") {
		frac := rest[1:]
		if i := strings.IndexAny(frac, "eE"); i >= 0 {
			frac, rest = frac[:i], frac[i:]
		} else {
			rest = ""
		}
		if frac == "" || !allDigits(frac) {
			return false
		}
	}
	if rest == "" {
		return true
	}
	e := strings.TrimLeft(rest[1:], "+-")
	return len(rest[1:])-len(e) <= 1 && e != "" && len(e) <= 4 && allDigits(e)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// worstDefinitions are the inputs that cost Canonicalize the most per byte,
// built at a given size in bytes: deep nesting, number literals JCS cannot
// keep (long, or short with an exponent big.Rat had to expand), and
// strings made of escapes.
var worstDefinitions = []struct {
	name  string
	build func(n int) []byte
}{
	{"nested-arrays", func(n int) []byte { return []byte(strings.Repeat("[", n/2) + strings.Repeat("]", n/2)) }},
	{"nested-objects", func(n int) []byte {
		return []byte(strings.Repeat(`{"a":`, n/6) + "1" + strings.Repeat("}", n/6))
	}},
	{"long-number", func(n int) []byte { return []byte("1" + strings.Repeat("0", n) + "e-" + strconv.Itoa(n)) }},
	{"long-fraction", func(n int) []byte { return []byte("0." + strings.Repeat("0", n) + "1e" + strconv.Itoa(n+1)) }},
	{"underflow-numbers", func(n int) []byte {
		// Exact zeros with huge exponents, then one that is not: every
		// literal is checked before the last decides.
		return []byte("[" + strings.Repeat("0e-999999,", n/10) + "1e-999999]")
	}},
	{"escapes", func(n int) []byte { return []byte(`"` + strings.Repeat(`\u00e9\n\ud83d\ude00`, n/20) + `"`) }},
	{"many-keys", func(n int) []byte {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, `"k%d":%d.5e-3,`, n-i, i)
		}
		b.WriteString(`"z":0}`)
		return []byte(b.String())
	}},
}

// BenchmarkWorstCaseCanonicalize runs each worst input at 100 KB and at
// 1 MB: ns/op must grow about 10x, not more.
func BenchmarkWorstCaseCanonicalize(b *testing.B) {
	for _, w := range worstDefinitions {
		for _, size := range []int{100 << 10, 1 << 20} {
			raw := w.build(size)
			b.Run(fmt.Sprintf("%s/%dKB", w.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					Canonicalize(raw)
				}
			})
		}
	}
}

// BenchmarkWorstCaseTinyNumber is the amplification case: a 9-byte number
// literal, repeated in every definition of a large manifest.
func BenchmarkWorstCaseTinyNumber(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		defs := make([][]byte, n)
		for i := range defs {
			defs[i] = []byte(fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object","minimum":1e-999999}}`, i))
		}
		b.Run(fmt.Sprintf("defs=%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, d := range defs {
					Canonicalize(d)
				}
			}
		})
	}
}
