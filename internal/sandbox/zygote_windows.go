package sandbox

// canPrestart: on Windows the helper starts the server as its child in a
// job object; the zygote is not used there.
const canPrestart = false
