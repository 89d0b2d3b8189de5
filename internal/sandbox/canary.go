package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Canary is one planted secret: where the server could find it and the
// token that proves it was read and passed on.
type Canary struct {
	// Where names the place: a path under the sandbox's HOME written as
	// "~/.ssh/id_rsa", ".env" for the file in the working directory, or
	// "env:NAME" for an environment variable.
	Where string
	// Token is the unique random value, different in every Run.
	Token string
}

type canaryEntry struct {
	Canary
	forms    []string // the token as it could appear on the wire, longest first
	stripped string   // the token with everything but letters and digits removed
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64url = alnum + "-_"
)

// randString draws n characters of alphabet from crypto/rand, without
// modulo bias.
func randString(alphabet string, n int) string {
	out := make([]byte, 0, n)
	limit := 256 - 256%len(alphabet)
	buf := make([]byte, n+16)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			panic(err) // crypto/rand never fails on Linux 3.17+.
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out)
}

// sshKey returns a PEM-armoured OpenSSH private key of body bytes whose
// header is real (openssh-key-v1, cipher none) and whose rest is random, and
// as token its second body line, which lies entirely in the random part.
func sshKey(body int) (pem, token string) {
	var hdr bytes.Buffer
	hdr.WriteString("openssh-key-v1\x00")
	putString := func(s string) {
		_ = binary.Write(&hdr, binary.BigEndian, uint32(len(s)))
		hdr.WriteString(s)
	}
	putString("none")
	putString("none")
	putString("")
	_ = binary.Write(&hdr, binary.BigEndian, uint32(1))
	rnd := make([]byte, body)
	if _, err := rand.Read(rnd); err != nil {
		panic(err)
	}
	// The random part must start before the second line (byte 52).
	raw := append(hdr.Bytes(), rnd...)
	enc := base64.StdEncoding.EncodeToString(raw)
	var lines []string
	for len(enc) > 70 {
		lines = append(lines, enc[:70])
		enc = enc[70:]
	}
	lines = append(lines, enc)
	return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(lines, "\n") +
		"\n-----END OPENSSH PRIVATE KEY-----\n", lines[1]
}

