package timestamps

import (
	"testing"
	"time"
)

func TestOnlyTimestampsDiffer(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 40, 1, 0, time.UTC)
	for _, tc := range []struct {
		name, a, b string
		want       bool
	}{
		{"rfc3339", "Current time: 2026-12-01T22:40:01Z.", "Current time: 2026-12-01T22:41:02Z.", true},
		{"rfc3339 nano and offset", "at 2026-12-01T22:40:01.123456789+01:00", "at 2026-12-01T22:40:02.9+01:00", true},
		{"iso with space", "at 2026-12-01 22:40:01", "at 2026-12-01 22:41:07", true},
		{"date only", "Today is 2026-12-01.", "Today is 2026-12-02.", true},
		{"iso basic", "id 20261201T224001Z", "id 20261201T224102Z", true},
		{"rfc1123", "Date: Tue, 01 Dec 2026 22:40:01 GMT", "Date: Tue, 01 Dec 2026 22:41:02 GMT", true},
		{"rfc2822 offset", "Tue, 1 Dec 2026 22:40:01 +0000", "Tue, 1 Dec 2026 22:41:02 +0000", true},
		{"js date", "Tue Dec 01 2026 22:40:01 GMT+0000 (Coordinated Universal Time)", "Tue Dec 01 2026 22:41:02 GMT+0000 (Coordinated Universal Time)", true},
		{"asctime", "Tue Dec  1 22:40:01 2026", "Tue Dec  1 22:41:02 2026", true},
		{"locale", "12/1/2026, 10:40:01 PM", "12/1/2026, 10:41:02 PM", true},
		{"clock", "It is 22:40:01 now", "It is 22:41:02 now", true},
		{"epoch seconds in JSON", `{"generatedAt":1796164801,"text":"x"}`, `{"generatedAt":1796164862,"text":"x"}`, true},
		{"epoch millis", "ts=1796164801000", "ts=1796164862123", true},
		{"two stamps", "from 2026-12-01T22:40:01Z to 22:40:01", "from 2026-12-01T22:41:02Z to 22:41:02", true},
		// Not only timestamps.
		{"stamp and a word", "admin at 22:40:01", "owner at 22:41:02", false},
		{"a word only", "You are the admin.", "You are the owner.", false},
		{"far epoch", "id 1000000000", "id 1000000001", false},
		{"digits that are no epoch", "order 17961648011", "order 17961648012", false},
		{"longer digit run", "code 122:40:01", "code 122:41:02", false},
		{"a stamp removed", "at 22:40:01.", "at .", false},
		{"identical", "at 22:40:01", "at 22:40:01", false},
	} {
		_, _, got := OnlyDiffer([]byte(tc.a), []byte(tc.b), now)
		if got != tc.want {
			m, toks := maskTimestamps([]byte(tc.a), now)
			t.Errorf("%s: got %v, want %v (masked %q, tokens %q)", tc.name, got, tc.want, m, toks)
		}
	}
}
