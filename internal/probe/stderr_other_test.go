//go:build !unix

package probe

// maybeStderrServer has nothing to serve where the stderr tests do not run
// (they need a unix pipe's fill).
func maybeStderrServer() {}
