// Package timestamps tells the clock from a change: two answers that
// differ only in timestamp-shaped tokens, and two definitions whose only
// difference is dates that moved with the clock.
package timestamps

import (
	"bytes"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// A prompt that embeds the time of the request (kubernetes-mcp-server's
// does) answers two reads differently in one probe. Clients show whatever
// the server answers now; the difference is the clock, not a rug pull. So
// two answers whose only differences are timestamp-shaped tokens are a
// note, not unstable-manifest. Any other difference, next to a timestamp
// or not, still is.

// timestampRE matches the timestamp shapes servers print, longest forms
// first (RE2 takes the first alternative that matches at a position):
//
//   - JavaScript's Date.toString and asctime: "Tue Dec 01 2026 22:40:01
//     GMT+0000 (Coordinated Universal Time)", "Tue Dec  1 22:40:01 2026"
//   - RFC 1123 / RFC 2822: "Tue, 01 Dec 2026 22:40:01 GMT", "+0000"
//   - ISO 8601 / RFC 3339, extended and basic: "2026-12-01T22:40:01.123Z",
//     "2026-12-01 22:40:01+00:00", "2026-12-01", "20261201T224001Z"
//   - en-US locale: "12/1/2026, 10:40:01 PM"
//   - a time of day: "22:40:01", "22:40:01.123", "10:40:01 PM"
//
// Unix epoch seconds and milliseconds are matched apart (epochRE), and
// only when near the current time.
var timestampRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		`(?:` + wday + `\s+` + month + `\s+\d{1,2}\s+(?:\d{4}\s+\d{2}:\d{2}:\d{2}(?:\s+GMT[+-]\d{4})?(?:\s+\([A-Za-z ]{1,60}\))?|\d{2}:\d{2}:\d{2}\s+\d{4})` +
			`|(?:` + wday + `,\s+)?\d{1,2}\s+` + month + `\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?(?:\s+(?:GMT|UTC|UT|[+-]\d{4}))?` +
			`|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?` +
			`|\d{8}T\d{6}(?:[.,]\d{1,9})?(?:Z|[+-]\d{4})?` +
			`|\d{1,2}/\d{1,2}/\d{4}(?:,?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AP]M)?)?` +
			`|\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:\s*[AP]M)?)`)
})

const (
	wday  = `(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)`
	month = `(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)`
)

// epochRE matches a run of 10 or 13 digits standing alone: unix seconds or
// milliseconds, if near now.
var epochRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d{10}(?:\d{3})?\b`) })

// epochWindow is how near now an epoch number must be to count as one.
const epochWindow = 366 * 24 * time.Hour

// timeMask stands in for every timestamp-shaped token.
var timeMask = []byte("\x00time\x00")

// maskTimestamps replaces every timestamp-shaped token of b with timeMask
// and returns the tokens in order.
func maskTimestamps(b []byte, now time.Time) ([]byte, [][]byte) {
	var toks [][]byte
	out := timestampRE().ReplaceAllFunc(b, func(m []byte) []byte {
		if !digitBoundary(b, m) {
			return m
		}
		toks = append(toks, m)
		return timeMask
	})
	out = epochRE().ReplaceAllFunc(out, func(m []byte) []byte {
		n, err := strconv.ParseInt(string(m), 10, 64)
		if err != nil {
			return m
		}
		t := time.Unix(n, 0)
		if len(m) == 13 {
			t = time.UnixMilli(n)
		}
		if d := t.Sub(now); d > epochWindow || d < -epochWindow {
			return m
		}
		toks = append(toks, m)
		return timeMask
	})
	return out, toks
}

// digitBoundary reports that the match m (a subslice of b) is not part of
// a longer run of digits: "122:40:01" holds no time of day.
func digitBoundary(b, m []byte) bool {
	start := cap(b) - cap(m)
	if start < 0 || start > len(b) {
		return true
	}
	end := start + len(m)
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	return (start == 0 || !isDigit(b[start-1])) && (end >= len(b) || !isDigit(b[end]))
}

// OnlyDiffer reports whether a and b differ, and only in timestamp-shaped
// tokens (epoch numbers count when within a year of now); before and after
// are the first pair of tokens that differ, for the note. check's
// stability comparison and the guard's session pin of prompts/get use it.
func OnlyDiffer(a, b []byte, now time.Time) (before, after string, ok bool) {
	if bytes.Equal(a, b) {
		return "", "", false
	}
	ma, ta := maskTimestamps(a, now)
	mb, tb := maskTimestamps(b, now)
	if !bytes.Equal(ma, mb) || len(ta) != len(tb) {
		return "", "", false
	}
	for i := range ta {
		if !bytes.Equal(ta[i], tb[i]) {
			return string(ta[i]), string(tb[i]), true
		}
	}
	// Same tokens, same text around them: the bytes cannot differ.
	return "", "", false
}
