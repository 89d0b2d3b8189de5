// Package lock is the lockfile: its format, its canonical form, the hashes
// approval is bound to, and the atomic write that never leaves a lock
// half-written.
//
// The file is deterministic JSON (keys sorted, 2-space indent, trailing
// newline) so that a re-pin of an unchanged server is a byte-identical
// file and a changed one is a reviewable diff.
package lock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/atomicfile"
)

// Version is the lockfileVersion this package reads and writes.
const Version = 1

// DefaultPath is the lockfile's default name.
const DefaultPath = "mcp-lock.json"

// File is a whole lockfile.
type File struct {
	LockfileVersion int                `json:"lockfileVersion"`
	Servers         map[string]*Server `json:"servers"`
}

// New returns an empty lock.
func New() *File { return &File{LockfileVersion: Version, Servers: map[string]*Server{}} }

// Launch is the identity of how a server was started when it was approved.
// It holds placeholders unexpanded and environment variable names only, so
// a secret never lands in the lock.
type Launch struct {
	Type    string   `json:"type"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Env     []string `json:"env,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	URL     string   `json:"url,omitempty"`
	Headers []string `json:"headers,omitempty"`
	// Package is the package spec or image an npx / uvx / docker launch
	// names, as written; Resolved is the version it resolved to when it
	// could be read offline (npx: the npm cache). Neither is part of the
	// identity Equal compares: a new resolved version is package-changed,
	// not launch-changed.
	Package  string `json:"package,omitempty"`
	Resolved string `json:"resolved,omitempty"`
	// The artifact that ran, read as the server was started: what the
	// config names can be the same while the code is not (a new release
	// of an unpinned package, a version re-served with other bytes, a
	// binary replaced on disk), and only these say so. All are optional:
	// a lock written before them reads as before, and the first check
	// says which are missing.
	//
	// Integrity is the npm tarball's integrity ("sha512-..."), as the
	// registry's dist.integrity gives it and npm's install records it;
	// for uvx / pipx run, "sha256:" and the hex sha256 of Distribution,
	// as the Python index gives it.
	Integrity string `json:"integrity,omitempty"`
	// Distribution is the file name of the Python distribution a uvx /
	// pipx run launch installs (a pure wheel, else the sdist): a release
	// can gain files, and the name says which one Integrity is of.
	Distribution string `json:"distribution,omitempty"`
	// Digest is the image digest ("sha256:...") a docker / podman run's
	// reference resolved to.
	Digest string `json:"digest,omitempty"`
	// File is the local executable or the script an interpreter runs,
	// as the launch names it (relative to the config's cwd when it is
	// relative); FileSHA256 is the hex sha256 of its bytes.
	File       string `json:"file,omitempty"`
	FileSHA256 string `json:"fileSha256,omitempty"`
	// Tracked reports that File is tracked in the project's own git
	// repository: its change is then in the pull request's diff.
	Tracked bool `json:"tracked,omitempty"`
	// Network is the server's network allowance when it was approved:
	// the HOST:PORT destinations a strict sandbox lets it reach, sorted
	// (docs/policy.md, servers.NAME.network). Part of the identity Equal
	// compares: what a server may reach is approved as what it runs is.
	// Absent: none, as in every lock written before allowances.
	Network []string `json:"network,omitempty"`
}

// WithoutArtifact is l without what was read from the artifact (Resolved
// and the identity fields): the launch as configured, plus the spec.
func (l Launch) WithoutArtifact() Launch {
	l.Resolved, l.Integrity, l.Distribution, l.Digest, l.File, l.FileSHA256, l.Tracked = "", "", "", "", "", "", false
	return l
}

// Equal reports whether two launches are the same identity (Package,
// Resolved and the artifact's identity aside: a change of those is
// package-changed or artifact-changed, not launch-changed).
func (l Launch) Equal(o Launch) bool {
	l, o = l.WithoutArtifact(), o.WithoutArtifact()
	l.Package, o.Package = "", ""
	a, _ := json.Marshal(l)
	b, _ := json.Marshal(o)
	return bytes.Equal(a, b)
}

