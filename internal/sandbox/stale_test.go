//go:build unix

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// staleMode makes the re-executed test binary a checker that holds one
// Run: it prints the run directory, then waits for stdin to close (a
// minute at most) and closes the Run, unless it is killed first.
const staleMode = "SANDBOX_STALE_MODE"

func init() {
	if os.Getenv(staleMode) != "hold" {
		return
	}
	r, err := New("srv", Options{Level: Level(os.Getenv("SANDBOX_STALE_LEVEL"))})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	fmt.Println(r.Dir())
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
	}
	if err := r.Close(); err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	os.Exit(0)
}

// isolateRegistry points the registry and the temp directory at the
// test's own: the tests never see the real user's cache or runs.
func isolateRegistry(tb testing.TB) (reg, tmp string) {
	tb.Helper()
	base := tb.TempDir()
	tmp = filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("HOME", filepath.Join(base, "home"))
	tb.Setenv("XDG_CACHE_HOME", filepath.Join(base, "cache"))
	tb.Setenv("TMPDIR", tmp)
	reg = registryDir()
	if !strings.HasPrefix(reg, base+string(filepath.Separator)) {
		tb.Fatalf("registry %s is not under the test's %s", reg, base)
	}
	return reg, tmp
}

// entries lists the registry's entries.
func entries(tb testing.TB, reg string) []string {
	tb.Helper()
	ents, err := os.ReadDir(reg)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// entryNaming is the entry holding dir, or "".
func entryNaming(tb testing.TB, reg, dir string) string {
	tb.Helper()
	for _, name := range entries(tb, reg) {
		b, err := os.ReadFile(filepath.Join(reg, name))
		if err == nil {
			if d, _ := parseEntry(b); d == dir {
				return name
			}
		}
	}
	return ""
}

func exists(tb testing.TB, p string) bool {
	tb.Helper()
	_, err := os.Lstat(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		tb.Fatal(err)
	}
	return err == nil
}

// holder is another checker process holding a Run.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	dir   string
}

func startHolder(t *testing.T, level Level) *holder {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), staleMode+"=hold", "SANDBOX_STALE_LEVEL="+string(level))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case h.dir = <-line:
	case <-time.After(30 * time.Second):
		t.Fatal("the holder did not print its run directory in 30s")
	}
	if !filepath.IsAbs(h.dir) {
		t.Fatalf("holder: %q", h.dir)
	}
	return h
}

// kill ends the holder as kill -9 would: Close never runs.
func (h *holder) kill(t *testing.T) {
	t.Helper()
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := h.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("holder: %v, want killed by SIGKILL", err)
	}
}

// finish lets the holder close its Run and exit.
func (h *holder) finish(t *testing.T) {
	t.Helper()
	h.stdin.Close()
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
}

