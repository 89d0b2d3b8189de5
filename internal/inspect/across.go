package inspect

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// Across checks a whole run across servers: tool-shadowing and
// confusable-name. Subjects may repeat across phases; each finding is
// reported once, for the first subject that shows it.
//
//   - The same tool name on two servers is a note: a client that prefixes
//     tool names with the server's (Claude Code's mcp__SERVER__TOOL) shows
//     the model both, each under its server; a client that keys tools by
//     the bare name keeps one of them and the model cannot tell which
//     server it calls. It is an error only when the collision is new
//     against the lock (see AcrossLock). Names that differ only in case or
//     separators (send-email beside send_email) are a warning: two
//     spellings of one name are chosen, not shared.
//   - Text of one server that names another server's tool as an
//     identifier (`list_projects`, list-projects, listProjects; not the
//     words "list projects") is an error: the published shadowing attack
//     ("when using send_email, always ..."). A name that is also one of
//     the server's own method values (an enum, const, default or example
//     of its own definitions) is the server talking about its own method:
//     a warning.
//   - Text that steers toward the server's own tool or away from another
//     server's ("safer than the standard `read_file`", "do not use
//     github's create_branch", "use this instead") is an error, in any
//     field of any definition (steer.go).
//   - A tool or prompt name whose confusable skeleton equals another
//     name's in the same config (Cyrillic, Greek, fullwidth or
//     mathematical letters, combining marks, invisible characters) is an
//     error; a non-ASCII or mixed-script name with no such twin is a
//     warning.
func Across(subjects []Subject) []finding.Finding { return AcrossLock(subjects, nil) }

// Pinned says what a lock approved: whether server has an entry in it, and
// whether that entry holds the tool named tool.
type Pinned func(server, tool string) (serverPinned, toolPinned bool)

// AcrossLock is Across judged against a lock (pinned; nil: no lock). A
// name collision between two servers the lock holds is new, and an error,
// unless the lock already holds both colliding tools: a server that starts
// to answer to another's tool name after approval is how a rug pull takes
// over a tool, and approving it is a decision someone must make on purpose
// (approve --ack). A collision that was approved, or that comes with a
// server the lock does not hold yet (reviewed as a whole), stays a note
// (the same name) or a warning (case or separators).
func AcrossLock(subjects []Subject, pinned Pinned) []finding.Finding {
	x := &across{subjects: subjects, pinned: pinned, seen: map[string]bool{}, owners: map[string][]string{}, colliding: map[string]bool{}}
	x.indexTools()
	x.sameName()
	x.looseNames()
	x.groupTwins()
	x.references()
	x.confusables()
	return x.out
}

// across is one AcrossLock pass: what its steps learn of the subjects and
// the findings they emit, in order.
type across struct {
	subjects []Subject
	pinned   Pinned
	out      []finding.Finding
	seen     map[string]bool
	// owners maps a tool name to the servers that expose it, toolNames
	// are the names and servers the servers, in first-seen order.
	owners    map[string][]string
	toolNames []string
	servers   []string
	// colliding: servers with a tool that collides with another server's,
	// by name, case and separators, or skeleton; the steering text of
	// such a server has another copy to steer away from.
	colliding map[string]bool
	// bySkeleton groups tools and prompts by twinKey; twins[i] is the key
	// of subjects[i].
	bySkeleton map[string][]named
	twins      []string
}

// named is a tool or prompt of a server, for the twin groups.
type named struct {
	name, server string
	kind         lock.Kind
}

// emit adds f unless an equal finding (key and message) was emitted.
func (x *across) emit(f finding.Finding) {
	k := f.Key() + "\x00" + f.Message
	if !x.seen[k] {
		x.seen[k] = true
		x.out = append(x.out, f)
	}
}

// base is a finding of rule about s's field, bound to s's content.
func (x *across) base(rule finding.RuleID, s Subject, field string) finding.Finding {
	f := finding.New(rule, s.Server)
	f.Kind, f.Subject, f.Field, f.Phase = s.Kind, s.Name, field, s.Phase
	sum := sha256.Sum256(s.Raw)
	f.ContentSHA256 = hex.EncodeToString(sum[:])
	return f
}

