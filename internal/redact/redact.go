// Package redact keeps secrets out of everything mcp-lockcheck writes: the
// lock, every report, stderr. A server is hostile; if it read a secret (the
// checker's own environment, a key file, a token), the last line of defence
// is that the text it sends back never leaves the checker verbatim.
//
// A [Redactor] replaces two kinds of secret with [Value], the
// "REDACTED:<8 hex>" stand-in the lock already uses, so a changed secret
// is still a changed text and the same secret always redacts the same way
// (pin and check agree):
//
//   - every value of the checker's own environment (the list given to
//     [New]) of 8 bytes or more, and its URL-encoded forms, except everyday
//     values (see below);
//   - well-known secret shapes: GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_,
//     github_pat_), npm tokens (npm_), AWS access key ids (AKIA, ASIA), Slack
//     tokens (xoxa-, xoxb-, xoxp-, xoxr-, xoxs-), PEM private key blocks
//     (whole, or cut off before their END line), the token after "Bearer",
//     JWTs (three base64url segments, the first starting eyJ) and the
//     password of URL userinfo (scheme://user:PASSWORD@host keeps user and
//     host; a documentation placeholder such as "password", "<pass>" or
//     "${PGPASSWORD}" is left as written).
//
// Everyday environment values are not redacted: they are not secrets, and
// redacting them would scramble ordinary text (a description that names the
// repository, a path). The rule, applied in this order:
//
//  1. a value shorter than 8 bytes is never redacted (too common to mean
//     anything, and no credential is that short);
//  2. a variable whose name says it holds a credential (TOKEN, SECRET,
//     PASSWORD/PASSWD/PASS, KEY, AUTH but not AUTHOR, CREDENTIAL, PRIVATE,
//     COOKIE, SESSION, SIGNATURE, WEBHOOK, DSN) is always redacted;
//  3. well-known non-secret variables are not: PATH, HOME, PWD, OLDPWD,
//     SHELL, TERM, COLORTERM, USER, LOGNAME, LANG, LANGUAGE, TZ, HOSTNAME,
//     EDITOR, PAGER, TMPDIR, CI, ImageOS, ImageVersion, every LC_* and XDG_*,
//     and GITHUB_*, RUNNER_* and INPUT_* (the runner's identifiers: repository,
//     ref, sha, run id, workflow paths, and the action's inputs) whose names
//     rule 2 did not catch (GITHUB_TOKEN is caught);
//  4. values of everyday shape are not: an absolute path or a list of them
//     (/a:/b), a number, true/false/yes/no/on/off, a locale (en_US.UTF-8,
//     C.UTF-8, POSIX), and a short lowercase word (fewer than 16 letters and
//     hyphens: "production", "truecolor").
//
// Servers can spell a secret so that a byte match misses it. Inside JSON,
// [Redactor.JSON] decodes every string literal (\uXXXX escapes included)
// before matching and re-encodes only the strings it changed, so the output
// is valid JSON whenever the input was, no quote or escape is cut in half,
// and "\u0067hp_..." is caught as "ghp_...". Definitions are redacted this
// way, on their canonical (RFC 8785) text. Every text is also searched as
// a model reads it: Unicode tag characters and fullwidth ASCII as the ASCII
// they mirror, zero-width and other format characters between the letters
// of a token dropped. Transformations beyond that
// (base64, reversed, split across fields) defeat any matcher: the defence
// against those is that a server cannot read the secrets at all (the
// sandbox); this package is the backstop.
package redact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Prefix starts every stand-in.
const Prefix = "REDACTED:"

// Value stands in for a secret: "REDACTED:" and the first 8 hex digits of
// its sha256, enough to see that it changed, too little to recover a key.
func Value(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return Prefix + hex.EncodeToString(h[:4])
}

