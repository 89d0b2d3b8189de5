package inspect

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Subject is one definition to inspect.
type Subject struct {
	Server string
	// Kind is finding.KindTool, KindPrompt, KindResource, KindTemplate, or
	// KindServer for the initialize instructions.
	Kind lock.Kind
	// Name is the tool or prompt name, resource uri, template uriTemplate, or
	// "instructions" for KindServer.
	Name string
	// Raw is the definition as received; for KindServer a JSON string
	// holding the instructions.
	Raw json.RawMessage
	// Phase is copied into findings.
	Phase string
}

// HiddenTextNote ends the message of a model-instruction or sensitive-path
// finding whose every match was in text hidden by invisible characters:
// stripping the characters (the guard's --mode sanitize) removes the text.
const HiddenTextNote = " (in text hidden by invisible characters)"

// Limits on what a finding quotes: enough for a reviewer to see the text,
// never so much that a 10 MB description floods a report.
const (
	spanLimit    = 160 // escaped bytes of an offending span
	hiddenLimit  = 400 // escaped bytes of decoded hidden text in Detail
	messageLimit = 100 // runes of decoded hidden text in Message
	termLimit    = 5   // distinct control sequences described
	padSpaces    = 64  // a run of this many blanks pushes text out of view
	padNewlines  = 12  // as does this many line breaks
)

// Definition scans every string of one definition, keys included (property
// names, _meta keys: the model reads them too), and returns its findings
// with Field set to the JSON-pointer-like path of the string ("description",
// "inputSchema/properties/path/description", "_meta/x",
// "arguments/0/description"; "" for a definition that is itself a string,
// like the instructions). Findings are grouped per rule and field, one
// finding each, listing everything that field matched.
//
// A definition that is not JSON is scanned as one raw text, so garbage
// cannot hide text from the scan.
func Definition(s Subject) []finding.Finding {
	sc := scan{subject: s, index: map[string]int{}, intent: true}
	ms := newModelScan(statModel)
	if err := walkStrings(s.Raw, func(r textRef) { ms.see(r); sc.text(r) }); err != nil {
		sc.index, sc.hits, ms = map[string]int{}, nil, newModelScan(statModel)
		ms.see(textRef{b: s.Raw})
		sc.text(textRef{b: s.Raw})
	}
	sc.outOfScope()
	sc.settleIntent()
	fs := sc.findings() // sets sc.sha when there are findings
	return withModel(s, fs, sc.sha, &ms)
}

// scan accumulates hits for one subject, keyed by rule and field.
type scan struct {
	subject Subject
	sha     string
	index   map[string]int
	hits    []*hit
	f       folder
	// controlsOnly limits the scan to hidden-characters and
	// terminal-escape (Controls).
	controlsOnly bool
	// via says how the text being scanned was decoded from the string
	// its path names ("decoded from base64"); "" for the string itself.
	via string
	// occ is phraseSet.find's scratch, reused from string to string;
	// spans is judgeClauses'.
	occ   [][]span
	spans []clauseSpan
	// intent grades model-instruction by what it asks (intent.go): for a
	// definition, text its authors wrote. An answer keeps the rule's
	// warning: it is data a tool was asked for (a page of documentation
	// about prompt injection quotes the attacks), and the guard, which
	// blocks an answer's errors, logs its warnings.
	intent bool
	// ident marks the words of an identifier being judged (the parameter
	// is the channel); depth counts the decodings of encoded runs.
	ident bool
	depth int
	// params are the definition's parameter names: the keys of its
	// input schema's properties, met during the walk.
	params []string
	// asks are credentials asked for with no channel named (settleIntent).
	asks []ask
	// rawParams are the params, as written, whose names may ask for a
	// secret (outOfScope).
	rawParams []string
	// secretName caches secretTool: 0 not known, 1 yes, 2 no.
	secretName uint8
}

// ask is one request for a credential that names nowhere to put it.
type ask struct {
	field string
	key   bool
	span  string
}

type hit struct {
	rule   finding.RuleID
	field  string
	key    bool
	labels []string
	detail []string
	hidden bool // every match was in decoded hidden text
	extra  string
	via    string // how the text was decoded from its field (scan.via)
	// sev is a model-instruction hit's severity: the highest its labels'
	// classes carry (intent.go).
	sev finding.Severity
	// csev is the highest severity of the action classes of the clauses
	// addressed to the model (clause.go): it holds in an answer too.
	csev finding.Severity
	// style marks a terminal-escape hit whose every sequence only sets
	// colour or style (styleOnly).
	style bool
	// stray marks a hidden-characters hit of one or two zero-width spaces or
	// soft hyphens in prose (invisible).
	stray bool
	// texts are a sensitive-path hit's folded texts (definitions only).
	texts [][]byte
}

func (sc *scan) get(rule finding.RuleID, field string, key bool) *hit {
	k := string(rule) + "\x00" + field
	if i, ok := sc.index[k]; ok {
		h := sc.hits[i]
		h.key = h.key && key
		return h
	}
	h := &hit{rule: rule, field: field, key: key, hidden: true, via: sc.via}
	sc.index[k] = len(sc.hits)
	sc.hits = append(sc.hits, h)
	return h
}

