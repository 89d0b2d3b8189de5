package ghcmd

import (
	"bytes"
	"strings"
	"testing"
)

// hostile are texts a server or a config can put in a name, a
// description, an error or a held reason.
var hostile = []string{
	"::stop-commands::x",
	"::error file=x::Approved by the security team",
	"::add-mask::the-report",
	"::set-output name=ok::true",
	"::endgroup::",
	"  ::warning::indented",
	"\t::notice::tab",
	"\u00a0::error::no-break space",
	"\u2003::error::em space",
	"\u3000::error::ideographic space",
	"\u200b::error::zero width space",
	"\ufeff::error::byte order mark",
	"::ERROR::upper case",
	"name ##[error]legacy form mid-line",
	"##[add-mask]x",
	"##[stop-commands]tok",
	"a\n::error::after a newline",
	"a\r::error::after a carriage return",
	"a\r\n  ::error::after CRLF",
	"###[error]three hashes",
	"::::double",
}

func TestIsCommand(t *testing.T) {
	for _, s := range hostile {
		first := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
		any := false
		for _, l := range first {
			any = any || IsCommand(l)
		}
		if !any {
			t.Errorf("IsCommand misses %q", s)
		}
	}
	for _, s := range []string{"plain text", "a::b::c", "x ::error::", "##[ no close", ":: no second", "# # [error]"} {
		if IsCommand(s) {
			t.Errorf("IsCommand(%q) = true", s)
		}
	}
}

func TestNeutralize(t *testing.T) {
	for _, s := range hostile {
		out := Neutralize(s)
		for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if IsCommand(l) {
				t.Errorf("Neutralize(%q) = %q: line %q is a command", s, out, l)
			}
		}
		if strings.Count(out, "\n") != strings.Count(s, "\n") || strings.Count(out, "\r") != strings.Count(s, "\r") {
			t.Errorf("Neutralize(%q) changed the line breaks: %q", s, out)
		}
		if again := Neutralize(out); again != out {
			t.Errorf("not idempotent: %q then %q", out, again)
		}
	}
	for _, s := range []string{"plain", "a::b", "x: y", ""} {
		if got := Neutralize(s); got != s {
			t.Errorf("Neutralize(%q) = %q", s, got)
		}
	}
	if got := Neutralize("::error::x"); got != `\u{003A}:error::x` {
		t.Errorf("got %q", got)
	}
	if got := Neutralize("a ##[error]b"); got != `a ##\u{005B}error]b` {
		t.Errorf("got %q", got)
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	// A command split across writes is still seen whole.
	for _, p := range []string{"::err", "or::split\n", "ok line\n::add-mask::", "x\r", "tail ##", "[error]y"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	// The checker's own command passes unchanged, on a line of its own.
	if _, err := Own(w).Write([]byte("::error file=mcp-lock.json,line=1::ours\n")); err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("::stop-commands::tok"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, l := range strings.FieldsFunc(buf.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if IsCommand(l) {
			cmds = append(cmds, l)
		}
	}
	if len(cmds) != 1 || cmds[0] != "::error file=mcp-lock.json,line=1::ours" {
		t.Fatalf("commands %q in:\n%s", cmds, buf.String())
	}
	if Own(&buf) != &buf {
		t.Error("Own of a plain writer must be the writer")
	}
}