// indexTools records the servers, the tool names and who exposes each.
func (x *across) indexTools() {
	for _, s := range x.subjects {
		if !slices.Contains(x.servers, s.Server) {
			x.servers = append(x.servers, s.Server)
		}
		if s.Kind != finding.KindTool {
			continue
		}
		if _, ok := x.owners[s.Name]; !ok {
			x.toolNames = append(x.toolNames, s.Name)
		}
		if !slices.Contains(x.owners[s.Name], s.Server) {
			x.owners[s.Name] = append(x.owners[s.Name], s.Server)
		}
	}
}

// sameName: the same tool name on two servers. Clients namespace tools
// per server, so this is a note unless it is new against the lock.
func (x *across) sameName() {
	for _, s := range x.subjects {
		if s.Kind != finding.KindTool || len(x.owners[s.Name]) < 2 {
			continue
		}
		x.colliding[s.Server] = true
		others := without(x.owners[s.Name], s.Server)
		f := x.base(finding.ToolShadowing, s, "name")
		f.Severity = finding.Note
		f.Message = fmt.Sprintf("Tool name %q is also exposed by server %s", inert.Text(s.Name), quoteList(others))
		f.Detail = collisionDetail
		for _, o := range others {
			if newCollision(x.pinned, s.Server, s.Name, o, s.Name) {
				f.Severity = finding.Error
				f.Message += newCollisionNote
				break
			}
		}
		x.emit(f)
	}
}

// looseNames: names that differ only in case or separators (send-email
// next to another server's send_email) collide for the model as the same
// name does: a note, and an error when new against the lock.
func (x *across) looseNames() {
	byLoose := map[string][]Subject{}
	for _, s := range x.subjects {
		if s.Kind == finding.KindTool {
			k := looseName(s.Name)
			byLoose[k] = append(byLoose[k], s)
		}
	}
	for _, s := range x.subjects {
		if s.Kind != finding.KindTool {
			continue
		}
		var alike []string
		fresh := false
		for _, o := range byLoose[looseName(s.Name)] {
			if o.Server != s.Server && o.Name != s.Name && !slices.Contains(alike, fmt.Sprintf("%q of server %q", inert.Text(o.Name), inert.Text(o.Server))) {
				alike = append(alike, fmt.Sprintf("%q of server %q", inert.Text(o.Name), inert.Text(o.Server)))
				fresh = fresh || newCollision(x.pinned, s.Server, s.Name, o.Server, o.Name)
			}
		}
		if len(alike) == 0 {
			continue
		}
		x.colliding[s.Server] = true
		f := x.base(finding.ToolShadowing, s, "name")
		// A note, as the same name is: real servers share spellings
		// by accident (gitlab's create_webhook, resend's
		// create-webhook), and what the model sees is two names, as
		// with two exact ones.
		f.Severity = finding.Note
		f.Message = fmt.Sprintf("Tool name %q differs only in case or separators from tool %s", inert.Text(s.Name), strings.Join(alike, ", "))
		f.Detail = collisionDetail
		if fresh {
			f.Severity = finding.Error
			f.Message += newCollisionNote
		}
		x.emit(f)
	}
}

// groupTwins groups tools and prompts of every server by confusable
// skeleton (reported by confusables); a twin makes its server a colliding
// one.
func (x *across) groupTwins() {
	x.bySkeleton = map[string][]named{}
	x.twins = make([]string, len(x.subjects))
	for i, s := range x.subjects {
		if s.Kind != finding.KindTool && s.Kind != finding.KindPrompt {
			continue
		}
		k := twinKey(s.Name)
		x.twins[i] = k
		n := named{s.Name, s.Server, s.Kind}
		if !slices.Contains(x.bySkeleton[k], n) {
			x.bySkeleton[k] = append(x.bySkeleton[k], n)
		}
	}
	for _, group := range x.bySkeleton {
		for _, a := range group {
			for _, b := range group {
				if a.name != b.name && a.server != b.server {
					x.colliding[a.server] = true
				}
			}
		}
	}
}