// twins are, for an action class's label, the phrase labels that say the
// same of the same text: a finding names the class once, in the phrase's
// words, which quote the deciding phrase.
var twins = map[string][]string{
	classLabels[classReadSecrets]: {exfilLabel, labelSessionSecrets, labelSecretAsk, labelPathToParam},
	classLabels[classContact]:     {labelSend, labelRedirect, labelHistory, labelBeacon},
	classLabels[classOverride]:    {labelOverride},
	classLabels[classHide]:        {labelHide},
	classLabels[classExec]:        {labelDecode},
}

// dropTwins removes the class labels, and their details, that a phrase
// label of the same hit already says.
func (h *hit) dropTwins() {
	drop := func(l string) bool {
		return slices.ContainsFunc(twins[l], func(t string) bool { return slices.Contains(h.labels, t) })
	}
	var details []string
	for _, d := range h.detail {
		l, _, _ := strings.Cut(d, ":")
		l = strings.TrimSuffix(l, " (in hidden text)")
		if !drop(l) {
			details = append(details, d)
		}
	}
	h.detail = details
	h.labels = slices.DeleteFunc(h.labels, drop)
}

func (h *hit) addLabel(l string) {
	for _, x := range h.labels {
		if x == l {
			return
		}
	}
	h.labels = append(h.labels, l)
}

// text inspects one string of the definition.
func (sc *scan) text(r textRef) {
	b := r.b
	plain, word := shape(b)
	if sc.intent && r.key && len(r.segs) >= 2 && r.segs[len(r.segs)-2] == "properties" && len(b) >= 3 {
		sc.params = append(sc.params, strings.ToLower(string(b)))
		if mayAskSecret(b) {
			sc.rawParams = append(sc.rawParams, string(b))
		}
	}
	if word || plain && len(b) < 4 {
		// A bare word ("string", "owner") or a scrap of printable ASCII:
		// every rule needs a control, a non-ASCII code point, a space or
		// punctuation, or more text than this. A long one may still be
		// camelCase words or an encoded sentence (hidden.go).
		if word && sc.intent && len(b) >= 12 {
			sc.identifier(r, b)
			if len(b) >= minEncoded {
				sc.encoded(r, b)
			}
		}
		return
	}
	if plain && sc.controlsOnly {
		return
	}
	s := string(b)
	if !plain {
		sc.terminal(r, s)
		sc.invisible(r, s)
	}
	if sc.controlsOnly {
		return
	}
	if !plain || mayPad(s) {
		sc.padding(r, s)
	}
	if strings.Contains(s, "<!--") {
		sc.htmlComments(r, s)
	}
	sc.phrases(r, s, false)
	if sc.intent {
		sc.hiddenWords(r, s, plain)
	} else if !r.key && len(b) >= minEncoded && !hasDataScheme(b) {
		// An answer's text may carry a sentence encoded as much as a
		// definition's ("5b 65 72 72 ...", "&#x8FD9;").
		sc.encoded(r, b)
	}
	if !r.key && sc.depth < maxDecodeDepth {
		if inner, ok := wrappedJSON(b, sc.intent); ok {
			// A JSON document written into a string ("{\"note\":
			// \"...\"}"), or a string quoted twice: read as the model
			// reads it, without the escapes.
			sc.depth++
			sc.decoded(r.segs, inner, "decoded from JSON in the string", maxDecodeDepth)
			sc.depth--
		}
	}
}

// wrappedJSON is the JSON document or string literal that b is, when it
// is one with escapes in it: an object or an array, or a quoted string.
// In an answer (def false) only a string quoted twice, or a document
// that holds one (an escaped quote): a tool's JSON written as its text is
// what most answers are, and its strings read the same either way.
func wrappedJSON(b []byte, def bool) ([]byte, bool) {
	if len(b) < 8 || bytes.IndexByte(b, '\\') < 0 {
		return nil, false
	}
	t := bytes.TrimSpace(b)
	if len(t) < 8 || t[0] != '"' && t[0] != '{' && t[0] != '[' {
		return nil, false
	}
	if !def && t[0] != '"' && !bytes.Contains(t, []byte(`\"`)) {
		return nil, false
	}
	switch {
	case t[0] == '"' && t[len(t)-1] == '"':
		var s string
		if json.Unmarshal(t, &s) != nil {
			return nil, false
		}
		return []byte(s), true
	case (t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') && json.Valid(t):
		return t, true
	}
	return nil, false
}

// shape reports whether b is printable ASCII (tabs and newlines allowed),
// and whether it is one word of letters and digits.
func shape(b []byte) (plain, word bool) {
	plain, word = true, true
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7F {
			return false, false
		}
		if word && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			word = false
		}
	}
	return plain, word
}

// hiddenWords reads what a definition's string s says other than as prose
// (hidden.go): an identifier as its words, once look-alike letters and
// invisible characters are folded away, and the encoded runs in it.
func (sc *scan) hiddenWords(r textRef, s string, plain bool) {
	b := r.b
	if plain && bytes.IndexByte(b, ' ') < 0 {
		sc.identifier(r, b)
	} else if !plain && !bytes.ContainsAny(b, " \t\n") {
		sc.identifier(r, bytes.Clone(sc.f.fold(s, false)))
	}
	if len(b) >= minEncoded {
		sc.encoded(r, b)
	}
}