// plantCanaries writes the canary files under the run's HOME and work dir
// and picks the canary variables. Files are 0600 in 0700 directories, as
// the real ones are (some parsers, ssh's among them, refuse laxer modes).
func (r *Run) plantCanaries() error {
	rsa, rsaTok := sshKey(1800)
	ed, edTok := sshKey(300)
	akid := "AKIA" + randString(base32, 16)
	asecret := randString(alnum, 40)
	netrc := "ghp_" + randString(alnum, 36)
	gho := "gho_" + randString(alnum, 36)
	kube := "eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9." + randString(b64url, 180) + "." + randString(b64url, 342)
	dotenvKey := "sk-proj-" + randString(alnum, 48)
	dbPass := randString(alnum, 24)

	// Every endpoint a planted credential names is a loopback port this
	// Run listens on, or an .invalid name (RFC 2606): never a routable
	// address.
	kubeEP, err := r.endpoint("~/.kube/config")
	if err != nil {
		return err
	}
	dbEP, err := r.endpoint(".env")
	if err != nil {
		return err
	}
	awsEP, err := r.endpoint("~/.aws/credentials")
	if err != nil {
		return err
	}
	files := []struct {
		rel, content string
		toks         []string
	}{
		{"home/.ssh/id_rsa", rsa, []string{rsaTok}},
		{"home/.ssh/id_ed25519", ed, []string{edTok}},
		{"home/.aws/credentials", "[default]\naws_access_key_id = " + akid +
			"\naws_secret_access_key = " + asecret + "\nregion = us-east-1\n", []string{akid, asecret}},
		{"home/.aws/config", "[default]\nregion = us-east-1\noutput = json\nendpoint_url = http://127.0.0.1:" + awsEP.port() + "\n", nil},
		{"home/.netrc", "machine git.corp.invalid\n  login x-access-token\n  password " + netrc + "\n", []string{netrc}},
		{"home/.config/gh/hosts.yml", "github.corp.invalid:\n    oauth_token: " + gho +
			"\n    user: octocat\n    git_protocol: https\n", []string{gho}},
		{"home/.kube/config", "apiVersion: v1\nkind: Config\ncurrent-context: prod\n" +
			"clusters:\n- name: prod\n  cluster:\n    server: https://127.0.0.1:" + kubeEP.port() + "\n" +
			"    insecure-skip-tls-verify: true\n" +
			"contexts:\n- name: prod\n  context:\n    cluster: prod\n    user: admin\n" +
			"users:\n- name: admin\n  user:\n    token: " + kube + "\n", []string{kube}},
		{"work/.env", "OPENAI_API_KEY=" + dotenvKey + "\nDATABASE_URL=postgres://app:" + dbPass +
			"@127.0.0.1:" + dbEP.port() + "/app\n", []string{dotenvKey, dbPass}},
	}
	// Every canary is chosen, and the run answers Leaks for all of them,
	// before the first file is written: Options.Watch registers the run
	// with whoever searches other servers' output, so no neighbour can
	// read a canary that is not looked for yet.
	type write struct{ path, content string }
	var writes []write
	for _, f := range files {
		// rel is "home/..." (the sandbox HOME) or "work/..." (the
		// default working directory).
		base, rest, _ := strings.Cut(f.rel, "/")
		root := r.home
		if base == "work" {
			root = r.work
		}
		writes = append(writes, write{filepath.Join(root, filepath.FromSlash(rest)), f.content})
		where := "~" + strings.TrimPrefix(f.rel, "home")
		if strings.HasPrefix(f.rel, "work/") {
			where = strings.TrimPrefix(f.rel, "work/")
		}
		for _, t := range f.toks {
			r.canary = append(r.canary, newCanaryEntry(where, t))
		}
	}

	envs := []struct{ name, tok string }{
		{"AWS_ACCESS_KEY_ID", "AKIA" + randString(base32, 16)},
		{"AWS_SECRET_ACCESS_KEY", randString(alnum, 40)},
		{"GITHUB_TOKEN", "ghs_" + randString(alnum, 36)},
		{"OPENAI_API_KEY", "sk-proj-" + randString(alnum, 48)},
		{"ANTHROPIC_API_KEY", "sk-ant-api03-" + randString(b64url, 93) + "AA"},
	}
	r.envCan = make(map[string]string)
	for _, e := range envs {
		if slices.Contains(r.opts.PassEnv, e.name) {
			continue // The user passes the real one on purpose.
		}
		r.envCan[e.name] = e.tok
		r.canary = append(r.canary, newCanaryEntry("env:"+e.name, e.tok))
	}
	if r.opts.Watch != nil {
		r.opts.Watch(r)
	}
	for _, w := range writes {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
			return fmt.Errorf("sandbox: planting canary: %w", err)
		}
		if err := os.WriteFile(w.path, []byte(w.content), 0o600); err != nil {
			return fmt.Errorf("sandbox: planting canary: %w", err)
		}
	}
	return nil
}

// endpoint opens a canary endpoint for the credential planted as where.
func (r *Run) endpoint(where string) (*endpoint, error) {
	e, err := listenEndpoint(where)
	if err != nil {
		return nil, err
	}
	r.endpoints = append(r.endpoints, e)
	return e, nil
}

func newCanaryEntry(where, tok string) canaryEntry {
	e := canaryEntry{Canary: Canary{Where: where, Token: tok}, stripped: stripToken(tok)}
	forms := []string{tok, hex.EncodeToString([]byte(tok)), strings.ToUpper(hex.EncodeToString([]byte(tok)))}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		forms = append(forms, base64Cores([]byte(tok), enc)...)
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	e.forms = slices.Compact(forms)
	return e
}

// base64Cores returns, for each of the three byte alignments the token can
// have inside a larger encoded blob, the run of base64 characters that
// depend on the token's bytes alone: a server that base64-encodes a whole
// file still shows one of them.
func base64Cores(tok []byte, enc *base64.Encoding) []string {
	var out []string
	for shift := range 3 {
		buf := append(make([]byte, shift), tok...)
		s := enc.EncodeToString(buf)
		start := 0
		if shift > 0 {
			start = 4 // the first quantum mixes in bytes before the token
		}
		end := len(buf) / 3 * 4 // a partial last quantum mixes in bytes after it
		if end-start >= 16 {
			out = append(out, s[start:end])
		}
	}
	return out
}

