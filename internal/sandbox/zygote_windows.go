package sandbox

import "os"

// canPrestart: on Windows the helper starts the server as its child in a
// job object; the zygote is not used there.
const canPrestart = false

// gateSockets is unused on Windows (canPrestart).
func gateSockets() (r, w *os.File, err error) { return os.Pipe() }