// references: text of one server that names another server's tool, or
// steers toward its own or away from another's.
func (x *across) references() {
	r := &referrer{across: x, refs: newNameIndex(x.toolNames), vocab: map[string]map[string]bool{}, foldedServer: map[string]string{}}
	for _, o := range x.servers {
		r.foldedServer[o] = string(r.f.fold(o, false))
	}
	for _, s := range x.subjects {
		for _, fd := range r.subject(s) {
			x.emit(fd)
		}
	}
}

// referrer is the references step's state: the tool-name index, a folder,
// the servers' folded names and their own method values.
type referrer struct {
	*across
	refs         *nameIndex
	f            folder
	vocab        map[string]map[string]bool
	foldedServer map[string]string
	folded       []string // the other servers' names, folded, for steering
}

// vocabOf is a server's own method values, read only for a server whose
// text names another's tool.
func (r *referrer) vocabOf(server string) map[string]bool {
	if v, ok := r.vocab[server]; ok {
		return v
	}
	var vf folder
	v := ownVocabulary(&vf, server, r.subjects)
	r.vocab[server] = v
	return v
}

// subject returns the reference and steering findings of one subject's
// text.
func (r *referrer) subject(s Subject) []finding.Finding {
	var pending []finding.Finding
	self := ""
	if s.Kind == finding.KindTool {
		self = s.Name
	}
	r.folded = r.folded[:0]
	for _, o := range r.servers {
		if o != s.Server {
			r.folded = append(r.folded, r.foldedServer[o])
		}
	}
	visit := func(t textRef) {
		// Only prose steers: a key, or a bare value in an enum,
		// const, default or examples (GitHub's `method` enum listing
		// "get_project" beside Supabase's get_project tool), is data
		// the model picks from, not text addressed to it. A sentence
		// in such a place is prose all the same.
		if t.key || dataPosition(t.segs) && !sentence(t.b) {
			return
		}
		hits := r.refs.scan(&r.f, t.b, s.Server, r.owners)
		steered, fs := r.steered(s, t, hits, self)
		pending = append(pending, fs...)
		pending = append(pending, r.named(s, t, hits, steered)...)
	}
	if err := walkStrings(s.Raw, visit); err != nil {
		pending = pending[:0]
		visit(textRef{b: s.Raw})
	}
	return pending
}

// steered is the steering findings of one string of s, and the tools it
// steers away from.
func (r *referrer) steered(s Subject, t textRef, hits []steerHit, self string) (steered []string, out []finding.Finding) {
	for _, st := range steering(r.f.text, hits, r.folded, r.foldedServer[s.Server], self, r.colliding[s.Server] || steerEverywhere) {
		fd := r.base(finding.ToolShadowing, s, t.path())
		if st.target != "" {
			steered = append(steered, st.target)
			fd.Message = fmt.Sprintf("Text of server %q steers the model away from tool %q of server %s (%q)",
				inert.Text(s.Server), inert.Text(st.target), quoteList(without(r.owners[st.target], s.Server)), inert.Text(st.cue))
		} else {
			fd.Message = fmt.Sprintf("Text of server %q, which shares a tool name with another server, steers the model toward its own tool (%q)",
				inert.Text(s.Server), inert.Text(st.cue))
		}
		fd.Detail = "sentence: " + inert.Text(clip.Runes(string(st.sentence), 200)) +
			"\nText that ranks one server's tool over another's decides which one the model calls, whatever the client's namespacing."
		out = append(out, fd)
	}
	return steered, out
}

