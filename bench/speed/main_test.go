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
