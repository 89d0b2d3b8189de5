package inspect

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// The measurements of the statistical signal (bench/folds-results.md, "A
// statistical signal" and "A statistical signal, retrained"). All only
// print.
//
// TestModelCrossValidation (MCP_LOCKCHECK_MODEL_CV=1): the benign corpus in
// five parts by server; a model trained on our wordings, the attack files
// and four parts scores the fifth, and the definitions no rule already
// gives a warning that it would warn about are counted per threshold: the
// false-warning rate on servers the model never saw.
//
// TestModelFolds (MCP_LOCKCHECK_FOLDS, as bench/folds.sh): per tuning
// fold, the attacks the rules leave below a warning that the signal would
// raise, and the benign definitions it would warn about, per threshold: a
// measurement of the committed model, not a way to choose its settings
// (TestModelGrid reads no fold). Held-out folds are skipped unread unless
// MCP_LOCKCHECK_MODEL_HELDOUT=1.

// modelThresholds are the thresholds (logits) the measurements try.
var modelThresholds = []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 10}

// withoutModel drops the signal's findings.
func withoutModel(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if !strings.HasPrefix(f.Detail, modelLabel) {
			out = append(out, f)
		}
	}
	return out
}

// bestAny is the clause of raw that scores highest, whatever its score.
func (m *wordModel) bestAny(raw []byte) modelScan {
	c := *m
	c.threshold = -1 << 30
	return c.best(raw)
}

// modelLogit is the best clause score of raw in logits, for a subject
// whose rules give it less than a warning; -inf otherwise.
func modelLogit(m *wordModel, base finding.Severity, raw []byte) float64 {
	if base >= finding.Warning {
		return -1e9
	}
	b := m.bestAny(raw)
	return float64(b.score) * float64(m.scale)
}