// Server is one server's approved manifest.
type Server struct {
	Launch          Launch          `json:"launch"`
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	// Instructions is the initialize instructions string as a JSON string
	// token (canonical form), absent when the server sent none.
	Instructions      json.RawMessage   `json:"instructions,omitempty"`
	Tools             map[string]*Entry `json:"tools"`
	Prompts           map[string]*Entry `json:"prompts,omitempty"`
	Resources         map[string]*Entry `json:"resources,omitempty"`
	ResourceTemplates map[string]*Entry `json:"resourceTemplates,omitempty"`
	Acknowledgements  []Ack             `json:"acknowledgements,omitempty"`
	// PromptAnswers pins, per prompt name, what prompts/get answered for
	// the arguments pin sent. Only servers whose policy sets pin-prompts
	// have them; a lock without the field reads as before.
	PromptAnswers map[string]*PromptAnswer `json:"promptAnswers,omitempty"`
	// Raw holds, base64-encoded, a handshake value ("instructions",
	// "serverInfo", "capabilities") that is not JSON with one meaning and
	// so cannot be kept in canonical form; it is compared byte for byte.
	Raw map[string]string `json:"raw,omitempty"`
}

// Handshake returns the canonical form of a handshake value: the raw bytes
// when the server sent ambiguous JSON, else the canonical JSON (empty when
// absent).
func (s *Server) Handshake(field string, value json.RawMessage) Canonical {
	if b64, ok := s.Raw[field]; ok {
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return Canonical{Ambiguous: "raw is not base64"}
		}
		return Canonical{Bytes: b, SHA256: Sum(b), Ambiguous: "kept as raw bytes"}
	}
	return CanonicalizeOptional(value)
}

// Kind is what a change, a finding or an acknowledgement is about: one of
// the entry kinds below, or KindServer for the server's own fields. The
// names are a contract (findings, acknowledgements, approve's
// SERVER/KIND/NAME); text becomes a Kind only through ParseKind or a
// Valid check.
type Kind string

// Kinds of entries, as used in findings and in approve's SERVER/KIND/NAME.
const (
	KindTool     Kind = "tool"
	KindPrompt   Kind = "prompt"
	KindResource Kind = "resource"
	KindTemplate Kind = "template"
)

// Kinds lists entry kinds in report order.
var Kinds = []Kind{KindTool, KindPrompt, KindResource, KindTemplate}

// Valid reports whether k is an entry kind or KindServer.
func (k Kind) Valid() bool {
	switch k {
	case KindTool, KindPrompt, KindResource, KindTemplate, KindServer:
		return true
	}
	return false
}

// ParseKind reads a kind name exactly as findings and the lock write it
// ("tool", "prompt", "resource", "template", "server"); any other text, in
// any other case, is an error.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); k.Valid() {
		return k, nil
	}
	return "", fmt.Errorf("unknown kind %q (want tool, prompt, resource, template or server)", s)
}

// Entries returns the map holding entries of kind, creating it if create.
func (s *Server) Entries(kind Kind, create bool) map[string]*Entry {
	var p *map[string]*Entry
	switch kind {
	case KindTool:
		p = &s.Tools
	case KindPrompt:
		p = &s.Prompts
	case KindResource:
		p = &s.Resources
	case KindTemplate:
		p = &s.ResourceTemplates
	default:
		return nil
	}
	if *p == nil && create {
		*p = map[string]*Entry{}
	}
	return *p
}

// JSONKey is the lockfile key of an entry kind ("resourceTemplates").
func JSONKey(kind Kind) string {
	if k, ok := InfoOf(kind); ok {
		return k.Field
	}
	return string(kind)
}

