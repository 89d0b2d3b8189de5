//go:build unix

package sandbox

// canPrestart: the zygote runs where the helper execs the server in place.
const canPrestart = true
