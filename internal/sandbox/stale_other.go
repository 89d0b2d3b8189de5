//go:build !unix

package sandbox

import "os"

// Without flock there is no registry (stale.go): a killed run's directory
// stays behind, as it always did.

func openRegistry() string                      { return "" }
func sweepRegistry(string)                      {}
func registerRun(reg, dir, tmp string) *os.File { return nil }
func releaseEntry(*os.File)                     {}
