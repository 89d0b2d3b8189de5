package pinned

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

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
