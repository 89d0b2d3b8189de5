package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestSnapshotRedactsCanonical: a definition with a secret spelled with a
// JSON escape is redacted on its canonical text; the raw bytes that stand
// for it afterwards are the redacted canonical bytes, so the lock entry
// built from them hashes the same as the comparison does.
func TestSnapshotRedactsCanonical(t *testing.T) {
	const tok = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
	raw := []byte(`{"name":"t","description":"use \u0067` + tok[1:] + `","inputSchema":{"type":"object"}}`)
	clean := []byte(`{"name":"c","description":"plain","inputSchema":{"type":"object"}}`)
	o := probe.Observation{Phase: "launch-1/initial", Lists: map[lock.Kind][]probe.Def{
		probe.KindTool: {{Key: "t", Raw: raw}, {Key: "c", Raw: clean}, {Key: tok, Raw: clean}},
	}}
	s := newSnapshotCached("srv", o, &canonCache{red: redact.New(nil)})
	c := s.entries[probe.KindTool]["t"]
	if strings.Contains(string(c.Bytes), tok[1:]) || !strings.Contains(string(c.Bytes), redact.Value(tok)) {
		t.Fatalf("canonical not redacted: %s", c.Bytes)
	}
	if e := lock.NewEntry(s.raw[probe.KindTool]["t"]); e.SHA256 != c.SHA256 {
		t.Errorf("lock entry hash %s != comparison hash %s", e.SHA256, c.SHA256)
	}
	if string(s.raw[probe.KindTool]["c"]) != string(clean) {
		t.Error("a definition without a secret must keep its raw bytes")
	}
	if _, ok := s.entries[probe.KindTool][redact.Value(tok)]; !ok {
		t.Errorf("a secret in a tool name must be redacted in the key: %v", s.order[probe.KindTool])
	}
}

// BenchmarkRedactDef is the cost redaction adds to canonicalizing a
// manifest: canonicalize alone, then canonicalize and redact with the
// secret shapes and a runner-sized environment (60 secret values).
func BenchmarkRedactDef(b *testing.B) {
	defs := syntheticManifest(1000)
	var environ []string
	for i := range 60 {
		environ = append(environ, fmt.Sprintf("SECRET_%d=value-%d-0123456789abcdef", i, i))
	}
	size := 0
	for _, d := range defs {
		size += len(d.Raw)
	}
	for _, tc := range []struct {
		name string
		fn   func(raw []byte)
	}{
		{"canonicalize", func(raw []byte) { lock.Canonicalize(raw) }},
		{"canonicalize+redact", nil},
	} {
		red := redact.New(environ)
		if tc.name == "canonicalize+redact" {
			tc.fn = func(raw []byte) { redactDef(raw, red) }
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, d := range defs {
					tc.fn(d.Raw)
				}
			}
		})
	}
}

// TestPinnedCanonicalMatchesPin: what pinned.Canonical gives for the bytes
// a server sends is the hash pin records, secret shapes or not.
func TestPinnedCanonicalMatchesPin(t *testing.T) {
	for _, raw := range []string{
		`{"name":"q","description":"Connect with postgres://app:s3cretpw@127.0.0.1/db","inputSchema":{"type":"object"}}`,
		`{"name":"plain","description":"Nothing secret.","inputSchema":{"type":"object"}}`,
	} {
		o := probe.Observation{Phase: "launch-1/initial", Lists: map[lock.Kind][]probe.Def{probe.KindTool: {{Key: "k", Raw: []byte(raw)}}}}
		s := newSnapshotCached("srv", o, &canonCache{})
		pin := lock.NewEntry(s.raw[probe.KindTool]["k"])
		if got := pinned.Canonical([]byte(raw), nil); got.SHA256 != pin.SHA256 {
			t.Errorf("%s: pinned.Canonical %s, pin %s", raw, got.SHA256, pin.SHA256)
		}
	}
}
