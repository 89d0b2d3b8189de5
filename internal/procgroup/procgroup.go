// Package procgroup answers whether any live process is left in a process
// group. Zombies do not count: they run no code, and whether they are
// reaped depends on the machine's init, not on us.
//
// The process tree is the kernel's business, so each platform has its own
// file: Linux reads /proc and is the subreaper of its descendants, macOS
// asks sysctl(kern.proc.all), Windows walks a Toolhelp snapshot and keeps
// every descendant in a kill-on-close Job Object.
package procgroup

import "time"

// WaitGone polls until no live process is left in the group or d passes.
// A group just SIGKILLed is usually gone within a millisecond or two, and
// every launch waits here, so the first polls are 1 ms apart, then 10.
func WaitGone(pgid int, d time.Duration) bool {
	return poll(d, func() bool { return len(Live(pgid)) == 0 })
}

// WaitSettled polls Settled until it holds or d passes; first 1 ms apart,
// then 10. Call it after SIGKILLing the group.
func WaitSettled(pgid int, d time.Duration) bool {
	return poll(d, func() bool { return Settled(pgid) })
}

// poll reports whether done held before d passed, asking first 1 ms
// apart, then 10: a killed group is usually gone within milliseconds.
func poll(d time.Duration, done func() bool) bool {
	deadline := time.Now().Add(d)
	for i := 0; ; i++ {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		if i < 20 {
			time.Sleep(time.Millisecond)
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
}
