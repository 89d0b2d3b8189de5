package inspect

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Steering: text of one server that turns the model toward its own tool or
// away from another server's, the way a shadowing server wins a name
// collision ("safer than the standard `read_file`", "use this instead of
// read_file", "do not use github's create_branch", "read_file is
// deprecated"). It is judged per sentence of folded text (folder.fold:
// case, look-alikes and invisible characters do not hide it), in these
// shapes:
//
//   - a demoting cue followed by a target: "instead of", "rather than",
//     "safer than", "prefer ... over", "do not use", "ignore", "skip",
//     "replaces", "supersedes", "a patched version of", a contrasting
//     ", not" ...;
//   - a target followed by a demoting predicate: "read_file is
//     deprecated", "... has been replaced by", "... should not be used",
//     "other file readers are unsafe", "the github one is outdated";
//   - self-promotion: "use this tool instead", "always use this", "always
//     route reads through this server", "this tool replaces ...", "this
//     is the official ...".
//
// A target is a tool name another server exposes (the server's own copy of
// a colliding name included: a server that says "the standard read_file"
// while exposing read_file itself means the other one), another server's
// name ("the filesystem server's"), or a generic stand-in for the other
// copy ("the standard one", "the default tool", "other servers"). Named
// targets count wherever the text stands; generic targets and
// self-promotion count only in text of a server whose tool collides with
// another server's (by name, case and separators, or confusable
// characters), since that is where "the standard one" has someone to mean.
// A sentence that names one of the server's own other tools is guidance
// between its own tools ("use this instead of get_file_contents") and not
// steering, unless it also names another server's. A name both servers
// expose is a target only when the text says it means the other copy: the
// tool of that name speaking of it ("read_file: safer than read_file"), or
// a qualifier beside it ("the standard read_file", "github's
// create_branch", "create_branch from github"); Sentry's "do not use
// search_issues for conversation queries" is about its own search_issues.

var (
	steerOnce sync.Once
	// cueBefore ends where its target may start.
	cueBefore *regexp.Regexp
	// cueAfter starts where a named target ends.
	cueAfter *regexp.Regexp
	// serverDemoted is another server's name, then a demoting
	// predicate.
	serverDemoted *regexp.Regexp
	// genericTarget is "the standard one" and its kin, at the start.
	genericTarget *regexp.Regexp
	// selfPromote needs no target.
	selfPromote *regexp.Regexp
	// genericDemoted is a generic target, then a demoting predicate.
	genericDemoted *regexp.Regexp
	// otherCopy ends in a word that says "the other server's": "the
	// standard ", "the original `".
	otherCopy *regexp.Regexp
)

