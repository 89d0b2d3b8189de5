//go:build !linux

package sandbox

func unixAttempt(kind, _ string) string { return "ERR no Unix-socket attempts here: " + kind }