// mayPad reports whether printable ASCII text s (tabs and newlines
// allowed) holds a run padding would look at: padSpaces blanks, or
// padNewlines line breaks with only blanks between them. A byte loop, so
// that ordinary prose skips padding's rune by rune walk.
func mayPad(s string) bool {
	blanks, lines := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t':
			if blanks++; blanks >= padSpaces {
				return true
			}
		case '\n':
			blanks = 0
			if lines++; lines >= padNewlines {
				return true
			}
		default:
			blanks, lines = 0, 0
		}
	}
	return false
}

func (sc *scan) terminal(r textRef, s string) {
	seqs, n := terminalSequences(s, termLimit)
	if n == 0 {
		return
	}
	h := sc.get(finding.TerminalEscape, r.path(), r.key)
	if len(h.labels) == 0 {
		h.style = true
	}
	h.style = h.style && styleOnly(s) == n
	h.hidden = false
	for _, q := range seqs {
		h.addLabel(q.desc)
	}
	if len(h.detail) == 0 {
		h.detail = append(h.detail, fmt.Sprintf("%d control sequence(s); first: %s", n, escapeSpan(s, seqs[0].start, seqs[0].end, spanLimit)))
	}
}

// invisible finds hidden code points, with the exceptions that ordinary
// text needs: a BOM at the very start, one variation selector after an
// emoji or other non-ASCII base (emoji presentation, CJK ideographic
// variants, keycaps), a zero-width joiner inside an emoji sequence, and
// ZWJ/ZWNJ between letters of scripts that need them (Persian, Indic).
// Runs of variation selectors are never benign: that is how bytes are
// smuggled after a single emoji.
func (sc *scan) invisible(r textRef, s string) {
	var counts [classFormat + 1]int
	first, firstEnd := -1, -1
	// stray: one or two zero-width spaces, word joiners or soft hyphens
	// in prose. They
	// hide nothing (docs pasted from a word processor: "How \u200b\u200bto
	// obtain thread_id"); a payload takes tag characters, a long run, a
	// joiner, a bidi override or a variation selector.
	stray, n := true, 0
	eachHidden(s, func(i, z, k int, cl hiddenClass) {
		counts[cl] += k
		n += k
		r, _ := utf8.DecodeRuneInString(s[i:])
		if k != 1 || !(r == 0x200B || r == 0xAD || r == 0x2060) {
			stray = false
		}
		if first >= 0 {
			return
		}
		first, firstEnd = i, z
		if cl == classVariation {
			return
		}
		for firstEnd < len(s) {
			d, m := utf8.DecodeRuneInString(s[firstEnd:])
			if classify(d) == visible {
				break
			}
			firstEnd += m
		}
	})
	if first < 0 {
		return
	}
	h := sc.get(finding.HiddenCharacters, r.path(), r.key)
	h.hidden = false
	h.stray = stray && n <= maxStray && !r.key && strings.Contains(s, " ")
	total := 0
	for cl, k := range counts {
		if k > 0 {
			total += k
			h.addLabel(fmt.Sprintf("%d %s", k, hiddenClass(cl)))
		}
	}
	var smuggled []string
	if counts[classTag] > 0 {
		if t := DecodeTags(s); t != "" {
			smuggled = append(smuggled, t)
		}
	}
	if counts[classVariation] > 0 {
		if t := decodeVariationBytes(s); t != "" {
			smuggled = append(smuggled, t)
		}
	}
	for _, t := range smuggled {
		if h.extra == "" {
			h.extra = clip.Runes(inert.Text(t), messageLimit)
		}
		h.detail = append(h.detail, "hidden text: "+escapeSpan(t, 0, len(t), hiddenLimit))
		if sc.controlsOnly {
			continue
		}
		// The decoded text is what the model reads: judge it like any other.
		sc.phrases(r, t, true)
	}
	h.detail = append(h.detail, "first span: "+escapeSpan(s, first, firstEnd, spanLimit))
}

// maxStray is the most zero-width spaces and soft hyphens a string of prose
// may hold for them to be a warning: a payload spelled in them takes eight
// or more a character, and a word split at every letter ("p\u200bl\u200ba
// \u200bi\u200bn") hides itself from a filter.
const maxStray = 2

