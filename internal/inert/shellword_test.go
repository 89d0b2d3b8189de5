package inert

import "testing"

// TestShellWord: a name is pasted as one word that expands nothing and,
// printed, moves no cursor.
func TestShellWord(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"filesystem", "filesystem"},
		{"@scope/pkg@1.0.0", "@scope/pkg@1.0.0"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$(rm -rf ~)", "'$(rm -rf ~)'"},
		{"a\x1b[2Kb", `$'a\u001B[2Kb'`},
		{"bad\xffbyte", `$'bad\xFFbyte'`},
		{"back\\slash\x07", `$'back\\slash\u0007'`},
	} {
		if got := ShellWord(tt.in); got != tt.want {
			t.Errorf("ShellWord(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