// Entry is one approved definition.
type Entry struct {
	// Definition is the definition as received, in canonical form. It is
	// absent for an ambiguous definition, which is kept in Raw instead.
	Definition json.RawMessage `json:"definition,omitempty"`
	// Raw is the base64 of the exact bytes received, only for definitions
	// that are not JSON with one meaning.
	Raw string `json:"raw,omitempty"`
	// Ambiguous says why Raw is used.
	Ambiguous string `json:"ambiguous,omitempty"`
	// SHA256 is the hex sha256 of the canonical bytes (or of Raw's bytes).
	SHA256     string `json:"sha256"`
	ApprovedBy string `json:"approvedBy,omitempty"`
	ApprovedAt string `json:"approvedAt,omitempty"`

	// memo is Canonical's answer, kept by Parse and NewEntry, which work
	// it out anyway: a check compares every pinned entry after its probe,
	// and canonicalizing the whole lock a second time cost milliseconds at
	// the end of every run. It holds for the Definition, Raw and
	// Ambiguous it was worked out from, and only while they are unchanged.
	memo *canonMemo
}

// Approved is ApprovedAt as a time: when the entry's definition was seen
// and approved (pin and approve record the clock of the run that saw it).
// Zero when absent or not RFC 3339.
func (e *Entry) Approved() time.Time {
	t, err := time.Parse(time.RFC3339, e.ApprovedAt)
	if err != nil {
		return time.Time{}
	}
	return t
}

type canonMemo struct {
	def       json.RawMessage
	raw, amb  string
	canonical Canonical
}

// holds reports whether m was worked out from e as it is now: the same
// Definition (the same bytes in memory, not an equal copy), Raw and
// Ambiguous.
func (m *canonMemo) holds(e *Entry) bool {
	if m == nil || len(m.def) != len(e.Definition) || m.raw != e.Raw || m.amb != e.Ambiguous {
		return false
	}
	return len(m.def) == 0 || &m.def[0] == &e.Definition[0]
}

// NewEntry builds an entry from a definition as received.
func NewEntry(raw []byte) *Entry {
	c := Canonicalize(raw)
	e := &Entry{SHA256: c.SHA256, Ambiguous: c.Ambiguous}
	if c.Ambiguous != "" {
		e.Raw = base64.StdEncoding.EncodeToString(c.Bytes)
	} else {
		e.Definition = c.Bytes
	}
	e.keep(c) // the canonical form of canonical bytes, or the raw ones
	return e
}

// remember works out the entry's canonical form and keeps it.
func (e *Entry) remember() Canonical {
	return e.keep(e.canonical())
}

// keep keeps c as the entry's canonical form, as it is now.
func (e *Entry) keep(c Canonical) Canonical {
	// Capped, so that appending to what a caller got never writes into
	// the bytes the next caller gets.
	c.Bytes = c.Bytes[:len(c.Bytes):len(c.Bytes)]
	e.memo = &canonMemo{def: e.Definition, raw: e.Raw, amb: e.Ambiguous, canonical: c}
	return c
}

// Canonical returns the entry's canonical bytes: the definition re-put in
// JCS form (so a hand-formatted lock still compares by meaning), or the raw
// bytes of an ambiguous entry.
func (e *Entry) Canonical() Canonical {
	if e.memo.holds(e) {
		return e.memo.canonical
	}
	return e.canonical()
}

func (e *Entry) canonical() Canonical {
	if e.Raw != "" {
		b, err := base64.StdEncoding.DecodeString(e.Raw)
		if err != nil {
			return Canonical{Ambiguous: "raw is not base64"}
		}
		return Canonical{Bytes: b, SHA256: Sum(b), Ambiguous: e.Ambiguous}
	}
	return Canonicalize(e.Definition)
}

