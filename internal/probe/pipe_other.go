//go:build !linux

package probe

import "os"

// pipeBuffered is not asked outside Linux, where procgroup cannot tell an
// exiting process from a live one either: the launch waits for the end of
// stderr instead (settle).
func pipeBuffered(*os.File) (int, bool) { return 0, false }
