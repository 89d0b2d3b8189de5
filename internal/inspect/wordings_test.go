package inspect

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// TestOwnWordings judges the wordings of testdata/wordings: attacks and
// honest texts written for issue 45 by sessions that had read no rule, no
// fold and no test row. Each attack must reach its class's severity and
// each honest text must stay at a note, except the lines marked as known
// misses ("?") and known false alarms ("!"), which are logged. The figures
// are in bench/folds-results.md ("Wordings of our own").
func TestOwnWordings(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "wordings", "*.txt"))
	if len(files) == 0 {
		t.Fatal("no wordings in testdata/wordings")
	}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		class, n, caught, known := "", 0, 0, 0
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			if c, ok := strings.CutPrefix(text, "# class:"); ok {
				class = strings.TrimSpace(c)
				continue
			}
			if text == "" || text[0] == '#' {
				continue
			}
			mark := ""
			if text[0] == '?' || text[0] == '!' {
				mark, text = text[:1], text[1:]
			}
			got := judgeWording(t, text)
			n++
			want, attack := wordingWant(class)
			ok := got >= want
			if !attack {
				ok = got <= finding.Note
			}
			switch {
			case ok && mark == "":
				caught++
			case ok:
				t.Logf("%s:%d: marked %q but now %s: unmark it", file, line, mark, got)
				caught++
			case mark != "":
				known++
			default:
				t.Errorf("%s:%d: %s, want %s for %s: %s", file, line, got, wantWord(want, attack), class, text)
			}
		}
		f.Close()
		t.Logf("%s: %d lines, %d as wanted, %d known", file, n, caught, known)
	}
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

func wantWord(s finding.Severity, attack bool) string {
	if attack {
		return "at least " + s.String()
	}
	return "at most a note"
}

// judgeWording is the worst severity of a line: "D:" a tool's description
// (Definition and Across), "A:" a tool's answer (Answer, as check judges a
// tools/call result).
func judgeWording(t *testing.T, line string) finding.Severity {
	t.Helper()
	kind, text, ok := strings.Cut(line, ":")
	if !ok || kind != "A" && kind != "D" {
		t.Fatalf("not a wording line: %q", line)
	}
	text = strings.ReplaceAll(text, `\n`, "\n")
	c := foldCase{Server: "wording", Name: "wording_tool", ID: "wording"}
	if kind == "A" {
		c.Kind = "answer"
		c.Definition, _ = json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	} else {
		c.Kind = "tool"
		c.Definition, _ = json.Marshal(map[string]any{"name": "wording_tool", "description": text, "inputSchema": map[string]any{"type": "object"}})
	}
	return judgeFoldCase(t, c)
}

// TestHeldOutWordings measures testdata/heldout-wordings: wordings of our
// own that are never tuned against and are no training data for the
// signal, as the held-out folds are. It measures only: a miss is not a
// failure, a malformed line is. The figures at each line's first sight are
// in bench/folds-results.md.
func TestHeldOutWordings(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("testdata", "heldout-wordings", "*.txt"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		class, n, met, errs, warned := "", 0, 0, 0, 0
		for _, text := range strings.Split(string(data), "\n") {
			if c, ok := strings.CutPrefix(text, "# class:"); ok {
				class = strings.TrimSpace(c)
				continue
			}
			if text == "" || text[0] == '#' {
				continue
			}
			got := judgeWording(t, text)
			want, attack := wordingWant(class)
			n++
			if attack && got >= want || !attack && got <= finding.Note {
				met++
			}
			if got >= finding.Error {
				errs++
			}
			if got >= finding.Warning {
				warned++
			}
		}
		t.Logf("%s: %d lines, %d as wanted, %d errors, %d at warning or above", file, n, met, errs, warned)
	}
}
