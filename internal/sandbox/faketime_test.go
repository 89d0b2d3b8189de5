package sandbox

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFakeTimeLibOverride: an override is taken only when it is a regular
// file. Anything else finds no library (the check then notes the clock
// could not be moved) rather than falling back to another path or
// preloading a directory or a missing file.
func TestFakeTimeLibOverride(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libfaketime.so.1")
	if err := os.WriteFile(lib, []byte("not really a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.so.1")
	if err := os.Symlink(lib, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.so.1")
	if err := os.Symlink(filepath.Join(dir, "gone"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, override, want string
	}{
		{"a regular file", lib, lib},
		{"a link to one", link, link},
		{"a directory", dir, ""},
		{"a missing file", filepath.Join(dir, "missing.so.1"), ""},
		{"a dangling link", dangling, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FakeTimeLib(tc.override); got != tc.want {
				t.Errorf("FakeTimeLib(%q) = %q, want %q", tc.override, got, tc.want)
			}
		})
	}
}

// TestClockEnv: a clock launch's environment is the server's with the
// library preloaded and the clock moved forward in whole seconds; the
// server's own environment, which its other launches use, is not touched.
func TestClockEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		off  time.Duration
		want map[string]string
	}{
		{"no environment", nil, time.Hour, map[string]string{"LD_PRELOAD": "/lib/ft.so", "FAKETIME": "+3600s"}},
		{"ten years", map[string]string{"API_TOKEN": "x"}, 10 * 365 * 24 * time.Hour, map[string]string{"API_TOKEN": "x", "LD_PRELOAD": "/lib/ft.so", "FAKETIME": "+315360000s"}},
		{"a fraction of a second is dropped", map[string]string{}, 1500 * time.Millisecond, map[string]string{"LD_PRELOAD": "/lib/ft.so", "FAKETIME": "+1s"}},
		{"the server's own preload is replaced", map[string]string{"LD_PRELOAD": "/tmp/evil.so", "FAKETIME": "-1d"}, time.Minute, map[string]string{"LD_PRELOAD": "/lib/ft.so", "FAKETIME": "+60s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := maps.Clone(tc.env)
			got := ClockEnv(tc.env, "/lib/ft.so", tc.off)
			if !maps.Equal(got, tc.want) {
				t.Errorf("ClockEnv = %v, want %v", got, tc.want)
			}
			if !maps.Equal(tc.env, before) {
				t.Errorf("the server's environment changed: %v, was %v", tc.env, before)
			}
		})
	}
}
