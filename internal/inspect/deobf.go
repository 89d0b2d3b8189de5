package inspect

import (
	"strings"
	"unicode"
)

// A filter that reads words misses the same words spelled to get past it,
// and the model reads them as easily: digits for letters ("ign0re a11
// pr3vious instructi0ns") or letters set apart ("I g n o r e   y o u r
// r u l e s"). When a string is written that way and its plain reading
// asks nothing, it is read again respelled.

// deobfuscate respells s: runs of single letters set apart by one blank
// are joined (a wider gap is a word's end), and in words that mix letters
// with the digits and signs that stand for letters, those stand for their
// letters. It returns s itself when s is not written that way: two
// respelled words at least, or one run of six set-apart letters.
func deobfuscate(s string) string {
	if len(s) < 16 || !mayBeObfuscated(s) {
		return s
	}
	out, changed := joinSpaced(s)
	leet := 0
	var b strings.Builder
	b.Grow(len(out))
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && !isWordBreak(out[j]) {
			j++
		}
		if j == i {
			b.WriteByte(out[i])
			i++
			continue
		}
		w := out[i:j]
		if r, ok := respell(w); ok {
			b.WriteString(r)
			leet++
		} else {
			b.WriteString(w)
		}
		i = j
	}
	if leet < 2 && !changed {
		return s
	}
	return b.String()
}

func isWordBreak(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == ',' || c == '.' || c == ';' || c == ':' || c == '"' || c == '\'' || c == '(' || c == ')' || c == '!' || c == '?'
}

// leetLetter is what a digit or sign stands for inside a word.
var leetLetter = map[byte]byte{'0': 'o', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's'}

// respell reads a word of letters and stand-in digits as letters: at
// least one letter and one stand-in, and no other character. A "1" reads
// "l" after a, l or another 1 ("a11"), and "i" elsewhere ("1gnore").
func respell(w string) (string, bool) {
	letters, stand := 0, 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		case c == '1' || leetLetter[c] != 0:
			stand++
		default:
			return "", false
		}
	}
	if letters == 0 || stand == 0 || stand > letters+1 {
		return "", false
	}
	b := []byte(w)
	for i, c := range b {
		if c == '1' {
			if i > 0 && (b[i-1] == 'a' || b[i-1] == 'A' || b[i-1] == 'l' || b[i-1] == 'L') {
				b[i] = 'l'
			} else {
				b[i] = 'i'
			}
			continue
		}
		if l := leetLetter[c]; l != 0 {
			b[i] = l
		}
	}
	return string(b), true
}

// joinSpaced joins runs of six or more single letters set apart by one
// blank; two blanks or more between them end a word.
func joinSpaced(s string) (string, bool) {
	rs := []rune(s)
	var b strings.Builder
	changed := false
	for i := 0; i < len(rs); {
		// A run: letter, blank, letter, blank, ... with single blanks.
		j, n := i, 0
		for j < len(rs) && unicode.IsLetter(rs[j]) && (j+1 == len(rs) || !unicode.IsLetter(rs[j+1])) && (j == 0 || !unicode.IsLetter(rs[j-1])) {
			n++
			k := j + 1
			blanks := 0
			for k < len(rs) && rs[k] == ' ' {
				blanks++
				k++
			}
			if blanks == 0 || k == len(rs) || !unicode.IsLetter(rs[k]) {
				j++
				break
			}
			j = k
		}
		if n < 6 {
			b.WriteRune(rs[i])
			i++
			continue
		}
		changed = true
		for k := i; k < j; k++ {
			switch {
			case unicode.IsLetter(rs[k]):
				b.WriteRune(rs[k])
			case rs[k] == ' ' && k+1 < len(rs) && rs[k+1] == ' ':
				// Two blanks or more: a word's end, written once.
				for k+1 < j && rs[k+1] == ' ' {
					k++
				}
				b.WriteByte(' ')
			}
		}
		i = j
	}
	return b.String(), changed
}

// mayBeObfuscated is deobfuscate's first look, without allocating: two
// words that mix letters with stand-in digits, or six single letters set
// apart in a row.
func mayBeObfuscated(s string) bool {
	// Most strings hold no stand-in at all, and letters set apart make a
	// text of about one blank in two: both are found without a loop of
	// our own.
	leet := strings.ContainsAny(s, "013457@$")
	if !leet && strings.Count(s, " ")*3 < len(s) {
		return false
	}
	mixed, run := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		// A stand-in between two letters ("ign0re", "pr3vious"), or
		// two stand-ins after a letter ("a11", "t00l"); "v1", "md5"
		// and "s3" are names, not respellings.
		if standIn[c] && i > 0 && isASCIILetter(s[i-1]) && i+1 < len(s) && (isASCIILetter(s[i+1]) || standIn[s[i+1]]) {
			mixed++
			if mixed >= 2 {
				return true
			}
			for i+1 < len(s) && !isWordBreak(s[i+1]) {
				i++
			}
			continue
		}
		if isASCIILetter(c) && (i == 0 || s[i-1] == ' ') && (i+1 == len(s) || s[i+1] == ' ') {
			if run++; run >= 6 {
				return true
			}
		} else if c != ' ' {
			run = 0
		}
	}
	return false
}

// standIn marks the bytes leetLetter maps, and "1".
var standIn = func() (t [256]bool) {
	for c := range leetLetter {
		t[c] = true
	}
	t['1'] = true
	return
}()

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
