package guard

import "os"

// peakRSS: Windows' rusage has no peak RSS.
func peakRSS(*os.ProcessState) int64 { return 0 }

// processCPU: not read on Windows (the benchmark reports 0 CPU).
func processCPU() int64 { return 0 }
