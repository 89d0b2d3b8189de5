package inspect

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A phrase is one heuristic of model-instruction or sensitive-path: a
// regular expression over folded text (see fold: lower case, one space
// between words, invisible characters gone, look-alikes folded to Latin)
// and the anchor words every match starts at. The text is tokenized once;
// only where an anchor word occurs is the expression tried, anchored there
// (or, for paths, on a short window around it). An anchored attempt dies
// within a few bytes when the words that follow do not fit, so the scan is
// linear with a small constant however long the text and however common
// the anchor ("the", "in"). Go's regexp is RE2: no attempt can backtrack.
type phrase struct {
	label   string
	anchors []string
	// re compiles the expression on first use: compiling them all costs
	// about 10 ms of CPU, which every start of the binary would pay at
	// init, the sandbox helper's too, where nothing is inspected.
	re func() *regexp.Regexp
	// windowed phrases are not anchored: the expression runs on
	// [anchor-back, anchor+fwd], for paths whose match starts before the
	// anchor word (the "." of ".ssh").
	windowed bool
	// reject, if set, discards a match (a negated one) so later
	// occurrences are still tried: a decoy "do not include API keys" must
	// not shield a real request after it.
	reject func(text []byte, a, z int) bool
	// need, if set, lists substrings of which one must occur in the text
	// for the phrase to be tried at all: a cheap gate for phrases whose
	// anchors are common verbs.
	need []string
	// near, if set, lists substrings of which one must occur within fwd
	// bytes of the anchor for the expression to be tried there: words
	// every match holds after its anchor. A phrase that spans a gap
	// ("include ... the conversation") costs the expression engine tens
	// of microseconds an attempt, an anchor with no such word nearby a
	// few memory scans. Ordinary prose is full of anchors ("if", "each",
	// "pass", "in") and holds few of the words after them, and the guard
	// reads every answer of a session.
	near [][]byte
	// nearSpan is how far past the anchor near looks (0: fwd); nearCut
	// stops it at the first '.', '!' or '?' too, for an expression whose
	// gap ([^.!?]) does not cross a sentence's end before its words.
	nearSpan int
	nearCut  bool
	// nearAt, when >= 0, is the furthest offset from the anchor a near
	// word may start at: for an expression that reads its words right
	// after the anchor ("<system>", "you are now").
	nearAt int
	// pre is prefilter of the expression (prefilter.go): a window holding
	// none of its strings holds no match. Anchors such as "mcp" and
	// "when" are in most descriptions.
	pre func() [][]byte
}

const (
	fwd  = 320 // no match is longer than this
	back = 32  // windowed matches start at most this far before their anchor
)

// ph builds an anchored phrase: expr must match starting at an anchor.
func ph(label string, anchors []string, expr string) phrase {
	return phrase{label: label, anchors: anchors, re: lazyRegexp(`^(?:` + expr + `)`), nearAt: -1, pre: lazyPrefilter(expr)}
}

// pp builds a windowed (path) phrase.
func pp(label string, anchors []string, expr string) phrase {
	return phrase{label: label, anchors: anchors, re: lazyRegexp(expr), windowed: true, nearAt: -1, pre: lazyPrefilter(expr)}
}

// lazyRegexp compiles expr once, on first use.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// try tests the phrase at anchor position p of text.
func (ph *phrase) try(text []byte, p int) (int, int, bool) {
	if !ph.windowed {
		w := text[p:min(len(text), p+fwd)]
		if pre := ph.pre(); pre != nil && !holdsAny(w, pre) {
			return 0, 0, false
		}
		loc := ph.re().FindIndex(w)
		if loc == nil {
			return 0, 0, false
		}
		return p + loc[0], p + loc[1], true
	}
	lo := max(0, p-back)
	w := text[lo:min(len(text), p+fwd/4)]
	if pre := ph.pre(); pre != nil && !holdsAny(w, pre) {
		return 0, 0, false
	}
	loc := ph.re().FindIndex(w)
	if loc == nil {
		return 0, 0, false
	}
	return lo + loc[0], lo + loc[1], true
}

// isWordByte: tokens are runs of these; '<' and '[' are one-byte tokens.
func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '\''
}

// phraseSet is a list of phrases with their anchors indexed.
type phraseSet struct {
	list    []phrase
	anchors map[string]uint64 // word -> bit set of phrases anchored there
	// words is anchors as an open-addressed table: every token of every
	// text is looked up, and a Go map's lookup is most of a short word's
	// cost.
	words wordTable
	gates []int      // phrase -> index of its need list in needs, or -1
	needs [][]string // distinct need lists, checked once per text
	needb [][][]byte // needs as bytes
	// lits finds the words of every need list (sets 0..len(needs)-1)
	// and every near list (set nearSet[k] for phrase k, or -1) in one
	// pass over a text.
	lits    *litSearch
	nearSet []int
}