// PromptAnswer is one pinned prompts/get answer: the guard refuses a
// different answer to the same arguments in any later session, so a
// server cannot show pin one expansion of a prompt and an agent another,
// not even in the agent's first request.
type PromptAnswer struct {
	// Arguments are the prompt arguments pin sent, canonical ({} for none).
	Arguments json.RawMessage `json:"arguments"`
	// Answer is the result as received, in canonical form; absent for an
	// ambiguous one, kept in Raw (base64) instead, as for an Entry.
	Answer     json.RawMessage `json:"answer,omitempty"`
	Raw        string          `json:"raw,omitempty"`
	Ambiguous  string          `json:"ambiguous,omitempty"`
	SHA256     string          `json:"sha256"`
	ApprovedBy string          `json:"approvedBy,omitempty"`
	ApprovedAt string          `json:"approvedAt,omitempty"`
}

// NewPromptAnswer pins answer for the arguments args (nil: none).
func NewPromptAnswer(args, answer []byte) *PromptAnswer {
	e := NewEntry(answer)
	return &PromptAnswer{Arguments: CanonicalArguments(args), Answer: e.Definition, Raw: e.Raw, Ambiguous: e.Ambiguous, SHA256: e.SHA256}
}

// Canonical returns the pinned answer's canonical bytes, as Entry does.
func (a *PromptAnswer) Canonical() Canonical {
	return (&Entry{Definition: a.Answer, Raw: a.Raw, Ambiguous: a.Ambiguous}).Canonical()
}

// CanonicalArguments is the canonical form prompt arguments are compared
// in: absent or null arguments are {}, and an object that is not JSON with
// one meaning is kept as its raw bytes (it then matches only itself).
func CanonicalArguments(args []byte) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	c := Canonicalize(t)
	return json.RawMessage(c.Bytes)
}

// Ack is an acknowledgement of an inspection finding: it silences the
// finding for exactly the content it was given for.
type Ack struct {
	Rule    string `json:"rule"`
	Kind    Kind   `json:"kind"`
	Subject string `json:"subject"`
	// SHA256 is the hash of the acknowledged content; when the content
	// changes the acknowledgement lapses.
	SHA256 string `json:"sha256"`
	Reason string `json:"reason"`
	By     string `json:"by,omitempty"`
	At     string `json:"at,omitempty"`
}

