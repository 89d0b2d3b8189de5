package inspect

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
)

// The statistical signal (issue 45): a linear model over hashed word
// unigrams and bigrams, trained by TestModelWeights (model_train_test.go)
// on the wordings of our own tests, of testdata/wordings and of the attack
// files (asks of the model, and honest wordings) and on the benign corpus
// of real servers (honest text), deterministic
// and offline. It scores each clause of a text; a clause over the
// threshold raises a model-instruction warning, and nothing more: a model
// must not be the only reason for an error. It adds nothing where a rule
// already gave a warning or an error. Its other use is half of a class's
// verdict (clauseJudge.anchored, addressed): where a rule found what the
// class acts on, the signal may read the clause as an order.

// modelBits is the log2 of the hashed feature space.
const modelBits = 17

// modelMinWords: a clause of fewer words is not scored.
const modelMinWords = 3

//go:embed testdata/model/weights.bin
var modelWeightsFile []byte

// wordModel is a trained model, its weights quantized to int8.
type wordModel struct {
	scale float32 // one unit of a weight, in logits
	bias  int32   // in units of scale
	w     []int8  // 1<<modelBits
	// threshold is the least clause score, in units of scale, that raises
	// the signal; 0 with no weights.
	threshold int32
}

// modelThresholdLogit is the threshold in logits, chosen by
// cross-validation inside the training data (TestModelGrid;
// bench/folds-results.md, "A statistical signal, retrained", and its
// later rounds).
const modelThresholdLogit = 6

// statModel is the committed model; nil where the signal is off.
var statModel = loadWordModel(modelWeightsFile, modelThresholdLogit)

// loadWordModel reads weights.bin: "MLW1", the scale (float32), the bias
// (int32), then 1<<modelBits int8 weights, little-endian.
func loadWordModel(b []byte, thr float64) *wordModel {
	n := 1 << modelBits
	if len(b) != 12+n || string(b[:4]) != "MLW1" {
		return nil
	}
	m := &wordModel{
		scale: math.Float32frombits(binary.LittleEndian.Uint32(b[4:])),
		bias:  int32(binary.LittleEndian.Uint32(b[8:])),
		w:     make([]int8, n),
	}
	for i := range m.w {
		m.w[i] = int8(b[12+i])
	}
	m.setThreshold(thr)
	return m
}

func (m *wordModel) setThreshold(thr float64) {
	m.threshold = int32(thr/float64(m.scale) + 0.5)
}

// encode is loadWordModel's inverse.
func (m *wordModel) encode() []byte {
	b := make([]byte, 12+len(m.w))
	copy(b, "MLW1")
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(m.scale))
	binary.LittleEndian.PutUint32(b[8:], uint32(m.bias))
	for i, w := range m.w {
		b[12+i] = byte(w)
	}
	return b
}

// clauseFeatures calls fn with the features of each clause of s: the
// clause's byte range and its hashed unigrams and bigrams (a mark for the
// clause's start makes its first word one too: an imperative's verb).
// Words are runs of letters and digits, lower-cased, and a path or a URL is
// one word; a clause ends at . ! ? ; or a line break. feats is reused from
// call to call. It is what the trainer learns from; scoring reads the
// same features through modelClauses without keeping them.
func clauseFeatures(s []byte, feats []uint32, fn func(start, end int, feats []uint32)) []uint32 {
	return modelClauses(s, nil, feats, func(start, end int, _ int32, feats []uint32) { fn(start, end, feats) })
}

