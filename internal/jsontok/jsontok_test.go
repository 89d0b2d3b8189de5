package jsontok

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidMatchesEncodingJSON pins the option set: duplicate names and
// invalid UTF-8 pass (the readers judge them), depth is bounded at 10000,
// and exactly one value is JSON, as encoding/json decides.
func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`{"a":1,"a":2}`, true},
		{`{"description":1,"\u0064escription":2}`, true},
		{"{\"\xff\":\"\xfe\"}", true},
		{`"\ud800"`, true},
		{`"\udc00\ud800"`, true},
		{"{\"a\x00\":1}", false}, // a raw control character is never JSON
		{`{"a\u0000":1}`, true},
		{strings.Repeat("[", 10000) + strings.Repeat("]", 10000), true},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), false},
		{`1` + strings.Repeat("0", 5000) + `e999999999`, true},
		{`{"a":1} x`, false},
		{`{"a":1}{"a":2}`, false},
		{`[1] [2]`, false},
		{` {} `, true},
		{"\u00a0{}", false},
		{``, false},
		{`01`, false},
	} {
		if got := Valid([]byte(c.in)); got != c.want {
			t.Errorf("Valid(%.40q) = %v, want %v", c.in, got, c.want)
		}
		if got := json.Valid([]byte(c.in)); got != c.want {
			t.Errorf("json.Valid(%.40q) = %v: the test's expectation is not encoding/json's", c.in, got)
		}
	}
}

// TestAppendString: decoded text is encoding/json's, U+FFFD for invalid
// UTF-8 and lone surrogates, a pair as its character.
func TestAppendString(t *testing.T) {
	for _, in := range []string{`"a\"b\\c\/\b\f\n\r\t"`, `"\udb40\udc41"`, `"\ud800"`, `"\ud800\u0041"`, "\"\xff\xfe\"", `"\u0064escription"`, `""`} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if got := string(AppendString(nil, []byte(in))); got != want {
			t.Errorf("AppendString(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzValid: jsontok accepts exactly what encoding/json accepts as one value.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[1,"a",null,true]`, `{"a":{"a":[]}}`, `"\ud800"`, "\"\xff\"", `1e5`, `{"a":1}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", b, got, want)
		}
		if Valid(b) && len(b) > 0 && b[0] == '"' {
			var want string
			if json.Unmarshal(b, &want) == nil && string(AppendString(nil, b)) != want {
				t.Fatalf("AppendString(%q) = %q, want %q", b, AppendString(nil, b), want)
			}
		}
	})
}
