package termtable

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWriteFits: a table is cut to the width from its widest column,
// never from the short ones (a status, a count), and its lines end at
// their last word.
func TestWriteFits(t *testing.T) {
	t.Parallel()
	header := []string{"server", "status", "errors", "held because"}
	rows := [][]string{
		{"filesystem", "✖ drift", "12", ""},
		{"a-server-with-a-long-name", "⏸ held", "1", "initialize: connection failed: EOF (server exited: exit status 1) after a long wait"},
	}
	for _, width := range []int{40, 60, 80, 140} {
		var buf bytes.Buffer
		if err := Write(&buf, header, rows, width); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: a line of %d: %q", width, n, line)
			}
			if strings.HasSuffix(line, " ") {
				t.Errorf("width %d: trailing blanks: %q", width, line)
			}
		}
		for _, cell := range []string{"✖ drift", "⏸ held", "12", "errors"} {
			if !strings.Contains(out, cell) {
				t.Errorf("width %d: %q was cut:\n%s", width, cell, out)
			}
		}
		if width >= 140 && !strings.Contains(out, "after a long wait") {
			t.Errorf("width %d: cut although it fits:\n%s", width, out)
		}
	}
}
