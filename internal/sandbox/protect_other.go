//go:build !linux

package sandbox

// ProtectSelf is a no-op where the process environment is not exposed to
// same-user processes through /proc.
func ProtectSelf() error { return nil }
