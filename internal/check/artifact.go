package check

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// artifact is the identity of the code a stdio launch ran, read as the
// server was started. The config can name the same thing while the code
// differs (an unpinned package's new release, a version re-served with
// other bytes, a binary replaced on disk); the lock records these so that
// check and the guard see it.
type artifact struct {
	// Version is the npm package version that ran.
	Version string
	// Integrity is its tarball's integrity ("sha512-..."), from the npx
	// install's package-lock.json.
	Integrity string
	// Digest is a docker/podman image's digest ("sha256:...").
	Digest string
	// File is the local executable or script as the config names it;
	// FileSHA256 the hex sha256 of its bytes; Tracked that the project's
	// own git repository tracks it.
	File       string
	FileSHA256 string
	Tracked    bool
	// Unidentified says why a package launch's artifact could not be
	// identified ("" when it was, or when there is nothing to identify).
	Unidentified string
	// Repository is the source repository the package's package.json
	// names, when it is a GitHub https URL (for a compare link).
	Repository string
	// Registry is what the registry answered before the launch
	// (resolveRegistry); RegistryErr why it could not be asked.
	Registry    *registryAnswer
	RegistryErr string
}

// record writes the identity into a lock launch.
func (a *artifact) record(l *lock.Launch) {
	l.Resolved, l.Integrity, l.Digest = a.Version, a.Integrity, a.Digest
	l.File, l.FileSHA256, l.Tracked = a.File, a.FileSHA256, a.Tracked
}

// npxInstall is what an npx / npm exec launch installed: npm (7 and
// later, libnpmexec) installs the packages of one invocation in
// <cache>/_npx/<first 16 hex of sha512 of the spec>, with a
// package-lock.json whose packages["node_modules/NAME"] holds the version
// and the tarball integrity it verified.
type npxInstall struct {
	Version, Integrity, Repository string
}

// readNpxInstall reads the install of spec (package name) in cacheDir. ok
// is false when npm installed nothing there (the package came from a
// local or global install, or the launch failed before installing).
func readNpxInstall(cacheDir, spec, name string) (npxInstall, bool) {
	sum := sha512.Sum512([]byte(spec))
	dir := filepath.Join(cacheDir, "_npx", hex.EncodeToString(sum[:])[:16])
	var in npxInstall
	if b, err := os.ReadFile(filepath.Join(dir, "package-lock.json")); err == nil {
		var pl struct {
			Packages map[string]struct {
				Version   string `json:"version"`
				Integrity string `json:"integrity"`
			} `json:"packages"`
		}
		if json.Unmarshal(b, &pl) == nil {
			p := pl.Packages["node_modules/"+name]
			in.Version, in.Integrity = p.Version, p.Integrity
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"))
	if err != nil {
		return in, in.Version != ""
	}
	var m struct {
		Version    string          `json:"version"`
		Repository json.RawMessage `json:"repository"`
	}
	if json.Unmarshal(b, &m) != nil {
		return in, in.Version != ""
	}
	if in.Version == "" {
		in.Version = m.Version
	} else if m.Version != in.Version {
		// The lock file and the installed package disagree: trust
		// neither's integrity for the code on disk.
		in.Integrity = ""
		in.Version = m.Version
	}
	in.Repository = githubRepo(m.Repository)
	return in, in.Version != ""
}

var githubRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:git\+)?(?:https?|git|ssh)://(?:git@)?github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$`)
})

// githubRepo is the https URL of a package.json "repository" naming a
// GitHub repository, or "": the text is the package author's, so only a
// URL of exactly that shape is shown to a reviewer as a link.
func githubRepo(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var o struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(raw, &o) != nil {
			return ""
		}
		s = o.URL
	}
	if rest, ok := strings.CutPrefix(s, "github:"); ok {
		s = "https://github.com/" + rest
	}
	m := githubRe().FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return "https://github.com/" + m[1] + "/" + m[2]
}

// interpreters run the script named by their first argument that is not
// an option; the script is the artifact then, not the interpreter.
var interpreters = map[string]bool{
	"node": true, "nodejs": true, "python": true, "python3": true, "ruby": true, "perl": true,
	"bash": true, "sh": true, "zsh": true, "deno": true, "bun": true, "tsx": true, "ts-node": true, "php": true,
}

