package inspect

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// confusables maps common look-alikes of Latin letters to the letter they
// imitate, keeping case. golang.org/x/text has no UTS #39 confusables table,
// and the full table (thousands of entries, many-to-many) is more than a
// name check needs: attacks use the handful of Cyrillic and Greek letters
// that are pixel-identical to Latin in the fonts reviewers read with.
// Fullwidth, mathematical and other compatibility forms are not listed
// because NFKD already maps them to ASCII before this table is consulted.
var confusables = map[rune]rune{
	// Cyrillic lower case.
	'а': 'a', 'в': 'b', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'к': 'k',
	'ӏ': 'l', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'ѕ': 's', 'с': 'c', 'у': 'y',
	'х': 'x', 'ԁ': 'd', 'ԝ': 'w', 'ѵ': 'v', 'ү': 'y', 'ɡ': 'g',
	// Cyrillic upper case.
	'А': 'A', 'В': 'B', 'Е': 'E', 'Н': 'H', 'І': 'I', 'Ј': 'J', 'К': 'K',
	'М': 'M', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'У': 'Y',
	'Ѕ': 'S', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ӏ': 'I',
	// Greek lower case.
	'α': 'a', 'ο': 'o', 'ν': 'v', 'ρ': 'p', 'ι': 'i', 'κ': 'k', 'υ': 'u',
	'χ': 'x', 'γ': 'y',
	// Greek upper case.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K',
	'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Latin letters that are not ASCII but read as ASCII.
	'ı': 'i', 'ɑ': 'a', 'ɩ': 'i', 'ℓ': 'l',
	// Armenian.
	'օ': 'o', 'ս': 'u', 'հ': 'h',
}

// isHorizSpace and friends: whitespace is collapsed before matching so a
// phrase split by runs of spaces, tabs or newlines still matches.
func isSpaceRune(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return r > 0x7F && unicode.IsSpace(r)
}

// folder prepares text for matching into reusable buffers: text[i] came
// from the rune at byte off[i] of the original (off only when asked for).
// One folder is reused for every string of a definition, so folding
// allocates nothing in the steady state.
type folder struct {
	text        []byte
	off         []int32
	space       bool
	wantOffsets bool
}

// fold prepares s for matching: invisible code points (Cf, tags, zero-width,
// bidi, variation selectors, other default-ignorables, private use) and
// controls are dropped so a word split by them joins again; compatibility
// forms are decomposed (NFKD: fullwidth, mathematical letters, ligatures
// become ASCII) and combining marks dropped so decorated letters match;
// look-alike letters are folded to Latin; the result is lower-cased;
// markdown emphasis '*' is dropped; and runs of whitespace become one space.
//
// The brief for this package names NFKC; NFKD gives the same compatibility
// mapping and, with marks dropped, also defeats "ìgnore" with a combining
// accent, which composition would keep as a different letter.
func (f *folder) fold(s string, withOffsets bool) []byte {
	f.text, f.off, f.space, f.wantOffsets = f.text[:0], f.off[:0], true, withOffsets
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii && !withOffsets {
		// The common case, a table lookup a byte: every answer of a
		// guarded session is folded, and most are ASCII prose.
		f.text = slices.Grow(f.text, len(s))
		space := f.space
		for i := 0; i < len(s); i++ {
			m := asciiFold[s[i]]
			switch m {
			case 0:
				continue
			case ' ':
				if space {
					continue
				}
				space = true
			default:
				space = false
			}
			f.text = append(f.text, m)
		}
		f.space = space
		return f.text
	}
	if ascii {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				// The common case, inline.
				f.space = false
				f.text = append(f.text, c)
				if f.wantOffsets {
					f.off = append(f.off, int32(i))
				}
			default:
				f.rune(rune(c), i)
			}
		}
		return f.text
	}
	// Walk normalization segments so every output rune can be traced back to
	// the segment of input that produced it.
	var it norm.Iter
	it.InitString(norm.NFKD, s)
	for !it.Done() {
		at := it.Pos()
		seg := it.Next()
		for len(seg) > 0 {
			r, n := utf8.DecodeRune(seg)
			seg = seg[n:]
			if r == utf8.RuneError && n == 1 {
				continue
			}
			f.rune(r, at)
		}
	}
	return f.text
}