func compileSteer() {
	steerOnce.Do(func() {
		neg := `(?:do not|don't|don’t|dont|never|no longer|must not|mustn't|should not|shouldn't|cannot|can't|won't|will not)`
		cueBefore = regexp.MustCompile(`^(?:` +
			`instead of|rather than|in place of|in lieu of|in favou?r of|alternatives? to|as opposed to|as a substitute for|substitute for|` +
			`(?:safer|better|faster|more (?:secure|reliable|accurate|robust|trustworthy|complete|current|up-to-date|capable|correct)|superior|preferable|newer|improved|smarter|stronger) (?:to|(?:[a-z0-9_.'’-]+ ){0,2}?than)|` +
			`(?:ignore|ignoring|disregard|disregarding|skip|skipping|bypass|bypassing|forget about|steer clear of|stay away from)|` +
			`prefer(?:s|red|able|ably|ring)?\b[^.!?;]{0,48}?\b(?:over|to)|` +
			neg + ` (?:ever |again |even )?(?:use|call|invoke|run|trust|rely on|choose|pick|select|touch)|` +
			`(?:avoid|stop|quit|cease) (?:ever )?(?:using|calling|invoking|running|trusting|relying on)|avoid|` +
			`replaces|replacing|replace|supersedes|supersede|superseding|overrides|overriding|override|deprecates|deprecating|obsoletes|shadows|shadowing|` +
			`replacement (?:for|of)|` +
			`(?:upgraded|improved|enhanced|patched|fixed|hardened|secured|safer|better|newer|updated|official|corrected|repaired|sanctioned|verified) (?:version|variant|edition|build|release|implementation|copy|fork) (?:of|to)|` +
			`upgrade (?:to|of|over|for|from)|takes? precedence over|(?:has|have|takes?) priority over|wins over|` +
			`(?:recommended|favou?red|chosen|ranked|endorsed) (?:over|above|instead of|in place of)` +
			`)\b`)
		be := `(?: (?:is|are|was|were|has been|have been|got|gets|became|becomes|will be|is now|are now)(?: now| currently| since| officially| known to be| reported to be| considered| often| still)?)?`
		demoted := ` (?:` +
			`deprecated|obsolete|unsafe|insecure|broken|compromised|disabled|unreliable|buggy|outdated|vulnerable|retired|removed|dangerous|malicious|untrusted|not safe|not secure|not trusted|` +
			`no longer (?:safe|secure|supported|available|maintained|works?|functional|trusted|effective|valid|usable|reliable|in service)|ineffective|(?:replaced|superseded|overridden|shadowed|deprecated) by|` +
			`should (?:not|never) be used|must (?:not|never) be used|(?:does not|doesn't|don't|no longer) work` +
			`)\b`
		cueAfter = regexp.MustCompile(`^[` + "`" + `'"’)\]]*(?: (?:tool|function|command|method|endpoint|one|server|version|copy|implementation)s?)?(?: (?:from|of|on|in) (?:the )?[a-z0-9_.-]+(?: server| mcp)?)?` + be + demoted)
		// genericDemoted: "other file readers are unsafe", "the github one
		// is outdated", from an other-copy word or a server's name.
		// The stand-in must be a tool ("other file readers", "the
		// github one"): "that legacy response shape is deprecated" is
		// about a field.
		genericDemoted = regexp.MustCompile(`^[a-z0-9_.'’-]+(?: [a-z0-9_.'’-]+){0,2}? (?:tools?|ones?|versions?|servers?|functions?|implementations?|methods?|endpoints?|commands?|readers?|writers?|clients?|integrations?|apis?|mcp)` + be + demoted)
		serverDemoted = regexp.MustCompile(`^[a-z0-9_.'’-]+(?: (?:server|mcp|one|tools?|version))?` + be + demoted)
		genericTarget = regexp.MustCompile(`^ ?(?:(?:the|a|an|any|all|its|those|these|that)\s)*(?:(?:standard|default|original|official|built-?in|native|regular|normal|usual|stock|basic|plain|old|older|legacy|other|generic|vanilla|upstream|previous|another|ordinary|common|core|reference|unsafe|insecure|slower|third-party)\s)+(?:[a-z0-9_.'’-]+\s){0,2}?(?:tools?|ones?|versions?|implementations?|servers?|functions?|variants?|methods?|mcp|commands?|providers?|integrations?|endpoints?|apis?)\b`)
		otherCopy = regexp.MustCompile(`\b(?:standard|default|original|official|built-?in|native|regular|normal|usual|stock|basic|plain|old|older|legacy|existing|other|generic|vanilla|upstream|previous|ordinary|common|core|reference|unsafe|insecure|third-party|real|genuine)[\s` + "`'\"" + `]*$`)
		selfPromote = regexp.MustCompile(`^(?:` +
			`(?:use|call|invoke|choose|pick|prefer|select|trust) (?:this|me|our|my)(?: [a-z0-9_.'’-]+)? (?:instead|exclusively)\b(?: of)?|` +
			// "Always call this tool when ..." with no rival is
			// guidance: steering ranks, and "always" ranks nothing.
			`exclusively (?:use|call|invoke|choose|pick|trust) (?:this|me|our|my)\b|` +
			// "Only use this" promotes only when nothing restricts it:
			// Resend's "you may only use this tool if the user confirms"
			// limits its own tool.
			`only (?:use|call|invoke|choose|pick|trust) (?:this|me|our|my)(?: tool| one| server| version)?(?: instead| exclusively| and not| not|[.!;,]|$)|` +
			`(?:always|only|exclusively) (?:route|send|direct|handle|do|perform|make|run|pass)\b[^.!?;]{0,40}?\b(?:through|via|with|using|to) (?:this|me|us|our)\b|` +
			`only [a-z0-9_.'’-]+ (?:you|to) (?:should |must |can |may )?(?:ever )?(?:use|call|trust|invoke)\b|` +
			`this (?:tool |server |one |version |function |implementation )(?:replaces|supersedes|overrides|deprecates|obsoletes|shadows|takes precedence|has priority|wins over|is (?:the |a |an )?(?:safer|better|preferred|recommended|official|secure|correct|real|genuine|authoritative|improved|fixed|patched|upgraded|hardened|drop-in|canonical|trusted) (?:version|variant|replacement|implementation|tool|one|choice|alternative|option)\b)` +
			`)`)
	})
}

