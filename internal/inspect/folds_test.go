package inspect

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// Folds are sets of attacks from public MCP attack suites, one folder per
// source, that the text rules were not written against. TestFolds measures
// the rules on them the way a user meets them: each attack judged alone,
// by what the exported API says of it. The texts of public suites are kept
// out of the repository (bench/README.md says why, and the format;
// bench/folds-sources.md where each fold comes from); MCP_LOCKCHECK_FOLDS
// names where they are, a path list whose
// entries are either one source folder or a directory of source folders.
// Without it the committed folds of testdata/folds are measured, if any.
//
// A source folder holds one JSON file per attack (foldCase) and, in its
// benign/ subfolder, the clean definitions the suite ships, in the same
// format without expect and class. This test only measures: a missed
// attack is logged, never a failure; a file it cannot read is one.
//
// A directory of source folders may hold a HELDOUT file naming, one per
// line, the folds that whoever tunes the rules must not read. Their
// figures are printed and their misses are not: a miss line names an
// attack's id and class, which is already a hint of what to write.

const foldsEnv = "MCP_LOCKCHECK_FOLDS"

// foldCase is one attack (or, under benign/, one clean definition).
type foldCase struct {
	Source string `json:"source"`
	ID     string `json:"id"`
	// Kind is tool, prompt, resource, template, server (Definition is then
	// a JSON string holding the instructions) or answer (a tools/call
	// result).
	Kind       string          `json:"kind"`
	Server     string          `json:"server"`
	Name       string          `json:"name"`
	Definition json.RawMessage `json:"definition"`
	// Expect is the least severity the attack must get: "error", or
	// "warning" for a tool that imposes calls or steers to a tool of its
	// own server.
	Expect string `json:"expect"`
	Class  string `json:"class"`
	Note   string `json:"note"`
}

// foldScore is what one fold measured.
type foldScore struct {
	name                                    string
	heldOut, total                          bool
	attacks, errorClass, atError, atWarning int
	benign, benignErrors, benignWarnings    int
	missed, flagged                         []string
}

func TestFolds(t *testing.T) {
	dirs, heldOut := foldDirs(t)
	if len(dirs) == 0 {
		t.Logf("no folds: set %s to a fold directory (see bench/README.md)", foldsEnv)
		return
	}
	tuning, held, all := foldScore{name: "tuning folds", total: true}, foldScore{name: "held-out folds", total: true}, foldScore{name: "all", total: true}
	var rows []foldScore
	for _, dir := range dirs {
		sc := scoreFold(t, dir)
		sc.heldOut = heldOut[dir]
		rows = append(rows, sc)
		if sc.heldOut {
			held.add(sc)
		} else {
			tuning.add(sc)
		}
		all.add(sc)
	}
	var b strings.Builder
	b.WriteString("\n| fold | use | attacks | error-class | recall at error (error-class) | recall at warning+ (all) | benign | benign errors | benign warnings |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	totals := []foldScore{all}
	if held.attacks+held.benign > 0 {
		totals = []foldScore{tuning, held, all}
	}
	for _, sc := range append(rows, totals...) {
		use := "tuning"
		switch {
		case sc.heldOut:
			use = "held-out"
		case sc.total:
			use = ""
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %d | %d | %d |\n", sc.name, use, sc.attacks, sc.errorClass,
			foldRatio(sc.atError, sc.errorClass), foldRatio(sc.atWarning, sc.attacks), sc.benign, sc.benignErrors, sc.benignWarnings)
	}
	t.Log(b.String())
	if testing.Verbose() {
		for _, sc := range rows {
			if sc.heldOut {
				if len(sc.missed)+len(sc.flagged) > 0 {
					t.Logf("%s: held-out, %d misses and %d benign errors not listed", sc.name, len(sc.missed), len(sc.flagged))
				}
				continue
			}
			for _, m := range sc.missed {
				t.Logf("%s: missed %s", sc.name, m)
			}
			for _, m := range sc.flagged {
				t.Logf("%s: benign %s is an error", sc.name, m)
			}
		}
	}
}

// add counts sc's figures into s.
func (s *foldScore) add(sc foldScore) {
	s.attacks += sc.attacks
	s.errorClass += sc.errorClass
	s.atError += sc.atError
	s.atWarning += sc.atWarning
	s.benign += sc.benign
	s.benignErrors += sc.benignErrors
	s.benignWarnings += sc.benignWarnings
}

// foldDirs lists the source folders to measure, and which of them a
// HELDOUT file beside them names.
func foldDirs(t *testing.T) (dirs []string, heldOut map[string]bool) {
	t.Helper()
	var roots []string
	if env := os.Getenv(foldsEnv); env != "" {
		roots = filepath.SplitList(env)
	} else if st, err := os.Stat(filepath.Join("testdata", "folds")); err == nil && st.IsDir() {
		roots = []string{filepath.Join("testdata", "folds")}
	}
	heldOut = map[string]bool{}
	for _, root := range roots {
		if root == "" {
			continue
		}
		if foldHasCases(root) {
			dirs = append(dirs, root)
			if readHeldOut(t, filepath.Dir(root))[filepath.Base(root)] {
				heldOut[root] = true
			}
			continue
		}
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatalf("%s: %v", foldsEnv, err)
		}
		names := readHeldOut(t, root)
		for _, e := range entries {
			sub := filepath.Join(root, e.Name())
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && foldHasCases(sub) {
				dirs = append(dirs, sub)
				heldOut[sub] = names[e.Name()]
			}
		}
	}
	return dirs, heldOut
}

