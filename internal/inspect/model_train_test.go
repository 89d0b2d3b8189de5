package inspect

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The trainer of the statistical signal (model.go). With -update-model,
// TestModelWeights first extracts our own wordings from the tests into
// testdata/model/wordings.jsonl, then trains on them, the lines of
// testdata/wordings/*.txt, the attack files and the benign corpus, and writes testdata/model/weights.bin; without it,
// it trains the same way and fails if the committed weights differ, so
// they cannot drift from their data silently:
//
//	go test ./internal/inspect -run '^TestModelWeights$' -update-model
//
// Everything is in a fixed order with a fixed seed, so the same data gives
// the same bytes.
var updateModel = flag.Bool("update-model", false, "re-extract testdata/model/wordings.jsonl and retrain testdata/model/weights.bin")

const (
	modelWordingsFile = "testdata/model/wordings.jsonl"
	modelWeightsPath  = "testdata/model/weights.bin"
)

// wording is one text of our own, labelled: 1 asks something of the model
// that a reviewer must see (a warning or an error), 0 is honest.
type wording struct {
	Label int    `json:"label"`
	From  string `json:"from"`
	Text  string `json:"text"`
	// Answer: a tool's answer, not a description (testdata/wordings "A:").
	Answer bool `json:"-"`
}

// extractWordings reads the rows of the tests that hold our wordings with
// their verdicts: TestActionClasses' {class, text} (classNone honest),
// TestIntentSeverity's and TestHonestWordingsQuiet's {name, def, max[,
// min]} (a min of warning or error asks, a max of note is honest; the text
// is the last string argument of the helper that builds def),
// TestAnswerClasses' {text, want}, and the payloads of TestAttackEncodings
// and TestAnswerFindsPayloadEverywhere (asks).
func extractWordings(t *testing.T) []wording {
	t.Helper()
	var out []wording
	fset := token.NewFileSet()
	for _, file := range []string{"clause_test.go", "intent_test.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			switch fn.Name.Name {
			case "TestActionClasses", "TestAnswerClasses", "TestHonestWordingsQuiet", "TestIntentSeverity", "TestSyscallErrorsQuiet":
			default:
				continue
			}
			from := file + ":" + fn.Name.Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				cl, ok := n.(*ast.CompositeLit)
				if !ok || cl.Type != nil {
					return true
				}
				if w, ok := rowWording(cl); ok {
					w.From = from
					out = append(out, w)
				}
				return true
			})
		}
	}
	for _, p := range payloads {
		out = append(out, wording{Label: 1, From: "attacks_test.go:payloads", Text: p})
	}
	for _, p := range answerPayloads {
		if p.rule == "model-instruction" {
			out = append(out, wording{Label: 1, From: "answer_test.go:answerPayloads", Text: p.text})
		}
	}
	return out
}