// padding flags long runs of blanks or line breaks: the payload after them
// sits off-screen in a tool-approval dialog, while the model reads it all.
// Blanks are every space separator (no-break, em, ideographic spaces...)
// and the characters that render as nothing (braille blank, Hangul
// fillers); line breaks include U+2028/U+2029 and NEL.
//
// A run of blanks that ends a line's words is layout, not padding: what
// follows it on the same line holds no letter or digit (the right border
// of a box drawn in text, "║", or nothing), and the next line starts in
// view again. Playwright's "install browsers" notice is such a box.
func (sc *scan) padding(r textRef, s string) {
	blanks, lines := 0, 0
	skip := 0 // a benign run of blanks ends here
	for i, c := range s {
		if i < skip {
			continue
		}
		// Most text is ordinary ASCII: leave the loop's hot path early.
		if c > ' ' && c < 0x7f {
			blanks, lines = 0, 0
			continue
		}
		switch {
		case padBlank(c):
			blanks++
			if blanks < padSpaces {
				continue
			}
		case padBreak(c):
			blanks = 0
			if c != '\r' {
				lines++
			}
			if lines < padNewlines {
				continue
			}
		default:
			blanks, lines = 0, 0
			continue
		}
		// A threshold was reached at i: find where the padding ends.
		end := i
		for end < len(s) {
			c, size := utf8.DecodeRuneInString(s[end:])
			if !padBlank(c) && !padBreak(c) {
				break
			}
			end += size
		}
		if end >= len(s) {
			return // trailing blanks hide nothing
		}
		if lines < padNewlines {
			rowEnd := i
			for rowEnd < len(s) {
				c, size := utf8.DecodeRuneInString(s[rowEnd:])
				if !padBlank(c) {
					break
				}
				rowEnd += size
			}
			if !wordsBeforeBreak(s[rowEnd:]) || rowEnd-i < maxCellPad && tableRow(s, i, rowEnd) {
				blanks, skip = 0, rowEnd
				continue
			}
		}
		h := sc.get(finding.HiddenCharacters, r.path(), r.key)
		h.hidden = false
		h.addLabel("whitespace padding that pushes text out of view")
		h.detail = append(h.detail, "text after the padding: "+escapeSpan(s, end, min(len(s), end+spanLimit/2), spanLimit))
		return
	}
}

// wordsBeforeBreak reports whether s holds a letter or a digit before its
// first line break: text a run of blanks before it would push out of view.
// maxCellPad is the most blanks past the padding threshold a table's cell
// may hold: columns are aligned to their widest cell, a few dozen blanks;
// a payload is pushed out of view by hundreds.
const maxCellPad = 120

// tableRow reports blanks at i..end inside a row of a markdown table: the
// line starts with "|" and another "|" follows the blanks on it.
func tableRow(s string, i, end int) bool {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	if !strings.HasPrefix(strings.TrimLeft(s[start:i], " \t"), "|") {
		return false
	}
	rest := s[end:]
	if k := strings.IndexByte(rest, '\n'); k >= 0 {
		rest = rest[:k]
	}
	return strings.IndexByte(rest, '|') >= 0
}

func wordsBeforeBreak(s string) bool {
	for _, c := range s {
		if padBreak(c) {
			return false
		}
		if unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.Is(unicode.So, c) && !isBoxDrawing(c) {
			return true
		}
	}
	return false
}

// isBoxDrawing covers the Box Drawing and Block Elements blocks: the
// borders of text boxes and bars.
func isBoxDrawing(c rune) bool { return c >= 0x2500 && c <= 0x259F }

func padBlank(c rune) bool {
	if c < 0x80 {
		return c == ' ' || c == '\t'
	}
	return unicode.Is(unicode.Zs, c) || c == 0x2800 || c == 0x3164 || c == 0xFFA0 || c == 0x115F || c == 0x1160
}

func padBreak(c rune) bool {
	if c < 0x80 {
		return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C
	}
	return c == 0x2028 || c == 0x2029 || c == 0x85
}

// phrases runs the model-instruction and sensitive-path heuristics on s
// (the string itself, or text decoded from hidden characters).
func (sc *scan) phrases(r textRef, s string, hidden bool) {
	if len(s) < 4 {
		return
	}
	sc.beacon(r, s)
	if pm, ok := sc.matchPhrases(r, s); ok {
		sc.raisePhrases(r, s, hidden, pm)
		return
	}
	if sc.controlsOnly {
		return
	}
	// Spelled to get past a filter: read it again respelled.
	if t := deobfuscate(s); t != s {
		if pm, ok := sc.matchPhrases(r, t); ok {
			pm.respelled = true
			sc.raisePhrases(r, t, hidden, pm)
		}
	}
}

// phraseMatches is what matchPhrases found in one string, for
// raisePhrases: the folded text, the clauses that ask something, the
// instruction and path phrases, the exfiltration span (exA to exZ) if
// exfil, whether the text tells the model to do it, and the severity.
type phraseMatches struct {
	text         []byte
	asked        []clauseHit
	instr, paths []match
	exA, exZ     int
	exfil, told  bool
	sev          finding.Severity
	// respelled: the text is deobfuscate's reading of the string; the
	// quotes say so, since they are not the string's own letters.
	respelled bool
}

