package npmtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestServers installs the pinned tree (or finds it current) and checks that
// every server the end-to-end tests launch is there and executable.
func TestServers(t *testing.T) {
	d := Servers(t)
	check := func(what, path string) {
		t.Helper()
		fi, err := os.Stat(path) // follows the .bin symlink to the script
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s: %s is not an executable file (mode %v)", what, path, fi.Mode())
		}
	}
	for _, bin := range []string{"mcp-server-filesystem", "mcp-server-everything", "mcp-server-memory"} {
		check(bin, d.Bin(bin))
	}
	fs2025, err := d.PackageBin("fs-2025", "mcp-server-filesystem")
	if err != nil {
		t.Fatal(err)
	}
	check("fs-2025", fs2025)
	// The alias must hold the older version, not a second copy of the newer.
	if fs2026, _ := filepath.EvalSymlinks(d.Bin("mcp-server-filesystem")); fs2026 == fs2025 {
		t.Errorf("fs-2025 resolves to the same file as mcp-server-filesystem: %s", fs2025)
	}
	versions := map[string]string{
		"@modelcontextprotocol/server-filesystem": "2026.8.31",
		"fs-2025": "2025.7.29",
		"@modelcontextprotocol/server-everything": "2026.8.31",
		"@modelcontextprotocol/server-memory":     "2026.8.31",
	}
	for pkg, want := range versions {
		raw, err := os.ReadFile(filepath.Join(d.Root, "node_modules", pkg, "package.json"))
		if err != nil {
			t.Error(err)
			continue
		}
		var meta struct{ Version string }
		if err := json.Unmarshal(raw, &meta); err != nil {
			t.Errorf("%s: %v", pkg, err)
		} else if meta.Version != want {
			t.Errorf("%s: installed version %s, want %s", pkg, meta.Version, want)
		}
	}
	// A second call in the same binary must not reinstall.
	if again := Servers(t); again != d {
		t.Errorf("second call: %+v, want %+v", again, d)
	}
}