// named is the findings of one string of s that names other servers' tools
// (not one it steers away from: that finding says more).
func (r *referrer) named(s Subject, t textRef, hits []steerHit, steered []string) []finding.Finding {
	var names []string
	called := map[string]bool{}
	for _, h := range hits {
		for _, n := range h.names {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
			if callsAt(r.f.text, h.a) {
				called[n] = true
			}
		}
	}
	slices.Sort(names)
	var out []finding.Finding
	for _, name := range names {
		if slices.Contains(r.owners[name], s.Server) || slices.Contains(steered, name) {
			continue // it names its own tool (a collision is reported above)
		}
		if !identName(name) {
			// A tool named by one plain word (documentation, search)
			// is a word in any other text, quoted in an example list
			// or not: it is no evidence of a reference.
			continue
		}
		if r.vocabOf(s.Server)[looseKeys.Replace(identKey(r.f.fold(name, false)))] {
			// The server's own definitions hold the same value in
			// some spelling (an enum, const, default or example):
			// its own method, named as the other server's tool is
			// (createTable beside create_table). Steering is judged
			// whatever the vocabulary.
			continue
		}
		// Naming is not steering. Text that sends the model to another
		// server's tool ("call get_project first") is an error; a
		// name alone ("the id get_project returned") a warning a
		// reviewer reads.
		fd := r.base(finding.ToolShadowing, s, t.path())
		fd.Message = fmt.Sprintf("Text of server %q names tool %q of server %s", inert.Text(s.Server), inert.Text(name), quoteList(r.owners[name]))
		fd.Detail = "A description that talks about another server's tool can steer how the model uses it."
		if called[name] {
			fd.Message = fmt.Sprintf("Text of server %q sends the model to tool %q of server %s", inert.Text(s.Server), inert.Text(name), quoteList(r.owners[name]))
		} else {
			fd.Severity = finding.Warning
		}
		out = append(out, fd)
	}
	return out
}

// callsAt reports whether the words before position a of folded text t, in
// the same sentence, ask the model to call what stands at a ("call X",
// "then use X", "invoke the X") or rank it ("better X").
func callsAt(t []byte, a int) bool {
	lo := max(0, a-48)
	if i := bytes.LastIndexAny(t[lo:a], ".!?;"); i >= 0 {
		lo += i + 1
	}
	if !callBefore().Match(t[lo:a]) {
		return false
	}
	// A call with nothing that ranks or imposes it is guidance ("to set
	// labels, use the 'update_issue' tool"): a warning. "Call X first",
	// "always call X", "better X" send the model there.
	return ranked().Match(t[lo:sentenceEnd(t, a)])
}

var ranked = lazyRegexp(`\b(?:always|must|first|before (?:anything|any other|answering|responding)|mandatory|required|only|never|instead|prefer|preferred|better|safer|faster|improved|enhanced|fixed|patched|hardened|upgraded|genuine|rather)\b`)

var callBefore = lazyRegexp(`\b(?:call|calling|invoke|invoking|use|using|run|running|execute|try|switch to|prefer|instead|better|safer|faster|improved|enhanced|fixed|patched|hardened|upgraded|genuine)\b(?: (?:the|a|an|this|tool|function|first))*[ ` + "`" + `'"(]*$`)

// confusables: a twin (the same skeleton as another name in the config) is
// an error; a non-ASCII name with no twin a warning.
func (x *across) confusables() {
	for i, s := range x.subjects {
		if s.Kind != finding.KindTool && s.Kind != finding.KindPrompt {
			continue
		}
		var alike []string
		for _, o := range x.bySkeleton[x.twins[i]] {
			if o.name != s.Name {
				alike = append(alike, fmt.Sprintf("%s %q of server %q", o.kind, inert.Text(o.name), inert.Text(o.server)))
			}
		}
		odd := nonASCII(s.Name)
		if len(alike) == 0 && len(odd) == 0 {
			continue
		}
		if len(alike) > 0 && len(odd) == 0 && isPlainASCII(s.Name) {
			// The ASCII original of a look-alike: the finding belongs to
			// the look-alike, not to the name it imitates.
			continue
		}
		var reasons []string
		if len(alike) > 0 {
			reasons = append(reasons, "looks like "+strings.Join(alike, ", "))
		}
		if len(odd) > 0 {
			reasons = append(reasons, "holds non-ASCII characters "+strings.Join(odd, " "))
		}
		if sc := scriptsOf(s.Name); len(sc) > 1 {
			reasons = append(reasons, "mixes scripts "+strings.Join(sc, "+"))
		}
		f := x.base(finding.ConfusableName, s, "name")
		f.Severity = finding.Warning
		if len(alike) > 0 {
			f.Severity = finding.Error
		}
		f.Message = fmt.Sprintf("The %s name %q %s", s.Kind, inert.Text(s.Name), strings.Join(reasons, "; "))
		f.Detail = "skeleton: " + inert.Text(skeleton(s.Name))
		x.emit(f)
	}
}