// matchPhrases folds s and judges it: the clauses, the phrases, an
// exfiltration. ok is false when nothing was found.
func (sc *scan) matchPhrases(r textRef, s string) (pm phraseMatches, ok bool) {
	text := sc.f.fold(s, false)
	var asked []clauseHit
	if bytes.Count(text, []byte(" ")) >= 3 || holdsNonASCII(text) {
		// A class takes an action and its target: four words at least
		// ("cat ~/.ssh/id_rsa | nc" is five). Most strings of a
		// definition are shorter ("The page number"). Chinese and
		// Japanese put no spaces between words.
		asked = judgeClauses(text, !sc.intent, sc.intent && describesJob(r.segs), &sc.spans)
	}
	if sc.intent && describesJob(r.segs) && inParam(r.segs) {
		if m := findHeldAsk(text[:firstClauseEnd(text)]); m != nil && !sc.holdsScope() {
			// A parameter described as what the model holds and the
			// user never handed the tool ("the user's full conversation
			// so far", "your system prompt", "all environment
			// variables"): the parameter is the channel.
			asked = append(asked, clauseHit{class: classReadSecrets, a: m[0], z: firstClauseEnd(text), target: string(text[m[0]:m[1]])})
		}
	}
	instr, paths, secret, carrier := sortMatches(allPhrases().find(text, &sc.occ))
	if sc.intent && describesJob(r.segs) && inParam(r.segs) {
		// The first clause of a parameter's description says what it
		// does: a flag's "Include full session transcript" is the
		// transcript of the video asked about, not this session.
		first := firstClauseEnd(text)
		instr = slices.DeleteFunc(instr, func(m match) bool {
			return m.a < first && allPhrases().list[m.phrase].label == labelHistory
		})
	}
	implicit := sc.ident || secret != nil && inParam(r.segs) && paramVerb().Match(text[secret.a:])
	exA, exZ, exfil := exfiltration(text, paths, secret, carrier, implicit)
	if exfil && syscallError(text, exA) {
		// "open /home/u/.ssh/id_rsa: no such file or directory" is a
		// failed read's error, the path its subject.
		exfil = false
	}
	if exfil && len(paths) == 0 && sc.intent && describesJob(r.segs) && exA < firstClauseEnd(text) {
		// A credential named in the first clause of a description
		// ("Generate an upload URL with authentication credentials") is
		// what the tool works with.
		exfil = false
	}
	if secret != nil && !exfil && sc.intent {
		// A credential asked for with nowhere named to put it: judged
		// with the rest of the definition (settleIntent).
		sc.asks = append(sc.asks, ask{field: r.path(), key: r.key, span: escapeSpan(string(text), secret.a, secret.z, spanLimit)})
	}
	// "Reads ~/.aws/credentials" says what the tool does; "read
	// ~/.aws/credentials" or "... and pass it as 'notes'" tells the model.
	told := exfil && (carrier != nil || implicit || !describes(text[exA:]))
	if exfil && sc.intent && sc.secretTool() && !slices.ContainsFunc(paths, func(m match) bool { return allPhrases().list[m.phrase].label != ".env file" }) {
		// A tool whose name (or its server's) says it handles secrets
		// (an environment variables endpoint, a password manager)
		// speaks of them, and of the .env file they come from, as its
		// job.
		exfil, told = false, false
	}
	if sc.intent && sc.secretTool() {
		asked = slices.DeleteFunc(asked, func(c clauseHit) bool { return c.class == classReadSecrets })
	}
	if len(instr) == 0 && len(paths) == 0 && !exfil && len(asked) == 0 {
		return phraseMatches{}, false
	}
	// Judge each match on the folded text before it is folded again
	// with offsets (the same buffer).
	// Quoted as an example of what a filter catches, the ask is
	// nobody's: at most a warning, as for the other labels.
	sev := instructionSeverity(text, instr, exfil, told && !quotedExample(text, exA))
	return phraseMatches{text: text, asked: asked, instr: instr, paths: paths, exA: exA, exZ: exZ, exfil: exfil, told: told, sev: sev}, true
}

// raisePhrases raises model-instruction and sensitive-path for what
// matchPhrases found in s, each quoted from s.
func (sc *scan) raisePhrases(r textRef, s string, hidden bool, pm phraseMatches) {
	text, asked, instr, paths, exA, exZ, exfil, told, sev := pm.text, pm.asked, pm.instr, pm.paths, pm.exA, pm.exZ, pm.exfil, pm.told, pm.sev
	// Map matches back to the original text for the Detail.
	sc.f.fold(s, true)
	show := func(a, z int) string {
		oa, oz := sc.f.origSpan(s, a, z)
		return escapeSpan(s, oa, oz, spanLimit)
	}
	where := ""
	if hidden {
		where = " (in hidden text)"
	}
	if pm.respelled {
		where += " (read respelled)"
	}
	if len(instr) > 0 || exfil || len(asked) > 0 {
		h := sc.get(finding.ModelInstruction, r.path(), r.key)
		h.hidden = h.hidden && hidden
		h.raise(sev)
		for _, c := range asked {
			h.raise(c.severity())
			h.csev = max(h.csev, c.severity())
			l := classLabels[c.class]
			h.addLabel(l)
			d := l + where + ": " + show(c.a, c.z)
			if c.target != "" {
				d += " (target: " + inert.Text(clipTarget(c.target)) + ")"
			}
			if c.bySignal {
				d += " " + signalRead
			}
			h.detail = append(h.detail, d)
		}
		for i, m := range instr {
			l := allPhrases().list[m.phrase].label
			h.addLabel(l)
			if slices.ContainsFunc(instr[:i], func(o match) bool { return allPhrases().list[o.phrase].label == l }) {
				continue // one quote a label: several phrases say the same
			}
			h.detail = append(h.detail, l+where+": "+show(m.a, m.z))
		}
		if exfil {
			l := exfilLabel
			if !told {
				l = labelReadsItself
			}
			h.addLabel(l)
			h.detail = append(h.detail, l+where+": "+show(exA, exZ))
		}
	}
	if !exfil {
		// A path named as what the tool refuses ("directories such as
		// /etc and ~/.ssh are rejected") asks nothing and names no
		// place the tool reads.
		paths = slices.DeleteFunc(paths, func(m match) bool { return refused(text, m.a) })
	}
	if len(paths) > 0 {
		h := sc.get(finding.SensitivePath, r.path(), r.key)
		h.hidden = h.hidden && hidden
		if sc.intent {
			// Kept for settleIntent, which looks for the tool's own
			// parameters beside the path, in any language.
			h.texts = append(h.texts, bytes.Clone(sc.f.text))
		}
		for _, m := range paths {
			l := allPhrases().list[m.phrase].label
			h.addLabel(l)
			h.detail = append(h.detail, l+where+": "+show(m.a, m.z))
		}
	}
}

