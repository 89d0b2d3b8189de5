package clip

import (
	"testing"
	"unicode/utf8"
)

func TestBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc..."},
		{"abcd", 0, "..."},
		// "é" is two bytes: a cut inside it falls back to before it.
		{"aé", 2, "a..."},
		{"aéb", 3, "aé..."},
		// A 4-byte rune at the start leaves nothing before it.
		{"😀x", 2, "..."},
	} {
		got := Bytes(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Bytes(%q, %d) = %q: not valid UTF-8", tt.s, tt.n, got)
		}
	}
}

func TestRunes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"abcd", 0, "…"},
		{"héllo wörld", 4, "héll…"},
		{"😀😀😀", 2, "😀😀…"},
	} {
		if got := Runes(tt.s, tt.n); got != tt.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestFit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"héllo wörld", 4, "hél…"},
		{"abc", 0, "abc"},
		{"abc", 1, "…"},
	} {
		if got := Fit(tc.in, tc.n); got != tc.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"npm ERR! 404 Not Found", 9, "Not Found"},
		{"abc€", 2, ""},  // the cut falls inside the euro sign's 3 bytes
		{"abc€", 3, "€"}, // the whole rune fits
		{"abc", 0, ""},
	} {
		if got := Tail(tt.in, tt.n); got != tt.want || !utf8.ValidString(got) {
			t.Errorf("Tail(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
