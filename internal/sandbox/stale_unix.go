//go:build unix

package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// openRegistry returns the registry directory, made if need be, or ""
// when it cannot be used: it cannot be made, it is not a directory, or it
// is not this user's alone (root with another user's HOME must not sweep
// that user's runs, nor plant entries the user cannot remove).
func openRegistry() string {
	reg := registryDir()
	if reg == "" {
		return ""
	}
	fi, err := os.Lstat(reg)
	if errors.Is(err, fs.ErrNotExist) {
		if os.MkdirAll(reg, 0o700) != nil {
			return ""
		}
		fi, err = os.Lstat(reg)
	}
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedBySelf(fi) {
		return ""
	}
	return reg
}

func ownedBySelf(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

func linked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 0
}

// flock is flock(2) on f, without putting f in blocking mode as f.Fd
// would.
func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = unix.Flock(int(fd), how) }); err != nil {
		return err
	}
	return ferr
}

// sweepRegistry removes the run directories of dead runs and their
// entries, looking at staleMax entries at most.
func sweepRegistry(reg string) {
	d, err := os.Open(reg)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(4 * staleMax)
	d.Close()
	n := 0
	for _, name := range names {
		if !isEntryName(name) {
			continue
		}
		if n++; n > staleMax {
			return
		}
		reapEntry(filepath.Join(reg, name))
	}
}

// reapEntry removes the entry at p and the run directory it names if its
// run is dead, that is if its lock can be taken. The entry stays only when
// removing a run directory it names failed, for the next run to retry.
func reapEntry(p string) {
	// O_NONBLOCK: a FIFO planted under an entry's name does not hang New.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if flock(f, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // a live run holds it (or this file system has no locks)
	}
	fi, err := f.Stat()
	if err != nil || !linked(fi) {
		return // another sweep removed it while this one waited to lock it
	}
	if fi.Mode().IsRegular() && ownedBySelf(fi) {
		b, _ := io.ReadAll(io.LimitReader(f, 4096))
		// An empty entry is a run killed before it wrote its own.
		if dir, tmp := parseEntry(b); dir != "" {
			if parent, base, ok := staleTarget(dir, tmp); ok {
				if removeRunDir(parent, base) != nil {
					return
				}
			}
		}
	}
	if cur, err := os.Lstat(p); err == nil && os.SameFile(cur, fi) {
		_ = os.Remove(p)
	}
}

// removeRunDir removes the run directory base in parent if it is one: a
// directory, not a symlink, owned by this user. Nothing is followed out
// of it: the removal and the chmods run inside os.Root, which refuses a
// symlink out of the tree, and the walk never enters a symlink. A nil
// error with nothing removed means there was nothing of ours to remove.
func removeRunDir(parent, base string) error {
	root, err := os.OpenRoot(parent)
	if err != nil {
		return nil
	}
	defer root.Close()
	fi, err := root.Lstat(base)
	if err != nil || !fi.IsDir() || !ownedBySelf(fi) {
		return nil
	}
	if root.RemoveAll(base) == nil {
		return nil
	}
	// A server may have left directories nobody can write to or enter
	// (see Close): open them up, inside the run directory only.
	if fi.Mode().Perm()&0o700 != 0o700 {
		_ = root.Chmod(base, 0o700)
	}
	run, err := root.OpenRoot(base)
	if err != nil {
		return err
	}
	defer run.Close()
	if st, err := run.Stat("."); err != nil || !os.SameFile(st, fi) {
		return nil // replaced since the Lstat: not the directory checked
	}
	_ = fs.WalkDir(run.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = run.Chmod(p, 0o700)
		}
		return nil
	})
	return root.RemoveAll(base)
}

// registerRun records dir as a live run's in the registry reg and returns
// the entry, locked until releaseEntry or the process's death; nil when
// it cannot (the run goes on unrecorded). The lock is taken before the
// path is written, and a sweep reads an entry only under the lock, so no
// sweep ever reads the path of a live run.
func registerRun(reg, dir, tmp string) *os.File {
	if reg == "" {
		return nil
	}
	for range 3 {
		// CreateTemp opens close-on-exec: no server inherits the lock.
		f, err := os.CreateTemp(reg, entryPrefix+"*"+entrySuffix)
		if err != nil {
			return nil
		}
		err = flock(f, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			fi, serr := f.Stat()
			if serr == nil && linked(fi) {
				if _, err := f.Write(encodeEntry(dir, tmp)); err == nil {
					return f
				}
				releaseEntry(f)
				return nil
			}
		}
		// A sweep took the empty entry in the instant before the lock
		// and removes it (or has): try a new one. Any other failure
		// (a file system without flock) ends it.
		retry := err == nil || errors.Is(err, unix.EWOULDBLOCK)
		releaseEntry(f)
		if !retry {
			return nil
		}
	}
	return nil
}

// releaseEntry removes a live run's entry, then drops its lock.
func releaseEntry(f *os.File) {
	if f == nil {
		return
	}
	_ = os.Remove(f.Name())
	_ = f.Close()
}
