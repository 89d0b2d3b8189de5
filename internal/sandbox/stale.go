package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// Run directories of killed runs.
//
// [Run.Close] removes its run directory, but a run killed with SIGKILL (an
// OOM kill, a CI job cancelled hard, kill -9) never gets there, and its run
// directory, canaries and all, would stay in the temp directory forever. So
// every live Run holds an entry in a registry outside the run directory:
// one file per Run under the user's cache directory
// (os.UserCacheDir()/mcp-lockcheck/runs), holding the run directory's path
// and locked with flock(LOCK_EX) for the Run's lifetime on a descriptor
// that is close-on-exec, so no server inherits it. The kernel drops the
// lock when the process dies, however it died. [New] first sweeps the
// registry: an entry it can lock belongs to a dead run, and its run
// directory is removed, after the checks in [staleTarget] and with no
// symlink followed; an entry it cannot lock belongs to a live run, in this
// process or another, and is left alone.
//
// The registry is outside the run directory because nothing a server can
// see in its HOME or TMPDIR may name the checker. It is best effort: where
// it cannot be made (no HOME, a read-only or foreign cache directory)
// runs work as before, and a killed run's directory stays behind.
//
// The locking is in stale_unix.go; elsewhere (Windows) there is no
// registry.

// staleMax bounds the entries one sweep looks at, so a registry that grew
// (many runs at once) never makes New slow.
const staleMax = 64

// entryPrefix and entrySuffix frame the names of registry entries; a
// sweep looks at nothing else in the registry.
const (
	entryPrefix = "run-"
	entrySuffix = ".lock"
)

func isEntryName(name string) bool {
	return len(name) > len(entryPrefix)+len(entrySuffix) &&
		strings.HasPrefix(name, entryPrefix) && strings.HasSuffix(name, entrySuffix)
}

// registryDir is the registry's directory, or "" when the user has no
// cache directory.
func registryDir() string {
	c, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(c) {
		return ""
	}
	return filepath.Join(c, "mcp-lockcheck", "runs")
}

// encodeEntry is an entry's content: the run directory, then the temp
// directory it was made in.
func encodeEntry(dir, tmp string) []byte {
	return []byte(dir + "\n" + tmp + "\n")
}

func parseEntry(b []byte) (dir, tmp string) {
	dir, rest, _ := strings.Cut(string(b), "\n")
	tmp, _, _ = strings.Cut(rest, "\n")
	return dir, tmp
}

// staleTarget reports whether an entry may name a run directory, and
// splits it into the temp directory and the run directory's name. The
// entry is only as trustworthy as the user's cache directory, so it must
// name what New makes and nothing else: an absolute, clean path directly
// under the temp directory (the current one or the one the entry records,
// through symlinks or not), named as os.MkdirTemp("", "tmp.") names it.
// The caller still checks what is there (a directory, not a symlink,
// owned by this user) before removing anything.
func staleTarget(dir, recordedTmp string) (parent, base string, ok bool) {
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir {
		return "", "", false
	}
	parent, base = filepath.Split(dir)
	parent = filepath.Clean(parent)
	if !isRunDirName(base) {
		return "", "", false
	}
	for _, t := range []string{os.TempDir(), recordedTmp} {
		if !filepath.IsAbs(t) {
			continue
		}
		t = filepath.Clean(t)
		if parent == t {
			return parent, base, true
		}
		if real, err := filepath.EvalSymlinks(t); err == nil && parent == real {
			return parent, base, true
		}
	}
	return "", "", false
}

// isRunDirName: "tmp." and the decimal number os.MkdirTemp puts in place
// of its "*". Narrower than "tmp.*", so an entry cannot name the
// directories mktemp(1) makes (tmp.XXXXXXXXXX, letters and digits).
func isRunDirName(base string) bool {
	num, ok := strings.CutPrefix(base, "tmp.")
	if !ok || num == "" || len(num) > 20 {
		return false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sweepStale is what New does before it makes its run directory: it
// removes what dead runs left and returns the registry to record the new
// run in ("" when there is none).
func sweepStale() string {
	reg := openRegistry()
	if reg != "" {
		sweepRegistry(reg)
	}
	return reg
}
