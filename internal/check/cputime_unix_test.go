//go:build unix

package check

import "syscall"

// processCPU is the CPU time the whole process has used, in nanoseconds.
// Benchmarks report it per operation beside wall time because the shared
// machines they run on are often loaded, which inflates ns/op but not CPU.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
