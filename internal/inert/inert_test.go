package inert

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func tags(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(0xE0000 + r)
	}
	return b.String()
}

// fromJSON decodes a JSON string literal the way a definition's text is
// decoded (a lone surrogate escape becomes U+FFFD).
func fromJSON(t *testing.T, lit string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(lit), &s); err != nil {
		t.Fatalf("json %s: %v", lit, err)
	}
	return s
}

// TestText is the one table of every class of text an attacker uses to act
// on a reader, with the exact escape each output shows.
func TestText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain ASCII", "read_file: Read a file.", "read_file: Read a file."},
		{"printable unicode", "ünïcödé 漢字 emoji 🙂", "ünïcödé 漢字 emoji 🙂"},
		{"combining marks stay", "e\u0301", "e\u0301"},
		{"other spaces are visible gaps", "a\u00A0b\u2003c\u3000d", "a\u00A0b\u2003c\u3000d"},
		{"replacement char is visible", "\uFFFD", "\uFFFD"},

		// C0, DEL, C1.
		{"tab newline CR", "a\tb\nc\rd", `a\tb\nc\rd`},
		{"C0", "\x00\x01\x07\x08\x0b\x0c\x1f", `\u{0000}\u{0001}\u{0007}\u{0008}\u{000B}\u{000C}\u{001F}`},
		{"DEL", "\x7f", `\u{007F}`},
		{"C1", "\u0080\u0085\u008d\u009b\u009d\u009f", `\u{0080}\u{0085}\u{008D}\u{009B}\u{009D}\u{009F}`},

		// Terminal sequences: the ESC (or C1 introducer) is what acts.
		{"CSI colour and erase", "\x1b[31mred\x1b[0m\x1b[2K\x1b[1A", `\u{001B}[31mred\u{001B}[0m\u{001B}[2K\u{001B}[1A`},
		{"OSC 8 hyperlink", "\x1b]8;;https://evil.invalid\x07click\x1b]8;;\x1b\\", `\u{001B}]8;;https://evil.invalid\u{0007}click\u{001B}]8;;\u{001B}\`},
		{"OSC title", "\x1b]0;pwned\u009c", `\u{001B}]0;pwned\u{009C}`},
		{"C1 CSI", "\u009b2J", `\u{009B}2J`},

		// Bidi controls.
		{"bidi embeddings and overrides", "a\u202Ab\u202Bc\u202Cd\u202De\u202Ef", `a\u{202A}b\u{202B}c\u{202C}d\u{202D}e\u{202E}f`},
		{"bidi isolates", "\u2066x\u2067y\u2068z\u2069", `\u{2066}x\u{2067}y\u{2068}z\u{2069}`},
		{"bidi marks", "\u200E\u200F\u061C", `\u{200E}\u{200F}\u{061C}`},

		// Zero-width and other invisible format characters.
		{"zero-width", "z\u200Bw\u200C\u200D\u2060\uFEFF", `z\u{200B}w\u{200C}\u{200D}\u{2060}\u{FEFF}`},
		{"soft hyphen", "soft\u00ADhyphen", `soft\u{00AD}hyphen`},
		{"invisible operators", "\u2061\u2062\u2063\u2064", `\u{2061}\u{2062}\u{2063}\u{2064}`},
		{"interlinear annotation", "\uFFF9\uFFFA\uFFFB", `\u{FFF9}\u{FFFA}\u{FFFB}`},
		{"Mongolian vowel separator", "\u180E", `\u{180E}`},
		{"default-ignorable letters and marks", "\u034F\u115F\u1160\u17B4\u17B5\u180B\u180F\u3164\uFFA0", `\u{034F}\u{115F}\u{1160}\u{17B4}\u{17B5}\u{180B}\u{180F}\u{3164}\u{FFA0}`},

		// Tag characters: the whole U+E0000 block, assigned or not.
		{"tag text", "a" + tags("hi"), `a\u{E0068}\u{E0069}`},
		{"tag controls", "\U000E0001\U000E007F", `\u{E0001}\u{E007F}`},
		{"tag block unassigned", "\U000E0000\U000E0002\U000E0080\U000E0FFF", `\u{E0000}\u{E0002}\u{E0080}\u{E0FFF}`},

		// Variation selectors, alone or carrying bytes.
		{"variation selectors", "vs\uFE00\uFE0F", `vs\u{FE00}\u{FE0F}`},
		{"variation selector supplement", "\U000E0100\U000E01EF", `\u{E0100}\u{E01EF}`},

		// Separators, private use, non-characters, unassigned.
		{"line and paragraph separators", "line\u2028para\u2029", `line\u{2028}para\u{2029}`},
		{"private use", "\uE000\uF8FF\U000F0000\U0010FFFD", `\u{E000}\u{F8FF}\u{F0000}\u{10FFFD}`},
		{"non-characters", "\uFDD0\uFFFE\uFFFF\U0001FFFF", `\u{FDD0}\u{FFFE}\u{FFFF}\u{1FFFF}`},
		{"unassigned", "\u0378\U0003FFFD", `\u{0378}\u{3FFFD}`},

		// Bytes that are not UTF-8.
		{"invalid byte", "bad\xffutf8", `bad\x{FF}utf8`},
		{"truncated sequence", "\xe2\x80", `\x{E2}\x{80}`},
		{"overlong", "\xc0\xaf", `\x{C0}\x{AF}`},
		{"surrogate encoded as UTF-8 (WTF-8)", "\xed\xa0\x80", `\x{ED}\x{A0}\x{80}`},
		{"lone surrogate JSON escape decodes to U+FFFD", fromJSON(t, `"a\ud800b\udc00"`), "a\uFFFDb\uFFFD"},
		{"surrogate pair of tag characters from JSON", fromJSON(t, `"x\udb40\udc68"`), `x\u{E0068}`},

		// Backslashes: doubled only where they would start an escape.
		{"windows path", `C:\Users\me`, `C:\Users\me`},
		{"regex", `^\d+\.\w$`, `^\d+\.\w$`},
		{"literal escape look-alike", `\u{202E}`, `\\u{202E}`},
		{"literal byte look-alike", `\x{FF}`, `\\x{FF}`},
		{"literal tab look-alike", `\t\n\r`, `\\t\\n\\r`},
		{"double backslash", `a\\b`, `a\\\b`},
		{"backslash before an escaped rune", "\\\x1b", `\\\u{001B}`},
		{"backslash before a tab", "\\\t", `\\\t`},
		{"backslash before invalid byte", "\\\xff", `\\\x{FF}`},
		{"trailing backslash", `end\`, `end\`},
		{"backslash u without brace", `\u0041 \x41`, `\u0041 \x41`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			if got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
			checkInert(t, got)
			if back, ok := unescape(got); !ok || back != tc.in {
				t.Errorf("unescape(%q) = %q, %v; want %q", got, back, ok, tc.in)
			}
		})
	}
}

// TestTextAlso covers the characters a renderer's own format needs escaped:
// a markdown table cell's "|", a quoted name's quote, HTML's angle brackets.
func TestTextAlso(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, also, want string }{
		{"a|b", "|", `a\u{007C}b`},
		{`a\|b`, "|", `a\\\u{007C}b`},
		{`a\u{007C}b`, "|", `a\\u{007C}b`},
		{"<img src=x onerror=alert(1)>", "<>", `\u{003C}img src=x onerror=alert(1)\u{003E}`},
		{"`code` @team [link](https://x.invalid)", "`", "\\u{0060}code\\u{0060} @team [link](https://x.invalid)"},
		// Letters, digits and the backslash cannot be asked for: they are
		// part of the escapes.
		{`ux{0}\`, `ux{0}\`, `ux\u{007B}0\u{007D}\`},
	} {
		got := TextAlso(tc.in, tc.also)
		if got != tc.want {
			t.Errorf("TextAlso(%q, %q) = %q, want %q", tc.in, tc.also, got, tc.want)
		}
		if back, ok := unescape(got); !ok || back != tc.in {
			t.Errorf("unescape(%q) = %q, %v; want %q", got, back, ok, tc.in)
		}
	}
	if got, want := Quote("a\"b\x1b"), `"a\u{0022}b\u{001B}"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
	if got, want := Quote("fs"), `"fs"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}

// TestEveryRune renders every code point and checks that exactly the runes
// Unsafe reports are escaped, and that the output is inert.
func TestEveryRune(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			if !Unsafe(r) {
				t.Errorf("surrogate U+%04X is not Unsafe", r)
			}
			continue
		}
		s := string(r)
		got := Text(s)
		escaped := got != s
		if r != '\\' && escaped != Unsafe(r) {
			t.Errorf("Text(U+%04X) = %q, Unsafe = %v", r, got, Unsafe(r))
		}
		all.WriteRune(r)
	}
	out := Text(all.String())
	checkInert(t, out)
	if back, ok := unescape(out); !ok || back != all.String() {
		t.Error("every rune does not round-trip")
	}
}

// TestComposed: a composed message keeps the escapes Text put in it, and
// anything unsafe that reached it raw is escaped the same way.
func TestComposed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{`quoted ` + Text(`a\u{202E}`+"\x1b"+`\t`) + ` ok`, `quoted a\\u{202E}\u{001B}\\t ok`},
		{"detail: " + Text("{\n  \"x\": 1\n}"), `detail: {\n  "x": 1\n}`},
		{"raw \x1b[2K and \u202E slipped in\r\n", `raw \u{001B}[2K and \u{202E} slipped in\r\n`},
		{"bad \xff byte", `bad \x{FF} byte`},
		{`C:\tmp`, `C:\tmp`},
	} {
		got := Composed(tc.in)
		if got != tc.want {
			t.Errorf("Composed(%q) = %q, want %q", tc.in, got, tc.want)
		}
		checkInert(t, got)
		if again := Composed(got); again != got {
			t.Errorf("Composed is not idempotent on %q: %q", got, again)
		}
	}
}

func TestSafe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true}, {"plain", true}, {`back\slash`, true}, {"ünï 🙂", true},
		{"\t", false}, {"\x1b", false}, {"\u202E", false}, {"\xff", false}, {"\U000E0041", false},
	} {
		if got := Safe(tc.in); got != tc.want {
			t.Errorf("Safe(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzText checks the two properties every renderer relies on, for any input:
// the output holds no control or invisible rune (one line, valid UTF-8), and
// it decodes back to the input, so two different inputs never print the
// same. TextAlso and Quote are held to the same.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b[31m", `\u{202E}`, "\u202E", `\\`, "\\\x1b", `C:\tmp`, "a|b", `\|`, "\xff\xfe",
		"\xed\xa0\x80", tags("ignore previous"), "\uFE0F\U000E0100", "\u2028", `"q"`, `\x{41}`, "\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Text(s), TextAlso(s, "|<>`"), Quote(s), Composed(s)} {
			checkInert(t, out)
		}
		if e := Text(s); Composed(e) != e {
			t.Fatalf("Composed(Text(%q)) = %q, not %q", s, Composed(e), e)
		}
		if c := Composed(s); Composed(c) != c {
			t.Fatalf("Composed is not idempotent on %q", s)
		}
		if back, ok := unescape(Text(s)); !ok || back != s {
			t.Fatalf("Text(%q) = %q decodes to %q, %v", s, Text(s), back, ok)
		}
		if back, ok := unescape(TextAlso(s, "|<>`")); !ok || back != s {
			t.Fatalf("TextAlso(%q) decodes to %q, %v", s, back, ok)
		}
		q := Quote(s)
		if strings.Count(q, `"`) != 2 {
			t.Fatalf("Quote(%q) = %s holds a quote inside", s, q)
		}
		if back, ok := unescape(q[1 : len(q)-1]); !ok || back != s {
			t.Fatalf("Quote(%q) decodes to %q, %v", s, back, ok)
		}
		if Safe(s) != !containsUnsafe(s) {
			t.Fatalf("Safe(%q) = %v", s, Safe(s))
		}
	})
}

