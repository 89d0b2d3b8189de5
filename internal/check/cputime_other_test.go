//go:build !unix

package check

// processCPU is unavailable here; benchmarks then report 0 CPU.
func processCPU() int64 { return 0 }
