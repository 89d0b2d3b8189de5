package sandbox

import (
	"math"

	"golang.org/x/sys/unix"
)

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC (include/uapi/linux/close_range.h),
// which x/sys/unix does not name.
const closeRangeCloexec = 1 << 2

// closeRangeOnExec is close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11):
// one call instead of a walk of /proc/self/fd.
func closeRangeOnExec() error {
	return unix.CloseRange(3, math.MaxUint32, closeRangeCloexec)
}
