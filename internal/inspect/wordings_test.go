package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// wordingLine is one line of a wordings file (testdata/wordings,
// testdata/heldout-wordings): the class it stands under, its mark ('?' a
// known miss, '!' a known false alarm, 0 none), and the wording itself, a
// tool's description ("D:") or answer ("A:"), labelled 1 under an attack
// class and 0 under "honest".
type wordingLine struct {
	class string
	mark  byte
	w     wording
}

// readWordingFile reads one wordings file: "# class: X" heads the lines
// after it, other "#" lines are comments, "\n" in a line is a line break.
// A line that is neither names its file and line and fails the test.
func readWordingFile(t testing.TB, file string) []wordingLine {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []wordingLine
	class := ""
	for i, text := range strings.Split(string(data), "\n") {
		if c, ok := strings.CutPrefix(text, "# class:"); ok {
			class = strings.TrimSpace(c)
			continue
		}
		if text == "" || text[0] == '#' {
			continue
		}
		var mark byte
		if text[0] == '?' || text[0] == '!' {
			mark, text = text[0], text[1:]
		}
		kind, body, ok := strings.Cut(text, ":")
		if !ok || kind != "A" && kind != "D" || class == "" {
			t.Fatalf("%s:%d: not a wording line under a class: %.60q", file, i+1, text)
		}
		out = append(out, wordingLine{class: class, mark: mark, w: wording{
			Label:  b2i(class != "honest"),
			From:   fmt.Sprintf("%s:%d", filepath.Base(file), i+1),
			Text:   strings.ReplaceAll(body, `\n`, "\n"),
			Answer: kind == "A",
		}})
	}
	return out
}

// wordingFiles are the files of a directory of testdata, sorted.
func wordingFiles(t testing.TB, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	slices.Sort(files)
	if len(files) == 0 {
		t.Fatalf("no wordings in testdata/%s", dir)
	}
	return files
}

// judgeWording is the worst severity the inspection gives a wording, as
// the folds' cases are judged.
func judgeWording(t *testing.T, w wording) finding.Severity {
	return judgeFoldCase(t, *wordingCase(w))
}

// wordingWant is the severity a class's lines must reach (attack) or stay
// under (honest).
func wordingWant(class string) (finding.Severity, bool) {
	switch {
	case class == "honest":
		return finding.Note, false
	case strings.HasPrefix(class, "impose"), strings.HasPrefix(class, "redirect"):
		return finding.Warning, true
	}
	return finding.Error, true
}

// wanted reports whether severity got is what class asks.
func wanted(class string, got finding.Severity) bool {
	want, attack := wordingWant(class)
	if attack {
		return got >= want
	}
	return got <= finding.Note
}

// TestOwnWordings judges the wordings of testdata/wordings and
// testdata/read-wordings: attacks and honest texts written for issue 45 by
// sessions that had read no rule, no fold and no test row. Each attack
// must reach its class's severity and each honest text must stay at a
// note, except the lines marked as known misses ("?") and known false
// alarms ("!"), which are logged. The figures are in
// bench/folds-results.md ("Wordings of our own"). The rounds of
// testdata/wordings are the statistical signal's training data too; those
// of testdata/read-wordings were read and tuned against, and are not
// (yet): the signal is retrained on them only where the held-out sets say
// it gains.
func TestOwnWordings(t *testing.T) {
	t.Parallel()
	for _, file := range append(wordingFiles(t, "wordings"), wordingFiles(t, "read-wordings")...) {
		lines := readWordingFile(t, file)
		caught, known := 0, 0
		for _, l := range lines {
			got := judgeWording(t, l.w)
			switch ok := wanted(l.class, got); {
			case ok && l.mark != 0:
				t.Logf("%s: marked %q but now %s: unmark it", l.w.From, l.mark, got)
				caught++
			case ok:
				caught++
			case l.mark != 0:
				known++
			default:
				t.Errorf("%s: %s, which %s does not want: %s", l.w.From, got, l.class, l.w.Text)
			}
		}
		t.Logf("%s: %d lines, %d as wanted, %d known", file, len(lines), caught, known)
	}
}

// TestHeldOutWordings measures testdata/heldout-wordings: wordings of our
// own that are never tuned against and are no training data for the
// signal, as the held-out folds are. It measures only: a miss is not a
// failure, a malformed line is. The figures at each line's first sight are
// in bench/folds-results.md.
func TestHeldOutWordings(t *testing.T) {
	t.Parallel()
	for _, file := range wordingFiles(t, "heldout-wordings") {
		lines := readWordingFile(t, file)
		met, errs, warned := 0, 0, 0
		for _, l := range lines {
			got := judgeWording(t, l.w)
			met += b2i(wanted(l.class, got))
			errs += b2i(got >= finding.Error)
			warned += b2i(got >= finding.Warning)
		}
		t.Logf("%s: %d lines, %d as wanted, %d errors, %d at warning or above", file, len(lines), met, errs, warned)
	}
}
