// Package ghcmd keeps untrusted text from becoming a GitHub Actions
// workflow command. The runner reads every line a step prints (stdout and
// stderr alike) and acts on the ones that parse as commands: a server named
// "::stop-commands::x" would stop the runner from reading the checker's own
// ::error lines, "::error file=x::Approved" would forge an annotation,
// "::add-mask::..." would hide the report.
//
// What the runner parses (actions/runner, src/Runner.Common/ActionCommand.cs
// and src/Runner.Worker/ActionCommandManager.cs, read for this package):
//
//   - lines are split on "\n", "\r" and "\r\n" (StreamReader.ReadLine);
//   - a line is a command when, after its leading white space is trimmed
//     (.NET TrimStart: every Unicode space, not only ' ' and tab), it
//     starts with "::" and has another "::" after the command name
//     (TryParseV2);
//   - failing that, the legacy form is looked for anywhere in the line:
//     "##[" then a name then "]" (TryParse); "##[error]x" in the middle of a
//     table row is a command;
//   - command names are case-insensitive, and "stop-commands" registers its
//     token as a name, so any name may be live: this package does not
//     check names.
//
// [Neutralize] therefore spells, in untrusted text, a leading "::" (after
// any white space) as "\u{003A}:" and every "##[" as "##\u{005B}", the
// \u{XXXX} form the reports already use for escaped characters. [Writer]
// applies it to every line of a stream, and lets the checker's own commands
// through its [Own] side.
package ghcmd

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode"
)

// trimmed reports whether the runner may trim r before looking for "::":
// every Unicode space, plus the invisible characters some .NET versions
// or a byte-order-mark-aware reader drop (conservative on purpose).
func trimmed(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200B' || r == '\uFEFF' || r == '\u180E' || r == '\u2060'
}

// IsCommand reports whether the runner would read line (one line, no line
// break) as a workflow command in either form, whatever its name.
func IsCommand(line string) bool {
	t := strings.TrimLeftFunc(line, trimmed)
	if strings.HasPrefix(t, "::") && strings.Contains(t[2:], "::") {
		return true
	}
	if i := strings.Index(line, "##["); i >= 0 && strings.Contains(line[i+3:], "]") {
		return true
	}
	return false
}

// Neutralize returns s with every line made inert: a leading "::" and any
// "##[" are escaped, whether or not the rest of the line completes a
// command (the line it ends up on may be completed by text around it).
// Text that needs no change is returned as is.
func Neutralize(s string) string {
	if !strings.Contains(s, "::") && !strings.Contains(s, "##[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(neutralizeLine(s))
			break
		}
		b.WriteString(neutralizeLine(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
	return b.String()
}

func neutralizeLine(line string) string {
	line = strings.ReplaceAll(line, "##[", `##\u{005B}`)
	t := strings.TrimLeftFunc(line, trimmed)
	if strings.HasPrefix(t, "::") {
		lead := line[:len(line)-len(t)]
		line = lead + `\u{003A}` + t[1:]
	}
	return line
}

// NeutralizeJSON spells every "##[" in JSON text as "##\u005b": the same
// string to any JSON reader, but not the legacy command form. "#" only
// occurs inside strings in JSON, so the escape always lands in one; and no
// line of JSON text starts with "::". JSON printed to a step log (a report,
// a matrix) then needs no other change, and stays valid JSON.
func NeutralizeJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("##[")) {
		return b
	}
	return bytes.ReplaceAll(b, []byte("##["), []byte(`##\u005b`))
}

// Writer neutralizes every line written to it before passing it on; the
// checker's own commands go through [Own]. A line is held until its line
// break arrives (or Flush), so a command split across two writes is still
// seen whole. Safe for concurrent use.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write neutralizes and passes on every complete line of p, keeping an
// unfinished last line for the next write.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	end := bytes.LastIndexAny(w.pending, "\r\n")
	if end < 0 {
		return len(p), nil
	}
	out := Neutralize(string(w.pending[:end+1]))
	w.pending = append(w.pending[:0], w.pending[end+1:]...)
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes on an unfinished last line, neutralized.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if len(w.pending) == 0 {
		return nil
	}
	out := Neutralize(string(w.pending))
	w.pending = w.pending[:0]
	_, err := io.WriteString(w.w, out)
	return err
}

type own struct{ w *Writer }

// Write passes p on unchanged, after any unfinished line of the
// neutralized side (so the command starts on a line of its own).
func (o own) Write(p []byte) (int, error) {
	o.w.mu.Lock()
	defer o.w.mu.Unlock()
	if len(o.w.pending) > 0 {
		o.w.pending = append(o.w.pending, '\n')
		if err := o.w.flushLocked(); err != nil {
			return 0, err
		}
	}
	return o.w.w.Write(p)
}

// Own returns the side of w that the checker's own workflow commands are
// written to, unchanged: annotations, log groups. The caller neutralizes
// any untrusted stretch inside them. For any other writer it returns w.
func Own(w io.Writer) io.Writer {
	if gw, ok := w.(*Writer); ok {
		return own{gw}
	}
	return w
}