func TestSelectBin(t *testing.T) {
	tests := []struct {
		pkg, field, bin, want string
		wantErr               bool
	}{
		{pkg: "@scope/tool", field: `"dist/index.js"`, want: "dist/index.js"},
		{pkg: "@scope/tool", field: `"dist/index.js"`, bin: "tool", want: "dist/index.js"},
		{pkg: "@scope/tool", field: `"dist/index.js"`, bin: "other", wantErr: true},
		{pkg: "p", field: `{"a":"a.js"}`, want: "a.js"},
		{pkg: "p", field: `{"a":"a.js","b":"b.js"}`, bin: "b", want: "b.js"},
		{pkg: "p", field: `{"a":"a.js","b":"b.js"}`, wantErr: true},
		{pkg: "p", field: `{"a":"a.js"}`, bin: "c", wantErr: true},
		{pkg: "p", field: ``, wantErr: true},
		{pkg: "p", field: `null`, wantErr: true},
		{pkg: "p", field: `42`, wantErr: true},
	}
	for _, tt := range tests {
		got, err := selectBin(tt.pkg, json.RawMessage(tt.field), tt.bin)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("selectBin(%q, %s, %q) = %q, %v; want %q, error %v", tt.pkg, tt.field, tt.bin, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestPackageBinStaysInPackage(t *testing.T) {
	root := t.TempDir()
	pkgDir := filepath.Join(root, "node_modules", "evil")
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgDir, "package.json"), []byte(`{"name":"evil","bin":"../../../etc/passwd"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d := Dir{Root: root}
	if p, err := d.PackageBin("evil", ""); err == nil {
		t.Errorf("PackageBin accepted a bin outside the package: %s", p)
	}
	if p, err := d.PackageBin("../x", ""); err == nil {
		t.Errorf("PackageBin accepted a package outside node_modules: %s", p)
	}
}

func TestModuleRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sourceFiles(filepath.Join(root, RelDir)); err != nil {
		t.Errorf("module root %s has no %s/package-lock.json: %v", root, RelDir, err)
	}
	if _, err := moduleRoot(t.TempDir()); err == nil {
		t.Error("moduleRoot found a go.mod above a fresh temporary directory")
	}
}

// fakeNPM stands in for npm in the concurrency test: it fails if another copy
// runs at the same time (mkdir is atomic), counts its runs in $NPMTEST_FAKE
// (the installs run in fresh directories, so the shared state lives outside
// them), sleeps so that overlapping callers would overlap, and leaves the
// hidden lockfile npm ci leaves.
const fakeNPM = `#!/bin/sh
set -e
mkdir "$NPMTEST_FAKE/running" 2>/dev/null || { echo "concurrent npm run" >&2; exit 3; }
echo "$*" >> "$NPMTEST_FAKE/runs.log"
sleep 0.3
rm -rf node_modules
mkdir node_modules
cp package-lock.json node_modules/.package-lock.json
rmdir "$NPMTEST_FAKE/running"
`

const (
	helperEnv     = "NPMTEST_HELPER_SRC"
	helperBaseEnv = "NPMTEST_HELPER_BASE"
)

// TestHelperEnsure is the body of the child processes of
// TestConcurrentInstallsRunOnce; it does nothing when run directly.
func TestHelperEnsure(t *testing.T) {
	src := os.Getenv(helperEnv)
	if src == "" {
		t.Skip("helper process only")
	}
	if _, err := ensure(src, os.Getenv(helperBaseEnv)); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentInstallsRunOnce starts several processes that each ensure
// the same tree at once, as `go test ./...` does with one test binary per
// package, and checks that npm ran exactly once and never concurrently; then
// that a changed package-lock.json makes the next call install again.
func TestConcurrentInstallsRunOnce(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("in helper process")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	binDir, src, base := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(binDir, "npm"), []byte(fakeNPM), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"private":true}`)
	write("package-lock.json", `{"lockfileVersion":3}`)
	write("helper.mjs", "// v1\n")
	write("README.md", "not copied\n")

	runAll := func(n int) {
		t.Helper()
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperEnsure$", "-test.count=1")
				cmd.Env = append(os.Environ(), helperEnv+"="+src, helperBaseEnv+"="+base, "NPMTEST_FAKE="+binDir, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("helper %d: %v\n%s", i, err, out)
				}
			})
		}
		wg.Wait()
	}
	runs := func() int {
		raw, err := os.ReadFile(filepath.Join(binDir, "runs.log"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(raw), "\n")
	}
	// installs lists what base holds: one finished install per key, and
	// nothing left over from building one (temporary directories).
	installs := func() []string {
		t.Helper()
		entries, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		var dirs []string
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		return dirs
	}
	current := func() string {
		t.Helper()
		root, err := ensure(src, base)
		if err != nil {
			t.Fatal(err)
		}
		return root
	}

	runAll(4)
	if n := runs(); n != 1 {
		t.Fatalf("npm ran %d times for 4 concurrent callers, want 1", n)
	}
	if raw, _ := os.ReadFile(filepath.Join(binDir, "runs.log")); !strings.Contains(string(raw), "ci --no-audit --no-fund --prefer-offline") {
		t.Errorf("npm arguments: %q", raw)
	}
	first := current()
	if dir := filepath.Dir(first); dir != base {
		t.Errorf("install at %s, want a directory directly under %s", first, base)
	}
	if got := installs(); len(got) != 1 {
		t.Errorf("cache holds %v, want one install", got)
	}
	// The helper script is copied beside node_modules; the README is not,
	// and nothing is written into the source directory.
	if raw, err := os.ReadFile(filepath.Join(first, "helper.mjs")); err != nil || string(raw) != "// v1\n" {
		t.Errorf("helper.mjs in the install: %q, %v", raw, err)
	}
	if _, err := os.Stat(filepath.Join(first, "README.md")); err == nil {
		t.Error("README.md was copied into the install")
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules")); err == nil {
		t.Error("the install wrote node_modules into the source directory")
	}
	runAll(2)
	if n := runs(); n != 1 {
		t.Fatalf("npm ran again with a current stamp (%d runs)", n)
	}
	write("package-lock.json", `{"lockfileVersion":3,"changed":true}`)
	runAll(3)
	if n := runs(); n != 2 {
		t.Fatalf("after a lock change npm ran %d times in total, want 2", n)
	}
	second := current()
	if second == first {
		t.Errorf("a changed lock reused the install at %s", first)
	}
	// An edited helper script is a new install too: tests must run the
	// script they see in testdata/npm.
	write("helper.mjs", "// v2\n")
	runAll(1)
	if n := runs(); n != 3 {
		t.Fatalf("after a helper change npm ran %d times in total, want 3", n)
	}
	third := current()
	if raw, _ := os.ReadFile(filepath.Join(third, "helper.mjs")); string(raw) != "// v2\n" {
		t.Errorf("helper.mjs in the new install: %q", raw)
	}
	// A hand-run `npm install` rewrites the hidden lockfile: reinstall.
	if err := os.WriteFile(filepath.Join(third, "node_modules", ".package-lock.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	runAll(1)
	if n := runs(); n != 4 {
		t.Fatalf("after the tree changed npm ran %d times in total, want 4", n)
	}
	if got := installs(); len(got) != 3 {
		t.Errorf("cache holds %v, want the three finished installs and no temporary directory", got)
	}
}

// TestInstallFailureIsReported checks that npm's own output reaches the
// error, so a failing CI run says why.
func TestInstallFailureIsReported(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	binDir, src, base := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(binDir, "npm"), []byte("#!/bin/sh\nmkdir node_modules\necho 'npm ERR! registry unreachable' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err := ensure(src, base)
	if err == nil || !strings.Contains(err.Error(), "registry unreachable") {
		t.Fatalf("ensure error = %v, want npm's output in it", err)
	}
	// Nothing half-built may stay to be taken for an install: only the lock
	// file remains.
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("a failed install left %s in the cache", e.Name())
		}
	}
}
