//go:build unix && !linux

package sandbox

import "errors"

// closeRangeOnExec: no close_range here; closeOnExecAbove3 walks /dev/fd.
func closeRangeOnExec() error { return errors.New("no close_range") }
