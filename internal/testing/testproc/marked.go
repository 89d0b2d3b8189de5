package testproc

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Marked lists the live processes, zombies left out, whose environment
// holds kv ("NAME=value"): what a test's servers, and whatever they
// started, left running. It reads /proc, so where there is none it finds
// nothing; the tests that use it run on Linux.
func Marked(kv string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), kv) {
			continue
		}
		st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
			continue
		}
		out = append(out, pid)
	}
	return out
}