// stripToken keeps letters and digits only.
func stripToken(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// stripWire removes from b everything but letters and digits, and JSON
// escapes (`\n`, `\u00ad`, ...) as a whole, so a token split by newlines,
// spaces, dashes or escaped separators still reads as one run.
func stripWire(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\\' && i+1 < len(b) {
			if b[i+1] == 'u' && i+5 < len(b) {
				i += 5
			} else {
				i++
			}
			continue
		}
		if isAlnum(c) {
			out = append(out, c)
		}
	}
	return out
}

// CanaryPath is the file a canary was planted in, absolute ("" for an
// environment canary or one this run did not plant).
func (r *Run) CanaryPath(where string) string {
	switch {
	case strings.HasPrefix(where, "env:") || where == "":
		return ""
	case where == "~" || strings.HasPrefix(where, "~/"):
		return filepath.Join(r.home, filepath.FromSlash(strings.TrimPrefix(where[1:], "/")))
	}
	return filepath.Join(r.work, filepath.FromSlash(where))
}

// Home is the fake HOME the run's servers get; WorkDir is their working
// directory when the config names none.
func (r *Run) Home() string { return r.home }

// WorkDir: see Home.
func (r *Run) WorkDir() string { return r.work }

// Canaries lists every canary of the run, files first, in a stable order.
// Off plants none.
func (r *Run) Canaries() []Canary {
	out := make([]Canary, len(r.canary))
	for i, c := range r.canary {
		out[i] = c.Canary
	}
	return out
}

// Leaks reports which canaries appear in b: verbatim, hex-encoded (either
// case), base64-encoded (standard or URL alphabet, any alignment), or with
// separators inserted (whitespace, punctuation, JSON escapes). When b is
// JSON, also in its strings decoded (a token written with \u escapes),
// and in the "text" strings joined in order (a token split over two
// content blocks, or over two messages of a prompt). Each canary is
// reported once, in Canaries order.
func (r *Run) Leaks(b []byte) []Canary {
	m := r.matchers.get(r.canary)
	found := make([]bool, len(r.canary))
	m.forms.find(b, found)
	m.stripped.find(stripWire(b), found)
	if !all(found) && bytes.IndexByte(b, '"') >= 0 {
		strs, text := jsonStrings(b)
		m.forms.find(strs, found)
		m.forms.find(text, found)
		m.stripped.find(stripWire(text), found)
	}
	var out []Canary
	for i, c := range r.canary {
		if found[i] {
			out = append(out, c.Canary)
		}
	}
	return out
}

func all(found []bool) bool {
	for _, f := range found {
		if !f {
			return false
		}
	}
	return true
}

// matcherOnce builds a run's matchers once; Leaks runs on every server's
// reader goroutine at once.
type matcherOnce struct {
	once sync.Once
	m    struct{ forms, stripped *needles }
}

func (o *matcherOnce) get(cs []canaryEntry) *struct{ forms, stripped *needles } {
	o.once.Do(func() {
		o.m.forms, o.m.stripped = &needles{}, &needles{}
		for i, c := range cs {
			for _, f := range c.forms {
				o.m.forms.add(f, i)
			}
			if len(c.stripped) >= 16 {
				o.m.stripped.add(c.stripped, i)
			}
		}
	})
	return &o.m
}

// needles finds many strings of at least 8 bytes in one pass: each
// position's next 8 bytes are hashed into a bitmap of the needles' first
// 8 (one multiply, one shift, one bit test a byte), and only a hit is
// looked up and compared. Every form of every canary costs the same one
// pass, not a pass each.
type needles struct {
	bits  [1 << 16 / 64]uint64
	heads map[uint64][]needle
}

type needle struct {
	s      string
	canary int
}

func needleHash(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> 48 }

func (n *needles) add(s string, canary int) {
	if len(s) < 8 {
		return // forms are 16 bytes or more; nothing shorter is a canary
	}
	if n.heads == nil {
		n.heads = map[uint64][]needle{}
	}
	k := binary.LittleEndian.Uint64([]byte(s[:8]))
	h := needleHash(k)
	n.bits[h/64] |= 1 << (h % 64)
	n.heads[k] = append(n.heads[k], needle{s, canary})
}