// modelClauses cuts s into clauses and calls fn for each one of at least
// modelMinWords words with its byte range, its score under m (in units of
// m's scale, bias included) unless m is nil, and its features when m is
// nil (feats is then reused from call to call and returned).
func modelClauses(s []byte, m *wordModel, feats []uint32, fn func(start, end int, score int32, feats []uint32)) []uint32 {
	const bos = 0x2545F491
	feats = feats[:0]
	start, words := -1, 0
	prev := uint32(bos)
	var h uint32
	var sum int32
	if m != nil {
		sum = m.bias
	}
	inWord := false
	flush := func(end int) {
		if start >= 0 && words >= modelMinWords {
			fn(start, end, sum, feats)
		}
		feats, start, words, prev = feats[:0], -1, 0, bos
		if m != nil {
			sum = m.bias
		}
	}
	endWord := func() {
		if !inWord {
			return
		}
		inWord = false
		words++
		bi := prev*0x9E3779B1 ^ h
		if m != nil {
			sum += int32(m.w[modelIndex(h)]) + int32(m.w[modelIndex(bi)])
		} else {
			feats = append(feats, h, bi)
		}
		prev = h
	}
	// token takes a path or a URL at i as one word: what is asked of it
	// matters, not which one it is.
	token := func(tok uint32, i int) {
		inWord, h = true, tok
		if start < 0 {
			start = i
		}
		endWord()
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII, most of every text: by table.
			switch k := modelASCII[c]; {
			case k >= '0':
				if !inWord {
					if k == 'h' || k == 'f' {
						if tok, n := pathOrURL(s, i); n > 0 {
							token(tok, i)
							i += n
							continue
						}
					}
					if n := addressAt(s, i); n > 0 {
						// An address is no word: what is asked
						// around it is.
						i += n
						continue
					}
					inWord, h = true, 2166136261
					if start < 0 {
						start = i
					}
				}
				h = (h ^ uint32(k)) * 16777619
				i++
				continue
			case k == 0:
				endWord()
				i++
				continue
			}
		}
		if !inWord {
			if tok, n := pathOrURL(s, i); n > 0 {
				token(tok, i)
				i += n
				continue
			}
		}
		c := rune(s[i])
		n := 1
		if c >= utf8.RuneSelf {
			c, n = utf8.DecodeRune(s[i:])
		}
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c)):
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			} else if c >= utf8.RuneSelf {
				c = unicode.ToLower(c)
			}
			if !inWord {
				inWord, h = true, 2166136261
				if start < 0 {
					start = i
				}
			}
			h = (h ^ uint32(c)) * 16777619
		case c == '\n' || c == ';' || c == '!' || c == '?':
			endWord()
			flush(i)
		case c == '.':
			endWord()
			if i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t' {
				flush(i)
			}
		default:
			endWord()
		}
		i += n
	}
	endWord()
	flush(len(s))
	return feats
}

// modelASCII classes each ASCII byte for modelClauses: a letter or a digit
// as itself in lower case, 0 for a byte that only ends a word, 1 for one
// that needs a closer look (a clause's end, a full stop, the start of a
// path).
var modelASCII = func() (t [utf8.RuneSelf]byte) {
	for c := 0; c < utf8.RuneSelf; c++ {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		case '0' <= c && c <= '9':
			t[c] = byte(c)
		case c == '\n' || c == ';' || c == '!' || c == '?' || c == '.' || c == '~' || c == '/':
			t[c] = 1
		}
	}
	return t
}()

// The words a path and a URL become.
const (
	modelPathWord = 0x50A7B00F
	modelURLWord  = 0x0B1EC7ED
)

// pathOrURL reports whether a path (~/…, /…/…) or a URL (http://,
// https://, ftp://, file://) starts at s[i] after a blank, a quote or a
// bracket, and how many bytes it takes: up to a blank, a quote, a bracket
// or a full stop before a blank.
func pathOrURL(s []byte, i int) (uint32, int) {
	if i > 0 {
		switch s[i-1] {
		case ' ', '\t', '\n', '"', '\'', '`', '(', '[', '<', '=':
		default:
			return 0, 0
		}
	}
	tok := uint32(0)
	switch c := s[i]; {
	case c == '~' && i+1 < len(s) && s[i+1] == '/', c == '/' && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '/':
		tok = modelPathWord
	case c == 'h' || c == 'H' || c == 'f' || c == 'F':
		for _, p := range [...]string{"http://", "https://", "ftp://", "file://"} {
			if len(s)-i >= len(p) && bytes.EqualFold(s[i:i+len(p)], []byte(p)) {
				tok = modelURLWord
				break
			}
		}
	}
	if tok == 0 {
		return 0, 0
	}
	j := i
	for j < len(s) {
		switch s[j] {
		case ' ', '\t', '\n', '"', '\'', '`', ')', ']', '>', ',', ';':
			return tok, j - i
		case '.':
			if j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\n' || s[j+1] == '\t' {
				return tok, j - i
			}
		}
		j++
	}
	return tok, j - i
}

// An email address, a host name or an IPv4 address is no word to the
// signal: which address a text names is its topic, and what it asks be
// done with it is in the words around it. Read as words, the addresses of
// our own attack wordings (example and .invalid names, documentation IP
// ranges) taught the signal their spellings, "invalid" weighing as much as
// "ignore" and a real attacker's ".com" counting against an attack. Made
// one shape word, as a URL is, they taught it that naming an address asks
// something, and honest descriptions name their API's host and a support
// address all the time (TestModelGrid: three times the corpus warnings).
// So the signal skips them.

// addressByte marks the bytes an address is written with.
var addressByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(".-_%+@", byte(c)) >= 0
	}
	return t
}()

