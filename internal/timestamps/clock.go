package timestamps

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A definition may hold a value that follows the wall clock: a schema
// default or example of "today minus 30 days", a date the server computed
// when it started. Pinned one day and shown the next, it differs, and the
// difference is the clock, not a rug pull. Such a value is known by its
// shape: it is a date, and it stands as far from the clock that saw it as
// the value it replaced stood from the clock that saw that one. The lock
// records the clock of its side (the entry's approvedAt); a probe knows
// its own (the run's clock, moved by a clock launch's offset).
//
// So two definitions follow the clock when they differ only in
// date-shaped tokens and each pair of tokens moved as the clocks did:
// |(after - before) - (afterAt - beforeAt)| <= ClockSlack. A token that
// does not read as a date (a time of day alone), a token that moved by
// another amount (a date that jumped to a fixed value, or back), and any
// other byte that differs, next to a date or not, are a change as before.

// ClockSlack is how far a value may move beyond what the clocks moved and
// still follow them: a date has a day's resolution, the server's time
// zone may not be the checker's (up to 26 hours apart), and the clock a
// lock records is when pin started, not when that server was listed.
const ClockSlack = 2 * 24 * time.Hour

// FollowClock reports whether a (seen when the clock read aAt) and b (seen
// at bAt) differ, and only in date-shaped tokens that each moved with the
// clock (within ClockSlack). before and after are the first pair of
// tokens that differ, for a note. A zero aAt or bAt is a clock not known:
// then nothing follows it.
func FollowClock(a, b []byte, aAt, bAt time.Time) (before, after string, ok bool) {
	if aAt.IsZero() || bAt.IsZero() || bytes.Equal(a, b) {
		return "", "", false
	}
	ma, ta := maskTimestamps(a, aAt)
	mb, tb := maskTimestamps(b, bAt)
	if !bytes.Equal(ma, mb) || len(ta) != len(tb) {
		return "", "", false
	}
	moved := bAt.Sub(aAt)
	for i := range ta {
		if bytes.Equal(ta[i], tb[i]) {
			continue
		}
		x, okA := parseDate(string(ta[i]))
		y, okB := parseDate(string(tb[i]))
		if !okA || !okB {
			return "", "", false
		}
		if d := y.Sub(x) - moved; d > ClockSlack || d < -ClockSlack {
			return "", "", false
		}
		if before == "" {
			before, after = string(ta[i]), string(tb[i])
		}
	}
	return before, after, before != ""
}

// dateLayouts are the layouts a timestamp-shaped token (timestampRE) is
// read with when it carries a date; a time of day alone carries none.
// A layout without a zone reads as UTC: the slack covers the zone.
var dateLayouts = []string{
	"2006-01-02",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05-0700",
	"2006-01-02T15:04:05.999999999-0700",
	"2006-01-02T15:04:05-07",
	"2006-01-02T15:04:05.999999999-07",
	"20060102T150405Z0700",
	"20060102T150405",
	"20060102T150405.999999999Z0700",
	"20060102T150405.999999999",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04 MST",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 2006 15:04:05",
	"Mon, 2 Jan 2006 15:04",
	"2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04",
	"Mon Jan 2 2006 15:04:05 GMT-0700",
	"Mon Jan 2 2006 15:04:05",
	"Mon Jan 2 15:04:05 2006",
	"1/2/2006",
	"1/2/2006 3:04:05 PM",
	"1/2/2006 3:04 PM",
	"1/2/2006 15:04:05",
	"1/2/2006 15:04",
}

var (
	spaces  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+`) })
	zoneTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\([A-Za-z ]*\)$`) })
	epochOK = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{10}(?:\d{3})?$`) })
	usComma = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,2}/\d{1,2}/\d{4}),\s*`) })
	// decimalComma is a decimal comma in the seconds.
	decimalComma = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(:\d{2}),(\d)`) })
)

// parseDate reads a timestamp-shaped token as the instant it names; false
// for a token with no date in it (a time of day) or none of the layouts.
func parseDate(tok string) (time.Time, bool) {
	if epochOK().MatchString(tok) {
		n, err := strconv.ParseInt(tok, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		if len(tok) == 13 {
			return time.UnixMilli(n), true
		}
		return time.Unix(n, 0), true
	}
	s := zoneTag().ReplaceAllString(tok, "")
	s = spaces().ReplaceAllString(strings.TrimSpace(s), " ")
	s = usComma().ReplaceAllString(s, "$1 ")        // "12/1/2026, 10:40:01 PM"
	s = decimalComma().ReplaceAllString(s, "$1.$2") // "22:40:01,123"
	if len(s) > 10 && s[4] == '-' && s[10] == ' ' {
		s = s[:10] + "T" + s[11:] // "2026-12-01 22:40:01"
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
