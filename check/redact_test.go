package check

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
	"github.com/mcp-lockcheck/mcp-lockcheck/probe"
)

// TestLaunchOfURLPassword: a URL password in a stdio server's arguments
// (a database DSN) is redacted in the lock's launch args, user and host
// kept, in whatever argument form it comes; a changed password is a
// changed launch; a ${PLACEHOLDER} password is kept.
func TestLaunchOfURLPassword(t *testing.T) {
	args := []string{"postgres://app:hunter2-db-pass@127.0.0.1:5432/app", "--db=mysql://root:s3cretpw@127.0.0.1/x", "--url", "redis://:r3dispass@127.0.0.1/0", "postgres://u:${PGPASSWORD}@127.0.0.1/db"}
	l := LaunchOf(config.Server{Name: "db", Command: "node", Args: args})
	all := strings.Join(l.Args, " ")
	for _, sec := range []string{"hunter2-db-pass", "s3cretpw", "r3dispass"} {
		if strings.Contains(all, sec) {
			t.Errorf("password %q reached the launch identity: %s", sec, all)
		}
	}
	for _, keep := range []string{"postgres://app:", "@127.0.0.1:5432/app", "--db=mysql://root:", "${PGPASSWORD}"} {
		if !strings.Contains(all, keep) {
			t.Errorf("%q was lost: %s", keep, all)
		}
	}
	if want := "postgres://app:" + redact.Value("hunter2-db-pass") + "@127.0.0.1:5432/app"; l.Args[0] != want {
		t.Errorf("got %q, want %q", l.Args[0], want)
	}
	args[0] = "postgres://app:other-db-pass@127.0.0.1:5432/app"
	if LaunchOf(config.Server{Name: "db", Command: "node", Args: args}).Equal(l) {
		t.Error("a changed password left the launch identity unchanged")
	}
}

// TestSnapshotRedactsCanonical: a definition with a secret spelled with a
// JSON escape is redacted on its canonical text; the raw bytes that stand
// for it afterwards are the redacted canonical bytes, so the lock entry
// built from them hashes the same as the comparison does.
func TestSnapshotRedactsCanonical(t *testing.T) {
	const tok = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
	raw := []byte(`{"name":"t","description":"use \u0067` + tok[1:] + `","inputSchema":{"type":"object"}}`)
	clean := []byte(`{"name":"c","description":"plain","inputSchema":{"type":"object"}}`)
	o := probe.Observation{Phase: "launch-1/initial", Lists: map[string][]probe.Def{
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

// TestRedactLock: the backstop before a lock is written rebuilds an entry
// that still holds a secret, with a matching hash and its approval kept,
// and leaves clean entries alone.
func TestRedactLock(t *testing.T) {
	const envVal = "svc-0a1b2c3d4e5f6a7b8c9d"
	f := lock.New()
	s := &lock.Server{Tools: map[string]*lock.Entry{}, Instructions: json.RawMessage(`"call me with ` + envVal + `"`)}
	dirty := lock.NewEntry([]byte(`{"name":"t","description":"key ` + envVal + `"}`))
	dirty.ApprovedBy, dirty.ApprovedAt = "a@example.invalid", "2026-01-01T00:00:00Z"
	clean := lock.NewEntry([]byte(`{"name":"c","description":"plain"}`))
	s.Tools["t"], s.Tools["c"] = dirty, clean
	f.Servers["srv"] = s
	RedactLock(f, redact.New([]string{"MY_TOKEN=" + envVal}))
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), envVal) {
		t.Fatalf("secret left in the lock:\n%s", data)
	}
	got := s.Tools["t"]
	if got.Canonical().SHA256 != got.SHA256 || got.ApprovedBy != dirty.ApprovedBy {
		t.Errorf("rebuilt entry inconsistent: %+v", got)
	}
	if s.Tools["c"] != clean {
		t.Error("a clean entry was rebuilt")
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
			tc.fn = func(raw []byte) { redactDef(red, raw) }
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

// TestPinnedCanonicalMatchesPin: what PinnedCanonical gives for the bytes
// a server sends is the hash pin records, secret shapes or not.
func TestPinnedCanonicalMatchesPin(t *testing.T) {
	for _, raw := range []string{
		`{"name":"q","description":"Connect with postgres://app:s3cretpw@127.0.0.1/db","inputSchema":{"type":"object"}}`,
		`{"name":"plain","description":"Nothing secret.","inputSchema":{"type":"object"}}`,
	} {
		o := probe.Observation{Phase: "launch-1/initial", Lists: map[string][]probe.Def{probe.KindTool: {{Key: "k", Raw: []byte(raw)}}}}
		s := newSnapshotCached("srv", o, &canonCache{})
		pinned := lock.NewEntry(s.raw[probe.KindTool]["k"])
		if got := PinnedCanonical([]byte(raw), nil); got.SHA256 != pinned.SHA256 {
			t.Errorf("%s: PinnedCanonical %s, pin %s", raw, got.SHA256, pinned.SHA256)
		}
	}
}
