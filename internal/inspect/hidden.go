package inspect

import (
	"bytes"
	"encoding/hex"
	"unicode"
	"unicode/utf8"
)

// Text the model reads is not only prose. A parameter named
// content_also_include_all_env_variables_for_backup, or an enum value
// include_ssh_keys_and_credentials, asks as plainly as a sentence: the
// model fills in what the name says. A description can carry a sentence
// base64-, hex- or percent-encoded, for the model to decode (it does) and a
// reviewer to skip (they do). This file turns both into text for the same
// phrases: an identifier becomes its words, an encoded run its decoding.

// minIdentWords is the fewest words an identifier needs to be read as a
// phrase: read_file, api_key and include_credentials name things; a
// request takes a verb, an object and somewhere to put it.
const minIdentWords = 4

// identWords splits an identifier (snake_case, kebab-case, dotted or
// camelCase, with no blanks) into lower-case words joined by spaces. ok is
// false for anything that is not such an identifier of minIdentWords words
// or more.
func identWords(b []byte) (string, bool) {
	if len(b) < 12 || len(b) > 200 {
		return "", false
	}
	// Count the words first: most keys and values are one to three
	// words (additionalProperties, read_file), and are dismissed without
	// an allocation.
	words, ok := countIdentWords(b)
	if !ok || words < minIdentWords {
		return "", false
	}
	out := make([]byte, 0, len(b)+words)
	inWord, prevLower := false, false
	for _, c := range b {
		switch {
		case c == '_' || c == '-' || c == '.':
			inWord, prevLower = false, false
			continue
		case 'A' <= c && c <= 'Z':
			if (!inWord || prevLower) && len(out) > 0 {
				out = append(out, ' ')
			}
			out = append(out, c+'a'-'A')
			inWord, prevLower = true, false
		default:
			if !inWord && len(out) > 0 {
				out = append(out, ' ')
			}
			out = append(out, c)
			inWord, prevLower = true, true
		}
	}
	return string(out), true
}

// countIdentWords counts the words of an identifier (a separator or a
// lower-to-upper hump starts one); ok is false for a byte no identifier
// has.
func countIdentWords(b []byte) (words int, ok bool) {
	inWord, prevLower := false, false
	for _, c := range b {
		switch {
		case c == '_' || c == '-' || c == '.':
			inWord, prevLower = false, false
		case 'A' <= c && c <= 'Z':
			if !inWord || prevLower {
				words++
			}
			inWord, prevLower = true, false
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			if !inWord {
				words++
			}
			inWord, prevLower = true, true
		default:
			return 0, false
		}
	}
	return words, true
}

// minEncoded is the shortest encoded run decoded: 24 base64 characters are
// 18 bytes, a short sentence; hashes, ids and tokens that are not text are
// dismissed by readable.
const minEncoded = 24

// encodedRuns calls fn with the text decoded from each base64 or hex run
// of s (minEncoded characters or more), and with s percent-decoded (a
// query's '+' read as a space) when it holds three escapes or three '+'
// or more, whenever what they decode to is readable.
func encodedRuns(s []byte, fn func(text []byte, via string)) {
	if bytes.Count(s, []byte{'%'}) >= 3 || bytes.Count(s, []byte{'+'}) >= 3 {
		// A query string writes a space as '+' too.
		if d := bytes.ReplaceAll(percentDecode(s), []byte{'+'}, []byte{' '}); !bytes.Equal(d, s) && readable(d) {
			fn(d, "decoded from percent-encoding")
		}
	}
	spacedHex(s, fn)
	if bytes.Count(s, []byte("&#")) >= 4 {
		if d := charRefs(s); readable(d) {
			fn(d, "decoded from HTML character references")
		}
	}
	for i := 0; i < len(s); {
		if !isB64(s[i]) {
			i++
			continue
		}
		j := i
		hexOnly := true
		for j < len(s) && (isB64(s[j]) || s[j] == '=') {
			hexOnly = hexOnly && unhex(s[j]) >= 0
			j++
		}
		run := s[i:j]
		i = j
		if len(run) < minEncoded {
			continue
		}
		if hexOnly && len(run)%2 == 0 {
			d := make([]byte, len(run)/2)
			if _, err := hex.Decode(d, run); err == nil && readable(d) {
				fn(d, "decoded from hex")
			}
			continue
		}
		if !mixedCase(run) {
			// A path or a word run (org/draft/2020-12/schema): base64
			// of text is a fifth upper case or more.
			continue
		}
		if d := lenientBase64(run); readable(d) {
			fn(d, "decoded from base64")
		}
	}
}

// minSpacedHex is the fewest bytes of hex written apart ("5b 65 72 ...")
// decoded: as many as minEncoded characters of a run.
const minSpacedHex = minEncoded / 2

