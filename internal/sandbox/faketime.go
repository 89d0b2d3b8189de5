package sandbox

import (
	"fmt"
	"maps"
	"os"
	"time"
)

// A clock launch runs a server with its clock moved forward, to bait a
// server that changes after a date. libfaketime does the moving: preloaded
// into the server process, it shifts what libc returns for the time. So it
// reaches programs that read time through libc (node, python), not Go
// binaries, which ask the kernel directly; the notes of a clock launch say
// so. It is part of how a launch is run, so it lives beside the rest of it.

// fakeTimeLibs are the paths the faketime package installs libfaketime at
// (Debian and Ubuntu on amd64 and arm64, then a plain and a local build).
var fakeTimeLibs = []string{
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/local/lib/faketime/libfaketime.so.1",
}

// FakeTimeLib finds libfaketime: override when it is set (a regular file,
// else "" so the caller says the clock could not be moved instead of
// preloading nothing), else the first of the packaged paths present.
// "" when there is none.
func FakeTimeLib(override string) string {
	if override != "" {
		if regular(override) {
			return override
		}
		return ""
	}
	for _, c := range fakeTimeLibs {
		if regular(c) {
			return c
		}
	}
	return ""
}

func regular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// ClockEnv is env (not changed) with lib (FakeTimeLib's answer) preloaded
// and the clock moved forward by off, whole seconds: the environment of
// one clock launch.
func ClockEnv(env map[string]string, lib string, off time.Duration) map[string]string {
	clock := maps.Clone(env)
	if clock == nil {
		clock = map[string]string{}
	}
	clock["LD_PRELOAD"] = lib
	clock["FAKETIME"] = fmt.Sprintf("+%ds", int64(off.Seconds()))
	return clock
}
