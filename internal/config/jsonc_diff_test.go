package config

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"
)

// oldStripJSONC is the hand-written stripper hujson replaced, kept here
// only as the oracle of FuzzJSONCDifferential.
func oldStripJSONC(data []byte) (out []byte, unterminated int) {
	out = bytes.Clone(data)
	if bytes.HasPrefix(out, []byte("\xef\xbb\xbf")) {
		copy(out, "   ")
	}
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	pendingComma := -1 // a comma that is trailing if the next token closes
	var prev byte      // the last significant byte: "[,]" must stay an error
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch c {
		case '"':
			pendingComma = -1
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
				if i < len(out) && out[i] == '\n' {
					break // let the decoder report the broken string here
				}
			}
		case '/':
			if i+1 >= len(out) {
				continue
			}
			switch out[i+1] {
			case '/':
				end := bytes.IndexByte(out[i:], '\n')
				if end < 0 {
					end = len(out) - i
				}
				blank(i, i+end)
				i += end - 1
				continue
			case '*':
				end := bytes.Index(out[i+2:], []byte("*/"))
				if end < 0 {
					return out, i
				}
				blank(i, i+2+end+2)
				i += 2 + end + 1
				continue
			default:
				pendingComma = -1
			}
		case ',':
			pendingComma = -1
			if prev != 0 && prev != '[' && prev != '{' && prev != ',' && prev != ':' {
				pendingComma = i
			}
		case '}', ']':
			if pendingComma >= 0 {
				out[pendingComma] = ' '
			}
			pendingComma = -1
		case ' ', '\t', '\n', '\r':
			continue
		default:
			pendingComma = -1
		}
		prev = c
	}
	return out, -1
}

// FuzzJSONCDifferential: standardJSON (hujson) accepts what the old
// stripper followed by encoding/json accepted, and gives the same bytes
// (so the same offsets), except where hujson is knowingly stricter:
// invalid UTF-8 inside a comment, and U+2028 or U+2029 in a // comment.
func FuzzJSONCDifferential(f *testing.F) {
	for _, s := range samples {
		data, err := os.ReadFile(s.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range jsoncCases {
		f.Add([]byte(s.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		old, open := oldStripJSONC(data)
		oldOK := open < 0 && json.Valid(old)
		got, err := standardJSON(data)
		if oldOK && err != nil && !hujsonStricter(data) {
			t.Fatalf("old accepts, hujson refuses: %v\n%q", err, data)
		}
		if !oldOK && err == nil {
			t.Fatalf("old refuses, hujson accepts: %q -> %q", data, got)
		}
		if oldOK && err == nil && !sameBlanks(old, got) {
			t.Fatalf("outputs differ for %q:\n old %q\n new %q", data, old, got)
		}
	})
}

// sameBlanks reports whether the two standard JSONs are the same bytes,
// but for a tab inside a comment, which hujson keeps and the old stripper
// made a space: whitespace either way, at the same offset.
func sameBlanks(old, got []byte) bool {
	if len(old) != len(got) {
		return false
	}
	for i := range old {
		if old[i] != got[i] && (old[i] != ' ' || got[i] != '\t') {
			return false
		}
	}
	return true
}

// hujsonStricter reports whether data has a comment hujson refuses and the
// old stripper blanked: one holding invalid UTF-8, or a // comment holding
// a JavaScript line separator. Both are hostile more than useful.
func hujsonStricter(data []byte) bool {
	if !utf8.Valid(data) {
		return true
	}
	return bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029"))
}