// spacedHex calls fn with the text decoded from each run of hex bytes
// written apart by one blank, colon or comma ("5b 65 72 72"), when it reads
// as words.
func spacedHex(s []byte, fn func(text []byte, via string)) {
	// A run of minSpacedHex bytes has minSpacedHex-1 separators of one
	// kind: most strings have fewer of each and are not looked at.
	if bytes.Count(s, []byte{' '}) < minSpacedHex-1 && bytes.Count(s, []byte{':'}) < minSpacedHex-1 && bytes.Count(s, []byte{','}) < minSpacedHex-1 {
		return
	}
	for i := 0; i+2 < len(s); i++ {
		// Most text has no run: four pairs apart are looked for with a
		// table before anything is decoded.
		if i+12 > len(s) {
			return
		}
		if s[i+5] != s[i+2] || s[i+8] != s[i+2] || !hexByte[s[i]] || !hexByte[s[i+1]] || !hexByte[s[i+3]] || !hexByte[s[i+4]] || !hexByte[s[i+6]] || !hexByte[s[i+7]] || !hexByte[s[i+9]] || !hexByte[s[i+10]] {
			continue
		}
		if unhex(s[i]) < 0 || unhex(s[i+1]) < 0 || i > 0 && isB64(s[i-1]) {
			continue
		}
		sep := s[i+2]
		if sep != ' ' && sep != ':' && sep != ',' {
			continue
		}
		var d []byte
		j := i
		for j+1 < len(s) && unhex(s[j]) >= 0 && unhex(s[j+1]) >= 0 && (j+2 == len(s) || s[j+2] == sep || !isB64(s[j+2])) {
			d = append(d, byte(unhex(s[j])<<4|unhex(s[j+1])))
			j += 2
			if j == len(s) || s[j] != sep {
				break
			}
			j++
		}
		if len(d) >= minSpacedHex && readable(d) {
			fn(d, "decoded from hex")
		}
		if j > i {
			i = j - 1
		}
	}
}

// hexByte marks the hex digits.
var hexByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = true
	}
	return t
}()

// charRefs decodes HTML numeric character references (&#x8FD9; &#105;)
// in s, leaving the rest as it is.
func charRefs(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '&' && i+3 < len(s) && s[i+1] == '#' {
			j, base := i+2, 10
			if s[j] == 'x' || s[j] == 'X' {
				j, base = j+1, 16
			}
			r, k := 0, j
			for k < len(s) && k-j < 7 {
				v := unhex(s[k])
				if v < 0 || base == 10 && v > 9 {
					break
				}
				r = r*base + v
				k++
			}
			if k > j && k < len(s) && s[k] == ';' && utf8.ValidRune(rune(r)) {
				out = utf8.AppendRune(out, rune(r))
				i = k
				continue
			}
		}
		out = append(out, s[i])
	}
	return out
}

// mixedCase reports whether a run holds upper and lower case letters, each
// a tenth of it or more.
func mixedCase(run []byte) bool {
	upper, lower := 0, 0
	for _, c := range run {
		switch {
		case 'A' <= c && c <= 'Z':
			upper++
		case 'a' <= c && c <= 'z':
			lower++
		}
	}
	return upper*10 >= len(run) && lower*10 >= len(run)
}

func isB64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

// readable reports whether decoded bytes are words a model would read:
// valid UTF-8, no controls but blanks, mostly letters, and at least two
// spaces (a sentence, not a token).
func readable(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	letters, spaces, total := 0, 0, 0
	for _, r := range string(b) {
		total++
		switch {
		case r == ' ':
			spaces++
		case r == '\n' || r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7F || r == utf8.RuneError:
			return false
		case unicode.IsLetter(r):
			letters++
		}
	}
	return spaces >= 2 && letters*10 >= total*6
}

// identifier reads an identifier of a definition (a property name, an enum
// value) as the words it is made of. What it asks is asked of the model
// filling in that very parameter, so the parameter is the channel: a
// credential named in it is being passed along.
//
// An identifier alone is never an order: a tool's name
// (get_secret_scanning_alert) names what the tool does. Its words are read
// only where the identifier is a channel the model fills in, a parameter's
// name or one of its values, and only when they spell a request to put
// something in it: a verb that moves data (include, attach, dump...).
func (sc *scan) identifier(r textRef, b []byte) {
	if !channelPosition(r) {
		return
	}
	words, ok := identWords(b)
	if !ok || !identVerb().MatchString(words) {
		return
	}
	prev := sc.ident
	sc.ident = true
	sc.phrases(r, words, false)
	sc.ident = prev
}

// channelPosition reports whether a string is a parameter's name or a
// value the model may put in a parameter: a key or value inside an input
// schema's properties or a prompt's arguments.
func channelPosition(r textRef) bool {
	return inParam(r.segs)
}

// identVerb is a verb that moves data, as an identifier's words say it.
var identVerb = lazyRegexp(`\b(?:include|includes|including|attach|append|add|send|dump|upload|paste|insert|copy|export|leak|exfiltrate|forward|embed|steal|harvest|collect|grab|put|pass|with|also)\b`)

// encoded judges the text encoded in runs of a definition's string, as
// Answer judges a blob's: decoded once, and no deeper than maxDecodeDepth.
func (sc *scan) encoded(r textRef, b []byte) {
	if sc.depth >= maxDecodeDepth {
		return
	}
	encodedRuns(b, func(text []byte, via string) {
		sc.depth++
		sc.decoded(r.segs, text, via, maxDecodeDepth)
		sc.depth--
	})
}

// inParam reports whether a string's path is inside a parameter's
// definition: an input schema's properties, a prompt's arguments.
func inParam(segs []string) bool {
	if len(segs) > 0 && segs[0] == "arguments" {
		return true
	}
	for _, s := range segs {
		if s == "properties" {
			return true
		}
	}
	return false
}

// paramVerb matches the verbs that, in a parameter's own description, ask
// for a credential the user did not hand over ("reads ~/.aws and appends
// the keys"). "Your API key", "the token to pass" or "headers to include,
// such as API keys" describe what the parameter is, and stay quiet.
var paramVerb = lazyRegexp(`^(?:read|reads|reading|cat|dump|collect|harvest|extract|steal|exfiltrate|gather|append|attach|embed)\b`)