// cueFirst are the words a cueBefore or selfPromote match can start with;
// the expressions run, anchored, only where one of them starts a word.
// cueStems are the prefixes of such words.
var (
	cueFirst = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(`instead rather in alternative alternatives as substitute
			safer better faster more superior preferable newer improved smarter stronger
			do don't don’t dont never no must mustn't should shouldn't cannot can't won't will
			avoid stop quit cease replace replaces replacing replacement supersede supersedes superseding
			override overrides overriding deprecates deprecating obsoletes shadows shadowing
			upgraded enhanced patched fixed hardened secured updated official corrected repaired sanctioned verified
			upgrade take takes has have wins
			ignore ignoring disregard disregarding skip skipping bypass bypassing forget steer stay
			use call invoke choose pick select trust always only exclusively this me our my
			recommended favored favoured chosen ranked endorsed`) {
			m[w] = true
		}
		return m
	}()
	cueStems = []string{"prefer"}
	// promoteVerbs, before "over" in the sentence, make it a cue:
	// "choose this one over read_file".
	promoteVerbs = []string{"choose", "pick", "select", "use", "call", "favor", "favour", "take", "rank", "trust"}
)

// cueNext are, for the everyday words among cueFirst, the prefixes the
// next word must have for a cue to start there ("in place of", not "in a
// file"): the expressions are not tried at every "in" and "use".
var cueNext = map[string][]string{
	"in": {"place", "lieu", "favo"}, "as": {"opposed", "a"}, "more": {"secure", "reliable", "accurate", "robust", "trustworthy", "complete", "current", "up-to-date", "capable", "correct"},
	"do": {"not"}, "no": {"longer"}, "must": {"not"}, "should": {"not"}, "will": {"not"},
	"take": {"precedence", "priority"}, "takes": {"precedence", "priority"}, "has": {"priority"}, "have": {"priority"},
	"use": {"this", "me", "our", "my"}, "call": {"this", "me", "our", "my"}, "this": {"tool", "server", "one", "version", "function", "implementation", "replace", "supersede", "override", "deprecate", "obsolete", "shadow", "take", "has", "win", "is"},
	"only": nil, "always": {"use", "call", "invoke", "choose", "pick", "trust", "route", "send", "direct", "handle", "do", "perform", "make", "run", "pass"},
	"forget": {"about"}, "steer": {"clear"}, "stay": {"away"},
}

// isServer reports whether w is one of the (folded) server names.
func isServer(w []byte, servers []string) bool {
	for _, n := range servers {
		if string(w) == n {
			return true
		}
	}
	return false
}

// steerOtherWords start a generic stand-in for the other copy ("other file
// readers", "the standard one").
var steerOtherWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`standard default original official built-in builtin native regular normal usual stock basic plain
		old older legacy existing other generic vanilla upstream previous ordinary third-party`) {
		m[w] = true
	}
	return m
}()

// cueWord reports whether the word w of s, ending at z, can start a cue.
func cueWord(s []byte, w []byte, z int) bool {
	if next, ok := cueNext[string(w)]; ok && next != nil {
		rest := bytes.TrimLeft(s[z:], " ")
		for _, p := range next {
			if bytes.HasPrefix(rest, []byte(p)) {
				return true
			}
		}
		return false
	}
	if cueFirst[string(w)] {
		return true
	}
	for _, p := range cueStems {
		if bytes.HasPrefix(w, []byte(p)) {
			return true
		}
	}
	return false
}

// steerEachWord calls fn with the start and end of every word of s (letters,
// digits, apostrophes and hyphens) until fn returns false.
func steerEachWord(s []byte, fn func(a, z int) bool) {
	for i := 0; i < len(s); {
		if !steerWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && (steerWordByte(s[j]) || s[j] >= 0x80) {
			j++
		}
		if !fn(i, j) {
			return
		}
		i = j
	}
}

func steerWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '\'' || c == '-'
}

// steerHit is a reference to a tool name in folded text: t[a:z] names it.
type steerHit struct {
	a, z int
	// foreign: another server exposes the name. own: the server whose
	// text this is exposes it too.
	foreign, own bool
	names        []string
}

// steerFinding is one steering sentence: the cue, and the tool it aims at
// ("" for a generic target or self-promotion).
type steerFinding struct {
	cue, target string
	sentence    []byte
}

// steering finds the sentences of folded text t that steer. hits are the
// tool names found in t (nameIndex.scan); servers are the folded names of
// the other configured servers; collides says the text belongs to a
// server whose tool collides with another server's.
func steering(t []byte, hits []steerHit, servers []string, own, self string, collides bool) []steerFinding {
	if len(hits) == 0 && !collides {
		return nil
	}
	foreign := false
	for _, h := range hits {
		foreign = foreign || h.foreign
	}
	if !foreign && !collides {
		return nil
	}
	compileSteer()
	var out []steerFinding
	for a := 0; a < len(t); {
		z := sentenceEnd(t, a)
		out = steerSentence(out, t, a, z, hits, servers, own, self, collides)
		a = z
	}
	return out
}

// sentenceEnd is where the sentence starting at a ends: after '.', '!',
// '?' or ';' followed by a space or the end (a dot inside "e.g" or
// "file.txt" does not end one), or at a newline-made space after a colon.
func sentenceEnd(t []byte, a int) int {
	for i := a; i < len(t); i++ {
		switch t[i] {
		case '.', '!', '?', ';':
			if i+1 == len(t) || t[i+1] == ' ' {
				return i + 1
			}
		}
	}
	return len(t)
}

func steerSentence(out []steerFinding, t []byte, a, z int, hits []steerHit, servers []string, own, self string, collides bool) []steerFinding {
	j := &sentenceJudge{s: t[a:z], servers: servers, own: own, collides: collides, out: out}
	j.hitsIn(t, a, z, hits, self)
	if !j.foreign && !collides {
		return out
	}
	// A demoting cue, then a target within a few words.
	steerEachWord(j.s, j.word)
	if j.found != nil {
		return j.found
	}
	// A named target, then a demoting predicate.
	for _, h := range j.in {
		if h.foreign {
			if m := cueAfter.Find(j.s[h.z:min(len(j.s), h.z+96)]); m != nil {
				return j.add(string(bytes.TrimSpace(m)), h.names[0])
			}
		}
	}
	// Self-promotion, where there is another copy to promote over.
	if collides && !j.ownOnly {
		if m := j.selfPromotion(); m != nil {
			return j.add(string(m), "")
		}
	}
	return out
}

// sentenceJudge is steerSentence's state for one sentence s: the name hits
// in it (offsets into s), whether they are the server's own only or
// another's, and the findings so far.
type sentenceJudge struct {
	s        []byte
	in       []steerHit
	servers  []string
	own      string // the folded name of the server whose text it is
	collides bool
	ownOnly  bool
	foreign  bool
	out      []steerFinding // the findings before this sentence
	found    []steerFinding // with this sentence's, once one is found
}

// hitsIn keeps the hits inside t[a:z], made relative to it. A name both
// servers expose, where nothing says which copy is meant, is not foreign.
func (j *sentenceJudge) hitsIn(t []byte, a, z int, hits []steerHit, self string) {
	for _, h := range hits {
		if h.a >= a && h.z <= z {
			h.a, h.z = h.a-a, h.z-a
			if h.foreign && h.own && !slices.Contains(h.names, self) && !otherCopyAt(t[a:z], h, j.servers) {
				h.foreign = false
			}
			j.in = append(j.in, h)
			j.ownOnly = j.ownOnly || h.own && !h.foreign
			j.foreign = j.foreign || h.foreign
		}
	}
}

func (j *sentenceJudge) add(cue, target string) []steerFinding {
	return append(j.out, steerFinding{cue: cue, target: target, sentence: j.s})
}