// steerEverywhere judges every server's text as if its tools collided
// (generic targets and self-promotion everywhere): set only by a test that
// holds real servers' text to it.
var steerEverywhere = false

// collisionDetail says what a client does with two tools of one name.
const collisionDetail = "A client that prefixes tool names (Claude Code's mcp__SERVER__TOOL) shows both; one keyed by bare name keeps one, and the model cannot tell which server it calls."

// nameIndex finds mentions of distinctive tool names in text. A mention is
// an identifier: the name as a whole token with its separators (`_` and `-`
// read alike: list-projects names list_projects), or written in camel case
// (listProjects). Words that spell a name only once joined ("list
// projects") are not a mention.
type nameIndex struct {
	// ident maps a folded identifier-shaped name (identKey) to its
	// original names.
	ident map[string][]string
	// loose maps the folded letters and digits of a name with separators
	// or capitals inside to its original names: a token with separators
	// or in camel case that reads the same ("listProjects") names it.
	loose map[string][]string
	// plain holds long names that are ordinary words: they count only when
	// quoted, so "cleanup" in prose is not a reference to a cleanup tool.
	plain map[string][]string
	// odd are names with characters outside identifiers: substring search.
	odd map[string][]string
	// key is scratch for a token's lookup key.
	key []byte
}