// Marshal writes the lock in its deterministic form: JCS (sorted keys,
// canonical numbers and strings), indented by two spaces, newline-terminated.
func (f *File) Marshal() ([]byte, error) {
	for _, s := range f.Servers {
		if s.Tools == nil {
			s.Tools = map[string]*Entry{}
		}
		sort.SliceStable(s.Acknowledgements, func(i, j int) bool {
			a, b := s.Acknowledgements[i], s.Acknowledgements[j]
			if string(a.Kind)+a.Subject+a.Rule != string(b.Kind)+b.Subject+b.Rule {
				return string(a.Kind)+"\x00"+a.Subject+"\x00"+a.Rule < string(b.Kind)+"\x00"+b.Subject+"\x00"+b.Rule
			}
			return a.SHA256 < b.SHA256
		})
	}
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	plain, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	canon, err := jcs.Transform(plain)
	if err != nil {
		return nil, fmt.Errorf("canonicalizing lock: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, canon, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// ErrInvalid marks a lockfile that exists but cannot be used.
var ErrInvalid = errors.New("invalid lockfile")

// Read reads and validates the lockfile at path. A missing file returns an
// error satisfying errors.Is(err, os.ErrNotExist).
func Read(path string) (*File, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := Parse(path, data)
	return f, data, err
}

// Parse decodes a lockfile; name is used in errors ("mcp-lock.json:12:5: ...").
func Parse(name string, data []byte) (*File, error) {
	if err := foreignShape(name, data); err != nil {
		return nil, err
	}
	if err := strictCheck(name, data); err != nil {
		if isSyntax(err) {
			return nil, posError(name, data, err)
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, posError(name, data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: %w: trailing data after the lock object", name, ErrInvalid)
	}
	if f.LockfileVersion != Version {
		return nil, fmt.Errorf("%s: %w: lockfileVersion %d (this mcp-lockcheck reads %d)", name, ErrInvalid, f.LockfileVersion, Version)
	}
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	// Lines are for the errors below: the lock is indexed (a pass over
	// its tokens) only when one is reported.
	idx := sync.OnceValue(func() Positions { return Index(data) })
	for sname, s := range f.Servers {
		if s == nil {
			return nil, fmt.Errorf("%s:%d: %w: server %q is null", name, idx().Line(sname, "", ""), ErrInvalid, sname)
		}
		if err := checkServer(name, sname, s, idx); err != nil {
			return nil, err
		}
	}
	return &f, nil
}

// checkServer checks what Parse cannot leave to the decoder in server
// sname of lockfile name: handshake values, entries and pinned answers
// that have one meaning or sit in "raw". idx gives the lines for errors.
func checkServer(name, sname string, s *Server, idx func() Positions) error {
	// As for definitions: a handshake value without one meaning
	// belongs in "raw", or the lock could not be written back.
	for _, h := range []struct {
		field string
		value json.RawMessage
	}{{"serverInfo", s.ServerInfo}, {"capabilities", s.Capabilities}, {"instructions", s.Instructions}} {
		if _, raw := s.Raw[h.field]; !raw && len(bytes.TrimSpace(h.value)) > 0 {
			if c := Canonicalize(h.value); c.Ambiguous != "" {
				return fmt.Errorf("%s:%d: %w: server %q: %s is ambiguous (%s); it belongs in \"raw\"", name, idx().Line(sname, "", ""), ErrInvalid, sname, h.field, c.Ambiguous)
			}
		}
	}
	for _, kind := range Kinds {
		for key, e := range s.Entries(kind, false) {
			line := func() int { return idx().Line(sname, kind, key) }
			if e == nil || (len(e.Definition) == 0 && e.Raw == "") {
				return fmt.Errorf("%s:%d: %w: %s %s/%s has no definition", name, line(), ErrInvalid, kind, sname, key)
			}
			if c := e.remember(); c.Bytes == nil {
				return fmt.Errorf("%s:%d: %w: %s %s/%s: %s", name, line(), ErrInvalid, kind, sname, key, c.Ambiguous)
			} else if e.Raw == "" && c.Ambiguous != "" {
				// Only "raw" may hold JSON without one meaning: a
				// "definition" that has none could not be written back
				// (or would be, with a meaning chosen).
				return fmt.Errorf("%s:%d: %w: %s %s/%s: definition is ambiguous (%s); it belongs in \"raw\"", name, line(), ErrInvalid, kind, sname, key, c.Ambiguous)
			}
		}
	}
	for key, a := range s.PromptAnswers {
		line := func() int { return idx().Line(sname, "", "") }
		if a == nil || (len(a.Answer) == 0 && a.Raw == "") || len(bytes.TrimSpace(a.Arguments)) == 0 {
			return fmt.Errorf("%s:%d: %w: promptAnswers %s/%s needs arguments and an answer", name, line(), ErrInvalid, sname, key)
		}
		if c := a.Canonical(); c.Bytes == nil || a.Raw == "" && c.Ambiguous != "" {
			return fmt.Errorf("%s:%d: %w: promptAnswers %s/%s: answer is ambiguous (%s); it belongs in \"raw\"", name, line(), ErrInvalid, sname, key, c.Ambiguous)
		}
	}
	return nil
}

// posError turns a decoding error into "file:line:col: message".
func posError(name string, data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
		off = int64(len(data)) // cut short: the end is where it stops
	}
	if off < 0 {
		return fmt.Errorf("%s: %w: %v", name, ErrInvalid, err)
	}
	line, col := LineCol(data, int(off))
	return fmt.Errorf("%s:%d:%d: %w: %v", name, line, col, ErrInvalid, err)
}

// LineCol converts a byte offset into a 1-based line and column.
func LineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// WriteAtomic writes data to path through a temporary file in the same
// directory and a rename (atomicfile.Write), so a reader (or a crash) sees
// the old lock or the new one, never a half-written file. The file keeps
// an existing mode; a path that is not a regular file is refused.
func WriteAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