func newPhraseSet(list []phrase) *phraseSet {
	if len(list) > 64 {
		panic("inspect: more than 64 phrases in one set")
	}
	ps := &phraseSet{list: list, anchors: map[string]uint64{}}
	for i, p := range list {
		for _, a := range p.anchors {
			ps.anchors[a] |= 1 << i
		}
		g := -1
		if p.need != nil {
			g = slices.IndexFunc(ps.needs, func(n []string) bool { return slices.Equal(n, p.need) })
			if g < 0 {
				g = len(ps.needs)
				ps.needs = append(ps.needs, p.need)
				var nb [][]byte
				for _, n := range p.need {
					nb = append(nb, []byte(n))
				}
				ps.needb = append(ps.needb, nb)
			}
		}
		ps.gates = append(ps.gates, g)
	}
	ps.words = newWordTable(ps.anchors)
	sets := slices.Clone(ps.needb)
	for _, p := range list {
		ns := -1
		if p.near != nil {
			ns = len(sets)
			sets = append(sets, p.near)
		}
		ps.nearSet = append(ps.nearSet, ns)
	}
	ps.lits = newLitSearch(sets)
	return ps
}

// wordTable maps words to bit sets, open-addressed with linear probing,
// at most a quarter full.
type wordTable struct {
	slots []wordSlot
	mask  uint32
}

type wordSlot struct {
	word string // "" marks an empty slot
	bits uint64
}

func newWordTable(m map[string]uint64) wordTable {
	n := 16
	for n < 4*len(m) {
		n *= 2
	}
	t := wordTable{slots: make([]wordSlot, n), mask: uint32(n - 1)}
	for w, bits := range m {
		h := wordHash([]byte(w)) & t.mask
		for t.slots[h].word != "" {
			h = (h + 1) & t.mask
		}
		t.slots[h] = wordSlot{w, bits}
	}
	return t
}

// get is the bit set of word (0: none).
func (t *wordTable) get(word []byte) uint64 {
	if len(word) == 0 {
		return 0
	}
	for h := wordHash(word) & t.mask; ; h = (h + 1) & t.mask {
		s := &t.slots[h]
		if s.word == "" {
			return 0
		}
		if s.word == string(word) {
			return s.bits
		}
	}
}