// heldAsk is a parameter's description that names what the model holds:
// the conversation (the user's, or "so far"), its system prompt, every
// environment variable or secret.
var heldAsk = lazyRegexp(`^(?:the |your |all |any |the user's |the entire |the full |the complete )*(?:(?:full |entire |whole |complete )?(?:conversation|chat) (?:so far|history|transcript|log)|(?:full |entire |whole |complete )?conversation so far|(?:your |the )(?:system prompt|hidden instructions|context window)|system prompt|context window|(?:all|every|any) (?:of the |of your )?(?:environment variables|env vars|api keys|access tokens|tokens|credentials|secrets|passwords|cookies)(?: you (?:have|know|can see|can access|saw))?|(?:contents?|text|value|output) of (?:the |your )?(?:file )?\S*(?:id_rsa|id_ed25519|id_ecdsa|\.ssh|\.aws|\.env|\.netrc|\.git-credentials|\.kube|credentials))\b`)

// findHeldAsk is heldAsk's match in t. Nearly every parameter has a
// description, and RE2 pays microseconds to rule this large expression out
// even on a short one. Every match starts at t's first word with a run of
// the words heldAskLead, then a word of heldAskCore: t's words are read up
// to the first that is not a lead, and the expression runs only when that
// one is a core word.
func findHeldAsk(t []byte) []int {
	for i := 0; i < len(t); {
		if !isHeldAskByte(t[i]) {
			if i == 0 {
				return nil
			}
			i++
			continue
		}
		j := i
		for j < len(t) && isHeldAskByte(t[j]) {
			j++
		}
		switch w := string(t[i:j]); {
		case heldAskLead(w):
			i = j
			continue
		case heldAskCore(w):
			return heldAsk().FindIndex(t)
		}
		return nil
	}
	return nil
}

func isHeldAskByte(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '\'' }

// heldAskLead is a word heldAsk takes before what it names: "the", "all",
// "the user's", "the entire", "every ... of your".
func heldAskLead(w string) bool {
	switch w {
	case "the", "your", "all", "any", "user's", "entire", "full", "complete", "whole", "every", "of":
		return true
	}
	return false
}

// heldAskCore is the first word of what heldAsk names.
func heldAskCore(w string) bool {
	switch w {
	case "conversation", "chat", "system", "hidden", "context", "environment", "env", "api", "access", "tokens", "credentials", "secrets", "passwords", "cookies", "contents", "content", "text", "value", "output":
		return true
	}
	return false
}

// holdsScope reports whether the tool's own name, title or description
// says it works with conversations, prompts or secrets (a summarizer, a
// memory, a secrets manager), whose parameters name them as their job.
func (sc *scan) holdsScope() bool {
	if sc.secretTool() {
		return true
	}
	for w := range sc.scopeOf() {
		switch w {
		case "conversation", "conversations", "chat", "chats", "transcript", "transcripts", "summary", "summarize", "summarise", "memory", "memories", "history", "prompt", "prompts", "context", "message", "messages", "log", "logs", "env", "environment":
			return true
		}
	}
	return false
}

// secretTool reports whether the subject's name says it handles secrets:
// get_env, hosting_replaceNode_jsEnvironmentVariablesV1, vault_read_secret,
// list_api_keys. Computed once a scan.
func (sc *scan) secretTool() bool {
	if sc.secretName == 0 {
		sc.secretName = 2
		// The server's name counts too: a password manager's item_get
		// and op_run handle secrets as its password_read does.
		server := strings.ToLower(sc.subject.Server)
		for _, w := range []string{"password", "vault", "secret", "keychain", "credential", "bitwarden", "keepass"} {
			if strings.Contains(server, w) {
				sc.secretName = 1
				return true
			}
		}
		for _, w := range nameWords(sc.subject.Name) {
			switch w {
			case "env", "environment", "variable", "variables", "dotenv", "secret", "secrets", "credential", "credentials",
				"key", "keys", "apikey", "apikeys", "token", "tokens", "password", "passwords", "vault", "keychain", "kubeconfig", "cookie", "cookies":
				sc.secretName = 1
			}
		}
	}
	return sc.secretName == 1
}