// toolchains build or fetch what they run (go run, cargo run, java -jar
// is left out on purpose: the jar is named by an option): no single file
// is the artifact.
var toolchains = map[string]bool{
	"go": true, "cargo": true, "java": true, "dotnet": true, "cmd": true, "powershell": true, "pwsh": true,
	"uv": true, "npm": true, "pnpm": true, "yarn": true, "env": true,
}

// launchFile is the index of the file a non-package launch runs: -1 for
// the command itself, i >= 0 for args[i] (a script given to an
// interpreter). ok is false when no single file is the artifact (python
// -m, node -e, a toolchain).
func launchFile(command string, args []string) (int, bool) {
	// Either separator: a config written on Windows is read anywhere.
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".cmd")
	if strings.HasPrefix(base, "python") {
		base = "python"
	}
	switch {
	case toolchains[base]:
		return 0, false
	case !interpreters[base]:
		return -1, true
	}
	for i, a := range args {
		switch {
		case a == "-m" || a == "-c" || a == "-e" || a == "--eval" || a == "-p" || a == "--print":
			return 0, false
		case (base == "deno" || base == "bun") && (a == "run" || a == "x"):
			if a == "x" {
				return 0, false
			}
			continue
		case strings.HasPrefix(a, "-"):
			continue
		}
		return i, true
	}
	return 0, false
}

// fileIdentity hashes the file a launch runs. path is where it lies on
// disk (resolved against cwd and the launch's PATH); baseDir is the
// project, whose git repository may track it.
func fileIdentity(path, baseDir string) (sum string, tracked bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), gitTracks(baseDir, path), nil
}