// hostTLDs are the last labels that make a dotted word a host name: the
// common ones and the reserved ones (example, invalid, test, local). A
// file's extension is not one, even where it is a country's code too
// ("install.sh", "README.md", "main.rs", "lib.so").
var hostTLDs = wordSet("com|net|org|io|dev|app|ai|co|edu|gov|mil|int|info|biz|me|us|uk|de|fr|nl|ru|cn|jp|in|eu|ca|au|br|es|ch|se|no|pl|cz|tv|cc|ly|gg|xyz|top|site|online|tech|cloud|store|shop|live|pro|tk|ml|ga|cf|gq|ws|la|su|pw|example|invalid|test|local|localhost|internal|onion|lan|corp|home")

// addressAt is the length of the email address, host name or IPv4 address
// that starts a run of address bytes at s[i] (a full stop after it is not
// its), 0 where none does.
func addressAt(s []byte, i int) int {
	if i > 0 && addressByte[s[i-1]] {
		return 0
	}
	j, at, dots := i, -1, 0
	for ; j < len(s) && addressByte[s[j]]; j++ {
		switch s[j] {
		case '@':
			if at >= 0 {
				return 0
			}
			at = j
		case '.':
			dots++
		}
	}
	if dots == 0 {
		return 0
	}
	for j > i && (s[j-1] == '.' || s[j-1] == '-') {
		j--
	}
	r := s[i:j]
	switch {
	case at >= j:
		return 0
	case at > i:
		if hostName(s[at+1:j], false) {
			return j - i
		}
	case at < 0 && (ipv4(r) || hostName(r, true)):
		// A port or a path after it stays words: skipped too, they
		// took with them the words the corpus's honest API hosts are
		// known by (TestModelGrid: four times the corpus warnings).
		return j - i
	}
	return 0
}

// hostName reports dotted labels of letters, digits and hyphens whose
// last is letters only: any such in an email address, one of hostTLDs
// where tld says so.
func hostName(d []byte, tld bool) bool {
	last, labels := -1, 0
	for k := 0; k <= len(d); k++ {
		if k < len(d) && d[k] != '.' {
			if c := d[k]; c == '_' || c == '%' || c == '+' || c == '@' {
				return false
			}
			continue
		}
		if k == last+1 {
			return false
		}
		labels++
		if k == len(d) {
			l := d[last+1:]
			for _, c := range l {
				if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
					return false
				}
			}
			if len(l) < 2 || tld && !hostTLDs[strings.ToLower(string(l))] {
				return false
			}
		}
		last = k
	}
	return labels >= 2
}

// ipv4 reports four dotted numbers of at most three digits.
func ipv4(r []byte) bool {
	parts, n := 0, 0
	for k := 0; k <= len(r); k++ {
		if k < len(r) && '0' <= r[k] && r[k] <= '9' {
			n++
			if n > 3 {
				return false
			}
			continue
		}
		if k < len(r) && r[k] != '.' || n == 0 {
			return false
		}
		parts, n = parts+1, 0
	}
	return parts == 4
}

// index maps a feature to its weight.
func modelIndex(f uint32) uint32 { return (f * 0x85EBCA6B) >> (32 - modelBits) }

// score is a clause's score in units of scale.
func (m *wordModel) score(feats []uint32) int32 {
	s := m.bias
	for _, f := range feats {
		s += int32(m.w[modelIndex(f)])
	}
	return s
}

// modelScan follows a subject's walk and keeps the clause that scored
// highest, once it reaches the threshold.
type modelScan struct {
	m          *wordModel
	score      int32
	field, str string
}

func newModelScan(m *wordModel) modelScan {
	if m == nil {
		return modelScan{}
	}
	return modelScan{m: m, score: m.threshold - 1}
}

// see scores the clauses of one string of the walk (not a key). A string
// of fewer than three words is not prose (a name, an ID, an image's
// base64 data): one long token hashes to whatever weight its bucket
// holds, so it is not scored at all.
func (ms *modelScan) see(r textRef) {
	if ms.m == nil || r.key || len(r.b) < 12 || !prose(r.b) {
		return
	}
	modelClauses(r.b, ms.m, nil, func(start, end int, sc int32, _ []uint32) {
		if sc > ms.score {
			ms.score, ms.field, ms.str = sc, r.path(), string(r.b[start:end])
		}
	})
}

// prose reports a string of four words or more, or one in a script that
// puts no spaces between words.
func prose(b []byte) bool {
	return bytes.Count(b, []byte(" ")) >= 3 || holdsNonASCII(b)
}