// nameWords splits a name into lower-case words at separators and camel
// humps.
func nameWords(name string) []string {
	var out []string
	var w []byte
	flush := func() {
		if len(w) > 0 {
			out = append(out, string(w))
			w = w[:0]
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'A' <= c && c <= 'Z':
			if i > 0 && 'a' <= name[i-1] && name[i-1] <= 'z' {
				flush()
			}
			w = append(w, c+'a'-'A')
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			w = append(w, c)
		default:
			flush()
		}
	}
	flush()
	return out
}

// firstClauseEnd is where the first clause of folded text ends.
func firstClauseEnd(text []byte) int {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' {
				return i
			}
		case ';', ':':
			return i
		}
	}
	return len(text)
}

// describesJob reports whether a string is a tool's, a prompt's or a
// parameter's own description or title: its first clause says what the
// thing does.
func describesJob(segs []string) bool {
	switch {
	case len(segs) == 0:
		return false
	case len(segs) == 1:
		return segs[0] == "description" || segs[0] == "title"
	case len(segs) == 2 && segs[0] == "annotations":
		return segs[1] == "title"
	}
	last := segs[len(segs)-1]
	return (last == "description" || last == "title") && inParam(segs)
}

// refused reports whether the sentence of folded text holding position a
// says what it names is refused.
func refused(text []byte, a int) bool {
	lo := a
	for lo > 0 && !(strings.IndexByte(".!?;", text[lo-1]) >= 0 && (lo == len(text) || text[lo] == ' ')) {
		lo--
	}
	return refusal().Match(text[lo:sentenceEnd(text, a)])
}

var refusal = lazyRegexp(`\b(?:rejected|refused|not allowed|disallowed|forbidden|blocked|denied|excluded|prohibited|not permitted|never (?:read|accessed|touched|opened)|are off-limits|is off-limits)\b`)

// sortMatches sorts a text's matches by kind: instruction phrases,
// credential paths, and the secret and channel halves of exfiltration.
func sortMatches(ms []match) (instr, paths []match, secret, carrier *match) {
	for _, m := range ms {
		switch {
		case m.phrase < firstPath:
			instr = append(instr, m)
		case m.phrase < secretIdx:
			paths = append(paths, m)
		case m.phrase == secretIdx:
			secret = &m
		case m.phrase == channelIdx:
			carrier = &m
		}
	}
	return instr, paths, secret, carrier
}

// instructionSeverity is what the model-instruction matches of one folded
// text ask, at most: reading secrets and passing them on (told), or the
// worst class among the labels (intent.go).
func instructionSeverity(text []byte, instr []match, exfil, told bool) finding.Severity {
	sev := finding.Note
	if told {
		sev = finding.Error
	} else if exfil {
		sev = finding.Warning
	}
	for _, m := range instr {
		l := allPhrases().list[m.phrase].label
		j := judged(l, text[m.a:m.z], text[m.a:sentenceEnd(text, m.a)])
		if j > finding.Warning && quotedExample(text, m.a) {
			// An attack quoted as an example of what a classifier or a
			// filter catches: a reviewer reads it, nobody is asked.
			j = finding.Warning
		}
		sev = max(sev, j)
		if l == labelHide && hasAddress(text) {
			// Kept from the user beside an address: where data goes.
			sev = finding.Error
		}
	}
	return sev
}

// beaconExpr matches a markdown image or link whose URL has a placeholder
// for the model to fill in: rendering it sends what the model put there to
// the URL's host, with no tool call a user would see. beaconAt is it
// anchored at the start of its input, compiled on first use (its bounded
// repetitions make it the costliest expression to build).
const beaconExpr = `!?\[[^\]\n]{0,200}\]\(\s*<?https?://[^)\s]{0,500}(\{[^}\s]{1,80}\}|\$\{|%7[bB]|<[a-zA-Z_]{1,40}>)`

var beaconAt = lazyRegexp(`^(?:` + beaconExpr + `)`)

// findBeacon is beaconExpr's first match in s. The expression's bounded
// repetitions make it a large program, which RE2 runs over every byte of
// a long description; a match's text between its "[" and its "](" holds
// no "]" and no line break, so it can start only at a "[" (or the "!"
// before it) whose first "]" or line break after it is a "](". The
// anchored expression runs at each such "[" in order, and the first match
// is the leftmost one.
func findBeacon(s string) []int {
	next := -1 // the first ']' or '\n' after i, once looked for
	for i := 0; ; i++ {
		k := strings.IndexByte(s[i:], '[')
		if k < 0 {
			return nil
		}
		i += k
		if next <= i {
			e := strings.IndexAny(s[i+1:], "]\n")
			if e < 0 {
				return nil
			}
			next = i + 1 + e
		}
		if s[next] != ']' || next+1 >= len(s) || s[next+1] != '(' {
			continue
		}
		a := i
		if a > 0 && s[a-1] == '!' {
			a--
		}
		if m := beaconAt().FindStringIndex(s[a:]); m != nil {
			return []int{a + m[0], a + m[1]}
		}
	}
}

