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
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/inert"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Across checks a whole run across servers: tool-shadowing (a tool name two
// servers both expose; text of one server that names a distinctive tool of
// another) and confusable-name (a tool or prompt name whose confusable
// skeleton equals another name's in any server, or that holds non-ASCII
// letters or mixes scripts). Subjects may repeat across phases; each finding
// is reported once, for the first subject that shows it.
//
// A tool name two servers both expose is a warning: clients namespace tools
// per server, so the model is told which server it calls. It is an error
// only when the collision is new against the lock (see Pinned).
func Across(subjects []Subject) []finding.Finding { return AcrossLock(subjects, nil) }

// Pinned says what a lock approved: whether server has an entry in it, and
// whether that entry holds the tool named tool.
type Pinned func(server, tool string) (serverPinned, toolPinned bool)

// AcrossLock is Across judged against a lock (pinned; nil: no lock). A
// name collision between two servers the lock holds is new, and an error,
// unless the lock already holds both colliding tools: approving a server
// that starts to answer to another's tool name is a decision someone must
// make on purpose (approve --ack), while a collision that was approved, or
// that comes with a server the lock does not hold yet (reviewed as a
// whole), stays a warning.
func AcrossLock(subjects []Subject, pinned Pinned) []finding.Finding {
	var out []finding.Finding
	seen := map[string]bool{}
	emit := func(f finding.Finding) {
		k := f.Key() + "\x00" + f.Message
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	base := func(rule finding.RuleID, s Subject, field string) finding.Finding {
		f := finding.New(rule, s.Server)
		f.Kind, f.Subject, f.Field, f.Phase = s.Kind, s.Name, field, s.Phase
		sum := sha256.Sum256(s.Raw)
		f.ContentSHA256 = hex.EncodeToString(sum[:])
		return f
	}

	// Tool names and the servers that expose them, in first-seen order.
	owners := map[string][]string{}
	var toolNames []string
	for _, s := range subjects {
		if s.Kind != finding.KindTool {
			continue
		}
		if _, ok := owners[s.Name]; !ok {
			toolNames = append(toolNames, s.Name)
		}
		if !slices.Contains(owners[s.Name], s.Server) {
			owners[s.Name] = append(owners[s.Name], s.Server)
		}
	}

	// Same name, two servers: the client must pick one, and the model may
	// call the wrong server's tool with the other's arguments.
	for _, s := range subjects {
		if s.Kind != finding.KindTool || len(owners[s.Name]) < 2 {
			continue
		}
		others := without(owners[s.Name], s.Server)
		f := base(finding.ToolShadowing, s, "name")
		f.Severity = finding.Warning
		f.Message = fmt.Sprintf("Tool name %q is also exposed by server %s", inert.Text(s.Name), quoteList(others))
		for _, o := range others {
			if newCollision(pinned, s.Server, s.Name, o, s.Name) {
				f.Severity = finding.Error
				f.Message += newCollisionNote
				break
			}
		}
		emit(f)
	}

	// Names that differ only in case or separators (send-email next to
	// another server's send_email) collide for the model just the same.
	byLoose := map[string][]Subject{}
	for _, s := range subjects {
		if s.Kind == finding.KindTool {
			k := looseName(s.Name)
			byLoose[k] = append(byLoose[k], s)
		}
	}
	for _, s := range subjects {
		if s.Kind != finding.KindTool {
			continue
		}
		var alike []string
		fresh := false
		for _, o := range byLoose[looseName(s.Name)] {
			if o.Server != s.Server && o.Name != s.Name && !slices.Contains(alike, fmt.Sprintf("%q of server %q", inert.Text(o.Name), inert.Text(o.Server))) {
				alike = append(alike, fmt.Sprintf("%q of server %q", inert.Text(o.Name), inert.Text(o.Server)))
				fresh = fresh || newCollision(pinned, s.Server, s.Name, o.Server, o.Name)
			}
		}
		if len(alike) == 0 {
			continue
		}
		f := base(finding.ToolShadowing, s, "name")
		f.Severity = finding.Warning
		f.Message = fmt.Sprintf("Tool name %q differs only in case or separators from tool %s", inert.Text(s.Name), strings.Join(alike, ", "))
		if fresh {
			f.Severity = finding.Error
			f.Message += newCollisionNote
		}
		emit(f)
	}

	// Text of one server that names another server's tool: the published
	// shadowing attack ("when using send_email, always ...").
	refs := newNameIndex(toolNames)
	var f folder
	for _, s := range subjects {
		var pending []finding.Finding
		visit := func(t textRef) {
			// Only prose steers: a key, or a bare value in an enum,
			// const, default or examples (GitHub's `method` enum listing
			// "get_project" beside Supabase's get_project tool), is data
			// the model picks from, not text addressed to it. A sentence
			// in such a place is prose all the same.
			if t.key || dataPosition(t.segs) && !sentence(t.b) {
				return
			}
			for _, name := range refs.find(&f, t.b) {
				own := owners[name]
				if slices.Contains(own, s.Server) {
					continue // it names its own tool (or a duplicate, reported above)
				}
				if s.Kind == finding.KindTool && name == s.Name {
					continue
				}
				fd := base(finding.ToolShadowing, s, t.path())
				fd.Message = fmt.Sprintf("Text of server %q names tool %q of server %s", inert.Text(s.Server), inert.Text(name), quoteList(own))
				fd.Detail = "A description that talks about another server's tool can steer how the model uses it."
				pending = append(pending, fd)
			}
		}
		if err := walkStrings(s.Raw, visit); err != nil {
			pending = pending[:0]
			visit(textRef{b: s.Raw})
		}
		for _, fd := range pending {
			emit(fd)
		}
	}

	// Confusable names among tools and prompts of every server.
	type named struct {
		name, server string
		kind         lock.Kind
	}
	bySkeleton := map[string][]named{}
	for _, s := range subjects {
		if s.Kind != finding.KindTool && s.Kind != finding.KindPrompt {
			continue
		}
		k := skeleton(s.Name)
		n := named{s.Name, s.Server, s.Kind}
		if !slices.Contains(bySkeleton[k], n) {
			bySkeleton[k] = append(bySkeleton[k], n)
		}
	}
	for _, s := range subjects {
		if s.Kind != finding.KindTool && s.Kind != finding.KindPrompt {
			continue
		}
		var reasons []string
		var alike []string
		for _, o := range bySkeleton[skeleton(s.Name)] {
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
		if len(alike) > 0 {
			reasons = append(reasons, "looks like "+strings.Join(alike, ", "))
		}
		if len(odd) > 0 {
			reasons = append(reasons, "holds non-ASCII characters "+strings.Join(odd, " "))
		}
		if sc := scriptsOf(s.Name); len(sc) > 1 {
			reasons = append(reasons, "mixes scripts "+strings.Join(sc, "+"))
		}
		f := base(finding.ConfusableName, s, "name")
		f.Message = fmt.Sprintf("The %s name %q %s", s.Kind, inert.Text(s.Name), strings.Join(reasons, "; "))
		f.Detail = "skeleton: " + inert.Text(skeleton(s.Name))
		emit(f)
	}
	return out
}

// nameIndex finds mentions of distinctive tool names in text.
type nameIndex struct {
	// ident maps a folded identifier-shaped name to its original names.
	ident map[string][]string
	// plain holds long names that are ordinary words: they count only when
	// quoted, so "cleanup" in prose is not a reference to a cleanup tool.
	plain map[string][]string
	// odd are names with characters outside identifiers: substring search.
	odd map[string][]string
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

func newNameIndex(names []string) nameIndex {
	var f folder
	ix := nameIndex{ident: map[string][]string{}, plain: map[string][]string{}, odd: map[string][]string{}}
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
				ix.ident[k] = append(ix.ident[k], n)
			}
		case len(k) >= 6 && !commonWords[k]:
			ix.plain[k] = append(ix.plain[k], n)
		}
	}
	return ix
}

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