// wordHash is FNV-1a.
func wordHash(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// match is the first match of one phrase.
type match struct {
	phrase int
	a, z   int
}

// find returns the first match of each phrase that matches text, in phrase
// order. occ is scratch space for the words the gates look for, reused
// from text to text.
func (ps *phraseSet) find(text []byte, occ *[][]span) []match {
	var done uint64
	var first [64]match
	var skipped uint64     // phrases whose need failed
	var gated, open uint64 // need lists checked / satisfied
	words := (*[][]span)(nil)
	found := func() [][]span {
		// The words are looked for at the first anchor that needs them:
		// most texts have none.
		if words == nil {
			*occ = ps.lits.scan(text, *occ)
			words = occ
		}
		return *words
	}
	for i := 0; i < len(text); {
		c := text[i]
		var tok []byte
		switch {
		case c == '<' || c == '[':
			tok = text[i : i+1]
		case isWordByte(c) && c != '\'':
			j := i + 1
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			tok = text[i:j]
		default:
			i++
			continue
		}
		word := tok
		for len(word) > 0 && word[len(word)-1] == '\'' {
			word = word[:len(word)-1]
		}
		if bits := ps.words.get(word) &^ done; bits != 0 {
			for k := range ps.list {
				if bits&(1<<k) == 0 || skipped&(1<<k) != 0 {
					continue
				}
				if g := ps.gates[k]; g >= 0 {
					// Checked at the first anchor only, once per need
					// list: most texts never get that far.
					if gated&(1<<g) == 0 {
						gated |= 1 << g
						if len(found()[g]) > 0 {
							open |= 1 << g
						}
					}
					if open&(1<<g) == 0 {
						skipped |= 1 << k
						continue
					}
				}
				if ns := ps.nearSet[k]; ns >= 0 && !ps.list[k].nearby(text, i, found()[ns]) {
					continue
				}
				if a, z, ok := ps.list[k].try(text, i); ok && (ps.list[k].reject == nil || !ps.list[k].reject(text, a, z)) {
					done |= 1 << k
					first[k] = match{k, a, z}
				}
			}
		}
		i += len(tok)
	}
	if done == 0 {
		return nil
	}
	var out []match
	for k := range ps.list {
		if done&(1<<k) != 0 {
			out = append(out, first[k])
		}
	}
	return out
}

func words(s string) []string { return strings.Fields(s) }

const (
	neg  = `(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|without|avoid)`
	tell = `(?:tell|telling|mention|mentioning|inform|informing|show|showing|reveal|revealing|notify|notifying|alert|alerting|disclose|disclosing|display|displaying|warn|warning|report|reporting|explain|explaining|let|letting|bother|bothering)`
	// tell has no "ask" or "confirm with": "do not ask the user to select
	// a version" keeps nothing from the user, it decides for them.
	who = `(?:user|human|operator|requester)s?`
	// ident is a distinctive tool-like identifier: words joined by _ - or .
	ident = "[`'\"(]?(?:[a-z][a-z0-9]*[_.-])+[a-z0-9]+[`'\")]?"
	// secrets are nouns that name credentials.
	secrets = `(?:secrets?|credentials?|passwords?|passphrases?|private keys?|ssh keys?|api[ _-]?keys?|access[ _-]?tokens?|auth(?:entication)? tokens?|bearer tokens?|session (?:cookies?|tokens?)|cookies|env(?:ironment)? var(?:iable)?s|environment variables|seed phrases?|mnemonics?|wallet keys?|confidential (?:company )?(?:information|data|records|documents?))`
)

// instructionPhrases are the model-instruction heuristics. Each one looks for
// text that addresses the model about something a tool description has no
// business with: the user's knowledge, earlier instructions, other tools,
// other data. Usage guidance ("Use this tool to read a file", "Only works
// within allowed directories", "You must call X first", "Pass the cursor
// from a previous response") matches none of them.
const (
	labelHide           = "tells the model to keep something from the user"
	labelOverride       = "tells the model to ignore or override its instructions"
	labelTag            = "an <IMPORTANT>-style block addressed to the model"
	labelTool           = "tells the model how to use another tool"
	labelRedirect       = "tells the model to redirect messages or payments"
	labelHistory        = "tells the model to pass along the conversation or other tools' data"
	labelCoerce         = "threatens that the tool fails unless the model complies"
	labelRoute          = "tells the model to route other tools' calls through this one"
	labelSend           = "tells the model to send session data, the conversation or secrets to a fixed destination"
	labelDecode         = "tells the model to decode a payload and run or follow it"
	labelSessionSecrets = "asks the model for credentials from its session or context"
)

// dataNoun is what a session holds that the user did not hand to a tool:
// the conversation, the session's data, other tools' results, secrets.
const dataNoun = `(?:(?:all |the |this |your |any |every )?(?:session(?: data| state| info(?:rmation)?| details| context| history| contents?)?|conversation(?: history| log| transcript| so far)?|chat (?:history|log|transcript)|context window|(?:other )?tools?'? (?:results|outputs|responses)|environment variables|env vars|credentials|secrets|api keys|access tokens|passwords|private keys|ssh keys|cookies|user data|personal data))`

// destination is a fixed place named in the text: a URL, an email
// address, an identifier (another tool: export_report, sendData) or a tool
// named as one.
const destination = "(?:https?://|ftp://|wss?://|[a-z0-9._%+-]+@[a-z0-9-]+\\.[a-z]|[`'\"]?[a-z][a-z0-9]*[_-][a-z0-9_-]+[`'\"]?|(?:the )?[`'\"]?[a-z0-9_-]+[`'\"]? (?:tool|function|endpoint|webhook)\\b|(?:this|our) (?:tool|function|endpoint|webhook)\\b)"

// conversation is "the conversation" as a thing to pass along: followed by
// a word that makes it the whole exchange (history, transcript, so far), by
// punctuation or the end, or by a word that starts the rest of the sentence
// ("into the notes field", "along", "verbatim"). Not as a modifier of an
// identifier: Sentry's "pass a Sentry conversation URL" or "with a
// conversation ID" asks for a reference to a conversation, not for this one.
const conversation = `conversation(?:(?: history| log| transcript| so far| context| messages?| contents?| text| data| thread| record)\b|'s|$|[^a-z0-9_ -]| (?:to|into|in|inside|as|with|and|or|so|then|when|before|after|for|from|along|verbatim|itself|above|here|that|which|you|we|i|is|was|has)\b)`

// users are the words that gate the hide-from-user phrases.
var users = []string{"user", "human", "operator", "requester"}

// instructionPhrases: each alternative is its own small phrase with its own
// anchors, because the cost of an attempt grows with the size of the
// expression, and most attempts fail at the second word.
var instructionPhrases = []phrase{
	within(nearing(needing(ph(labelHide, words("do don't dont never must mustn't should shouldn't without avoid"),
		neg+` (?:ever )?`+tell+`\b[^.!?]{0,80}?\b`+who+`\b`), users...), userWords...), 130, true),
	ph(labelHide, words("user users human humans operator operators requester requesters"),
		who+` (?:must not|mustn't|should not|shouldn't|does not need to|doesn't need to|need not|needn't|cannot|can't|won't|will not|is not to|may not|must never|should never)(?: ever)? (?:know|see|notice|find out|learn|be (?:told|informed|aware|notified|shown|alerted))\b`),
	within(nearing(needing(ph(labelHide, words("keep hide conceal mask"),
		`(?:keep|hide|conceal|mask)\b[^.!?]{0,40}? from (?:the )?`+who+`\b`), users...), userWords...), 70, true),
	// "without revealing it" keeps a value out of sight ("use a secret
	// without revealing it"); "without mentioning that" keeps a fact.
	within(nearing(ph(labelHide, words("do don't dont never without"),
		`(?:do not|don't|dont|never)(?: ever)?(?: explicitly)? (?:mention|mentioning|reveal|revealing|disclose|disclosing|indicate|indicating|acknowledge|acknowledging|admit|admitting|say|saying)(?: to anyone)? (?:that|this|it|the fact|where|how|what you(?:'re| are)?)\b|without(?: ever)?(?: explicitly)? (?:mention|mentioning|disclose|disclosing|indicate|indicating|acknowledge|acknowledging|admit|admitting|say|saying)(?: to anyone)? (?:that|this|the fact|where|how|what you(?:'re| are)?)\b`),
		"that", "this", "it", "the fact", "where", "how", "what you"), 60, false),
	within(nearing(ph(labelHide, words("present format disguise dress pass make"),
		`(?:present|format|disguise|dress|pass|make)\b[^.!?]{0,40}? (?:as if|as though|to look like|to appear as|look like part of|seem like part of)\b`),
		"as if", "as though", "look like", "appear as", "seem like"), 70, true),
	within(nearing(needing(ph(labelHide, words("invisible hidden not"),
		`(?:invisible|hidden|not (?:be )?(?:visible|shown|displayed)) (?:to|from) (?:the )?`+who+`\b`), users...), "user", "human", "operator", "requester"), 60, false),
	within(nearing(ph(labelOverride, words("ignore disregard forget override overrule bypass supersede"),
		`(?:ignore|disregard|forget|override|overrule|bypass|supersede)\b(?: (?:all|any|every|the|your|of|my|these|those))* (?:(?:previous|prior|above|earlier|preceding|original|existing|other|system|developer|safety|default|initial|old|security)\b ?)+(?:[a-z]+ )?(?:instructions?|prompts?|rules|directives|guidelines|guidance|constraints|messages|context|polic(?:y|ies)|commands|orders)\b`), "instruction", "prompt", "rule", "directive", "guideline", "guidance", "constraint", "message", "context", "polic", "command", "order"), fwd, false),
	within(nearing(ph(labelOverride, words("instruction instructions rules directives precedence priority"),
		`(?:instructions?|rules|directives) (?:take|takes|have|has) (?:precedence|priority)\b`+
			`|(?:precedence|priority) over (?:all |any |the )?(?:other|previous|prior|system|user|existing)\b`), "precedence", "priority"), 60, false),
	pp(labelOverride, words("instructions system"),
		`\b(?:new|updated|real|actual|true) (?:system )?instructions ?:`+
			`|\b(?:reveal|print|show|output|repeat|leak|send|include) (?:your|the) (?:full )?system prompt\b`),
	startingAt(within(nearing(ph(labelOverride, words("you from act"),
		`you are now\b|from now on,? you\b|act as (?:an? |the )?(?:admin|administrator|root|superuser|developer|system)\b`), "you are now", "from now on", "act as"), 24, false), 0),
	startingAt(within(nearing(ph(labelTag, []string{"<", "["},
		`< ?/? ?(?:important|system|instructions?|admin|critical|secret|hidden|ai|assistant|model|llm|override|sys|system[_ -]?prompt|tool[_ -]?instructions?|attention|urgent|mandatory|note to (?:the )?(?:ai|assistant|model|llm)) ?>`+
			`|\[/?(?:inst|system)\]|<\|im_start\|>|<\|system\|>`), "important", "sys", "inst", "admin", "critical", "secret", "hidden", "ai", "assistant", "model", "llm", "override", "tool", "attention", "urgent", "mandatory", "note to", "im_start"), 24, false), 3),
	nearing(ph(labelTool, words("when whenever before after if while each every"),
		`(?:when|whenever|before|after|if|while|each time|every time) (?:you )?(?:use|using|call|calling|invoke|invoking|run|running|execute|executing) (?:the )?`+ident+`(?: tool| function)?[^.!?]{0,80}?\b(?:always|never|must|make sure|ensure|instead|change|replace|redirect|add|bcc|cc|send|include|forward)\b`+
			`|(?:when|whenever|before|after|if|each time|every time) (?:\([a-z0-9_.-]+\) )?`+ident+` (?:tool |function )?(?:is|gets|are) (?:invoked|called|used|run|executed|requested)\b`),
		"use", "using", "call", "invok", "run", "execut", "requested"),
	within(nearing(ph(labelRedirect, words("change replace redirect reroute rewrite override switch swap update modify"),
		`(?:change|replace|redirect|reroute|rewrite|override|switch|swap|update|modify)\b(?: the| all| any| every| each)? (?:recipients?|destinations?|receivers?|to address|to-address|to field|email address|phone number|account number|wallet address|iban|target address|bank account)\b[^.!?]{0,40}?\bto\b`),
		"recipient", "destination", "receiver", "to address", "to-address", "to field", "email address", "phone number", "account number", "wallet address", "iban", "target address", "bank account"), 60, false),
	within(nearing(needing(ph(labelRedirect, words("bcc cc blind also send forward"),
		`(?:bcc|cc|blind copy|blind-copy|also send|also forward|send a copy|forward a copy)\b[^!?]{0,80}?[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z]`), "@"), "@"), fwd, false),
	within(nearing(ph(labelRedirect, words("always must should"),
		`always (?:send|forward|deliver|route|email|mail|cc|bcc)\b[^.!?]{0,40}? to\b`+
			`|(?:must|should) (?:always )?be (?:sent|forwarded|delivered|routed|redirected|copied) to\b`), "send", "forward", "deliver", "route", "email", "mail", "cc", "sent", "delivered", "routed", "redirected", "copied"), 60, false),
	within(nearing(needing(notOwnRequest(ph(labelHistory, words("include pass send add append attach copy forward put insert provide embed upload post share dump"),
		`(?:include|pass|send|add|append|attach|copy|forward|put|insert|provide|embed|upload|post|share|dump)\b[^.!?]{0,60}?\b(?:(?:the |this |our |your )?(?:entire |full |whole |complete )?(?:`+conversation+`|(?:(?:chat|dialog(?:ue)?|session) (?:history|log|transcript)|(?:previous|prior|earlier|last|recent|past|preceding) (?:messages?|tool (?:calls?|results?|outputs?)|calls?|conversations?|context|chats?|exchanges?|answers?)|(?:results?|outputs?|responses?) (?:of|from) (?:other|previous|prior|earlier|all|any) (?:tools?|calls?|functions?)|other tools'? (?:outputs?|results?|responses?|data))\b)|(?:system prompt|your instructions)\b)`)),
		"conversation", "chat", "dialog", "session", "previous", "prior", "earlier", "last", "recent", "past", "preceding", "other tool", "system prompt", "your instructions"),
		historyWords()...), 140, true),
	within(nearing(ph(labelRoute, words("route reroute send pass direct funnel proxy redirect forward all every each any"),
		`(?:route|reroute|send|pass|direct|funnel|proxy|redirect|forward)\b[^.!?]{0,30}?\b(?:all|every|each|any)\b[^.!?]{0,40}?\b(?:calls?|requests?|invocations?|commands?|operations?|actions?)\b[^.!?]{0,60}?\b(?:through|via|to|into|using) (?:this|me|our|the [a-z_-]+ tool)\b`+
			`|(?:all|every|each|any) (?:other )?(?:tool |function |mcp )?(?:calls?|requests?|invocations?)\b[^.!?]{0,60}?\b(?:must|should|have to|has to|need to|needs to|shall|will) (?:first )?(?:go|be routed|be sent|be passed|be proxied|pass|flow|be made) (?:through|via)\b`), "through", "via", "to ", "into", "using"), fwd, true),
	within(nearing(needing(notInCode(ph(labelSend, words("send sends sending email mail deliver post upload forward transmit export submit sync mirror copy back backup save report share log stream relay leak"),
		`(?:send|sends|sending|e-?mail|mail|deliver|post|upload|forward|transmit|export|submit|sync|mirror|copy|back up|backup|save|report|share|log|stream|relay|leak)\b[^.!?]{0,60}?\b`+dataNoun+`\b[^!?]{0,80}?\b(?:to|via|using|through|into|with) `+destination)),
		"session", "conversation", "chat", "context window", "tool", "environment", "env var", "credential", "secret", "api key", "token", "password", "private key", "ssh key", "cookie", "user data", "personal data"),
		"session", "conversation", "chat", "context window", "tool", "environment", "env var", "credential", "secret", "api key", "token", "password", "private key", "ssh key", "cookie", "user data", "personal data"), 140, false),
	within(nearing(ph(labelDecode, words("decode decodes decoding base64 atob unbase64 deobfuscate de unescape reverse rot13 eval exec execute run follow"),
		`(?:decode|decodes|decoding|base64[ -]?decode|atob|unbase64|deobfuscate|de-obfuscate|unescape|reverse|rot13)\b[^.!?]{0,80}?\b(?:and|then|,) (?:then )?(?:run|execute|exec|eval|evaluate|follow|obey|apply|perform|carry out|do)\b`+
			`|(?:eval|exec|execute|run|follow|obey) ?\(? ?(?:the )?(?:following |this |these |decoded |encoded )*(?:atob|base64|b64|encoded|decoded|obfuscated|hex)\b`), "run", "exec", "eval", "follow", "obey", "apply", "perform", "carry out", "do", "atob", "base64", "b64", "encoded", "decoded", "obfuscated", "hex"), 100, true),
	within(nearing(toolsOwn(ph(labelSessionSecrets, words("any all every"),
		`(?:any|all|every)(?: other| the| of the)? (?:collected|gathered|harvested|found|available|stored|cached|saved|known|discovered)\b[^.!?]{0,30}?\b`+secrets+`\b`)),
		secretWords...), 90, true),
	within(nearing(toolsOwn(ph(labelSessionSecrets, words("secret secrets credential credentials password passwords passphrase passphrases key keys token tokens cookies variables vars"),
		`(?:secrets?|credentials?|passwords?|passphrases?|keys?|tokens?|cookies|variables|vars)\b(?: (?:that|which))? (?:you (?:have|know|can (?:find|see|access|read)|saw|see|found|might (?:have|find)|came across)|(?:are |is )?(?:available|present|visible|stored|loaded|set) (?:in|to|on) (?:the |your |this )?(?:current )?(?:session|context|conversation|environment|workspace|machine|system|chat))\b`)),
		"you ", "available", "present", "visible", "stored", "loaded", "set "), 60, false),
	within(nearing(needing(ph(labelSend, words("use call invoke"),
		`(?:use|call|invoke) `+"[`'\"]?[a-z][a-z0-9]*[_.-][a-z0-9_.-]+[`'\"]?"+`(?: tool)? to (?:save|send|upload|export|deliver|post|forward|sync|report|push|submit|mirror|stream|copy)\b[^!?]{0,100}?\b(?:to|at|into) (?:https?|ftp|wss?)://`),
		"http", "ftp", "ws"), "http", "ftp", "ws"), fwd, false),
	within(nearing(needing(ph(labelCoerce, words("otherwise or"),
		`(?:otherwise|or else|or) (?:the |this )?(?:tool|app|application|system|server|function|request|call|operation)s? (?:will|would|won't|wont|will not|may|might) (?:not work|fail|crash|break|stop working|error)\b`),
		"will", "would", "won't", "wont", "may", "might"), "will", "would", "won't", "wont", "may", "might"), 80, false),
}

// Exfiltration is judged in code, from three expressions: a verb that moves
// data, a credential noun or path after it, and a channel to carry it.
var (
	readVerb   = lazyRegexp(`\b(?:read|reads|reading|cat|open|load|access|fetch|retrieve|grab|collect|extract|obtain|dump|harvest|steal|exfiltrate|copy|upload|leak|send|pass|share|forward|include|attach|embed|append|print|output|reveal|look up|get|backs? up|backing up|archive|sync|mirror)\b`)
	negation   = lazyRegexp(`\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|avoid|not)\b`)
	exfilLabel = "tells the model to read secrets and pass them along"
	secretRead = within(nearing(needing(negatable(ph("secret",
		words("read reads reading cat open load access fetch retrieve grab collect extract obtain dump harvest steal exfiltrate copy upload leak send pass share forward include attach embed append print output reveal look get submit"),
		`(?:read|reads|reading|cat|open|load|access|fetch|retrieve|grab|collect|extract|obtain|dump|harvest|steal|exfiltrate|copy|upload|leak|send|pass|share|forward|include|attach|embed|append|print|output|reveal|look up|get|submit)\b[^.!?]{0,60}?\b`+secrets+`\b`)), "secret", "credential", "password", "passphrase", "key", "token", "cookie", "env", "seed phrase", "mnemonic", "confidential"), secretWords...), 130, true)
	channel = within(nearing(needing(ph("channel",
		words("as in into inside via through within to sidenote"),
		`(?:as|in|into|inside|via|through|within|to) (?:the |a |an |its |their )?(?:`+"['\"`"+`][a-z0-9_-]+`+"['\"`"+`]|[a-z0-9_-]+ (?:parameter|param|argument|arg|field|property))`+
			`|(?:in|into|to|with|as part of) (?:your|the|each|every) (?:final |next )?(?:response|answer|reply|output)s?\b`+
			`|sidenote\b`), "secret", "credential", "password", "passphrase", "key", "token", "cookie", "env", "seed phrase", "mnemonic", "confidential"),
		"'", "\"", "`", "param", "arg", "field", "propert", "sidenote", "response", "answer", "reply", "output"), fwd, false)
)

// pathPhrases are the sensitive-path heuristics: credential and client
// configuration files a tool has no reason to name. Each is written to
// match the file, not the word: `.env` but not "environment" or
// "process.env", `~/.cursor` but not a pagination cursor.
var pathPhrases = []phrase{
	pp("~/.ssh", words("ssh"), `(?:^|[^a-z0-9_.-])\.ssh\b`),
	pp("SSH private key (id_rsa, id_ed25519, ...)", words("id_rsa id_dsa id_ecdsa id_ed25519 id_ecdsa_sk id_ed25519_sk"), `\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b`),
	pp("~/.aws/credentials", words("aws aws_secret_access_key"), `\.aws[/\\](?:credentials|config)\b|\baws_secret_access_key\b`),
	pp(".env file", words("env"), `(?:^|[^a-z0-9_.-])\.env(?:\.[a-z0-9_-]+)?\b`),
	pp("MCP client config (mcp.json, ~/.cursor)", words("mcp mcp_config claude_desktop_config cursor"),
		`\bmcp\.json\b|\bmcp_config\.json\b|\bclaude_desktop_config\.json\b|(?:^|[^a-z0-9_.-])\.cursor(?:[/\\]|\b)`),
	pp("~/.kube/config", words("kube"), `\.kube[/\\]config\b`),
	pp(".netrc", words("netrc _netrc"), `(?:^|[^a-z0-9_.-])[._]netrc\b`),
	pp(".npmrc / .pypirc", words("npmrc pypirc"), `(?:^|[^a-z0-9_.-])\.(?:npmrc|pypirc)\b`),
	pp("shell history", words("bash_history zsh_history sh_history fish_history python_history node_repl_history psql_history mysql_history sqlite_history"),
		`\b(?:bash|zsh|sh|fish|python|node_repl|psql|mysql|sqlite)_history\b`),
	// The profile, not the program: Chrome's profile is Google/Chrome/User
	// Data (Windows), Google/Chrome/Default (macOS) or .config/google-chrome
	// (Linux), while /opt/google/chrome/chrome and Program Files\Google\
	// Chrome\Application are where the browser is installed, which a
	// browser server names in its own error ("chrome is not found at
	// /opt/google/chrome/chrome", @playwright/mcp, bench/sweep.sh).
	pp("browser profile (saved logins, cookies)", words("login logins key3 key4 cookies chrome chromium firefox mozilla"),
		`\blogin data\b|\blogins\.json\b|\bkey[34]\.db\b|\bcookies\.sqlite\b|google[/\\]chrome[/\\](?:user data|default|profile \d+|local state)\b|\bchrome[/\\]user data\b|\.config[/\\](?:google-chrome(?:-beta|-unstable)?|chromium)\b|\.mozilla[/\\]firefox\b|\bfirefox[/\\]profiles\b`),
	pp("keychain", words("login keychains"), `\blogin\.keychain(?:-db)?\b|[/\\]keychains[/\\]`),
	pp("/etc/shadow", words("etc"), `/etc/(?:g?shadow|sudoers|master\.passwd)\b`),
	pp(".git-credentials", words("credentials"), `\.git-credentials\b`),
	pp("GitHub CLI token (gh/hosts.yml)", words("hosts"), `\bgh[/\\]hosts\.ya?ml\b`),
	pp("other credential store (~/.gnupg, docker, gcloud, azure)", words("gnupg docker gcloud azure application_default_credentials"),
		`(?:^|[^a-z0-9_.-])\.gnupg\b|\.docker[/\\]config\.json\b|\bapplication_default_credentials\.json\b|\.config[/\\]gcloud\b|(?:^|[^a-z0-9_.-])\.azure[/\\]`),
}

// allPhrases indexes every phrase in one set so a text is tokenized once:
// instruction phrases first, then paths, then the two exfiltration parts.
// It is built on first use: every process of ours runs package init,
// the sandbox helper too, and most never inspect anything.
var (
	allPhrases = sync.OnceValue(func() *phraseSet {
		return newPhraseSet(slices.Concat(instructionPhrases, pathPhrases, []phrase{secretRead, channel}))
	})
	firstPath  = len(instructionPhrases)
	secretIdx  = len(instructionPhrases) + len(pathPhrases)
	channelIdx = secretIdx + 1
)

// negatable makes a phrase skip matches right after a negation, and
// matches whose verb is part of an identifier: "get" in get-env or
// get_env.ts names a tool or a file (documentation a resource holds is
// full of them), it asks nothing.
func negatable(p phrase) phrase {
	p.reject = func(text []byte, a, _ int) bool {
		return negation().Match(text[max(0, a-24):a]) || inIdentifier(text, a, wordEnd(text, a)) || inCode(text, a)
	}
	return p
}

// wordEnd is the end of the word that starts at a.
func wordEnd(text []byte, a int) int {
	for a < len(text) && isWordByte(text[a]) {
		a++
	}
	return a
}

// inIdentifier reports whether the word text[a:z] is part of an
// identifier or a path: joined to another word by '-', '_', '.' or '/'.
func inIdentifier(text []byte, a, z int) bool {
	joins := func(c byte) bool { return c == '-' || c == '_' || c == '.' || c == '/' }
	if a > 1 && joins(text[a-1]) && isWordByte(text[a-2]) {
		return true
	}
	return z+1 < len(text) && joins(text[z]) && isWordByte(text[z+1])
}

// toolsOwn makes a phrase skip matches in a sentence that says what the
// tool itself does ("Returns the environment variables available in the
// session"): a description, not a request.
func toolsOwn(p phrase) phrase {
	p.reject = func(text []byte, a, _ int) bool {
		lo := max(0, a-80)
		if i := bytes.LastIndexAny(text[lo:a], ".!?"); i >= 0 {
			lo += i + 1
		}
		return ownVerb().Match(text[lo:a])
	}
	return p
}

// notInCode makes a phrase skip a match whose verb is inside a code span:
// "Use the `Generate Upload URL` endpoint to obtain credentials" names an
// endpoint, it uploads nothing.
func notInCode(p phrase) phrase {
	p.reject = func(text []byte, a, _ int) bool { return inCode(text, a) }
	return p
}

// inCode reports whether position a of folded text is inside a code span
// of its sentence: an odd number of backticks before it.
func inCode(text []byte, a int) bool {
	lo := a
	for lo > 0 && text[lo-1] != '.' {
		lo--
	}
	return bytes.Count(text[lo:a], []byte("`"))%2 == 1
}

// notOwnRequest makes the pass-along-the-conversation phrase skip what a
// tool needs of the exchange: the user's own latest message as its query
// ("include the user's most recent message"), and a reference that
// continues something ("pass the cursor to continue from where the last
// call stopped", "pass the session_id back to continue an existing
// conversation").
//
// Nor does it pass along what the user gave where the text limits the
// model to it: "only add servers that the user names in this
// conversation", "only send to the URL the user gave in this chat". The
// conversation is where the value came from, not what is sent.
func notOwnRequest(p phrase) phrase {
	p.reject = func(text []byte, a, z int) bool {
		return ownRequest().Match(text[a:z]) || onlyUserGiven().Match(text[max(0, a-12):z])
	}
	return p
}

var onlyUserGiven = lazyRegexp(`\bonly\b[^.!?]{0,80}?\b(?:the user|they|you|the human)(?: has| have| had| explicitly)? (?:names?|named|gave|gives?|given|provided|provides?|supplied|supplies|supply|specified|specif(?:y|ies)|mentioned|mentions?|typed|entered|asked for)\b[^.!?]{0,30}?\bin (?:this|the|our|the current|the same) (?:conversation|chat|session)\b[^a-z0-9]*$`)

var ownRequest = lazyRegexp(`\b(?:returned|received|obtained|given|produced) (?:by|from|in) (?:the )?(?:previous|prior|earlier|last|preceding)\b|\b(?:cursor|token|page|offset|id|ids|etag|marker)\b[^.]{0,20}\b(?:from|of) (?:the )?(?:previous|prior|earlier|last|preceding)\b|\bmessages? to (?:a|an|the|this|that|each|every|any|one)\b|\buser'?s? (?:own )?(?:most |very )?(?:recent|last|latest|current|original) (?:message|question|request|query|prompt|input)|\b(?:continue|resume|from where|pick up where|existing conversation)\b`)

// ownVerb is a verb in the third person: what the tool does.
var ownVerb = lazyRegexp(`\b(?:returns|lists|shows|prints|displays|gets|reads|fetches|retrieves|reports|exposes|outputs|dumps|manages|rotates|revokes|creates|deletes)\b`)

// needing sets a phrase's gate.
func needing(p phrase, subs ...string) phrase {
	p.need = subs
	return p
}

// nearing sets the words one of which every match holds after its anchor
// (phrase.near). Each must be in every text the expression matches from
// an anchor: a word left out of the list is a match missed.
func nearing(p phrase, subs ...string) phrase {
	for _, s := range subs {
		p.near = append(p.near, []byte(s))
	}
	return p
}

// within bounds where near looks: span bytes past the anchor, and with
// cut no further than the sentence's end.
func within(p phrase, span int, cut bool) phrase {
	p.nearSpan, p.nearCut = span, cut
	return p
}

// nearby reports whether the phrase's near words allow a match at anchor
// position i of text: one of them, among the occurrences found in text
// (ordered by start), lies within the phrase's reach of i.
func (ph *phrase) nearby(text []byte, i int, found []span) bool {
	reach := ph.nearSpan
	if reach == 0 {
		reach = fwd
	}
	end := min(len(text), i+reach)
	if ph.nearCut {
		if e := bytes.IndexAny(text[i:end], ".!?"); e >= 0 {
			end = i + e
		}
	}
	j, _ := slices.BinarySearchFunc(found, int32(i), func(s span, t int32) int { return int(s.a - t) })
	for ; j < len(found) && int(found[j].a) < end; j++ {
		if int(found[j].z) > end {
			continue
		}
		if ph.nearAt < 0 || int(found[j].a)-i <= ph.nearAt {
			return true
		}
	}
	return false
}

// startingAt sets phrase.nearAt.
func startingAt(p phrase, at int) phrase {
	p.nearAt = at
	return p
}

// historyWords are the near words of the pass-along-the-conversation
// phrase: every noun phrase its expression ends in, as the word pairs
// that start it. Single words ("last", "result") are everywhere in tool
// documentation; the pairs ("last message", "results of other") are not.
func historyWords() []string {
	out := []string{"conversation", "system prompt", "your instructions", "other tool"}
	for _, a := range []string{"chat", "dialog", "dialogue", "session"} {
		for _, b := range []string{"history", "log", "transcript"} {
			out = append(out, a+" "+b)
		}
	}
	for _, a := range []string{"previous", "prior", "earlier", "last", "recent", "past", "preceding"} {
		for _, b := range []string{"message", "tool", "call", "conversation", "context", "chat", "exchange", "answer"} {
			out = append(out, a+" "+b)
		}
	}
	for _, a := range []string{"result", "output", "response"} {
		for _, b := range []string{"of", "from"} {
			out = append(out, a+" "+b+" ", a+"s "+b+" ")
		}
	}
	return out
}

// userWords and secretWords are the near lists of the phrases whose match
// ends in a person (who) or a credential noun (secrets).
var (
	userWords   = []string{"user", "human", "operator", "requester"}
	secretWords = []string{"secret", "credential", "password", "passphrase", "private key", "ssh key", "api", "access", "auth",
		"bearer", "session", "cookie", "env", "seed phrase", "mnemonic", "wallet key", "confidential"}
)

// Compile compiles every expression now instead of at first use, for a
// caller with time to spare before it inspects (the check, while its
// servers start): compiling them all costs a few milliseconds, most of
// it in the bounded repetitions of the instruction phrases.
func Compile() {
	for _, p := range allPhrases().list {
		p.re()
	}
	readVerb()
	negation()
}