func TestModelCrossValidation(t *testing.T) {
	if os.Getenv("MCP_LOCKCHECK_MODEL_CV") == "" {
		t.Skip("set MCP_LOCKCHECK_MODEL_CV=1")
	}
	const parts = 5
	d := loadModelData(t, readWordings(t))
	servers := loadBenignCorpus(t)
	type scored struct {
		logit        float64
		server, name string
		clause       string
	}
	var cv, in []scored
	tools, defs := 0, 0
	full := trainModel(d, nil)
	for k := range parts {
		m := trainModel(d, func(i int) bool { return i%parts != k })
		for i, s := range servers {
			if i%parts != k {
				continue
			}
			tools += s.tools
			for _, sub := range s.subjects {
				defs++
				base := worst(withoutModel(Definition(sub)))
				l := modelLogit(m, base, sub.Raw)
				cl := ""
				if base < finding.Warning {
					cl = m.bestAny(sub.Raw).str
				}
				cv = append(cv, scored{l, s.slug, sub.Name, cl})
				in = append(in, scored{modelLogit(full, base, sub.Raw), s.slug, sub.Name, cl})
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ntraining data: %s\n", d.counts)
	fmt.Fprintf(&b, "benign corpus, %d parts by server: %d tools, %d definitions\n", parts, tools, defs)
	b.WriteString("| threshold | warnings, cross-validated | per 100 tools | warnings, trained on all |\n| ---: | ---: | ---: | ---: |\n")
	for _, thr := range modelThresholds {
		n, nIn := 0, 0
		for i := range cv {
			if cv[i].logit >= thr {
				n++
			}
			if in[i].logit >= thr {
				nIn++
			}
		}
		fmt.Fprintf(&b, "| %.0f | %d | %.2f | %d |\n", thr, n, 100*float64(n)/float64(tools), nIn)
	}
	t.Log(b.String())
	if testing.Verbose() {
		for _, s := range cv {
			if s.logit >= 2 {
				t.Logf("cv %.1f %s/%s: %q", s.logit, s.server, s.name, s.clause)
			}
		}
	}
}

// modelTally counts fold cases: those the rules already give a warning
// (base), and per threshold of modelThresholds those below a warning that
// the signal would warn about (over).
type modelTally struct {
	n, base int
	over    []int
}

func newModelTally() modelTally { return modelTally{over: make([]int, len(modelThresholds))} }

// add judges c and counts it; it returns the signal's logit and whether the
// rules left c below a warning.
func (y *modelTally) add(t *testing.T, m *wordModel, c foldCase) (float64, bool) {
	y.n++
	base := worst(withoutModel(foldFindings(t, c)))
	if base >= finding.Warning {
		y.base++
		return 0, false
	}
	l := modelLogit(m, base, c.Definition)
	for i, thr := range modelThresholds {
		if l >= thr {
			y.over[i]++
		}
	}
	return l, true
}

func (y *modelTally) plus(o modelTally) {
	y.n += o.n
	y.base += o.base
	for i := range y.over {
		y.over[i] += o.over[i]
	}
}

func TestModelFolds(t *testing.T) {
	if os.Getenv(foldsEnv) == "" {
		t.Skipf("set %s", foldsEnv)
	}
	held := os.Getenv("MCP_LOCKCHECK_MODEL_HELDOUT") != ""
	dirs, heldOut := foldDirs(t)
	requireModel(t)
	m := statModel
	type row struct {
		name            string
		heldOut         bool
		attacks, benign modelTally
	}
	var rows []row
	for _, dir := range dirs {
		if heldOut[dir] != held {
			continue
		}
		r := row{name: filepath.Base(dir), heldOut: heldOut[dir], attacks: newModelTally(), benign: newModelTally()}
		for _, c := range readFoldCases(t, filepath.Join(dir, "*.json")) {
			if l, below := r.attacks.add(t, m, c); below && !r.heldOut && testing.Verbose() {
				t.Logf("%s: %s below a warning, model %.1f", r.name, c.ID, l)
			}
		}
		for _, c := range readFoldCases(t, filepath.Join(dir, "benign", "*.json")) {
			if l, below := r.benign.add(t, m, c); below && !r.heldOut && testing.Verbose() && l >= 2 {
				t.Logf("%s: benign %s, model %.1f", r.name, c.ID, l)
			}
		}
		rows = append(rows, r)
	}
	var b strings.Builder
	b.WriteString("\n| fold | attacks | warning+ without | ")
	for _, thr := range modelThresholds {
		fmt.Fprintf(&b, "+%.0f | ", thr)
	}
	b.WriteString("benign | benign warning+ without | ")
	for _, thr := range modelThresholds {
		fmt.Fprintf(&b, "+%.0f | ", thr)
	}
	b.WriteString("\n")
	total := row{name: "total", attacks: newModelTally(), benign: newModelTally()}
	for _, r := range rows {
		total.attacks.plus(r.attacks)
		total.benign.plus(r.benign)
	}
	for _, r := range append(rows, total) {
		fmt.Fprintf(&b, "| %s | %d | %d | ", r.name, r.attacks.n, r.attacks.base)
		for _, g := range r.attacks.over {
			fmt.Fprintf(&b, "%d | ", g)
		}
		fmt.Fprintf(&b, "%d | %d | ", r.benign.n, r.benign.base)
		for _, g := range r.benign.over {
			fmt.Fprintf(&b, "%d | ", g)
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
}

// TestModelGrid (MCP_LOCKCHECK_MODEL_GRID=1): the trainer's settings tried
// side by side by cross-validation inside the training data alone (no
// attack fold is read). Five parts: the corpus by server, our asking
// wordings and honest wordings by row or line (an attack file by file);
// a model trained on four parts scores the fifth. Per setting and
// threshold: the corpus's definitions no rule already warns about that it
// warns about (the limit is 0.2 per 100 tools), the held-out asking
// wordings it reaches (all, and those the rules leave below a warning),
// the held-out honest wordings it warns about, and, trained on all, the
// corpus's definitions it warns about (TestBenignCorpus must not change).
func TestModelGrid(t *testing.T) {
	if os.Getenv("MCP_LOCKCHECK_MODEL_GRID") == "" {
		t.Skip("set MCP_LOCKCHECK_MODEL_GRID=1")
	}
	const parts = 5
	d := loadModelData(t, readWordings(t))
	servers := loadBenignCorpus(t)
	type subj struct {
		raw    []byte
		server int
	}
	var corpus []subj
	tools := 0
	for i, s := range servers {
		tools += s.tools
		for _, sub := range s.subjects {
			if worst(withoutModel(Definition(sub))) < finding.Warning {
				corpus = append(corpus, subj{sub.Raw, i})
			}
		}
	}
	// The rules' verdict on each wording, without the signal.
	bagBase := make([]finding.Severity, len(d.bags))
	for i := range d.bags {
		bagBase[i] = finding.Error // an attack file: its test asserts the rules
		if d.bagRaw[i] != nil {
			bagBase[i] = worst(withoutModel(foldFindings(t, *d.bagRaw[i])))
		}
	}
	honestBase := make([]finding.Severity, len(d.honest))
	for i := range d.honest {
		honestBase[i] = worst(withoutModel(foldFindings(t, *d.honestRaw[i])))
	}
	var all [][]byte
	for _, s := range corpus {
		all = append(all, s.raw)
	}
	count := func(ls []float64, thr float64) int {
		n := 0
		for _, l := range ls {
			if l >= thr {
				n++
			}
		}
		return n
	}
	below := 0
	for _, b := range bagBase {
		if b < finding.Warning {
			below++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\ntraining data: %s\ncorpus: %d tools, %d definitions below a warning; %d asking wordings, %d of them below a warning by the rules; %d honest wordings\n",
		d.counts, tools, len(corpus), len(d.bags), below, len(d.honest))
	b.WriteString("| posWeight | l2 | minBags | epochs | rounds | threshold | cv corpus warnings | per 100 tools | in-sample corpus | cv asking reached | cv asking the rules miss, reached | cv honest wordings warned |\n| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	grid := []trainOpts{
		{0.1, 1e-4, 1, 12, 3}, {0.03, 1e-4, 1, 12, 3}, {0.3, 1e-4, 1, 12, 3}, {1, 1e-4, 1, 12, 3},
		{0.1, 1e-4, 2, 12, 3}, {0.3, 1e-4, 2, 12, 3}, {0.1, 1e-4, 1, 12, 1}, {0.1, 1e-5, 1, 12, 3},
		{0.3, 1e-3, 1, 12, 3}, {1, 1e-3, 1, 12, 3}, {3, 1e-4, 1, 12, 3}, {1, 1e-4, 2, 12, 3},
		{1, 1e-4, 1, 24, 3}, {0.3, 1e-4, 1, 24, 3},
	}
	if g := os.Getenv("MCP_LOCKCHECK_MODEL_GRID_ONLY"); g != "" {
		var o trainOpts
		fmt.Sscanf(g, "%g,%g,%d,%d,%d", &o.posWeight, &o.l2, &o.minBags, &o.epochs, &o.rounds)
		grid = []trainOpts{o}
	}
	for _, o := range grid {
		cv := make([]float64, len(corpus))
		ask := make([]float64, len(d.bags))
		hon := make([]float64, len(d.honest))
		for k := range parts {
			dk := d.without(func(i int) bool { return i%parts == k }, func(i int) bool { return i%parts == k })
			m := trainModelWith(dk, func(i int) bool { return i%parts != k }, o)
			for i, s := range corpus {
				if s.server%parts == k {
					cv[i] = modelLogit(m, -1, s.raw)
				}
			}
			for i := range d.bags {
				if i%parts == k {
					ask[i] = bagLogit(m, d.bags[i])
				}
			}
			for i := range d.honest {
				if i%parts == k {
					hon[i] = -1e9
					if honestBase[i] < finding.Warning {
						hon[i] = bagLogit(m, d.honest[i])
					}
				}
			}
		}
		full := trainModelWith(d, nil, o)
		in := make([]float64, len(all))
		for i, r := range all {
			in[i] = modelLogit(full, -1, r)
		}
		var askBelow, ownBelow, ownHon []float64
		for i, l := range ask {
			if bagBase[i] < finding.Warning {
				askBelow = append(askBelow, l)
				if strings.HasPrefix(d.bagFrom[i], "round") {
					ownBelow = append(ownBelow, l)
				}
			}
		}
		for i, l := range hon {
			if strings.HasPrefix(d.honestFrom[i], "round") {
				ownHon = append(ownHon, l)
			}
		}
		for _, thr := range []float64{3, 4, 4.5, 5, 5.5, 6, 6.5, 7, 8} {
			n := count(cv, thr)
			fmt.Fprintf(&b, "| %g | %g | %d | %d | %d | %g | %d | %.2f | %d | %d/%d | %d/%d (wordings files %d/%d) | %d (wordings files %d) |\n", o.posWeight, o.l2, o.minBags, o.epochs, o.rounds, thr, n, 100*float64(n)/float64(tools), count(in, thr),
				count(ask, thr), len(ask), count(askBelow, thr), len(askBelow), count(ownBelow, thr), len(ownBelow), count(hon, thr), count(ownHon, thr))
		}
		if testing.Verbose() {
			thr := 4.0
			if v := os.Getenv("MCP_LOCKCHECK_MODEL_GRID_THR"); v != "" {
				fmt.Sscanf(v, "%g", &thr)
			}
			for i, l := range hon {
				if l >= thr {
					t.Logf("honest warned %.1f %s", l, d.honestFrom[i])
				}
			}
			for i, l := range ask {
				if bagBase[i] < finding.Warning {
					t.Logf("asking the rules miss: %.1f %s", l, d.bagFrom[i])
				}
			}
		}
	}
	t.Log(b.String())
}

// bagLogit is the best score of a bag's clauses, in logits.
func bagLogit(m *wordModel, bag []mclause) float64 {
	best := math.Inf(-1)
	for _, c := range bag {
		best = max(best, float64(m.score(c.feats))*float64(m.scale))
	}
	return best
}

// TestModelWordingsFile (MCP_LOCKCHECK_MODEL_WORDINGS=FILE[:FILE...]):
// wordings in the format of testdata/wordings, judged with and without
// the signal, for text the trainer never read (run once, with the
// settings fixed). Per class: the lines, how many reach a warning or
// above and an error, without and with the signal; for honest lines, how
// many get a warning or above.
func TestModelWordingsFile(t *testing.T) {
	env := os.Getenv("MCP_LOCKCHECK_MODEL_WORDINGS")
	if env == "" {
		t.Skip("set MCP_LOCKCHECK_MODEL_WORDINGS")
	}
	type counts struct{ n, warn0, warn1, err0, err1 int }
	var b strings.Builder
	for _, file := range filepath.SplitList(env) {
		byClass := map[string]*counts{}
		var order []string
		for _, l := range readWordingFile(t, file) {
			fs := foldFindings(t, *wordingCase(l.w))
			with, without := worst(fs), worst(withoutModel(fs))
			c := byClass[l.class]
			if c == nil {
				c = &counts{}
				byClass[l.class] = c
				order = append(order, l.class)
			}
			c.n++
			c.warn0 += b2i(without >= finding.Warning)
			c.warn1 += b2i(with >= finding.Warning)
			c.err0 += b2i(without >= finding.Error)
			c.err1 += b2i(with >= finding.Error)
			if with != without && testing.Verbose() {
				t.Logf("%s [%s] signal: %s -> %s: %.160s", l.w.From, l.class, without, with, l.w.Text)
			}
		}
		fmt.Fprintf(&b, "\n%s\n| class | lines | warning+ without | warning+ with | error without | error with |\n| --- | ---: | ---: | ---: | ---: | ---: |\n", file)
		var tot counts
		for _, cl := range order {
			c := byClass[cl]
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", cl, c.n, c.warn0, c.warn1, c.err0, c.err1)
			tot.n += c.n
			tot.warn0 += c.warn0
			tot.warn1 += c.warn1
			tot.err0 += c.err0
			tot.err1 += c.err1
		}
		fmt.Fprintf(&b, "| all | %d | %d | %d | %d | %d |\n", tot.n, tot.warn0, tot.warn1, tot.err0, tot.err1)
	}
	t.Log(b.String())
}
