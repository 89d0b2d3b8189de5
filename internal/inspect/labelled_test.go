package inspect

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// The labelled set is what recall and precision are measured on
// (bench/labelled.sh): every attack of testdata/attacks, each one
// definition labelled an attack, beside every definition of the real
// servers in testdata/corpus (the published dumps and what bench/sweep.sh
// pinned), each labelled honest. A definition is flagged when the
// inspection gives it an error, which is what fails a pin or a check:
// Definition's findings, and Across's with the attack configured beside
// the benign neighbours (attacks) or with every real server configured
// together (honest ones).

// labelled is one definition of the set.
type labelled struct {
	subject Subject
	attack  bool
	across  bool // judged with Across too (an attack with expectAcross)
	name    string
}

func labelledSet(t testing.TB) []labelled {
	t.Helper()
	var out []labelled
	for _, a := range readAttackFiles(t) {
		if a.Severity != nil && *a.Severity < finding.Error {
			// Labelled as what it is: text that describes what the
			// tool does, a warning by design (see its about).
			continue
		}
		out = append(out, labelled{
			subject: Subject{Server: a.Server, Kind: a.Kind, Name: a.Name, Raw: a.Definition, Phase: "launch-1/initial"},
			attack:  true, across: len(a.ExpectAcross) > 0,
			name: a.name,
		})
	}
	// The payloads of TestAttackEncodings in every encoding it tries.
	for _, enc := range attackEncodings {
		for i, p := range payloads {
			raw, _ := json.Marshal(map[string]any{"name": "weather", "description": enc.encode(p)})
			out = append(out, labelled{
				subject: Subject{Server: "evil", Kind: finding.KindTool, Name: "weather", Raw: raw, Phase: "launch-1/initial"},
				attack:  true, name: fmt.Sprintf("%s/%d", enc.name, i),
			})
		}
	}
	for _, cs := range loadSweepCorpus(t) {
		for _, s := range cs.subjects {
			out = append(out, labelled{subject: s, name: cs.file + " " + string(s.Kind) + " " + s.Name})
		}
	}
	return out
}

// score runs the inspection over the set: true and false positives and
// negatives, at error level.
type score struct{ tp, fp, fn, tn int }

func (s score) recall() float64    { return float64(s.tp) / float64(max(1, s.tp+s.fn)) }
func (s score) precision() float64 { return float64(s.tp) / float64(max(1, s.tp+s.fp)) }

func scoreSet(set []labelled, miss func(l labelled, fs []finding.Finding)) score {
	var honest []Subject
	for _, l := range set {
		if !l.attack {
			honest = append(honest, l.subject)
		}
	}
	// Honest servers together: an error Across raises on one of them is
	// a false positive of that definition.
	acrossErr := map[string]bool{}
	for _, f := range Across(honest) {
		if f.Severity >= finding.Error {
			acrossErr[f.Server+"\x00"+string(f.Kind)+"\x00"+f.Subject] = true
		}
	}
	var sc score
	for _, l := range set {
		fs := Definition(l.subject)
		if l.across {
			for _, f := range Across(append(benignNeighbours(), l.subject)) {
				if f.Server == l.subject.Server && f.Subject == l.subject.Name {
					fs = append(fs, f)
				}
			}
		}
		flagged := worst(fs) >= finding.Error
		if !l.attack && acrossErr[l.subject.Server+"\x00"+string(l.subject.Kind)+"\x00"+l.subject.Name] {
			flagged = true
		}
		switch {
		case l.attack && flagged:
			sc.tp++
		case l.attack:
			sc.fn++
			miss(l, fs)
		case flagged:
			sc.fp++
			miss(l, fs)
		default:
			sc.tn++
		}
	}
	return sc
}

// TestLabelledSet: every attack is an error, no honest definition is.
func TestLabelledSet(t *testing.T) {
	t.Parallel()
	set := labelledSet(t)
	sc := scoreSet(set, func(l labelled, fs []finding.Finding) {
		if l.attack {
			t.Errorf("attack %s missed:\n%s", l.name, dumpFindings(fs))
		} else {
			t.Errorf("honest %s flagged:\n%s", l.name, dumpFindings(fs))
		}
	})
	t.Logf("%d attacks, %d honest definitions: recall %.3f, precision %.3f", sc.tp+sc.fn, sc.fp+sc.tn, sc.recall(), sc.precision())
}

// BenchmarkLabelledSet reports recall and precision on the labelled set,
// and the inspection time per definition.
func BenchmarkLabelledSet(b *testing.B) {
	set := labelledSet(b)
	var sc score
	for b.Loop() {
		sc = scoreSet(set, func(labelled, []finding.Finding) {})
	}
	b.ReportMetric(sc.recall(), "recall")
	b.ReportMetric(sc.precision(), "precision")
	b.ReportMetric(float64(sc.tp+sc.fn), "attacks")
	b.ReportMetric(float64(sc.fp+sc.tn), "honest")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(set)), "ns/def")
}