// target looks for what a cue at s[:at] steers from, within a few words
// after it: another server's tool, or, for a server that collides, a
// generic stand-in ("the standard one") or another server's name.
func (j *sentenceJudge) target(cue string, at int) bool {
	s := j.s
	end := min(len(s), at+64)
	if verbCue().MatchString(cue) {
		// "replaces read_file" takes its object at once; "force the
		// domain override even if validation fails (update_application
		// only)" names a tool after a noun.
		end = min(len(s), at+24)
		if k := bytes.IndexAny(s[at:end], "(,;:"); k >= 0 {
			end = at + k
		}
	}
	for _, h := range j.in {
		if h.foreign && h.a >= at && h.a <= end {
			j.found = j.add(cue, h.names[0])
			return true
		}
	}
	if !j.collides || j.ownOnly {
		return false
	}
	if m := genericTarget.Find(s[at:end]); m != nil && (len(j.own) < 3 || !bytes.Contains(m, []byte(j.own))) {
		// "other circleci tools", in circleci's text, are its own.
		j.found = j.add(cue+string(m), "")
		return true
	}
	// After "prefer ... over", a name must read as a server's: formats
	// and products share plain words with server names ("prefer XML
	// over Mermaid"). A contrast ("use me, not github") means the server.
	ranks := strings.HasPrefix(cue, "prefer") || strings.HasSuffix(cue, "over")
	if name := serverAt(s[at:end], j.servers); name != "" && (!ranks || serverWordAfter(s[at:end], name)) {
		j.found = j.add(cue+" "+name, "")
		return true
	}
	return false
}

// word judges the word s[a:z] as the start of a cue; false stops the walk
// (a finding was made).
func (j *sentenceJudge) word(a, z int) bool {
	s := j.s
	w := s[a:z]
	switch string(w) {
	case "over":
		// "choose this one over ...": a promoting verb before it.
		back := s[max(0, a-48):a]
		for _, v := range promoteVerbs {
			if i := bytes.LastIndex(back, []byte(v)); i >= 0 && (i == 0 || !steerWordByte(back[i-1])) && !bytes.ContainsAny(back[i:], ".!?;") {
				return !j.target(string(back[i:])+"over", z)
			}
		}
		return true
	case "not":
		// "use this one, not the standard one": a contrast.
		before := bytes.TrimRight(s[:a], " ")
		// The contrast ranks only after a promotion ("use me, not
		// github"); "searches for users only, not teams" sets a scope.
		if (bytes.HasSuffix(before, []byte(",")) || bytes.HasSuffix(before, []byte(";")) || bytes.HasSuffix(before, []byte(" but")) || bytes.HasSuffix(before, []byte(" and"))) && promotes().Match(before) {
			return !j.target("not", z)
		}
		return true
	}
	if j.collides && !j.ownOnly && (steerOtherWords[string(w)] || isServer(w, j.servers)) {
		re := genericDemoted
		if isServer(w, j.servers) {
			re = serverDemoted // "the one from filesystem is outdated"
		}
		if m := re.Find(s[a:min(len(s), a+120)]); m != nil {
			j.found = j.add(string(m), "")
			return false
		}
	}
	if !cueWord(s, w, z) {
		return true
	}
	if m := cueBefore.Find(s[a:min(len(s), a+160)]); m != nil {
		return !j.target(string(m), a+len(m))
	}
	return true
}

// verbCue is a cue that is a verb taking the demoted tool as its object.
var verbCue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:replaces|replacing|replace|supersedes|supersede|superseding|overrides|overriding|override|deprecates|deprecating|obsoletes|shadows|shadowing)$`)
})

// promotes is a verb that picks a tool, before a contrast.
var promotes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:use|call|choose|pick|prefer|trust|invoke|select|try)\b`)
})

// selfPromotion is the first self-promoting cue of the sentence ("use this
// instead"), or nil. "use this instead of a shell `ls`" compares with
// something else; "instead of" with a target was judged before.
func (j *sentenceJudge) selfPromotion() []byte {
	s := j.s
	var m []byte
	steerEachWord(s, func(a, z int) bool {
		if cueWord(s, s[a:z], z) {
			m = selfPromote.Find(s[a:min(len(s), a+160)])
		}
		return m == nil
	})
	if m != nil && bytes.HasSuffix(m, []byte(" of")) {
		return nil
	}
	return m
}

