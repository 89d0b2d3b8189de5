// Package npmtest installs the real MCP servers that end-to-end tests drive.
//
// The servers are npm packages pinned to exact versions in testdata/npm
// (package.json and its committed package-lock.json). Nothing installs them by
// hand: every test that needs a real server calls [Servers] first, from every
// package that needs one, and Servers runs `npm ci` when the tree is missing or
// stale. That keeps a fresh clone (CI's, a new machine's) self-sufficient, and
// keeps a warm machine fast: the install runs once, and later calls only
// compare hashes.
//
// Several test binaries run at once under `go test ./...`, one per package, and
// each may call Servers. `npm ci` deletes node_modules before it writes it, so
// two concurrent installs, or an install under a running server, would break
// each other: Servers serializes on an flock(2) lock file beside
// package-lock.json and re-checks the stamp once it holds the lock.
package npmtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// RelDir is the directory, relative to the module root, that holds the npm
// project with the pinned servers.
const RelDir = "testdata/npm"

// installTimeout bounds one `npm ci`. A cold install of the pinned tree takes
// seconds; the bound is there so that a registry that hangs fails the test
// with npm's output instead of running into `go test`'s own time-out, which
// would print no reason.
const installTimeout = 10 * time.Minute

// stampName is the file, inside node_modules, that records what the last
// successful install was made from. It lives in node_modules so that anything
// that removes or rewrites the tree (npm ci, rm -rf) removes the stamp with it.
const stampName = ".npmtest-stamp"

// lockName is the flock(2) lock file. It lives beside package-lock.json, not
// in node_modules, because `npm ci` removes node_modules while it is held.
const lockName = ".npmtest.lock"

// Dir is an installed copy of the pinned npm servers.
type Dir struct {
	// Root is the absolute path of the npm project (testdata/npm); its
	// node_modules holds the installed packages.
	Root string
}

// Bin returns the path of node_modules/.bin/name, the command npm linked for
// a dependency, e.g. "mcp-server-filesystem". It does not check that the file
// exists. Two packages that declare the same bin name (an npm alias holding a
// second version of a package) get only one link: use [Dir.PackageBin] for
// the other.
func (d Dir) Bin(name string) string {
	return filepath.Join(d.Root, "node_modules", ".bin", name)
}

// PackageBin returns the path of the executable that the installed package
// pkg (its directory name under node_modules, which for an npm alias is the
// alias, e.g. "fs-2025") declares as bin in its package.json. bin may be
// empty when the package declares exactly one. It reads package.json rather
// than node_modules/.bin because npm links only one of several packages that
// declare the same bin name.
func (d Dir) PackageBin(pkg, bin string) (string, error) {
	if pkg == "" || !filepath.IsLocal(pkg) {
		return "", fmt.Errorf("npmtest: package name %q is not a directory under node_modules", pkg)
	}
	pkgDir := filepath.Join(d.Root, "node_modules", filepath.FromSlash(pkg))
	raw, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("npmtest: package %s: %w", pkg, err)
	}
	var meta struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return "", fmt.Errorf("npmtest: package %s: package.json: %w", pkg, err)
	}
	rel, err := selectBin(meta.Name, meta.Bin, bin)
	if err != nil {
		return "", fmt.Errorf("npmtest: package %s: %w", pkg, err)
	}
	// npm resolves bin paths inside the package; refuse one that does not
	// stay there rather than hand a test an arbitrary file.
	rel = filepath.Clean(filepath.FromSlash(strings.TrimPrefix(rel, "./")))
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("npmtest: package %s: bin path %q leaves the package", pkg, rel)
	}
	return filepath.Join(pkgDir, rel), nil
}

// selectBin picks bin's relative path from a package.json "bin" field, which
// npm allows as a string (one bin, named after the package without its scope)
// or as an object of name to path.
func selectBin(pkgName string, field json.RawMessage, bin string) (string, error) {
	if len(field) == 0 || string(field) == "null" {
		return "", errors.New("package.json declares no bin")
	}
	var single string
	if err := json.Unmarshal(field, &single); err == nil {
		name := pkgName
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if bin != "" && bin != name {
			return "", fmt.Errorf("no bin %q (the package declares only %q)", bin, name)
		}
		return single, nil
	}
	var many map[string]string
	if err := json.Unmarshal(field, &many); err != nil {
		return "", fmt.Errorf("package.json bin field: %w", err)
	}
	if bin == "" {
		if len(many) != 1 {
			return "", fmt.Errorf("package declares %d bins: name one", len(many))
		}
		for _, p := range many {
			return p, nil
		}
	}
	p, ok := many[bin]
	if !ok {
		return "", fmt.Errorf("no bin %q in package.json", bin)
	}
	return p, nil
}