// commonWords are tool names that are also everyday words: never taken as a
// reference to another server's tool, however long.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`search browse create delete update remove rename insert select filter
		format render review replace scrape screenshot summarize translate validate navigate request message
		thinking memory github execute commit export import upload download extract analyze generate convert
		compare connect publish deploy install restart refresh resolve status health weather calendar
		calculate convert preview monitor schedule subscribe notify answer explain context documents
		records results settings profile session storage network command process service resource prompts
		sampling logging elicit roots complete longrunningoperation`) {
		commonWords[w] = true
	}
}

func newNameIndex(names []string) *nameIndex {
	var f folder
	ix := &nameIndex{ident: map[string][]string{}, loose: map[string][]string{}, plain: map[string][]string{}, odd: map[string][]string{}}
	for _, n := range names {
		k := string(f.fold(n, false))
		if k == "" {
			continue
		}
		switch {
		case !isIdent(k):
			if utf8.RuneCountInString(k) >= 6 {
				ix.odd[k] = append(ix.odd[k], n)
			}
		case strings.ContainsAny(k, "_-.") || hasDigit(k) || camel(n):
			if len(k) >= 4 || strings.ContainsAny(k, "_-.") {
				ik := strings.ReplaceAll(k, "-", "_") // identKey
				ix.ident[ik] = append(ix.ident[ik], n)
				if lk := looseKeys.Replace(k); lk != ik && len(lk) >= 6 && !strings.Contains(k, ".") {
					ix.loose[lk] = append(ix.loose[lk], n)
				}
			}
		case len(k) >= 6 && !commonWords[k]:
			ix.plain[k] = append(ix.plain[k], n)
		}
	}
	return ix
}

// identName reports a tool name written as an identifier: words joined by
// a separator, a digit or a camel hump.
func identName(n string) bool {
	return strings.ContainsAny(n, "_-.") || hasDigit(n) || camel(n)
}

// looseKeys drops the separators '_' and '-' of a folded identifier.
var looseKeys = strings.NewReplacer("_", "", "-", "")

func isIdentByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

func isIdent(k string) bool {
	for i := 0; i < len(k); i++ {
		if !isIdentByte(k[i]) {
			return false
		}
	}
	return true
}

func hasDigit(k string) bool { return strings.ContainsAny(k, "0123456789") }

// camel reports an internal upper-case letter ("longRunningOperation").
func camel(n string) bool {
	for i, r := range n {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// hump reports a lower-case letter followed by an upper-case one: a token
// written in camel case ("listProjects"), not an acronym ("README").
func hump(b []byte) bool {
	for i := 1; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' && 'a' <= b[i-1] && b[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// scan folds s into f.text and lists the indexed names mentioned in it
// (folded: case, look-alikes and invisible characters do not hide a
// mention) with where they stand in f.text, and whether server (whose text
// it is) or another server of owners exposes each.
func (ix *nameIndex) scan(f *folder, s []byte, server string, owners map[string][]string) []steerHit {
	if len(ix.ident) == 0 && len(ix.plain) == 0 && len(ix.odd) == 0 {
		return nil
	}
	ascii := isPlainASCII(s)
	t := lowerOrFold(f, s, ascii)
	var out []steerHit
	add := func(a, z int, ns []string) {
		h := steerHit{a: a, z: z, names: ns}
		for _, n := range ns {
			for _, o := range owners[n] {
				h.own = h.own || o == server
				h.foreign = h.foreign || o != server
			}
		}
		out = append(out, h)
	}
	for i := 0; i < len(t); {
		if !isIdentByte(t[i]) {
			i++
			continue
		}
		j := i
		for j < len(t) && isIdentByte(t[j]) {
			j++
		}
		a, z := trimIdent(t, i, j)
		if ns := ix.token(t, s, a, z, ascii); ns != nil {
			add(a, z, ns)
		}
		i = j
	}
	for k, ns := range ix.odd {
		if a, z, ok := wholeToken(t, k); ok {
			add(a, z, ns)
		}
	}
	return out
}

// lowerOrFold is s folded for matching into f's buffer: printable ASCII
// only lower-cased, which is all folding does to it.
func lowerOrFold(f *folder, s []byte, ascii bool) []byte {
	if !ascii {
		return f.fold(string(s), false)
	}
	t := append(f.text[:0], s...)
	for i, c := range t {
		if 'A' <= c && c <= 'Z' {
			t[i] = c + 'a' - 'A'
		}
	}
	f.text = t
	return t
}

// trimIdent is the token t[i:j] without leading and trailing dots and
// hyphens.
func trimIdent(t []byte, i, j int) (int, int) {
	for i < j && (t[i] == '.' || t[i] == '-') {
		i++
	}
	for j > i && (t[j-1] == '.' || t[j-1] == '-') {
		j--
	}
	return i, j
}

// token is the tool names the token t[a:z] names: as an identifier
// (list-projects is list_projects), a plain word only quoted, or a
// spelling with other case or separators (listProjects; s is the text
// before folding, for its humps).
func (ix *nameIndex) token(t, s []byte, a, z int, ascii bool) []string {
	tok := t[a:z]
	key := tok
	if slices.Contains(tok, '-') {
		// identKey, into a scratch buffer.
		ix.key = append(ix.key[:0], tok...)
		for k, c := range ix.key {
			if c == '-' {
				ix.key[k] = '_'
			}
		}
		key = ix.key
	}
	if ns, ok := ix.ident[string(key)]; ok {
		return ns
	}
	if ns, ok := ix.plain[string(tok)]; ok && quotedRef(t, a, z) {
		return ns
	}
	if len(ix.loose) == 0 || !(slices.Contains(tok, '_') || slices.Contains(tok, '-') || ascii && hump(s[a:z])) {
		return nil
	}
	ix.key = ix.key[:0]
	for _, c := range tok {
		if c != '_' && c != '-' {
			ix.key = append(ix.key, c)
		}
	}
	return ix.loose[string(ix.key)]
}

// wholeToken finds k in t as a whole token: the first occurrence not
// joined to an identifier byte on either side.
func wholeToken(t []byte, k string) (int, int, bool) {
	for at := 0; ; {
		p := bytes.Index(t[at:], []byte(k))
		if p < 0 {
			return 0, 0, false
		}
		a, z := at+p, at+p+len(k)
		if (a == 0 || !isIdentByte(t[a-1])) && (z == len(t) || !isIdentByte(t[z])) {
			return a, z, true
		}
		at = z
	}
}

// quotedRef says whether the word at t[i:j] is quoted. ("the cleanup
// function" in prose is not a reference; "`cleanup`" is.)
func quotedRef(t []byte, i, j int) bool {
	q := func(c byte) bool { return c == '`' || c == '\'' || c == '"' }
	return i > 0 && j < len(t) && q(t[i-1]) && q(t[j])
}