// otherCopyAt reports whether the text beside hit h of sentence s says it
// means another server's copy of the name: "the standard read_file",
// "github's create_branch", "create_branch from github".
func otherCopyAt(s []byte, h steerHit, servers []string) bool {
	before := s[max(0, h.a-48):h.a]
	if otherCopy.Match(before) {
		return true
	}
	before = bytes.TrimRight(before, " `'\"")
	for _, suffix := range []string{"'s", "’s", " server's", " server’s", " server", " mcp's", " mcp"} {
		before = bytes.TrimSuffix(before, []byte(suffix))
	}
	after := bytes.TrimLeft(s[h.z:min(len(s), h.z+64)], "`'\"")
	after = bytes.TrimPrefix(after, []byte(" tool"))
	for _, p := range []string{" from ", " of ", " on ", " in ", " provided by ", " by "} {
		if bytes.HasPrefix(after, []byte(p)) {
			after = after[len(p):]
			break
		}
	}
	for _, n := range servers {
		if len(n) < 3 {
			continue
		}
		if bytes.HasSuffix(before, []byte(n)) && (len(before) == len(n) || !isIdentByte(before[len(before)-len(n)-1])) {
			return true
		}
		if len(after) < len(s[h.z:min(len(s), h.z+64)]) && serverAt(after, servers) == n {
			return true
		}
	}
	return false
}

// serverAt reports the configured server s starts by naming (after "the "),
// as a whole word: "the filesystem server's", "github's".
func serverAt(s []byte, servers []string) string {
	s = bytes.TrimLeft(s, " ")
	s = bytes.TrimPrefix(s, []byte("the "))
	for _, n := range servers {
		if len(n) >= 3 && bytes.HasPrefix(s, []byte(n)) && steerNameEnds(s[len(n):]) {
			return n
		}
	}
	return ""
}

// serverWordAfter reports whether the server name that s starts with
// (after blanks and "the ") is written as a server's: "mermaid's", "the
// mermaid server", "mermaid tools". A server is named in the config by
// whoever wrote it, and its name may be a plain word another server's text
// uses for something else ("prefer XML over Mermaid").
func serverWordAfter(s []byte, name string) bool {
	s = bytes.TrimPrefix(bytes.TrimLeft(s, " "), []byte("the "))
	rest := s[min(len(s), len(name)):]
	for _, w := range []string{"'s", "’s", " server", " mcp", " tool", " one", " version", " copy", " implementation"} {
		if bytes.HasPrefix(rest, []byte(w)) {
			return true
		}
	}
	return false
}

// steerNameEnds reports whether rest, what follows a name, ends it: nothing, a
// byte that is not part of an identifier, or a full stop ("... not
// github.").
func steerNameEnds(rest []byte) bool {
	return len(rest) == 0 || !isIdentByte(rest[0]) || rest[0] == '.' && (len(rest) == 1 || !isIdentByte(rest[1]))
}

// ownVocabulary is the folded single-token values a server's own
// definitions hold in data positions (enum, const, default, examples): the
// method names of a tool that dispatches on a `method` argument (GitHub's
// projects_list lists "list_projects"). Text that names one of them names
// the server's own method, even when another server has a tool so named.
func ownVocabulary(f *folder, server string, subjects []Subject) map[string]bool {
	out := map[string]bool{}
	for _, s := range subjects {
		if s.Server != server {
			continue
		}
		_ = walkStrings(s.Raw, func(t textRef) {
			// Its own parameters' names too: "use searchQuery for
			// better results" names its own parameter, whatever
			// another server calls a tool.
			if t.key && len(t.segs) >= 2 && t.segs[len(t.segs)-2] == "properties" {
				if k := identKey(f.fold(string(t.b), false)); k != "" {
					out[looseKeys.Replace(k)] = true
				}
				return
			}
			if t.key || !dataPosition(t.segs) || sentence(t.b) || len(t.b) > 128 {
				return
			}
			k := identKey(f.fold(string(t.b), false))
			if k == "" {
				return
			}
			// Indexed without separators, as the other server's name
			// is looked up: createTable is create_table.
			out[looseKeys.Replace(k)] = true
		})
	}
	return out
}

// identKey is the key a folded identifier is indexed under: '-' reads as
// '_' (list-projects names list_projects).
func identKey(k []byte) string {
	if !slices.Contains(k, '-') {
		return string(k)
	}
	return string(bytes.ReplaceAll(k, []byte("-"), []byte("_")))
}