// asciiFold is what folder.rune makes of each ASCII byte: lower case, one
// space for every blank, 0 for what is dropped ('*', controls).
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch r := rune(c); {
		case r == '*':
		case isSpaceRune(r):
			t[c] = ' '
		case r < 0x20 || r == 0x7F:
		case 'A' <= r && r <= 'Z':
			t[c] = byte(r + 'a' - 'A')
		default:
			t[c] = byte(r)
		}
	}
	return t
}()

func (f *folder) emit(c byte, at int) {
	if c == ' ' {
		if f.space {
			return
		}
		f.space = true
	} else {
		f.space = false
	}
	f.text = append(f.text, c)
	if f.wantOffsets {
		f.off = append(f.off, int32(at))
	}
}

func (f *folder) rune(r rune, at int) {
	if r < utf8.RuneSelf {
		switch {
		case r == '*':
		case isSpaceRune(r):
			f.emit(' ', at)
		case r < 0x20 || r == 0x7F:
			// Other controls join the words they split.
		case 'A' <= r && r <= 'Z':
			f.emit(byte(r+'a'-'A'), at)
		default:
			f.emit(byte(r), at)
		}
		return
	}
	if isSpaceRune(r) {
		f.emit(' ', at)
		return
	}
	if r <= 0x9F || classify(r) != visible || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
		return
	}
	if c, ok := confusables[r]; ok {
		r = c
	}
	r = unicode.ToLower(r)
	if c, ok := confusables[r]; ok {
		r = c
	}
	if r < utf8.RuneSelf {
		f.emit(byte(r), at)
		return
	}
	f.space = false
	n := len(f.text)
	f.text = utf8.AppendRune(f.text, r)
	if f.wantOffsets {
		for k := n; k < len(f.text); k++ {
			f.off = append(f.off, int32(at))
		}
	}
}

// origSpan maps a folded byte range back to the original string s (the
// last string folded with offsets).
func (f *folder) origSpan(s string, a, z int) (int, int) {
	if a >= len(f.off) {
		return 0, 0
	}
	start := int(f.off[a])
	end := len(s)
	if z > 0 && z <= len(f.off) {
		end = int(f.off[z-1])
		_, n := utf8.DecodeRuneInString(s[end:])
		end += n
	}
	if end < start {
		end = start
	}
	return start, end
}

// skeleton is a name's comparison key for confusable-name: compatibility
// forms decomposed, marks and invisible code points dropped, look-alike
// letters folded to Latin. Case is kept (tool names are case-sensitive and a
// case-only difference is visible to a reviewer). In a name that mixes
// scripts the digits 0 and 1 also fold to o and l: "reаd_fi1e" is built to be
// read as "read_file", while "base64" or "v1" in an ASCII name is just a
// number.
func skeleton(name string) string {
	if isPlainASCII(name) {
		return name // nothing in printable ASCII folds
	}
	d := norm.NFKD.String(name)
	mixed := nonASCIILetters(name)
	var b strings.Builder
	for _, r := range d {
		if classify(r) != visible || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
			continue
		}
		if c, ok := confusables[r]; ok {
			r = c
		}
		if mixed {
			switch r {
			case '0':
				r = 'o'
			case '1':
				r = 'l'
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// nonASCIILetters reports whether name holds any letter outside ASCII.
func nonASCIILetters(name string) bool {
	for _, r := range name {
		if r >= utf8.RuneSelf && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// scriptsOf names the scripts of name's letters, in first-seen order
// (Common and Inherited characters do not count).
func scriptsOf(name string) []string {
	tables := []struct {
		name string
		t    *unicode.RangeTable
	}{
		{"Latin", unicode.Latin}, {"Cyrillic", unicode.Cyrillic}, {"Greek", unicode.Greek},
		{"Armenian", unicode.Armenian}, {"Cherokee", unicode.Cherokee}, {"Han", unicode.Han},
		{"Arabic", unicode.Arabic}, {"Hebrew", unicode.Hebrew},
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range name {
		if !unicode.IsLetter(r) {
			continue
		}
		n := "other"
		for _, t := range tables {
			if unicode.Is(t.t, r) {
				n = t.name
				break
			}
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
