//go:build unix

package main

import (
	"testing"
	"time"
)

// TestCallPhases: only the warm-up call phases count, each up to the line
// after it, whatever the server's name holds.
func TestCallPhases(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ls := []line{
		{at(0), "mcp-lockcheck: a: b: launch-1/start"},
		{at(100), "mcp-lockcheck: a: b: launch-1/initial"},
		{at(110), "mcp-lockcheck: a: b: launch-1/call-1"},
		{at(150), "mcp-lockcheck: a: b: launch-1/after-list-changed-1"},
		{at(160), "mcp-lockcheck: a: b: launch-1/after-call-1"},
		{at(170), "mcp-lockcheck: a: b: launch-1/call-2"},
		{at(175), "mcp-lockcheck: a: b: launch-1/after-call-2"},
		{at(300), "mcp-lockcheck: a: b: launch-2/call-1"},
		{at(320), "mcp-lockcheck: a: b: launch-2/after-call-1"},
		{at(330), "mcp-lockcheck: a: b: done"},
	}
	if got, want := callPhases(ls), 65*time.Millisecond; got != want {
		t.Errorf("callPhases = %v, want %v", got, want)
	}
}

// TestRatioInterval: the interval moves with the rounds, not within them. A
// machine that is slower in some rounds slows the floor and the check of
// those rounds alike, which the interval must not count as noise; a check
// that varies on its own widens it; and one run's data always gives the
// same interval.
func TestRatioInterval(t *testing.T) {
	ms := func(xs ...float64) []time.Duration {
		var out []time.Duration
		for _, x := range xs {
			out = append(out, time.Duration(x*float64(time.Millisecond)))
		}
		return out
	}
	speed := []float64{1, 1.3, 0.9, 1.6, 1.1, 1, 1.2}
	scaled := func(base float64) []time.Duration {
		var xs []float64
		for _, s := range speed {
			xs = append(xs, base*s)
		}
		return ms(xs...)
	}
	floors := [][]time.Duration{scaled(200), scaled(300), scaled(150)}
	checks := [][]time.Duration{scaled(240), scaled(330), scaled(180)}
	if lo, hi := ratioInterval(floors, checks, 500, 1); lo != hi || lo < 1.19 || lo > 1.21 {
		t.Errorf("machine speed alone: interval %.3f to %.3f, want 1.2 to 1.2", lo, hi)
	}

	noisy := [][]time.Duration{ms(240, 260, 235, 300, 250, 238, 245), ms(330, 360, 335, 420, 331, 350, 333), ms(180, 200, 170, 230, 190, 185, 181)}
	flat := [][]time.Duration{ms(200, 200, 200, 200, 200, 200, 200), ms(300, 300, 300, 300, 300, 300, 300), ms(150, 150, 150, 150, 150, 150, 150)}
	lo, hi := ratioInterval(flat, noisy, 2000, 1)
	var point []float64
	for i := range flat {
		point = append(point, float64(median(noisy[i]))/float64(median(flat[i])))
	}
	if p := medianF(point); !(lo < p && p < hi) {
		t.Errorf("a check that varies: interval %.3f to %.3f does not hold the median ratio %.3f inside", lo, hi, p)
	}
	if lo2, hi2 := ratioInterval(flat, noisy, 2000, 1); lo2 != lo || hi2 != hi {
		t.Errorf("same data, same seed: %.3f to %.3f, then %.3f to %.3f", lo, hi, lo2, hi2)
	}
}
