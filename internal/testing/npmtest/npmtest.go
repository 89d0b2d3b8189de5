// Package npmtest installs the real MCP servers that end-to-end tests drive.
//
// The servers are npm packages pinned to exact versions in testdata/npm
// (package.json and its committed package-lock.json). Nothing installs them by
// hand: every test that needs a real server calls [Servers] first, from every
// package that needs one, and Servers runs `npm ci` when no current install
// exists. That keeps a fresh clone (CI's, a new machine's) self-sufficient, and
// keeps a warm machine fast: the install runs once, and later calls only
// compare hashes.
//
// The install lives in the user's cache directory, not in the source tree:
// <cache>/mcp-lockcheck-test/npm/<key>, where key hashes the files of
// testdata/npm. The checkout stays free of a node_modules tree (which editors,
// linters and `go` tooling would otherwise walk), and worktrees and clones of
// the same revision share one install.
//
// Several test binaries run at once under `go test ./...`, one per package,
// and each may call Servers. An install is built in a temporary directory
// beside its final place and renamed there only when complete, so a reader
// never sees half a tree; an flock(2) lock file per key makes the binaries
// that find no install wait for the one that builds it instead of each
// running npm.
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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/atomicfile"
)

// RelDir is the directory, relative to the module root, that holds the npm
// project with the pinned servers.
const RelDir = "testdata/npm"

// installTimeout bounds one `npm ci`. A cold install of the pinned tree takes
// seconds; the bound is there so that a registry that hangs fails the test
// with npm's output instead of running into `go test`'s own time-out, which
// would print no reason.
const installTimeout = 10 * time.Minute

// stampName is the file, inside node_modules, that records what the install
// was made from. It lives in node_modules so that anything that removes or
// rewrites the tree (npm ci, rm -rf) removes the stamp with it.
const stampName = ".npmtest-stamp"

// cacheSubdir is the directory under os.UserCacheDir that holds the installs,
// one per key.
const cacheSubdir = "mcp-lockcheck-test/npm"

// stampVersion names the layout of an install; changing how one is built
// changes it, so an old install is never taken for a new one.
const stampVersion = "npmtest-v2"

// Dir is an installed copy of the pinned npm servers.
type Dir struct {
	// Root is the absolute path of the installed copy of the npm project
	// (testdata/npm's files, under the user's cache directory); its
	// node_modules holds the installed packages, and helper scripts copied
	// from testdata/npm sit beside it so that their imports resolve there.
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
	d, err := Install(modRoot)
	if err != nil {
		t.Fatalf("npmtest: %v", err)
	}
	return d
}

// Install makes sure the pinned servers of the checkout at modRoot are
// installed in the user's cache directory and returns where. It is
// [Servers] without the test: the bench programs call it to find (or make)
// the same install the tests use.
func Install(modRoot string) (Dir, error) {
	base, err := cacheBase()
	if err != nil {
		return Dir{}, err
	}
	root, err := ensureOnce(filepath.Join(modRoot, filepath.FromSlash(RelDir)), base)
	if err != nil {
		return Dir{}, err
	}
	return Dir{Root: root}, nil
}

// cacheBase is the directory that holds one install per key.
func cacheBase() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory for the npm test servers (set XDG_CACHE_HOME or HOME): %w", err)
	}
	return filepath.Join(cache, filepath.FromSlash(cacheSubdir)), nil
}

// moduleRoot walks up from dir to the nearest directory with a go.mod and
// the npm project ([RelDir]): `go test` runs each package's tests in that
// package's directory, so this finds the checkout from any package, those
// of the bench module (bench/go.mod, which has no npm project) included.
func moduleRoot(dir string) (string, error) {
	start := dir
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(RelDir))); err == nil && fi.IsDir() {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod beside %s in %s or any parent", RelDir, start)
		}
		dir = parent
	}
}

var (
	// installMu and installed let the tests of one binary share one check:
	// the first call does the work (or fails) and the others reuse its result
	// instead of taking the file lock again.
	installMu sync.Mutex
	installed = map[string]result{}
)

