package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
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
	if reason := ambiguity(raw); reason != "" {
		return Canonical{Bytes: bytes.Clone(raw), SHA256: Sum(raw), Ambiguous: reason}
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		// jcs rejects duplicate keys, lone surrogates and out-of-range
		// numbers: exactly the inputs with no single meaning.
		return Canonical{Bytes: bytes.Clone(raw), SHA256: Sum(raw), Ambiguous: jcsReason(err)}
	}
	return Canonical{Bytes: out, SHA256: Sum(out)}
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

// ambiguity finds what JCS would silently decide: invalid UTF-8 and numbers
// whose canonical ES6 form is a different value than the one sent (integers
// beyond 2^53, over-long fractions). Both would let a server change its text
// without changing its canonical bytes.
func ambiguity(raw []byte) string {
	if !utf8.Valid(raw) {
		return "invalid UTF-8"
	}
	if !json.Valid(raw) {
		return "not valid JSON"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			return "not valid JSON: " + err.Error()
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		if !exactNumber(string(n)) {
			return fmt.Sprintf("number %s cannot be kept exact (IEEE 754 double)", n)
		}
	}
}

// exactNumber reports whether the number literal survives the trip through
// a double and back into ES6 form with the same value.
func exactNumber(lit string) bool {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return false // out of range: jcs rejects it too
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
	if !ok {
		return false
	}
	return want.Cmp(got) == 0
}
