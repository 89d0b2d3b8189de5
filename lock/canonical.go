package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Canonical is a definition in the form the lock binds approval to.
type Canonical struct {
	// Bytes is the RFC 8785 (JCS) form of the definition, or, when the
	// definition is ambiguous, the raw bytes exactly as received.
	Bytes []byte
	// SHA256 is the lowercase hex sha256 of Bytes.
	SHA256 string
	// Ambiguous is empty for JSON with a single meaning; otherwise it says
	// why two clients may read the definition two ways (duplicate keys,
	// lone surrogates, invalid UTF-8, a number JCS cannot keep exact).
	Ambiguous string
}

// Canonicalize puts a definition into canonical form.
//
// JCS keeps every field and the exact code points of every string (no
// Unicode normalization: NFC and NFD differ), sorts keys and writes numbers
// in ES6 form, so a server that reformats or reorders its JSON is not
// drift while one changed code point is. JSON that JCS cannot represent
// without choosing a meaning is kept byte for byte and marked Ambiguous.
func Canonicalize(raw []byte) Canonical {
	raw = bytes.TrimSpace(raw)
	if !utf8.Valid(raw) {
		return Canonical{Bytes: bytes.Clone(raw), SHA256: Sum(raw), Ambiguous: "invalid UTF-8"}
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		// jcs rejects duplicate keys, lone surrogates and out-of-range
		// numbers: exactly the inputs with no single meaning (and syntax
		// errors, which have none).
		return Canonical{Bytes: bytes.Clone(raw), SHA256: Sum(raw), Ambiguous: jcsReason(err)}
	}
	if reason := inexactNumber(raw); reason != "" {
		return Canonical{Bytes: bytes.Clone(raw), SHA256: Sum(raw), Ambiguous: reason}
	}
	return Canonical{Bytes: out, SHA256: Sum(out)}
}

// CanonicalizeOptional is Canonicalize for a value that may be absent
// (instructions, capabilities): blank raw is the zero Canonical, which
// compares equal only to another absent value.
func CanonicalizeOptional(raw []byte) Canonical {
	if len(bytes.TrimSpace(raw)) == 0 {
		return Canonical{}
	}
	return Canonicalize(raw)
}

// Sum is the lowercase hex sha256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func jcsReason(err error) string {
	msg := err.Error()
	switch {
	case bytes.Contains([]byte(msg), []byte("uplicate")):
		return "duplicate object key: " + msg
	case bytes.Contains([]byte(msg), []byte("urrogate")):
		return "lone surrogate: " + msg
	}
	return msg
}

// inexactNumber finds what JCS would silently decide: numbers whose
// canonical ES6 form is a different value than the one sent (integers
// beyond 2^53, over-long fractions), which would let a server change its
// text without changing its canonical bytes. raw must be valid JSON.
func inexactNumber(raw []byte) string {
	// The JSON is valid, so outside strings every run of number characters
	// is one number literal.
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j := i
			for j < len(raw) && isNumberByte(raw[j]) {
				j++
			}
			if lit := raw[i:j]; !shortInteger(lit) && !exactNumber(string(lit)) {
				return fmt.Sprintf("number %s cannot be kept exact (IEEE 754 double)", lit)
			}
			i = j - 1
		}
	}
	return ""
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// shortInteger is the fast path: an integer of at most 15 digits is exact
// in a double.
func shortInteger(lit []byte) bool {
	if len(lit) > 0 && lit[0] == '-' {
		lit = lit[1:]
	}
	if len(lit) == 0 || len(lit) > 15 {
		return false
	}
	for _, c := range lit {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// exactNumber reports whether the number literal survives the trip through
// a double and back into ES6 form with the same value. The two values are
// compared as normalized decimals, in time linear in the literal: big.Rat
// needs 10^|exponent| and a quadratic decimal scan, so a 9-byte literal
// (1e-999999) cost 20 ms and a 1 MB one seconds (see worst_test.go).
func exactNumber(lit string) bool {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return false // out of range: jcs rejects it too
	}
	es6, err := jcs.NumberToJSON(f)
	if err != nil {
		return false
	}
	wantDigits, wantExp, ok := decimal(lit)
	if !ok {
		return false
	}
	gotDigits, gotExp, ok := decimal(es6)
	return ok && wantDigits == gotDigits && wantExp == gotExp
}

// decimal splits a number literal into its significant digits (no leading
// or trailing zeros, "-" in front when negative) and the power of ten of
// the last one: "-12.50e3" is ("-125", 2). Zero is ("", 0) whatever its
// sign or exponent. ok is false for an exponent too large for any finite
// nonzero double with a literal that fits in memory.
func decimal(lit string) (digits string, exp int64, ok bool) {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, e := lit, ""
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant, e = lit[:i], lit[i+1:]
	}
	whole, frac, _ := strings.Cut(mant, ".")
	d := strings.TrimLeft(whole+frac, "0")
	if d == "" {
		return "", 0, true
	}
	digits = strings.TrimRight(d, "0")
	exp = int64(len(d)-len(digits)) - int64(len(frac))
	if e != "" {
		sign := int64(1)
		if e[0] == '-' || e[0] == '+' {
			if e[0] == '-' {
				sign = -1
			}
			e = e[1:]
		}
		if e = strings.TrimLeft(e, "0"); e != "" {
			if len(e) > 15 {
				return "", 0, false
			}
			n, err := strconv.ParseInt(e, 10, 64)
			if err != nil {
				return "", 0, false
			}
			exp += sign * n
		}
	}
	if neg {
		digits = "-" + digits
	}
	return digits, exp, true
}
