package guard

import (
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestClockValueForwarded: the guard forwards a tools/list whose only
// difference from the lock is a schema default that moved with the clock
// since the entry was approved (today minus 30 days), as check passes it,
// and refuses one whose description changed beside it, or whose date
// moved while no clock did.
func TestClockValueForwarded(t *testing.T) {
	now := time.Now()
	def := func(date, desc string) string {
		return `{"name":"list_events","description":"` + desc + `","inputSchema":{"type":"object","properties":{"since":{"type":"string","default":"` + date + `"}}}}`
	}
	minus30 := func(at time.Time) string { return at.AddDate(0, 0, -30).Format("2006-01-02") }
	month := 30 * 24 * time.Hour
	for _, tc := range []struct {
		name     string
		approved time.Time // when the lock's entry was seen
		pinned   string
		live     string
		refused  bool
	}{
		{"pinned a month ago, the date moved with the clock", now.Add(-month), def(minus30(now.Add(-month)), "Lists events."), def(minus30(now), "Lists events."), false},
		{"the description changed too", now.Add(-month), def(minus30(now.Add(-month)), "Lists events."), def(minus30(now), "Lists events, and more."), true},
		{"the date moved, the clock did not", now, def(minus30(now.Add(-month)), "Lists events."), def(minus30(now), "Lists events."), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lock.NewEntry([]byte(tc.pinned))
			e.ApprovedAt = tc.approved.UTC().Format(time.RFC3339)
			c := newChecker("events", &lock.Server{Tools: map[string]*lock.Entry{"list_events": e}}, "mcp-lock.json")
			r := c.answer(pendingReq{method: "tools/list"}, []byte(`{"tools":[`+tc.live+`]}`))
			if (r != nil) != tc.refused {
				msg := "forwarded"
				if r != nil {
					msg = r.message()
				}
				t.Fatalf("refused %v, want %v: %s", r != nil, tc.refused, msg)
			}
		})
	}
}