// readHeldOut reads root's HELDOUT file: fold names, one per line, blank
// lines and # comments ignored. No file names none.
func readHeldOut(t *testing.T, root string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "HELDOUT"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("%s: %v", foldsEnv, err)
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			names[line] = true
		}
	}
	return names
}

// foldHasCases: dir holds attacks, or benign definitions.
func foldHasCases(dir string) bool {
	a, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	b, _ := filepath.Glob(filepath.Join(dir, "benign", "*.json"))
	return len(a)+len(b) > 0
}

func scoreFold(t *testing.T, dir string) foldScore {
	t.Helper()
	sc := foldScore{name: filepath.Base(dir)}
	for _, c := range readFoldCases(t, filepath.Join(dir, "*.json")) {
		if c.Expect != "error" && c.Expect != "warning" {
			t.Errorf("%s/%s: expect %q, want error or warning", sc.name, c.ID, c.Expect)
			continue
		}
		got := judgeFoldCase(t, c)
		sc.attacks++
		if got >= finding.Warning {
			sc.atWarning++
		}
		want := finding.Warning
		if c.Expect == "error" {
			want = finding.Error
			sc.errorClass++
			if got >= finding.Error {
				sc.atError++
			}
		}
		if got < want {
			sc.missed = append(sc.missed, fmt.Sprintf("%s (%s %s, expect %s, got %s)", c.ID, c.Kind, c.Class, c.Expect, foldLevel(got)))
		}
	}
	for _, c := range readFoldCases(t, filepath.Join(dir, "benign", "*.json")) {
		sc.benign++
		switch got := judgeFoldCase(t, c); {
		case got >= finding.Error:
			sc.benignErrors++
			sc.flagged = append(sc.flagged, fmt.Sprintf("%s (%s)", c.ID, c.Kind))
		case got == finding.Warning:
			sc.benignWarnings++
		}
	}
	return sc
}

func readFoldCases(t *testing.T, pattern string) []foldCase {
	t.Helper()
	files, _ := filepath.Glob(pattern)
	sort.Strings(files)
	var out []foldCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c foldCase
		if err := json.Unmarshal(data, &c); err != nil || len(c.Definition) == 0 {
			t.Errorf("%s: not a fold case: %v", f, err)
			continue
		}
		if c.ID == "" {
			c.ID = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		out = append(out, c)
	}
	return out
}

// judgeFoldCase is the worst severity the inspection gives one case
// (foldFindings). (-1: no finding at all.)
func judgeFoldCase(t *testing.T, c foldCase) finding.Severity {
	worst := finding.Severity(-1)
	for _, f := range foldFindings(t, c) {
		worst = max(worst, f.Severity)
	}
	return worst
}

// foldFindings are the findings of one case: a definition through
// Definition (and a tool through Across too, its server configured
// alone), an answer through Answer as check judges a tools/call result.
func foldFindings(t *testing.T, c foldCase) []finding.Finding {
	s := Subject{Server: c.Server, Name: c.Name, Raw: c.Definition, Phase: "folds"}
	switch c.Kind {
	case "answer":
		s.Kind = finding.KindTool
		return Answer(s, AnswerOptions{Data: true})
	case "tool", "prompt", "resource", "template", "server":
		switch c.Kind {
		case "tool":
			s.Kind = finding.KindTool
		case "prompt":
			s.Kind = finding.KindPrompt
		case "resource":
			s.Kind = finding.KindResource
		case "template":
			s.Kind = finding.KindTemplate
		default:
			s.Kind, s.Name = finding.KindServer, "instructions"
		}
		fs := Definition(s)
		if c.Kind == "tool" {
			for _, f := range Across([]Subject{s}) {
				if f.Server == s.Server && f.Subject == s.Name {
					fs = append(fs, f)
				}
			}
		}
		return fs
	}
	t.Errorf("%s: unknown kind %q", c.ID, c.Kind)
	return nil
}

func foldLevel(s finding.Severity) string {
	if s < 0 {
		return "nothing"
	}
	return s.String()
}

func foldRatio(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d = %.3f", n, d, float64(n)/float64(d))
}