// find sets found[i] for every canary i one of whose needles is in b.
func (n *needles) find(b []byte, found []bool) {
	if n.heads == nil {
		return
	}
	for i := 0; i+8 <= len(b); i++ {
		k := binary.LittleEndian.Uint64(b[i:])
		h := needleHash(k)
		if n.bits[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, x := range n.heads[k] {
			if !found[x.canary] && len(b)-i >= len(x.s) && string(b[i:i+len(x.s)]) == x.s {
				found[x.canary] = true
			}
		}
	}
}

// jsonStrings reads b as JSON text, leniently (it is the server's, and may
// be cut or not JSON at all), and returns every string in it decoded,
// each followed by a NUL, and the strings of "text" members (content
// blocks, a prompt's messages, a resource's text contents) joined with
// nothing between them. One pass, no allocation beyond the two results.
func jsonStrings(b []byte) (all, text []byte) {
	all = make([]byte, 0, len(b)/2)
	var lastKey []byte
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		start := len(all)
		i++
		for ; i < len(b) && b[i] != '"'; i++ {
			c := b[i]
			if c != '\\' || i+1 >= len(b) {
				all = append(all, c)
				continue
			}
			i++
			all, i = appendEscape(all, b, i)
		}
		s := all[start:]
		// A string followed by a colon is a member's name.
		if followedByColon(b, i+1) {
			lastKey = append(lastKey[:0], s...)
		} else {
			if string(lastKey) == "text" {
				text = append(text, s...)
			}
			lastKey = lastKey[:0]
		}
		all = append(all, 0)
	}
	return all, text
}

// appendEscape appends to all the character of the escape whose letter is
// at b[i], and returns the index of the escape's last byte.
func appendEscape(all, b []byte, i int) ([]byte, int) {
	switch b[i] {
	case 'n':
		return append(all, '\n'), i
	case 't':
		return append(all, '\t'), i
	case 'r':
		return append(all, '\r'), i
	case 'b', 'f':
		return append(all, ' '), i
	case 'u':
		return appendUnicodeEscape(all, b, i)
	}
	return append(all, b[i]), i
}

// appendUnicodeEscape appends the character of \uXXXX (with its low
// surrogate's escape when it is a pair) at b[i] = 'u', or the letter u
// when the hex does not parse.
func appendUnicodeEscape(all, b []byte, i int) ([]byte, int) {
	if i+4 >= len(b) {
		return append(all, 'u'), i
	}
	v, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 32)
	if err != nil {
		return append(all, 'u'), i
	}
	i += 4
	if utf16.IsSurrogate(rune(v)) && i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
		if w, err := strconv.ParseUint(string(b[i+3:i+7]), 16, 32); err == nil {
			if r := utf16.DecodeRune(rune(v), rune(w)); r != utf8.RuneError {
				return utf8.AppendRune(all, r), i + 6
			}
		}
	}
	return utf8.AppendRune(all, rune(v)), i
}

// followedByColon reports whether the next byte from j on that is not
// JSON white space is a colon.
func followedByColon(b []byte, j int) bool {
	for j < len(b) && (b[j] == ' ' || b[j] == '\n' || b[j] == '\r' || b[j] == '\t') {
		j++
	}
	return j < len(b) && b[j] == ':'
}

// Redact replaces every canary token in s, verbatim or encoded as Leaks
// finds it (except the separated form, which has no single span), with
// "[canary:WHERE]", so reports never carry a token.
func (r *Run) Redact(s string) string {
	type rep struct{ form, where string }
	var reps []rep
	for _, c := range r.canary {
		for _, f := range c.forms {
			reps = append(reps, rep{f, c.Where})
		}
	}
	sort.SliceStable(reps, func(i, j int) bool { return len(reps[i].form) > len(reps[j].form) })
	for _, x := range reps {
		if strings.Contains(s, x.form) {
			s = strings.ReplaceAll(s, x.form, "[canary:"+x.where+"]")
		}
	}
	return s
}