// nonASCII lists the non-ASCII code points of a name as U+XXXX with the
// character itself escaped when it is invisible.
func nonASCII(name string) []string {
	var out []string
	for _, r := range name {
		if r < utf8.RuneSelf {
			continue
		}
		d := fmt.Sprintf("U+%04X", r)
		if !inert.Unsafe(r) {
			d = fmt.Sprintf("%c (%s)", r, d)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func isPlainASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7F {
			return false
		}
	}
	return true
}

func without(list []string, x string) []string {
	var out []string
	for _, v := range list {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, v := range list {
		q[i] = fmt.Sprintf("%q", inert.Text(v))
	}
	return strings.Join(q, ", ")
}

// twinKey is what two names share when one is the other's look-alike: the
// skeleton, read as looseName reads names (case and separators do not
// tell them apart), so "rеad-File" with a Cyrillic е is read_file's twin.
// Two plain ASCII names with one key are the loose-name rule's business.
func twinKey(name string) string { return looseName(skeleton(name)) }

// looseName folds a tool name the way a reader (or a model) does: case,
// and the separators '_', '-', '.' and spaces, do not tell names apart.
func looseName(n string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return unicode.ToLower(r)
	}, n)
}

// newCollisionNote ends the message of a collision the lock did not hold.
const newCollisionNote = " (new against the lock: it held both servers without this collision)"

// newCollision reports whether tool a of server sa and tool b of server sb
// collide for the first time: the lock holds both servers, and not both
// tools.
func newCollision(pinned Pinned, sa, a, sb, b string) bool {
	if pinned == nil {
		return false
	}
	pa, ta := pinned(sa, a)
	pb, tb := pinned(sb, b)
	return pa && pb && !(ta && tb)
}

// dataPosition reports whether a string at path segs is a value the model
// picks from rather than reads: inside enum, const, default, examples or
// required, or the value of a field that holds an identifier (type,
// format, pattern, name, $ref, uri, mimeType, ...). A segment under
// properties, patternProperties, $defs or definitions is a name someone
// chose, never one of these keywords (a property called "default").
func dataPosition(segs []string) bool {
	named := false // the current segment is a chosen name
	lastIsKeyword := false
	for _, seg := range segs {
		if named {
			named, lastIsKeyword = false, false
			continue
		}
		lastIsKeyword = true
		switch seg {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			named = true
		case "enum", "const", "default", "examples", "required":
			return true
		}
	}
	if len(segs) == 0 || !lastIsKeyword {
		return false
	}
	switch segs[len(segs)-1] {
	case "type", "format", "pattern", "name", "$ref", "$id", "$schema", "uri", "uriTemplate", "mimeType", "contentEncoding", "contentMediaType":
		return true
	}
	return false
}

// sentence reports whether s holds more than one word: text, wherever it
// stands.
func sentence(b []byte) bool {
	return bytes.ContainsFunc(bytes.TrimSpace(b), unicode.IsSpace)
}