// gitTracks reports whether the git repository of the project at baseDir
// tracks path (after symlinks: a tracked link to a file elsewhere is not
// the file). A path outside the repository, or no git, is not tracked.
func gitTracks(baseDir, path string) bool {
	if baseDir == "" {
		baseDir = "."
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	// A file outside the project directory is not the project's to
	// review: no git to run (most launches; git costs milliseconds), and
	// the stricter verdict (an error, not a note) when in doubt.
	if base, err := filepath.Abs(baseDir); err != nil || !within(base, real) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	top, err := exec.CommandContext(ctx, "git", "-C", baseDir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return false
	}
	root, err := filepath.EvalSymlinks(strings.TrimSpace(string(top)))
	if err != nil {
		return false
	}
	if !within(root, real) {
		return false
	}
	rel, _ := filepath.Rel(root, real)
	return exec.CommandContext(ctx, "git", "-C", root, "ls-files", "--error-unmatch", "--", filepath.ToSlash(rel)).Run() == nil
}

// lookPathIn finds a bare command on the launch's PATH (the config's env
// PATH, else the checker's), as the sandbox's exec would.
func lookPathIn(command string, env map[string]string, cwd string) (string, error) {
	if strings.ContainsAny(command, `/\`) {
		if !filepath.IsAbs(command) && cwd != "" {
			command = filepath.Join(cwd, command)
		}
		return command, nil
	}
	path, ok := env["PATH"]
	if !ok {
		path = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, command)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on the launch's PATH", command)
}

// imageInspect is the part of `docker image inspect` / `podman image
// inspect` output read here: an array of images with their id, the
// registry digests their references resolved to, and (podman) Digest.
type imageInspect struct {
	ID          string   `json:"Id"`
	RepoDigests []string `json:"RepoDigests"`
	Digest      string   `json:"Digest"`
}

var digestOnly = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// imageDigest asks the container CLI the launch used which digest its
// image reference resolved to. The registry digest of the image's
// repository is preferred (what `docker pull NAME@DIGEST` fetches); an
// image only built locally has none, and its image id stands in.
func imageDigest(ctx context.Context, cli, ref, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, cli, "image", "inspect", ref)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s image inspect %s: %v: %s", filepath.Base(cli), ref, err, strings.TrimSpace(truncate(stderr.String(), 300)))
	}
	return parseImageInspect(out, name)
}

// parseImageInspect picks the digest from inspect output (see imageDigest).
func parseImageInspect(out []byte, name string) (string, error) {
	var imgs []imageInspect
	if err := json.Unmarshal(out, &imgs); err != nil {
		return "", fmt.Errorf("image inspect output is not the JSON array expected: %v", err)
	}
	if len(imgs) != 1 {
		return "", fmt.Errorf("image inspect returned %d images", len(imgs))
	}
	img := imgs[0]
	want := normalizeRepo(name)
	var other string
	for _, rd := range img.RepoDigests {
		repo, d, ok := strings.Cut(rd, "@")
		if !ok || !digestOnly().MatchString(d) {
			continue
		}
		if normalizeRepo(repo) == want {
			return d, nil
		}
		if other == "" {
			other = d
		}
	}
	switch {
	case other != "":
		return other, nil
	case digestOnly().MatchString(img.Digest):
		return img.Digest, nil
	case digestOnly().MatchString(img.ID):
		return img.ID, nil
	}
	return "", errors.New("image inspect names no sha256 digest")
}

// normalizeRepo writes a repository name as docker resolves it:
// "alpine" and "library/alpine" are docker.io/library/alpine.
func normalizeRepo(name string) string {
	first, _, _ := strings.Cut(name, "/")
	if !strings.ContainsAny(first, ".:") && first != "localhost" {
		if !strings.Contains(name, "/") {
			name = "library/" + name
		}
		name = "docker.io/" + name
	}
	if rest, ok := strings.CutPrefix(name, "index.docker.io/"); ok {
		name = "docker.io/" + rest
	}
	return name
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// readArtifact reads the identity of what the launch ran, after its
// launches: npx has installed its package by then, docker has pulled its
// image. cfg is the launch as configured (its File is recorded as written,
// placeholders unexpanded); command, args and env as resolved.
func readArtifact(ctx context.Context, t *stdioTarget, a *artifact) {
	cfgArgs := t.s.Args
	if pkg, ok := PackageOf(t.command, t.args); ok {
		switch {
		case pkg.Manager == "npx" || pkg.Manager == "npm exec":
			if _, ok := npmLaunch(t.command, t.args); !ok {
				a.Unidentified = fmt.Sprintf("%s %s is not a registry package (a URL, a git reference or a placeholder): its bytes are not pinned", pkg.Manager, pkg.Spec)
				return
			}
			in, ok := readNpxInstall(npmCacheDir(t.opts, t.env), pkg.Spec, pkg.Name)
			if !ok {
				a.Unidentified = fmt.Sprintf("%s %s: npm installed nothing in the cache the launch used (a local or global install ran), so its version and integrity are unknown", pkg.Manager, pkg.Spec)
				return
			}
			a.Version, a.Integrity, a.Repository = in.Version, in.Integrity, in.Repository
			if a.Integrity == "" {
				a.Unidentified = fmt.Sprintf("%s %s: npm recorded no integrity for %s@%s", pkg.Manager, pkg.Spec, pkg.Name, in.Version)
			}
			if a.Registry == nil && a.RegistryErr != "" {
				a.Unidentified = fmt.Sprintf("%s %s: the registry could not be asked (%s), so the version checked (%s) is the cache's and may not be what a client runs today", pkg.Manager, pkg.Spec, a.RegistryErr, in.Version)
			}
		case strings.HasSuffix(pkg.Manager, " run") && (strings.HasPrefix(pkg.Manager, "docker") || strings.HasPrefix(pkg.Manager, "podman")):
			if strings.Contains(pkg.Spec, "${") {
				a.Unidentified = fmt.Sprintf("%s %s: the image comes from a placeholder", pkg.Manager, pkg.Spec)
				return
			}
			cli, err := lookPathIn(t.command, t.env, "")
			if err == nil {
				a.Digest, err = imageDigest(ctx, cli, pkg.Spec, pkg.Name)
			}
			if err != nil {
				a.Unidentified = fmt.Sprintf("%s %s: the image digest could not be read: %v", pkg.Manager, pkg.Spec, err)
			}
		default:
			// uvx / pipx run / pnpm dlx / bunx: their installs keep no
			// record this checker reads reliably yet.
			a.Unidentified = fmt.Sprintf("%s %s: this checker does not read the artifact %s installs, so its bytes are not pinned; pin an exact version, or launch an installed file", pkg.Manager, pkg.Spec, strings.Fields(pkg.Manager)[0])
		}
		return
	}
	i, ok := launchFile(t.command, t.args)
	if !ok {
		return
	}
	name, written := t.command, t.s.Command
	if i >= 0 {
		name, written = t.args[i], ""
		if i < len(cfgArgs) {
			written = cfgArgs[i]
		}
	}
	path, err := lookPathIn(name, t.env, t.cwd)
	if err == nil {
		a.FileSHA256, a.Tracked, err = fileIdentity(path, t.opts.BaseDir)
	}
	if err != nil {
		a.Unidentified = fmt.Sprintf("the file the launch runs (%s) could not be read: %v", written, err)
		return
	}
	a.File = written
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// ArtifactSwapped says why approving next over prev would accept other
// bytes under the same version (artifact-changed at error level: the same
// npm version with another integrity, a tag moved to another digest, an
// untracked file replaced), or "" when it would not. approve refuses that
// without --force: it is never an ordinary upgrade.
func ArtifactSwapped(prev, next *lock.Server) string {
	if prev == nil || next == nil {
		return ""
	}
	was, now := prev.Launch, next.Launch
	switch {
	case was.Resolved != now.Resolved:
		return "" // a new version: package-changed, approved as usual
	case was.Integrity != "" && now.Integrity != "" && was.Integrity != now.Integrity:
		return fmt.Sprintf("%s: %s@%s has integrity %s, the lock %s", finding.ArtifactChanged, now.Package, now.Resolved, now.Integrity, was.Integrity)
	case was.Digest != "" && now.Digest != "" && was.Digest != now.Digest:
		return fmt.Sprintf("%s: image %s resolves to %s, the lock %s", finding.ArtifactChanged, now.Package, now.Digest, was.Digest)
	case was.FileSHA256 != "" && now.FileSHA256 != "" && was.FileSHA256 != now.FileSHA256 && !now.Tracked:
		return fmt.Sprintf("%s: %s has sha256 %s, the lock %s", finding.ArtifactChanged, now.File, now.FileSHA256, was.FileSHA256)
	}
	return ""
}

// LaunchArtifact reads, launching nothing, the identity of what a stdio
// launch runs as it lies on disk now: for npx / npm exec the install in
// cacheDir (Resolved, Integrity), for a local executable or a script the
// file (File as given, FileSHA256). npm is false for any other launch, and
// the identity is empty then. The guard holds a session to the lock with
// it; env is the launch's (its PATH finds a bare command).
func LaunchArtifact(command string, args []string, env map[string]string, cwd, cacheDir string) (l lock.Launch, npm bool, err error) {
	if pkg, ok := PackageOf(command, args); ok {
		if _, ok := npmLaunch(command, args); !ok {
			return l, false, nil
		}
		l.Package = pkg.Spec
		if in, ok := readNpxInstall(cacheDir, pkg.Spec, pkg.Name); ok {
			l.Resolved, l.Integrity = in.Version, in.Integrity
		}
		return l, true, nil
	}
	i, ok := launchFile(command, args)
	if !ok {
		return l, false, nil
	}
	name := command
	if i >= 0 {
		name = args[i]
	}
	path, err := lookPathIn(name, env, cwd)
	if err != nil {
		return l, false, err
	}
	l.File = name
	l.FileSHA256, _, err = fileIdentity(path, "")
	return l, false, err
}

// NpmPrefetch installs an npx / npm exec launch's package into cacheDir
// the way check's prefetch does (outside any sandbox, --ignore-scripts,
// --prefer-online: the registry's version today, none of its code run).
// The guard uses it when nothing is installed yet, and then compares what
// was installed with the lock before starting anything.
func NpmPrefetch(ctx context.Context, command string, args []string, env map[string]string, cacheDir string) error {
	pkg, ok := npmLaunch(command, args)
	if !ok {
		return fmt.Errorf("%s is not a registry package launch", command)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "prefetch.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, prefetchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "exec", "--yes", "--ignore-scripts", "--no-audit", "--no-fund",
		"--prefer-online", "--loglevel=error", "--package="+pkg.Spec, "--", "true")
	cmd.Dir = tmp
	cmd.Env = npmEnv(env, cacheDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm exec %s: %v: %s", pkg.Spec, err, oneLine(truncate(string(out), 300)))
	}
	return nil
}

// within reports whether path lies in dir (both after symlinks).
func within(dir, path string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