// isStandIn reports whether s is already a stand-in, so redacting twice
// gives what redacting once gave.
func isStandIn(s string) bool {
	if len(s) != len(Prefix)+8 || !strings.HasPrefix(s, Prefix) {
		return false
	}
	for _, c := range s[len(Prefix):] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// MinLen is the shortest environment value that is redacted.
const MinLen = 8

// Redactor replaces secrets in text. The nil *Redactor is valid and
// redacts the secret shapes only. A Redactor is safe for concurrent use.
type Redactor struct {
	// heads maps the first MinLen bytes of each of the environment's
	// secret values (and their encodings) to the values; seen is a
	// 64K-bit filter of those heads, so a position of the text that
	// starts no value costs one bit test.
	heads map[uint64][]string
	seen  []uint64
	// paths are replaced by placeholders first (WithPaths).
	paths []PathSub
}

// New builds a Redactor from an environment list ("NAME=value", as
// os.Environ returns it). Values the package doc calls everyday are left
// out.
func New(environ []string) *Redactor {
	seen := map[string]bool{}
	var vals []string
	add := func(v string) {
		if len(v) >= MinLen && !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if !ok || Everyday(name, v) {
			continue
		}
		add(v)
		add(url.QueryEscape(v))
		add(url.PathEscape(v))
	}
	r := &Redactor{heads: map[uint64][]string{}, seen: make([]uint64, filterBits/64)}
	for _, v := range vals {
		h := head(v, 0)
		r.heads[h] = append(r.heads[h], v)
		k := filterKey(h)
		r.seen[k/64] |= 1 << (k % 64)
	}
	return r
}

const filterBits = 1 << 16

// head is the MinLen (8) bytes of s at i as one number.
func head(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

func filterKey(h uint64) uint64 { return (h * 0x9E3779B97F4A7C15) >> (64 - 16) }

// Everyday reports whether an environment variable's value is left alone
// (the rule is in the package doc).
func Everyday(name, value string) bool {
	if len(value) < MinLen {
		return true
	}
	if secretName(name) {
		return false
	}
	if everydayName(name) {
		return true
	}
	return everydayValue(value)
}

func secretName(name string) bool {
	n := strings.ToUpper(name)
	if n == "PWD" || n == "OLDPWD" {
		return false
	}
	n = strings.ReplaceAll(n, "AUTHOR", "")
	for _, w := range []string{"TOKEN", "SECRET", "PASS", "KEY", "AUTH", "CREDENTIAL", "PRIVATE", "COOKIE", "SESSION", "SIGNATURE", "WEBHOOK", "DSN"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

var everydayNames = map[string]bool{
	"PATH": true, "HOME": true, "PWD": true, "OLDPWD": true, "SHELL": true, "TERM": true, "COLORTERM": true,
	"USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true, "TZ": true, "HOSTNAME": true,
	"EDITOR": true, "PAGER": true, "TMPDIR": true, "CI": true, "ImageOS": true, "ImageVersion": true,
}

func everydayName(name string) bool {
	if everydayNames[name] {
		return true
	}
	for _, p := range []string{"LC_", "XDG_", "GITHUB_", "RUNNER_", "INPUT_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// The expressions are compiled on first use, not at package init: every
// process of ours pays for init, and the sandbox helper, which re-executes
// this binary for each server launch, never redacts anything.
var (
	numberRE = lazy(`^[+-]?[0-9][0-9._]*$`)
	localeRE = lazy(`^(?:[a-zA-Z]{2,3}(?:_[a-zA-Z]{2})?|C|POSIX)(?:\.[A-Za-z0-9-]+)?(?:@[A-Za-z]+)?$`)
	wordRE   = lazy(`^[a-z][a-z-]{0,14}$`)
)

func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func everydayValue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	if numberRE().MatchString(v) || localeRE().MatchString(v) || wordRE().MatchString(v) {
		return true
	}
	// An absolute path, or a list of them (PATH-like); an empty element
	// of a list is allowed.
	abs := false
	for _, p := range strings.Split(v, ":") {
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\n") {
			return false
		}
		abs = true
	}
	return abs
}

// shape is a well-known secret's form. group is the submatch that is the
// secret (0: the whole match); ok, when set, vets a candidate.
type shape struct {
	hint  []string // one of these must occur (case-insensitive when fold) before the regexp runs
	fold  bool
	re    *regexp.Regexp
	group int
	ok    func(secret string) bool
}

// The base64-ish body of a PEM block cut off before its END line: base64
// characters and line breaks, literal or escaped (\n as a renderer shows
// it), with optional RFC 1421 headers (Proc-Type, DEK-Info).
const pemBody = `(?:[A-Za-z][A-Za-z-]*: [^\r\n\\]*(?:\r?\n|\\r?\\n))*(?:[A-Za-z0-9+/=]|\r|\n|\\r|\\n)*`

// shapes are compiled on first use (see numberRE).
var shapes = sync.OnceValue(func() []shape {
	return []shape{
		{hint: []string{"gh", "github_pat_"}, re: regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}`)},
		{hint: []string{"npm_"}, re: regexp.MustCompile(`npm_[A-Za-z0-9]{30,}`)},
		{hint: []string{"AKIA", "ASIA"}, re: regexp.MustCompile(`(?:AKIA|ASIA)[A-Z0-9]{16}`)},
		{hint: []string{"xox"}, re: regexp.MustCompile(`xox[abprs]-[A-Za-z0-9-]{10,}`)},
		{hint: []string{"PRIVATE KEY"}, re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----(?:(?s:.*?)-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|` + pemBody + `)`)},
		{hint: []string{"bearer"}, fold: true, re: regexp.MustCompile(`(?i:\bbearer)\s+([A-Za-z0-9._~+/=-]{16,})`), group: 1, ok: func(s string) bool {
			return strings.ContainsAny(s, "0123456789") || len(s) >= 32
		}},
		{hint: []string{"eyJ"}, re: regexp.MustCompile(`eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`)},
		{hint: []string{"://"}, re: regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:"'<>]*:([^\s/?#@"'<>]+)@`), group: 1, ok: func(s string) bool { return !placeholderPassword(s) }},
	}
})

// placeholderPassword reports whether a URL's password is documentation,
// not a secret: a ${PLACEHOLDER} (it names a variable), a <password>,
// {password} or [password] slot, a run of x or *, or the word itself
// (postgres://user:password@localhost in a tool's description). Left as
// written, such a description pins and reads the same everywhere.
func placeholderPassword(s string) bool {
	if len(s) >= 2 {
		switch s[0] {
		case '<', '{', '[':
			return true
		case '$':
			return s[1] == '{'
		}
	}
	if strings.Trim(s, "xX*.") == "" {
		return true
	}
	switch strings.ToLower(s) {
	case "password", "passwd", "pass", "pwd", "pw", "secret", "changeme", "mypassword", "yourpassword", "your_password", "your-password", "mysecretpassword":
		return true
	}
	return false
}

type span struct{ start, end int }

// String returns s with every secret replaced by its stand-in.
func (r *Redactor) String(s string) string {
	if r != nil && len(r.paths) > 0 {
		s = r.placePaths(s)
	}
	spans := r.find(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(Value(s[sp.start:sp.end]))
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// Bytes is String for a byte slice; it returns b itself when nothing
// was redacted.
func (r *Redactor) Bytes(b []byte) []byte {
	s := string(b)
	out := r.String(s)
	if out == s {
		return b
	}
	return []byte(out)
}

// find lists the spans to redact, sorted, overlapping ones merged.
func (r *Redactor) find(s string) []span {
	if len(s) < 8 {
		return nil
	}
	spans := r.match(s)
	// The same search on what a model reads: invisible characters that
	// split a token dropped, tag and fullwidth characters as the ASCII
	// they stand for. Spans found there are mapped back to s.
	if view, at := folded(s); view != "" {
		for _, sp := range r.match(view) {
			spans = append(spans, span{at[sp.start], at[sp.end]})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	out := spans[:1]
	for _, sp := range spans[1:] {
		cur := &out[len(out)-1]
		if sp.start < cur.end {
			cur.end = max(cur.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// folded is s as a model reads it, when that differs from s: format
// characters (zero-width space and joiners, soft hyphen, BOM, tag
// controls) and variation selectors removed, Unicode tag characters
// (U+E0020..U+E007E) and fullwidth ASCII (U+FF01..U+FF5E) as the ASCII
// they mirror. at[i] is the byte offset in s of the view's byte i, with
// one extra entry for the view's end (len(s)). view is "" when nothing
// folds.
func folded(s string) (view string, at []int) {
	plain := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return "", nil
	}
	var b strings.Builder
	changed := false
	for i, r := range s {
		switch {
		case r >= 0xE0020 && r <= 0xE007E:
			r -= 0xE0000
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case unicode.Is(unicode.Cf, r), r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, r >= 0xE0000 && r <= 0xE007F:
			changed = true
			continue
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			for k := range n {
				at = append(at, i+k)
			}
			b.WriteString(s[i : i+n])
			continue
		}
		changed = true
		at = append(at, i)
		b.WriteRune(r)
	}
	if !changed {
		return "", nil
	}
	at = append(at, len(s))
	return b.String(), at
}

// match lists the spans of s that are secrets, unsorted, overlapping.
func (r *Redactor) match(s string) []span {
	spans := r.valueSpans(s)
	for _, sh := range shapes() {
		spans = append(spans, sh.spans(s)...)
	}
	return spans
}

// valueSpans are every occurrence of every value, in one pass over s.
func (r *Redactor) valueSpans(s string) []span {
	if r == nil || len(r.heads) == 0 {
		return nil
	}
	var spans []span
	for i := 0; i+MinLen <= len(s); i++ {
		h := head(s, i)
		k := filterKey(h)
		if r.seen[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, v := range r.heads[h] {
			if strings.HasPrefix(s[i:], v) {
				spans = append(spans, span{i, i + len(v)})
			}
		}
	}
	return spans
}

// hinted reports whether one of the shape's hints occurs in s.
func (sh shape) hinted(s string) bool {
	for _, h := range sh.hint {
		if sh.fold && containsFold(s, h) || !sh.fold && strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// spans are the secrets of this shape in s, stand-ins and what ok rejects
// left out.
func (sh shape) spans(s string) []span {
	if !sh.hinted(s) {
		return nil
	}
	var spans []span
	for _, m := range sh.re.FindAllStringSubmatchIndex(s, -1) {
		a, z := m[2*sh.group], m[2*sh.group+1]
		if a < 0 || a == z {
			continue
		}
		sec := s[a:z]
		if isStandIn(sec) || (sh.ok != nil && !sh.ok(sec)) {
			continue
		}
		spans = append(spans, span{a, z})
	}
	return spans
}

// containsFold reports whether s contains the lowercase ASCII word w in
// any letter case, without allocating.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && s[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// JSON redacts inside every string literal of JSON text (object keys
// too): each literal is decoded, so an escaped spelling (\u0067hp_) is
// caught, and a literal that changed is re-encoded whole. Text outside
// literals is copied as is. Valid JSON in is valid JSON out, with the same
// structure; invalid JSON is handled literal by literal as far as it goes.
// It returns raw itself when nothing was redacted.
func (r *Redactor) JSON(raw []byte) []byte {
	var out []byte // nil until the first change
	last := 0
	for i := 0; i < len(raw); {
		if raw[i] != '"' {
			i++
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			break // unterminated: leave the rest alone
		}
		lit := raw[i:end]
		if red, ok := r.literal(lit); ok {
			if out == nil {
				out = make([]byte, 0, len(raw)+32)
			}
			out = append(out, raw[last:i]...)
			out = append(out, red...)
			last = end
		}
		i = end
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// stringEnd returns the index just past the string literal starting at
// raw[i] == '"', or -1.
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// literal redacts one JSON string literal (quotes included); ok is false
// when nothing in it is a secret.
func (r *Redactor) literal(lit []byte) ([]byte, bool) {
	var s string
	if bytes.IndexByte(lit, '\\') < 0 && utf8.Valid(lit) {
		s = string(lit[1 : len(lit)-1])
	} else if err := json.Unmarshal(lit, &s); err != nil {
		// Not a literal json can read: match its bytes as they are.
		s = string(lit[1 : len(lit)-1])
		red := r.String(s)
		if red == s {
			return nil, false
		}
		return encodeString(red), true
	}
	red := r.String(s)
	if red == s {
		return nil, false
	}
	return encodeString(red), true
}

func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Compile compiles the expressions now instead of at first use, for a
// caller with time to spare before it redacts (the check, while its
// servers start).
func Compile() {
	shapes()
	numberRE()
	localeRE()
	wordRE()
}
