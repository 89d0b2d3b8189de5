package config

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// jsoncCases are JSONC inputs and the standard JSON they read as ("" when
// refused). Several are hostile: a comment opener inside a string, an
// unterminated comment, "[,]".
var jsoncCases = []struct{ name, in, want string }{
	{"line comment", `{"a": 1, // c` + "\n}", `{"a": 1      ` + "\n}"},
	{"block comment and trailing comma", `[1, /* x */ ]`, `[1          ]`},
	{"// inside a string", `{"a": "//not, a comment",}`, `{"a": "//not, a comment" }`},
	{"/* after an escaped quote", `{"a": "\"/*", "b": 2}`, `{"a": "\"/*", "b": 2}`},
	{"CRLF in a block comment", "/* a\r\nb */{}", "    \r\n    {}"},
	{"nested trailing commas", `[[1,],]`, `[[1 ] ]`},
	{"byte order mark", "\xef\xbb\xbf{\"a\": 1}", "   {\"a\": 1}"},
	{"comment on the last line, no newline", "{} // end", "{}       "},
	{"tabs", "{\t\"a\":\t[1,\t]\t}", "{\t\"a\":\t[1 \t]\t}"},
	{"comment between key and colon", `{"a" /*k*/ : 1}`, `{"a"       : 1}`},
	{"*/ inside a string in a comment-free file", `{"a": "*/"}`, `{"a": "*/"}`},
	{"a tab in a comment stays a tab", "/*\t*/{}", "  \t  {}"},
	// Refused.
	{"empty member", `{"a":,}`, ""},
	{"[,]", `[,]`, ""},
	{"{,}", `{,}`, ""},
	{"two trailing commas", `[1,,]`, ""},
	{"unterminated block comment", "{\n /* oops\n}", ""},
	{"/* inside a string does not start a comment", `{"a": "/*"} */`, ""},
	{"lone slash", `{"a": 1 /}`, ""},
	{"raw newline in a string", "{\"a\": \"x\ny\"}", ""},
	{"two values", `{} {}`, ""},
	{"empty", ``, ""},
	{"only a comment", `// nothing`, ""},
}

func TestStandardJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range jsoncCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := standardJSON([]byte(tc.in))
			switch {
			case tc.want == "" && err == nil:
				t.Fatalf("accepted %q as %q", tc.in, got)
			case tc.want != "" && err != nil:
				t.Fatalf("refused %q: %v", tc.in, err)
			case tc.want != "" && string(got) != tc.want:
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestJSONCBounds: a file that is not plain JSON is refused before hujson
// parses it when it could nest deeper than encoding/json allows or hold
// too many values, with the position of the first byte past the bound.
// Without the bound, hujson's recursion on 1 000 000 '[' exceeds Go's
// stack limit and kills the process.
func TestJSONCBounds(t *testing.T) {
	t.Parallel()
	deep := "// c\n" + strings.Repeat("[", MaxJSONCOpeners+1) + strings.Repeat("]", MaxJSONCOpeners+1)
	wide := "// c\n[" + strings.Repeat("1,", MaxJSONCSeparators+1) + "1]"
	plainWide := "[" + strings.Repeat("1,", MaxJSONCSeparators+1) + "1]"
	ok := "// c\n" + strings.Repeat("[", MaxJSONCOpeners) + strings.Repeat("]", MaxJSONCOpeners)
	tests := []struct {
		name, in string
		want     string // error, "" for none
		tree     bool   // ReadJSONC rather than standardJSON
	}{
		{"deep", deep, "x.json:2:10001: more than 10000 '[' and '{'", false},
		{"wide", wide, "x.json:2:262147: more than 131072 ',' and ':'", false},
		{"at the depth bound", ok, "", false},
		{"plain JSON is read without a tree", plainWide, "", false},
		{"plain JSON read as a tree", plainWide, "more than 131072 ',' and ':'", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.tree {
				_, err = ReadJSONC([]byte(tt.in))
			} else if _, err = standardJSON([]byte(tt.in)); err != nil {
				err = (&jsonFile{name: "x.json", data: []byte(tt.in)}).jsoncError(err)
			}
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// BenchmarkStandardJSON measures the worst a file within the bounds costs:
// as deep and as wide as a JSONC file may be, and a large plain JSON file,
// which skips the tree.
func BenchmarkStandardJSON(b *testing.B) {
	inputs := []struct{ name, in string }{
		{"deepest JSONC", "// c\n" + strings.Repeat("[", MaxJSONCOpeners) + strings.Repeat("]", MaxJSONCOpeners)},
		{"widest JSONC", "// c\n[" + strings.Repeat("1,", MaxJSONCSeparators-1) + "1]"},
		{"plain JSON 8 MB", "[" + strings.Repeat(`"1234567",`, 800000) + "1]"},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			data := []byte(in.in)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := standardJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzStandardJSON: whatever standardJSON accepts comes back as standard
// JSON of the same length, with every newline where it was and only
// blanks where bytes changed (plain JSON unchanged), so an offset into it
// is an offset into the file; whatever it refuses is refused with a
// *JSONCError at an offset inside the file.
func FuzzStandardJSON(f *testing.F) {
	for _, s := range samples {
		data, err := os.ReadFile(s.path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, c := range jsoncCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := standardJSON(data)
		if err != nil {
			var je *JSONCError
			if !errors.As(err, &je) || je.Offset < 0 || je.Offset > len(data) {
				t.Fatalf("error %v (%T) for %q", err, err, data)
			}
			return
		}
		if len(out) != len(data) || !json.Valid(out) {
			t.Fatalf("%q -> %q: not standard JSON of the same length", data, out)
		}
		if json.Valid(data) && string(out) != string(data) {
			t.Fatalf("plain JSON changed: %q -> %q", data, out)
		}
		// The tree guard install edits reads the same file (plain JSON
		// included, which standardJSON reads without hujson).
		j, err := ReadJSONC(data)
		if err != nil {
			t.Fatalf("ReadJSONC refuses what standardJSON reads: %v\n%q", err, data)
		}
		if string(j.Clean) != string(out) {
			t.Fatalf("ReadJSONC %q, standardJSON %q", j.Clean, out)
		}
		for i := range data {
			if (data[i] == '\n') != (out[i] == '\n') || data[i] != out[i] && out[i] != ' ' {
				t.Fatalf("byte %d: %q became %q\n%q\n%q", i, data[i], out[i], data, out)
			}
		}
	})
}