// hit reports whether a clause reached the threshold.
func (ms *modelScan) hit() bool { return ms.m != nil && ms.score >= ms.m.threshold }

// best scores every string of raw that is not a key, as Definition's walk
// does, and returns the scan: the measurements' way in.
func (m *wordModel) best(raw []byte) modelScan {
	ms := newModelScan(m)
	if err := walkStrings(raw, ms.see); err != nil {
		ms = newModelScan(m)
		ms.see(textRef{b: raw})
	}
	return ms
}

// withModel adds the statistical signal to a subject's findings fs: a
// model-instruction warning naming the clause that scored highest, when
// it reached the threshold and no finding is already a warning or an
// error. sha is the subject's hash, "" when not yet taken.
func withModel(s Subject, fs []finding.Finding, sha string, ms *modelScan) []finding.Finding {
	if !ms.hit() {
		return fs
	}
	for _, f := range fs {
		if f.Severity >= finding.Warning {
			return fs
		}
	}
	f := finding.New(finding.ModelInstruction, s.Server)
	f.Kind, f.Subject, f.Field, f.Phase = s.Kind, s.Name, ms.field, s.Phase
	if sha == "" {
		sum := sha256.Sum256(s.Raw)
		sha = hex.EncodeToString(sum[:])
	}
	f.ContentSHA256 = sha
	f.Severity = finding.Warning
	where := "the text"
	if ms.field != "" {
		where = inert.Text(ms.field)
	}
	f.Message = fmt.Sprintf("Text addressed to the model in %s: %s", where, modelLabel)
	f.Detail = fmt.Sprintf("%s: \"%s\" (score %.1f, threshold %.1f)", modelLabel,
		escapeSpan(ms.str, 0, len(ms.str), spanLimit), float64(ms.score)*float64(ms.m.scale), float64(ms.m.threshold)*float64(ms.m.scale))
	return append(fs, f)
}

// addressLogit is the least clause score, in logits, at which the signal
// reads a clause as addressed to the model where no imperative or
// "you must" says so: "the agent is expected to take care of that step",
// "the recommended remedy is for you to evaluate ...". It stands in for
// that one gate only: the class and its target are still a rule's
// finding, so the signal is never the only reason for an error. It sits
// a fixed distance under the signal's threshold, so that a retrain that
// moves the threshold moves both.
const addressLogit = modelThresholdLogit - 2.5

// anchorLogit is the least clause score, in logits, at which the signal
// reads a clause that names an error class's target and holds an address
// (a modal, "you", the model named, an imperative) as asking it
// (clauseJudge.anchored); anchorBareLogit is the least for such a clause
// with no address ("consumers of this feed POST the cart to ...", "the
// recipient_iban is replaced with ..."). The target is a rule's finding
// either way. Both are set, for each retrained signal, by scoring the
// rounds of our wordings with a signal trained without them
// (bench/folds-results.md, "Rounds 14 to 17"): for this one, 2.5 under
// the threshold and 1 over it met 14 more of 2,292 attack lines than 1.5
// under and 3 over, and no more of 1,538 honest ones.
const (
	anchorLogit     = modelThresholdLogit - 2.5
	anchorBareLogit = modelThresholdLogit + 1
)

// topScore is the highest score, in logits, of a clause of c.
func (m *wordModel) topScore(c []byte) float64 {
	if m == nil {
		return math.Inf(-1)
	}
	hit := int32(math.MinInt32)
	modelClauses(c, m, nil, func(_, _ int, sc int32, _ []uint32) {
		hit = max(hit, sc)
	})
	return float64(hit) * float64(m.scale)
}

// addresses reports whether some clause of folded clause c scores at
// least addressLogit.
func (m *wordModel) addresses(c []byte) bool {
	return m.scores(c, addressLogit)
}

// scores reports whether some clause of c scores at least logit.
func (m *wordModel) scores(c []byte, logit float64) bool {
	if m == nil {
		return false
	}
	thr := int32(logit/float64(m.scale) + 0.5)
	hit := false
	modelClauses(c, m, nil, func(_, _ int, sc int32, _ []uint32) {
		hit = hit || sc >= thr
	})
	return hit
}

// signalRead ends the detail of a class a rule found in a clause that
// the statistical signal, not a rule, read as an order: a reviewer must
// know which half of the verdict the word model gave.
const signalRead = "(read as an order to the model by the statistical signal)"

// modelLabel names the signal in a finding: a reviewer must know no rule
// matched, only the word model.
const modelLabel = "statistical signal (a word model, not a phrase rule, reads this clause as an instruction to the model)"