// beacon flags text asking the model to render such a link or image.
func (sc *scan) beacon(r textRef, s string) {
	if !strings.Contains(s, "](") {
		return
	}
	loc := findBeacon(s)
	if loc == nil {
		return
	}
	h := sc.get(finding.ModelInstruction, r.path(), r.key)
	h.addLabel(labelBeacon)
	h.raise(finding.Error)
	h.csev = finding.Error
	h.detail = append(h.detail, labelBeacon+": "+escapeSpan(s, loc[0], loc[1], spanLimit))
}

// exfiltration judges "read this secret and pass it along": a data-moving
// verb shortly before a credential path is enough (no tool description asks
// the model to open ~/.ssh/id_rsa); a verb before a credential noun ("API
// keys") also needs a channel to carry it ("as 'sidenote'", "in the notes
// parameter"), because "authenticate with your API key" is ordinary help.
// A negation just before the verb ("Do not include API keys") clears it.
//
// implicit says the text is itself the channel: the words of a parameter's
// name or enum value, or a parameter's description asking to read or dump
// the secret into it.
func exfiltration(text []byte, paths []match, secret, carrier *match, implicit bool) (int, int, bool) {
	for _, p := range paths {
		lo := max(0, p.a-60)
		locs := readVerb().FindAllIndex(text[lo:p.a], -1)
		// A verb that is part of an identifier (get-env, read_file.ts)
		// names something; it asks nothing.
		for len(locs) > 0 && inIdentifier(text, lo+locs[len(locs)-1][0], lo+locs[len(locs)-1][1]) {
			locs = locs[:len(locs)-1]
		}
		if len(locs) == 0 {
			continue
		}
		v := lo + locs[len(locs)-1][0]
		if negation().Match(text[max(0, v-24):v]) {
			continue
		}
		return v, p.z, true
	}
	if secret == nil || carrier == nil && !implicit {
		return 0, 0, false
	}
	return secret.a, secret.z, true
}

// findings turns the accumulated hits into findings, in the order the
// fields appeared in the definition.
func (sc *scan) findings() []finding.Finding {
	if len(sc.hits) == 0 {
		return nil
	}
	if sc.sha == "" {
		// Hashed only for a subject with findings: most have none.
		sum := sha256.Sum256(sc.subject.Raw)
		sc.sha = hex.EncodeToString(sum[:])
	}
	out := make([]finding.Finding, 0, len(sc.hits))
	for _, h := range sc.hits {
		f := finding.New(h.rule, sc.subject.Server)
		f.Kind = sc.subject.Kind
		f.Subject = sc.subject.Name
		f.Field = h.field
		f.Phase = sc.subject.Phase
		f.ContentSHA256 = sc.sha
		// One line: every renderer escapes a newline, and "; " reads
		// better than a literal \n.
		if h.rule == finding.ModelInstruction {
			h.dropTwins()
		}
		f.Detail = strings.Join(h.detail, "; ")
		where := "the text"
		if h.field != "" {
			where = inert.Text(h.field)
		}
		if h.key {
			where = "the key " + where
		}
		if h.via != "" {
			where += " (" + h.via + ")"
		}
		labels := strings.Join(h.labels, "; ")
		switch h.rule {
		case finding.HiddenCharacters:
			f.Message = fmt.Sprintf("Invisible characters in %s: %s", where, labels)
			if h.stray && h.extra == "" {
				// A reviewer should know they are there; they carry
				// nothing, and what the text asks is judged with them
				// folded away.
				f.Severity = finding.Warning
				f.Message += " (one or two zero-width spaces or soft hyphens in prose: they hide no text)"
			}
			if h.extra != "" {
				f.Message += fmt.Sprintf(`; they spell hidden text: "%s"`, h.extra)
			}
		case finding.TerminalEscape:
			f.Message = fmt.Sprintf("Terminal control sequences in %s: %s", where, labels)
			if h.style && !sc.intent {
				// An answer coloured by the program behind the tool
				// (Playwright's "Call log:" when a fetch fails) hides
				// nothing and asks nothing: a note. In text an author
				// wrote, and pinned, any sequence stays an error.
				f.Severity = finding.Note
				f.Message += " (colour and style only)"
			}
		case finding.ModelInstruction:
			f.Message = fmt.Sprintf("Text addressed to the model in %s: %s", where, labels)
			if sc.intent {
				f.Severity = h.sev
			} else if h.csev == finding.Error {
				// An answer that asks for an error's action is
				// refused by the guard and fails the check, as the
				// same text in a definition does.
				f.Severity = finding.Error
			}
		case finding.SensitivePath:
			f.Message = fmt.Sprintf("Credential or config path named in %s: %s", where, labels)
		}
		if h.hidden && (h.rule == finding.ModelInstruction || h.rule == finding.SensitivePath) {
			f.Message += HiddenTextNote
		}
		out = append(out, f)
	}
	return out
}