func containsUnsafe(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return true
			}
		}
		if Unsafe(r) {
			return true
		}
	}
	return false
}

// checkInert fails unless out is valid UTF-8 with no rune Unsafe reports.
func checkInert(t *testing.T, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output %q is not valid UTF-8", out)
	}
	for _, r := range out {
		if Unsafe(r) {
			t.Fatalf("output %q holds U+%04X", out, r)
		}
	}
}

// unescape is the inverse of Text: `\\`, `\t`, `\n`, `\r`, `\u{X..}`,
// `\x{XX}`; any other backslash is itself. It is the proof that Text is
// injective, not something the product needs.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		switch c := s[i+1]; c {
		case '\\':
			b.WriteByte('\\')
			i += 2
		case 't', 'n', 'r':
			b.WriteByte(map[byte]byte{'t': '\t', 'n': '\n', 'r': '\r'}[c])
			i += 2
		case 'u', 'x':
			if i+2 >= len(s) || s[i+2] != '{' {
				b.WriteByte('\\')
				i++
				continue
			}
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+3:i+end], 16, 32)
			if err != nil {
				return "", false
			}
			if c == 'x' {
				if v > 0xFF || end-3 != 2 {
					return "", false
				}
				b.WriteByte(byte(v))
			} else {
				if end-3 < 4 {
					return "", false
				}
				b.WriteRune(rune(v))
			}
			i += end + 1
		default:
			b.WriteByte('\\')
			i++
		}
	}
	return b.String(), true
}