// rowWording reads one row of a table (extractWordings).
func rowWording(cl *ast.CompositeLit) (wording, bool) {
	str := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	sev := func(e ast.Expr) string {
		if s, ok := e.(*ast.SelectorExpr); ok {
			return s.Sel.Name
		}
		return ""
	}
	el := cl.Elts
	switch {
	case len(el) == 2:
		if id, ok := el[0].(*ast.Ident); ok && strings.HasPrefix(id.Name, "class") {
			if s, ok := str(el[1]); ok {
				return wording{Label: b2i(id.Name != "classNone"), Text: s}, true
			}
		}
		if s, ok := str(el[0]); ok {
			switch sev(el[1]) {
			case "Error", "Warning":
				return wording{Label: 1, Text: s}, true
			case "Note":
				return wording{Label: 0, Text: s}, true
			}
		}
	case len(el) == 3 || len(el) == 4:
		if _, ok := str(el[0]); !ok {
			return wording{}, false
		}
		call, ok := el[1].(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return wording{}, false
		}
		if id, ok := call.Fun.(*ast.Ident); !ok || id.Name == "enum" {
			return wording{}, false
		}
		s, ok := str(call.Args[len(call.Args)-1])
		if !ok {
			return wording{}, false
		}
		if len(el) == 4 && (sev(el[3]) == "Error" || sev(el[3]) == "Warning") {
			return wording{Label: 1, Text: s}, true
		}
		if sev(el[2]) == "Note" {
			return wording{Label: 0, Text: s}, true
		}
	}
	return wording{}, false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func readWordings(t testing.TB) []wording {
	t.Helper()
	data, err := os.ReadFile(modelWordingsFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []wording
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var w wording
		if err := json.Unmarshal(line, &w); err != nil {
			t.Fatalf("%s: %v", modelWordingsFile, err)
		}
		out = append(out, w)
	}
	return out
}

func writeWordings(t *testing.T, ws []wording) {
	t.Helper()
	var b bytes.Buffer
	for _, w := range ws {
		line, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(modelWordingsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(modelWordingsFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mclause is one clause to learn from.
type mclause struct {
	text  string
	feats []uint32
}

// clausesOf splits every string of a definition (keys left out) into
// clauses, as the signal reads them.
func clausesOf(raw []byte) []mclause {
	var out []mclause
	var feats []uint32
	visit := func(r textRef) {
		if r.key || len(r.b) < 12 {
			return
		}
		feats = clauseFeatures(r.b, feats, func(start, end int, fs []uint32) {
			out = append(out, mclause{text: strings.ToLower(string(r.b[start:end])), feats: slices.Clone(fs)})
		})
	}
	if err := walkStrings(raw, visit); err != nil {
		visit(textRef{b: raw})
	}
	return out
}

func textClauses(s string) []mclause {
	raw, _ := json.Marshal(s)
	return clausesOf(raw)
}

// modelData is what the model learns from: bags of clauses of which at
// least one asks something of the model (each of our asking wordings, each
// attack file, each line of testdata/wordings/*-attacks.txt), honest
// clauses of our own (test rows and *-honest.txt lines), and the corpus's
// clauses per server. bagFrom and honestFrom name where each bag and each
// honest wording came from (file:line or test row), for cross-validation.
type modelData struct {
	bags       [][]mclause
	bagFrom    []string
	honest     [][]mclause
	honestFrom []string
	servers    [][]mclause
	counts     string
	// bagRaw and honestRaw are each wording as the rules judge it (a
	// tool's description or answer); nil for an attack file.
	bagRaw, honestRaw []*foldCase
}

// ownWordingLines are the lines of testdata/wordings/*.txt
// (readWordingFile): 1 for a line under an attack class, 0 under honest.
// Marks of known misses and false alarms ("?", "!") do not change a label.
func ownWordingLines(t testing.TB) []wording {
	t.Helper()
	var out []wording
	for _, file := range wordingFiles(t, "wordings") {
		for _, l := range readWordingFile(t, file) {
			out = append(out, l.w)
		}
	}
	return out
}

func loadModelData(t testing.TB, ws []wording) modelData {
	t.Helper()
	var d modelData
	nPos, nNeg := 0, 0
	own := ownWordingLines(t)
	nOwn := [2]int{}
	for _, w := range own {
		nOwn[w.Label]++
	}
	for i, w := range append(slices.Clone(ws), own...) {
		cs := textClauses(w.Text)
		if len(cs) == 0 {
			continue
		}
		from := w.From
		if i < len(ws) {
			from = fmt.Sprintf("%s#%d", w.From, i)
		}
		c := wordingCase(w)
		if w.Label == 1 {
			d.bags = append(d.bags, cs)
			d.bagFrom = append(d.bagFrom, from)
			d.bagRaw = append(d.bagRaw, c)
			nPos++
		} else {
			d.honest = append(d.honest, cs)
			d.honestFrom = append(d.honestFrom, from)
			d.honestRaw = append(d.honestRaw, c)
			nNeg++
		}
	}
	attacks := readAttackFiles(t)
	for _, a := range attacks {
		if cs := clausesOf(a.Definition); len(cs) > 0 {
			d.bags = append(d.bags, cs)
			d.bagFrom = append(d.bagFrom, a.file)
			d.bagRaw = append(d.bagRaw, nil)
		}
	}
	defs, tools := 0, 0
	for _, s := range loadBenignCorpus(t) {
		var cs []mclause
		for _, sub := range s.subjects {
			cs = append(cs, clausesOf(sub.Raw)...)
		}
		d.servers = append(d.servers, cs)
		defs += len(s.subjects)
		tools += s.tools
	}
	d.counts = fmt.Sprintf("%d asking wordings (%d of testdata/wordings) and %d attack files (%d bags), %d honest wordings (%d of testdata/wordings), %d corpus servers (%d tools, %d definitions)",
		nPos, nOwn[1], len(attacks), len(d.bags), nNeg, nOwn[0], len(d.servers), tools, defs)
	return d
}

// trainModel fits a logistic regression by SGD: two rounds, the second
// keeping of each asking bag only the clauses the first round scored near
// the bag's best (an attack file's honest opening sentence is not an
// instruction). keep says which corpus servers to learn from (nil: all).
func trainModel(d modelData, keep func(server int) bool) *wordModel {
	return trainModelWith(d, keep, modelTraining)
}

// without is d less the asking bags and honest wordings drop says to leave
// out, by index (cross-validation over our wordings).
func (d modelData) without(dropBag, dropHonest func(i int) bool) modelData {
	out := d
	out.bags, out.bagFrom, out.honest, out.honestFrom, out.bagRaw, out.honestRaw = nil, nil, nil, nil, nil, nil
	for i := range d.bags {
		if !dropBag(i) {
			out.bags = append(out.bags, d.bags[i])
			out.bagFrom = append(out.bagFrom, d.bagFrom[i])
			out.bagRaw = append(out.bagRaw, d.bagRaw[i])
		}
	}
	for i := range d.honest {
		if !dropHonest(i) {
			out.honest = append(out.honest, d.honest[i])
			out.honestFrom = append(out.honestFrom, d.honestFrom[i])
			out.honestRaw = append(out.honestRaw, d.honestRaw[i])
		}
	}
	return out
}

// trainOpts are the trainer's settings.
type trainOpts struct {
	// posWeight weighs the asking clauses: 1 makes both classes weigh the
	// same in all.
	posWeight float64
	l2        float64
	// minBags is the least number of asking bags a feature must be in to
	// learn from asking clauses.
	minBags int
	epochs  int
	rounds  int
}

// modelTraining are the committed settings, chosen with the threshold by
// TestModelGrid, which reads no attack fold: the most held-out asking
// wordings the rules leave below a warning reached, less the held-out
// honest wordings warned, with at most 0.2 cross-validated warnings per
// 100 corpus tools; ties to the fewest corpus warnings
// (bench/folds-results.md, "A statistical signal, retrained").
var modelTraining = trainOpts{posWeight: 0.3, l2: 1e-4, minBags: 1, epochs: 24, rounds: 3}

func trainModelWith(d modelData, keep func(server int) bool, o trainOpts) *wordModel {
	seen := map[string]bool{}
	var neg []mclause
	add := func(c mclause) {
		if !seen[c.text] {
			seen[c.text] = true
			neg = append(neg, c)
		}
	}
	for _, cs := range d.honest {
		for _, c := range cs {
			add(c)
		}
	}
	for i, cs := range d.servers {
		if keep == nil || keep(i) {
			for _, c := range cs {
				add(c)
			}
		}
	}
	// A feature learns from asking clauses only when it is in two asking
	// bags or more: a word of one attack ("fact of the day") is its topic,
	// not what makes it ask.
	df := map[uint32]int{}
	for _, bag := range d.bags {
		in := map[uint32]bool{}
		for _, c := range bag {
			for _, f := range c.feats {
				in[modelIndex(f)] = true
			}
		}
		for i := range in {
			df[i]++
		}
	}
	shared := make([]bool, 1<<modelBits)
	for i, n := range df {
		shared[i] = n >= o.minBags
	}
	var pos []mclause
	for _, bag := range d.bags {
		for _, c := range bag {
			if !seen[c.text] {
				pos = append(pos, c)
			}
		}
	}
	w, bias := sgd(pos, neg, shared, o)
	// Later rounds: of each bag, the clauses near its best (an attack
	// file's honest opening sentence is not an instruction).
	for range o.rounds - 1 {
		pos = pos[:0]
		for _, bag := range d.bags {
			best := math.Inf(-1)
			zs := make([]float64, len(bag))
			for i, c := range bag {
				zs[i] = math.Inf(-1)
				if !seen[c.text] {
					zs[i] = floatScore(w, bias, c.feats)
					best = max(best, zs[i])
				}
			}
			for i, c := range bag {
				if !math.IsInf(zs[i], -1) && zs[i] >= best-1 {
					pos = append(pos, c)
				}
			}
		}
		w, bias = sgd(pos, neg, shared, o)
	}
	return quantize(w, bias)
}

func floatScore(w []float64, bias float64, feats []uint32) float64 {
	z := bias
	for _, f := range feats {
		z += w[modelIndex(f)]
	}
	return z
}

// sgd: logistic loss, the asking clauses weighted so that both classes
// weigh the same, L2 on the weights a step touches, a fixed seed.
func sgd(pos, neg []mclause, shared []bool, o trainOpts) ([]float64, float64) {
	const lr0 = 0.2
	epochs, l2 := o.epochs, o.l2
	type sample struct {
		c    *mclause
		y, k float64
	}
	samples := make([]sample, 0, len(pos)+len(neg))
	pw := o.posWeight * float64(len(neg)) / float64(max(1, len(pos)))
	for i := range pos {
		samples = append(samples, sample{&pos[i], 1, pw})
	}
	for i := range neg {
		samples = append(samples, sample{&neg[i], 0, 1})
	}
	w := make([]float64, 1<<modelBits)
	bias := 0.0
	rng := rand.New(rand.NewPCG(45, 2026))
	for e := range epochs {
		rng.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
		lr := lr0 / float64(1+e)
		for _, s := range samples {
			z := floatScore(w, bias, s.c.feats)
			p := 1 / (1 + math.Exp(-z))
			g := float64((p - s.y) * s.k)
			// A clause weighted many times over (an asking one) would
			// take steps too long for SGD: clip.
			g = max(-5, min(5, g))
			for _, f := range s.c.feats {
				i := modelIndex(f)
				if s.y == 1 && !shared[i] {
					continue
				}
				w[i] -= float64(lr * float64(g+float64(l2*w[i])))
			}
			bias -= float64(lr * g)
		}
	}
	return w, bias
}

// quantize turns float weights into int8 units of one scale.
func quantize(w []float64, bias float64) *wordModel {
	top := 0.0
	for _, x := range w {
		top = max(top, math.Abs(x))
	}
	scale := float32(top / 127)
	if scale == 0 {
		scale = 1
	}
	m := &wordModel{scale: scale, w: make([]int8, len(w)), bias: int32(math.Round(bias / float64(scale)))}
	for i, x := range w {
		m.w[i] = int8(math.Round(x / float64(scale)))
	}
	m.setThreshold(modelThresholdLogit)
	return m
}

func TestModelWeights(t *testing.T) {
	if *updateModel {
		writeWordings(t, extractWordings(t))
	}
	d := loadModelData(t, readWordings(t))
	t.Logf("training data: %s", d.counts)
	m := trainModel(d, nil)
	got := m.encode()
	if *updateModel {
		if err := os.WriteFile(modelWeightsPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if runtime.GOARCH != "amd64" {
		// The weights are made on amd64. Elsewhere math.Exp and fused
		// multiply-adds may round differently, and SGD carries a last
		// bit's difference on.
		t.Skipf("the weights are compared on amd64 only, not on %s", runtime.GOARCH)
	}
	if !bytes.Equal(got, modelWeightsFile) {
		t.Errorf("%s differs from what the trainer makes of its data: go test ./internal/inspect -run '^TestModelWeights$' -update-model", modelWeightsPath)
	}
}

// wordingCase is a wording as the rules judge it: a tool's answer when it
// came from an answer's test or an "A:" line, else a tool's description.
func wordingCase(w wording) *foldCase {
	c := foldCase{Server: "wording", Name: "wording_tool", ID: w.From}
	if w.Answer || strings.Contains(w.From, "Answer") || strings.Contains(w.From, "answer") {
		c.Kind = "answer"
		c.Definition, _ = json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": w.Text}}})
	} else {
		c.Kind = "tool"
		c.Definition, _ = json.Marshal(map[string]any{"name": "wording_tool", "description": w.Text, "inputSchema": map[string]any{"type": "object"}})
	}
	return &c
}