func newClosed(t *testing.T, level Level) *Run {
	t.Helper()
	r, err := New("next", Options{Level: level})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// TestKilledRunDirRemoved: a checker killed with SIGKILL leaves its run
// directory (Close never ran); the next New, in another process, removes
// it and its entry, read-only directories a server left in it included.
func TestKilledRunDirRemoved(t *testing.T) {
	for _, level := range []Level{Off, Basic} {
		t.Run(string(level), func(t *testing.T) {
			reg, tmp := isolateRegistry(t)
			h := startHolder(t, level)
			if filepath.Dir(h.dir) != tmp && filepath.Dir(h.dir) != mustEval(t, tmp) {
				t.Fatalf("run dir %s is not in TMPDIR %s", h.dir, tmp)
			}
			if entryNaming(t, reg, h.dir) == "" {
				t.Fatalf("no registry entry names %s: %q", h.dir, entries(t, reg))
			}
			h.kill(t)
			if !exists(t, h.dir) {
				t.Fatal("the killed run's directory is gone before any sweep: the test proves nothing")
			}
			// What a server may leave: directories without write or
			// any permission, as in TestCloseReadOnly.
			ro := filepath.Join(h.dir, "ro")
			locked := filepath.Join(h.dir, "ro", "locked")
			if err := os.MkdirAll(locked, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(locked, "f"), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(locked, 0); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(ro, 0o500); err != nil {
				t.Fatal(err)
			}

			r := newClosed(t, Off)
			if exists(t, h.dir) {
				t.Errorf("the killed run's directory %s survived the next New", h.dir)
			}
			if got, want := entries(t, reg), []string{entryNaming(t, reg, r.Dir())}; !slices.Equal(got, want) {
				t.Errorf("registry holds %q, want only the new run's %q", got, want)
			}
		})
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestLiveRunDirKept: a Run still open, in another process or in this
// one, keeps its run directory and entry through any number of New; its
// own Close then removes both.
func TestLiveRunDirKept(t *testing.T) {
	for _, tc := range []struct {
		name string
		// open returns the live runs' directories and a func that
		// closes them as their owners would.
		open func(t *testing.T) ([]string, func())
	}{
		{"another process", func(t *testing.T) ([]string, func()) {
			h := startHolder(t, Basic)
			return []string{h.dir}, func() { h.finish(t) }
		}},
		{"this process", func(t *testing.T) ([]string, func()) {
			r, err := New("live", Options{Level: Off})
			if err != nil {
				t.Fatal(err)
			}
			return []string{r.Dir()}, func() {
				if err := r.Close(); err != nil {
					t.Error(err)
				}
			}
		}},
		{"eight made at once in this process", func(t *testing.T) ([]string, func()) {
			runs := make([]*Run, 8)
			errs := make([]error, 8)
			var wg sync.WaitGroup
			for i := range runs {
				wg.Go(func() { runs[i], errs[i] = New("live", Options{Level: Off}) })
			}
			wg.Wait()
			var dirs []string
			for i, r := range runs {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				dirs = append(dirs, r.Dir())
			}
			return dirs, func() {
				for _, r := range runs {
					if err := r.Close(); err != nil {
						t.Error(err)
					}
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, _ := isolateRegistry(t)
			dirs, closeAll := tc.open(t)
			for range 3 {
				newClosed(t, Off).Close()
			}
			for _, d := range dirs {
				if !exists(t, d) {
					t.Errorf("a live run's directory %s was removed", d)
				}
				if entryNaming(t, reg, d) == "" {
					t.Errorf("a live run's entry for %s was removed", d)
				}
			}
			closeAll()
			for _, d := range dirs {
				if exists(t, d) {
					t.Errorf("Close left %s", d)
				}
			}
			if got := entries(t, reg); len(got) != 0 {
				t.Errorf("Close left entries %q", got)
			}
		})
	}
}

// TestStaleEntryNotFollowed: a dead entry removes only what New makes,
// directly under the temp directory, and never through a symlink; the
// entry itself always goes.
func TestStaleEntryNotFollowed(t *testing.T) {
	mkdir := func(t *testing.T, p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(p, "home", "user"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "home", "user", ".netrc"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// newVictim is a directory nothing may touch: its mode and file stay.
	newVictim := func(t *testing.T) string {
		t.Helper()
		v := filepath.Join(t.TempDir(), "victim")
		mkdir(t, v)
		if err := os.Chmod(v, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(v, 0o700) })
		return v
	}
	for _, tc := range []struct {
		name string
		// setup makes what the entry names and returns the entry's
		// content and the path the sweep must remove or keep.
		setup       func(t *testing.T, tmp, victim string) (entry, path string)
		removed     bool
		victimCheck bool
		rootOnly    bool
	}{
		{name: "a run directory", removed: true, setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.4242")
			mkdir(t, p)
			return p + "\n" + tmp + "\n", p
		}},
		{name: "a run directory under the TMPDIR it recorded", removed: true, setup: func(t *testing.T, tmp, victim string) (string, string) {
			other := t.TempDir()
			p := filepath.Join(other, "tmp.4343")
			mkdir(t, p)
			return p + "\n" + other + "\n", p
		}},
		{name: "a run directory holding a symlink out", removed: true, victimCheck: true, setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.4444")
			mkdir(t, p)
			if err := os.Symlink(victim, filepath.Join(p, "out")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(victim, "home", "user", ".netrc"), filepath.Join(p, "netrc")); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(p, "home"), 0o500); err != nil {
				t.Fatal(err)
			}
			return p + "\n" + tmp + "\n", p
		}},
		{name: "outside TMPDIR", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(t.TempDir(), "tmp.4545")
			mkdir(t, p)
			return p + "\n" + tmp + "\n", p
		}},
		{name: "below a directory in TMPDIR", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "sub", "tmp.4646")
			mkdir(t, p)
			return p + "\n" + tmp + "\n", p
		}},
		{name: "a symlink to a directory", victimCheck: true, setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.4747")
			if err := os.Symlink(victim, p); err != nil {
				t.Fatal(err)
			}
			return p + "\n" + tmp + "\n", p
		}},
		{name: "through a symlinked directory in TMPDIR", setup: func(t *testing.T, tmp, victim string) (string, string) {
			parent := t.TempDir()
			p := filepath.Join(parent, "tmp.4848")
			mkdir(t, p)
			if err := os.Symlink(parent, filepath.Join(tmp, "link")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(tmp, "link", "tmp.4848") + "\n" + tmp + "\n", p
		}},
		{name: "a directory of another name", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "keep.4949")
			mkdir(t, p)
			return p + "\n" + tmp + "\n", p
		}},
		{name: "a mktemp(1) directory", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.aB3dE5gH7j")
			mkdir(t, p)
			return p + "\n" + tmp + "\n", p
		}},
		{name: "a path with ..", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.5050")
			mkdir(t, p)
			mkdir(t, filepath.Join(tmp, "sub"))
			return tmp + "/sub/../tmp.5050\n" + tmp + "\n", p
		}},
		{name: "a relative path", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.5151")
			mkdir(t, p)
			t.Chdir(tmp)
			return "tmp.5151\n.\n", p
		}},
		{name: "a file", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.5252")
			if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			return p + "\n" + tmp + "\n", p
		}},
		{name: "another user's directory", rootOnly: true, setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.5353")
			mkdir(t, p)
			if err := os.Chown(p, 1001, 1001); err != nil {
				t.Fatal(err)
			}
			return p + "\n" + tmp + "\n", p
		}},
		{name: "an empty entry", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.5454")
			mkdir(t, p)
			return "", p
		}},
		{name: "garbage", setup: func(t *testing.T, tmp, victim string) (string, string) {
			p := filepath.Join(tmp, "tmp.5555")
			mkdir(t, p)
			return "\x00\xff" + p, p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.rootOnly && os.Getuid() != 0 {
				t.Skip("chown to another user needs root")
			}
			reg, tmp := isolateRegistry(t)
			v := newVictim(t)
			content, path := tc.setup(t, tmp, v)
			if err := os.MkdirAll(reg, 0o700); err != nil {
				t.Fatal(err)
			}
			entry := filepath.Join(reg, "run-1234.lock")
			if err := os.WriteFile(entry, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(filepath.Join(path, "home"), 0o700) })

			if got := sweepStale(); got != reg {
				t.Fatalf("sweepStale used registry %q, want %q", got, reg)
			}
			if exists(t, entry) {
				t.Error("the dead entry was not removed")
			}
			if got := !exists(t, path); got != tc.removed {
				t.Errorf("%s removed: %v, want %v", path, got, tc.removed)
			}
			if tc.victimCheck {
				fi, err := os.Lstat(v)
				if err != nil {
					t.Fatalf("the victim is gone: %v", err)
				}
				if fi.Mode().Perm() != 0o500 {
					t.Errorf("the victim's mode is %v, want 0500", fi.Mode().Perm())
				}
				if !exists(t, filepath.Join(v, "home", "user", ".netrc")) {
					t.Error("the victim's file is gone")
				}
			}
		})
	}
}

