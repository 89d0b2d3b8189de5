package testproc

import (
	"os"
	"time"
)

// pollEvery is how often Poll looks again.
const pollEvery = 10 * time.Millisecond

// Poll calls cond until it is true or timeout has passed, and returns
// cond's last answer. It is for the states the kernel announces to no
// one: a process's state in /proc, a zombie waiting to be reaped, a
// thread gone, a process group emptied by a signal. Where the event has
// a channel, a pipe or a file to wait on, wait on that instead. timeout
// bounds the wait on a loaded machine; the state usually shows within
// milliseconds, and Poll returns as soon as it does.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(pollEvery)
	}
	return true
}

// Quiet waits out a window in which a test asserts that nothing happens
// (a group that must still be alive after SIGTERM, a sweep after which
// nothing may run). No event says "nothing happened", so such a check
// can only look for a while: a short, named window, not a wait for
// something to happen.
func Quiet(window time.Duration) {
	time.Sleep(window)
}

// BlockForever blocks the calling goroutine for good: a helper process
// that must stay alive until the test kills it. It reads a pipe that no
// one writes; unlike select{} the runtime does not take that for a
// deadlock when nothing else runs, and no timer bounds the process's life.
func BlockForever() {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	defer w.Close() // never reached: w stays open, so the read never ends
	_, _ = r.Read(make([]byte, 1))
	panic("testproc: a pipe no one writes was read")
}
