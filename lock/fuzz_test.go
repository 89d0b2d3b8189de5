package lock

import (
	"testing"
)

// FuzzCanonicalize: no panic; a canonical form is a fixed point; equal
// canonical bytes mean equal hashes.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"b":"\u00e9","a":[1,2.5,-0,1e21]}`, `{"d":1,"d":2}`, `"\ud800"`, "\xff", `1e400`, `{"n":9007199254740993}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := Canonicalize(raw)
		if c.Ambiguous != "" {
			return
		}
		again := Canonicalize(c.Bytes)
		if again.Ambiguous != "" || string(again.Bytes) != string(c.Bytes) {
			t.Fatalf("canonical form is not a fixed point: %q -> %q (%s)", c.Bytes, again.Bytes, again.Ambiguous)
		}
	})
}

// FuzzParse: a lockfile parser never panics on hostile input.
func FuzzParse(f *testing.F) {
	data, _ := sample().Marshal()
	f.Add(data)
	f.Add([]byte(`{"lockfileVersion":1,"servers":{"x":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		lf, err := Parse("fuzz.json", b)
		if err != nil {
			return
		}
		if _, err := lf.Marshal(); err != nil {
			t.Fatalf("parsed lock does not marshal: %v", err)
		}
	})
}