// find lists the indexed names mentioned in s (folded: case, look-alikes
// and invisible characters do not hide a mention), each once.
func (ix nameIndex) find(f *folder, s []byte) []string {
	if len(ix.ident) == 0 && len(ix.plain) == 0 && len(ix.odd) == 0 {
		return nil
	}
	var t []byte
	if isPlainASCII(s) {
		// Lower-casing is all folding does to printable ASCII.
		t = append(f.text[:0], s...)
		for i, c := range t {
			if 'A' <= c && c <= 'Z' {
				t[i] = c + 'a' - 'A'
			}
		}
		f.text = t
	} else {
		t = f.fold(string(s), false)
	}
	var out []string
	add := func(ns []string) {
		for _, n := range ns {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
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
		tok := bytes.Trim(t[i:j], ".-")
		if ns, ok := ix.ident[string(tok)]; ok {
			add(ns)
		} else if ns, ok := ix.plain[string(tok)]; ok && quotedRef(t, i, j) {
			add(ns)
		}
		i = j
	}
	for k, ns := range ix.odd {
		for at := 0; ; {
			p := bytes.Index(t[at:], []byte(k))
			if p < 0 {
				break
			}
			a, z := at+p, at+p+len(k)
			if (a == 0 || !isIdentByte(t[a-1])) && (z == len(t) || !isIdentByte(t[z])) {
				add(ns)
				break
			}
			at = z
		}
	}
	slices.Sort(out)
	return out
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