type result struct {
	root string
	err  error
}

func ensureOnce(src, base string) (string, error) {
	installMu.Lock()
	defer installMu.Unlock()
	key := src + "\x00" + base
	if r, ok := installed[key]; ok {
		return r.root, r.err
	}
	root, err := ensure(src, base)
	installed[key] = result{root, err}
	return root, err
}

// ensure installs the npm project in src under base/<key> unless a current
// install is there, and returns base/<key>.
func ensure(src, base string) (string, error) {
	files, err := sourceFiles(src)
	if err != nil {
		return "", err
	}
	key, want, err := inputKey(src, files)
	if err != nil {
		return "", err
	}
	root := filepath.Join(base, key)
	// Fast path without the lock: an install is renamed into place only
	// once complete, so a current stamp means a complete tree.
	if stampCurrent(root, want) {
		return root, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("npm test server cache: %w", err)
	}
	unlock, err := lock(root + ".lock")
	if err != nil {
		return "", err
	}
	defer unlock()
	// Another binary may have installed while this one waited for the lock.
	if stampCurrent(root, want) {
		return root, nil
	}
	// Whatever is at root is stale or damaged (a hand-run npm install, an
	// interrupted rm): holding the lock, replace it.
	if err := os.RemoveAll(root); err != nil {
		return "", fmt.Errorf("remove stale npm test install: %w", err)
	}
	tmp, err := os.MkdirTemp(base, key+".tmp-")
	if err != nil {
		return "", fmt.Errorf("npm test server cache: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	for _, name := range files {
		if err := copyFile(filepath.Join(src, name), filepath.Join(tmp, name)); err != nil {
			return "", err
		}
	}
	if err := npmCI(tmp); err != nil {
		return "", err
	}
	hidden, err := fileHash(filepath.Join(tmp, "node_modules", ".package-lock.json"))
	if err != nil {
		return "", fmt.Errorf("npm ci succeeded but left no node_modules/.package-lock.json: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(tmp, "node_modules", stampName), []byte(want+"\n"+hidden+"\n")); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, root); err != nil {
		return "", fmt.Errorf("npm test server cache: %w", err)
	}
	return root, nil
}

// sourceFiles lists the files of the npm project that an install copies:
// every regular file directly in src except the README and dot files (and so
// not a node_modules tree an older npmtest left there). Helper scripts the
// tests run with node, such as bridge-client.mjs, are among them, so that they
// sit beside node_modules and their imports resolve against it.
func sourceFiles(src string) ([]string, error) {
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("npm test project: %w", err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, ".") || name == "README.md" {
			continue
		}
		files = append(files, name)
	}
	for _, must := range []string{"package.json", "package-lock.json"} {
		if !slices.Contains(files, must) {
			return nil, fmt.Errorf("npm test project %s has no %s", src, must)
		}
	}
	return files, nil // ReadDir sorts by name
}

// inputKey hashes the copied files. want, the first line a current stamp must
// have, names each file's hash; key, the install's directory name, is a short
// hash of want. package.json is in it because npm ci refuses a lock that
// disagrees with package.json, and that refusal should surface; the helper
// scripts are in it so that an edited one reaches the install.
func inputKey(src string, files []string) (key, want string, err error) {
	var b strings.Builder
	b.WriteString(stampVersion)
	for _, name := range files {
		h, err := fileHash(filepath.Join(src, name))
		if err != nil {
			return "", "", err
		}
		fmt.Fprintf(&b, " %s=%s", name, h)
	}
	want = b.String()
	sum := sha256.Sum256([]byte(want))
	return hex.EncodeToString(sum[:])[:16], want, nil
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

// copyFile copies one project file into the install.
func copyFile(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("npm test project: %w", err)
	}
	if err := os.WriteFile(to, raw, 0o644); err != nil {
		return fmt.Errorf("npm test server cache: %w", err)
	}
	return nil
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