// Servers makes sure the pinned servers are installed and returns where.
//
// It skips the test when node or npm is not on PATH, unless the CI
// environment variable is set: CI must run these tests, so there a missing
// toolchain fails. A failed install always fails the test, with npm's output.
func Servers(t testing.TB) Dir {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("npmtest: %s is not on PATH and CI is set, so the real-server tests cannot be skipped: %v", tool, err)
			}
			t.Skipf("npmtest: %s is not on PATH (set CI=true to make this a failure): %v", tool, err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("npmtest: %v", err)
	}
	modRoot, err := moduleRoot(wd)
	if err != nil {
		t.Fatalf("npmtest: %v", err)
	}
	root := filepath.Join(modRoot, filepath.FromSlash(RelDir))
	if err := ensureOnce(root); err != nil {
		t.Fatalf("npmtest: %v", err)
	}
	return Dir{Root: root}
}

// moduleRoot walks up from dir to the nearest directory with a go.mod: `go
// test` runs each package's tests in that package's directory, so this finds
// the checkout from any package.
func moduleRoot(dir string) (string, error) {
	start := dir
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or any parent", start)
		}
		dir = parent
	}
}

var (
	// installMu and installed let the tests of one binary share one check:
	// the first call does the work (or fails) and the others reuse its result
	// instead of taking the file lock again.
	installMu sync.Mutex
	installed = map[string]error{}
)

func ensureOnce(root string) error {
	installMu.Lock()
	defer installMu.Unlock()
	if err, ok := installed[root]; ok {
		return err
	}
	err := ensure(root)
	installed[root] = err
	return err
}

// ensure installs the tree under root unless the stamp shows it is current.
func ensure(root string) error {
	want, err := wantStamp(root)
	if err != nil {
		return err
	}
	// Fast path without the lock: a stamp is written last (after npm ci and
	// by rename), so a matching one means a complete tree.
	if stampCurrent(root, want) {
		return nil
	}
	unlock, err := lock(filepath.Join(root, lockName))
	if err != nil {
		return err
	}
	defer unlock()
	// Another binary may have installed while this one waited for the lock.
	if stampCurrent(root, want) {
		return nil
	}
	if err := npmCI(root); err != nil {
		return err
	}
	hidden, err := fileHash(filepath.Join(root, "node_modules", ".package-lock.json"))
	if err != nil {
		return fmt.Errorf("npm ci succeeded but left no node_modules/.package-lock.json: %w", err)
	}
	return writeFileAtomic(filepath.Join(root, "node_modules", stampName), []byte(want+"\n"+hidden+"\n"))
}

// wantStamp is the first line a current stamp must have: the hashes of the
// inputs of the install. package.json is in it too because npm ci refuses a
// lock that disagrees with package.json, and that refusal should surface.
func wantStamp(root string) (string, error) {
	var b strings.Builder
	b.WriteString("npmtest-v1")
	for _, name := range []string{"package.json", "package-lock.json"} {
		h, err := fileHash(filepath.Join(root, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, " %s=%s", name, h)
	}
	return b.String(), nil
}

// stampCurrent reports whether the stamp names the current inputs and the
// hidden lockfile npm wrote (node_modules/.package-lock.json, its record of
// the installed tree) is still the one the install left. A manual `npm
// install` that changed the tree changes the hidden lockfile, and the next
// call reinstalls from the committed lock.
func stampCurrent(root, want string) bool {
	raw, err := os.ReadFile(filepath.Join(root, "node_modules", stampName))
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 2 || lines[0] != want {
		return false
	}
	hidden, err := fileHash(filepath.Join(root, "node_modules", ".package-lock.json"))
	return err == nil && hidden == lines[1]
}

func fileHash(path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}

// npmCI runs `npm ci` in root. --prefer-offline uses the npm cache without
// revalidating it, so a warm machine installs without the registry.
// --ignore-scripts: the pinned packages have no install scripts
// (package-lock.json has no hasInstallScript), and a test helper has no
// business running whatever a future version adds.
func npmCI(root string) error {
	// Remove a stale stamp first: if npm fails half-way, no stamp must vouch
	// for what it left.
	if err := os.Remove(filepath.Join(root, "node_modules", stampName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	args := []string{"ci", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"}
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	// npm starts children of its own; on time-out kill the whole group, and
	// do not wait forever for pipes a stray grandchild still holds.
	setGroupKill(cmd)
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w after %v", err, installTimeout)
		}
		return fmt.Errorf("npm %s in %s failed (%v): %v\n%s", strings.Join(args, " "), root, time.Since(start).Round(time.Millisecond), err, out.Bytes())
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path and renames it
// into place, so a reader sees the old stamp or the whole new one.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