// TestRegistryBestEffort: where the registry cannot be made or must not
// be used, New and Close work as they always did; a fresh HOME without
// ~/.cache gets one, private.
func TestRegistryBestEffort(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, base string)
		// reg is the registry New must use, "" for none.
		reg func(base string) string
	}{
		{"fresh HOME without ~/.cache", func(t *testing.T, base string) {
			t.Setenv("HOME", filepath.Join(base, "fresh"))
			t.Setenv("XDG_CACHE_HOME", "")
			if err := os.Mkdir(filepath.Join(base, "fresh"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, func(base string) string { return registryDir() }},
		{"no HOME", func(t *testing.T, base string) {
			t.Setenv("HOME", "")
			t.Setenv("XDG_CACHE_HOME", "")
		}, func(string) string { return "" }},
		{"cache dir is a file", func(t *testing.T, base string) {
			f := filepath.Join(base, "file")
			if err := os.WriteFile(f, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("XDG_CACHE_HOME", f)
		}, func(string) string { return "" }},
		{"read-only cache dir", func(t *testing.T, base string) {
			d := filepath.Join(base, "ro")
			if err := os.Mkdir(d, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(d, 0o700) })
			t.Setenv("XDG_CACHE_HOME", d)
		}, func(string) string {
			if os.Getuid() == 0 {
				return registryDir() // root writes anyway
			}
			return ""
		}},
		{"registry writable by others", func(t *testing.T, base string) {
			t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "shared"))
			if err := os.MkdirAll(registryDir(), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(registryDir(), 0o777); err != nil {
				t.Fatal(err)
			}
		}, func(string) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			tmp := filepath.Join(base, "tmp")
			if err := os.Mkdir(tmp, 0o700); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", tmp)
			tc.setup(t, base)
			want := tc.reg(base)
			r, err := New("srv", Options{Level: Basic})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			dir := r.Dir()
			if want != "" {
				if entryNaming(t, want, dir) == "" {
					t.Errorf("no entry for %s in %s: %q", dir, want, entries(t, want))
				}
				// New made these, and ~/.cache for a fresh HOME.
				made := []string{want, filepath.Dir(want)}
				if home, _ := os.UserHomeDir(); strings.HasPrefix(want, filepath.Join(home, ".cache")+"/") {
					made = append(made, filepath.Join(home, ".cache"))
				}
				for _, d := range made {
					if fi, err := os.Stat(d); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
						t.Errorf("%s: %v %v, want a directory of mode 0700", d, fi, err)
					}
				}
			} else if r.entry != nil {
				t.Errorf("New registered %s in %s, want no registry", dir, r.entry.Name())
			}
			if err := r.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if exists(t, dir) {
				t.Errorf("Close left %s", dir)
			}
			if want != "" {
				if got := entries(t, want); len(got) != 0 {
					t.Errorf("Close left entries %q", got)
				}
			}
		})
	}
}

// BenchmarkSweep is what every New pays for the sweep: an empty registry,
// and one holding the entries of eight live runs.
func BenchmarkSweep(b *testing.B) {
	for _, live := range []int{0, 8} {
		b.Run(fmt.Sprintf("live=%d", live), func(b *testing.B) {
			reg, _ := isolateRegistry(b)
			if err := os.MkdirAll(reg, 0o700); err != nil {
				b.Fatal(err)
			}
			for range live {
				f := registerRun(reg, "/nonexistent/tmp.1", "/nonexistent")
				if f == nil {
					b.Fatal("registerRun failed")
				}
				b.Cleanup(func() { releaseEntry(f) })
			}
			for b.Loop() {
				if sweepStale() != reg {
					b.Fatal("no registry")
				}
			}
			if got := len(entries(b, reg)); got != live {
				b.Fatalf("%d entries after the sweeps, want %d", got, live)
			}
		})
	}
}
