package pinned

import (
	"bytes"
	"encoding/base64"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Definition canonicalizes a definition and redacts the canonical text, not
// the wire bytes: canonical form has decoded every escape a server could
// use to spell a secret past a byte match (\u0067hp_). A definition with a
// secret in it is from then on its redacted canonical bytes, for the lock,
// the comparison and inspection alike, so pin and check agree. One
// without keeps its raw bytes exactly.
func Definition(raw []byte, r *redact.Redactor) (canon lock.Canonical, pinned []byte) {
	c := lock.Canonicalize(raw)
	red := r.JSON(c.Bytes)
	if bytes.Equal(red, c.Bytes) {
		return c, raw
	}
	return lock.Canonicalize(red), red
}

// RedactLock is the backstop before a lock is written: every definition,
// handshake value and entry name is redacted, and an entry whose text
// changed is rebuilt so its sha256 still matches it (its approval is kept).
// The probe already pins redacted definitions, so for a lock this engine
// built it changes nothing; it catches a path that forgot, and a lock
// pinned before redaction existed. The launch identity is not touched
// here: Launch redacts it by shape only, so it stays the same on every
// machine.
func RedactLock(f *lock.File, r *redact.Redactor) {
	if f == nil {
		return
	}
	for _, s := range f.Servers {
		if s == nil {
			continue
		}
		s.ServerInfo = r.JSON(s.ServerInfo)
		s.Capabilities = r.JSON(s.Capabilities)
		s.Instructions = r.JSON(s.Instructions)
		for field, b64 := range s.Raw {
			if b, err := base64.StdEncoding.DecodeString(b64); err == nil {
				if red := r.JSON(b); !bytes.Equal(red, b) {
					s.Raw[field] = base64.StdEncoding.EncodeToString(red)
				}
			}
		}
		for _, kind := range lock.Kinds {
			m := s.Entries(kind, false)
			for key, e := range m {
				if e == nil {
					continue
				}
				ne := redactEntry(e, r)
				nk := r.String(key)
				if ne == e && nk == key {
					continue
				}
				delete(m, key)
				m[nk] = ne
			}
		}
	}
}

// redactEntry returns e, or a rebuilt entry when its definition held a
// secret.
func redactEntry(e *lock.Entry, r *redact.Redactor) *lock.Entry {
	var def []byte
	switch {
	case e.Raw != "":
		b, err := base64.StdEncoding.DecodeString(e.Raw)
		if err != nil {
			return e
		}
		def = b
	default:
		def = e.Definition
	}
	red := r.JSON(def)
	if bytes.Equal(red, def) {
		return e
	}
	ne := lock.NewEntry(red)
	ne.ApprovedBy, ne.ApprovedAt = e.ApprovedBy, e.ApprovedAt
	return ne
}

// Canonical is the canonical form pin records for a definition as
// received: canonicalized, then redacted (r nil: the secret shapes only,
// which do not depend on the machine's environment). A comparison of live
// bytes with a lock entry must use it, or a definition holding a secret
// shape never matches its own pin.
func Canonical(raw []byte, r *redact.Redactor) lock.Canonical {
	c, _ := Definition(raw, r)
	return c
}
