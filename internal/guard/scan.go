package guard

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
)

// The guard looks at every line twice as often as a client does, so it does
// not decode messages into maps: it reads each line once through the
// project's one token reader (jsontok), and hands back the byte spans of
// the few members that need a look (id, method, params, result).
// Everything else is only validated and forwarded as it came.

// member is one member of a JSON object: its key as decoded and folded, and
// the exact bytes of its value.
type member struct {
	key  string // decoded key
	fold string // fold(key): how a case-insensitive decoder matches it
	val  []byte
	off  int // offset of val in the scanned bytes
	koff int // offset of the key's opening quote
}

// errSyntax marks input that is not one JSON value.
var errSyntax = errors.New("not JSON")

func syntaxErr(err error) error {
	return fmt.Errorf("%w: %v", errSyntax, err)
}

// decodeKey decodes a member name as ReadValue returned it. A name without
// escapes is its bytes as they are (invalid UTF-8 included), one with
// escapes is decoded as encoding/json decodes it.
func decodeKey(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	return string(jsontok.AppendString(nil, raw))
}

// firstByte is the first byte after leading whitespace, or 0.
func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// objectMembers validates b as one JSON object and returns its members.
// Two keys that fold to the same string are refused: encoding/json (and so
// the Go SDK's typed client) matches keys case-insensitively with Unicode
// folding and keeps the last, other decoders keep the first or match
// exactly, so `"result"` beside `"Result"` or `"reſult"` would let the
// guard check one answer and a client read another.
func objectMembers(b []byte) ([]member, error) {
	if firstByte(b) != '{' {
		return nil, fmt.Errorf("%w: expected an object", errSyntax)
	}
	d := jsontok.Get(b)
	defer jsontok.Put(d)
	if _, err := d.ReadToken(); err != nil {
		return nil, syntaxErr(err)
	}
	// Most objects the guard splits are messages, results and definitions
	// of three or four members: one allocation instead of three.
	ms := make([]member, 0, 4)
	for d.PeekKind() != '}' {
		k, koff, err := d.ReadSpan()
		if err != nil {
			return nil, syntaxErr(err)
		}
		v, off, err := d.ReadSpan()
		if err != nil {
			return nil, syntaxErr(err)
		}
		key := decodeKey(k)
		ms = append(ms, member{key: key, fold: fold(key), val: v, off: off, koff: koff})
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, syntaxErr(err)
	}
	if err := d.End(); err != nil {
		return nil, syntaxErr(err)
	}
	for i := 1; i < len(ms); i++ {
		for j := 0; j < i; j++ {
			if ms[i].fold == ms[j].fold {
				return nil, fmt.Errorf("%w: key %q given twice (as %q and %q): decoders disagree on which one counts", errAmbiguous, ms[i].key, ms[j].key, ms[i].key)
			}
		}
	}
	return ms, nil
}

// errAmbiguous marks JSON that different clients read differently.
var errAmbiguous = errors.New("ambiguous JSON")

// arrayElems validates b as one JSON array and returns its elements.
func arrayElems(b []byte) ([][]byte, error) {
	if firstByte(b) != '[' {
		return nil, fmt.Errorf("%w: expected an array", errSyntax)
	}
	d := jsontok.Get(b)
	defer jsontok.Put(d)
	if _, err := d.ReadToken(); err != nil {
		return nil, syntaxErr(err)
	}
	var out [][]byte
	for d.PeekKind() != ']' {
		v, _, err := d.ReadSpan()
		if err != nil {
			return nil, syntaxErr(err)
		}
		out = append(out, v)
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, syntaxErr(err)
	}
	if err := d.End(); err != nil {
		return out, syntaxErr(err)
	}
	return out, nil
}

// get returns the value of the member whose key folds to want's fold.
// Callers pass keys in their exact spelling; the lookup is by fold so the
// guard sees what the most permissive client sees.
func get(ms []member, want string) ([]byte, bool) {
	f := fold(want)
	for _, m := range ms {
		if m.fold == f {
			return m.val, true
		}
	}
	return nil, false
}

// fold maps a key to the representative of its Unicode simple-folding
// orbit, the relation bytes.EqualFold (and encoding/json's key matching)
// uses: fold("Result") == fold("reſult") == fold("result").
func fold(k string) string {
	ascii := true
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		// Every ASCII letter's orbit has its upper case as the smallest
		// member (K/k/U+212A, S/s/U+017F included).
		var buf [64]byte
		b := buf[:0]
		for i := 0; i < len(k); i++ {
			c := k[i]
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			b = append(b, c)
		}
		return string(b)
	}
	out := make([]rune, 0, len(k))
	for _, r := range k {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < m {
				m = f
			}
		}
		out = append(out, m)
	}
	return string(out)
}

// jsonString decodes a JSON string value.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || !jsontok.Valid(raw) {
		return "", false
	}
	return string(jsontok.AppendString(nil, raw)), true
}
