// Package launchid reads the identity of what a stdio launch runs: the
// package a launcher names (PackageOf), the npm install npx made, the
// image digest, the hash of a local executable or script. check records
// it in the lock and the guard holds a session to it; it is its own
// package so that the guard links none of the check engine.
package launchid

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

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/clip"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// PrefetchTimeout bounds one prefetch: a registry that hangs must not hold
// the whole run.
const PrefetchTimeout = 3 * time.Minute

// Package is a package or image a launch runs, as its arguments name it.
type Package struct {
	// Manager is the launcher: npx, npm exec, pnpm dlx, bunx, uvx, pipx run
	// or docker run.
	Manager string
	// Spec is the package spec or image reference as written
	// ("@scope/pkg@1.2.3", "pkg==1.2.3", "ghcr.io/o/i@sha256:...").
	Spec string
	// Name is the package or image name without a version.
	Name string
	// Version is the exact version or digest named ("" if none).
	Version string
	// Pinned reports whether Spec names exactly one artifact.
	Pinned bool
	// Why says what makes an unpinned spec move ("no version", "tag latest").
	Why string
}

// PackageOf finds the package spec of an npx / npm exec / pnpm dlx / bunx /
// uvx / pipx run / docker run launch. ok is false for any other launch
// (a local binary, node script.js, a remote URL) and for a launch whose
// package it cannot find.
func PackageOf(command string, args []string) (Package, bool) {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(command), ".cmd"), ".exe")
	// cmd /c npx ... (Windows configs) runs the rest as a command.
	if base == "cmd" && len(args) >= 2 && strings.EqualFold(args[0], "/c") {
		return PackageOf(args[1], args[2:])
	}
	sub := func(names ...string) ([]string, bool) {
		if len(args) > 0 {
			for _, n := range names {
				if args[0] == n {
					return args[1:], true
				}
			}
		}
		return nil, false
	}
	switch base {
	case "npx":
		return npmSpec("npx", args)
	case "npm":
		if rest, ok := sub("exec", "x"); ok {
			return npmSpec("npm exec", rest)
		}
	case "pnpx":
		return npmSpec("pnpm dlx", args)
	case "pnpm":
		if rest, ok := sub("dlx"); ok {
			return npmSpec("pnpm dlx", rest)
		}
	case "bunx":
		return npmSpec("bunx", args)
	case "bun":
		if rest, ok := sub("x"); ok {
			return npmSpec("bunx", rest)
		}
	case "uvx":
		return pySpec("uvx", args)
	case "uv":
		if len(args) >= 2 && args[0] == "tool" && args[1] == "run" {
			return pySpec("uvx", args[2:])
		}
	case "pipx":
		if rest, ok := sub("run"); ok {
			return pySpec("pipx run", rest)
		}
	case "docker", "podman":
		if rest, ok := sub("run"); ok {
			return imageSpec(base+" run", rest)
		}
		if len(args) >= 2 && args[0] == "container" && args[1] == "run" {
			return imageSpec(base+" run", args[2:])
		}
	}
	return Package{}, false
}

// npmValueFlags are npx / npm exec / pnpm dlx / bunx options that take a
// value in the next argument.
var npmValueFlags = map[string]bool{
	"-p": true, "--package": true, "-c": true, "--call": true, "--cache": true,
	"--registry": true, "--userconfig": true, "--prefix": true, "-w": true, "--workspace": true,
	"--shell-mode": true, "--reporter": true,
}

// npmSpec finds the package of an npm-family launch: the value of the
// first --package/-p, else the first argument that is not an option.
func npmSpec(manager string, args []string) (Package, bool) {
	spec := npmArgSpec(args)
	if spec == "" {
		return Package{}, false
	}
	p := Package{Manager: manager, Spec: spec}
	p.Name, p.Version = splitNpmSpec(spec)
	switch {
	case isLocalSpec(spec):
		// A local directory or file runs what is on disk: nothing to pin
		// in the registry sense.
		return Package{}, false
	case strings.Contains(spec, "${"):
		p.Why = "the spec comes from a placeholder"
	case strings.Contains(spec, "://") || strings.HasPrefix(spec, "github:") || strings.HasPrefix(spec, "git+"):
		if i := strings.LastIndexByte(spec, '#'); i >= 0 && commitRe().MatchString(spec[i+1:]) {
			p.Version, p.Pinned = spec[i+1:], true
		} else {
			p.Why = "a URL or git reference without a commit"
		}
	case p.Version == "":
		p.Why = "no version"
	case exactSemver().MatchString(p.Version):
		p.Pinned = true
	default:
		p.Why = "version " + p.Version + " is a tag or range"
	}
	return p, true
}

// npmArgSpec is the spec of an npm-family argument list: the value of the
// first --package/-p, else the first argument that is not an option.
func npmArgSpec(args []string) string {
	spec := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if spec == "" && i+1 < len(args) {
				spec = args[i+1]
			}
			break
		}
		if v, ok := strings.CutPrefix(a, "--package="); ok {
			if spec == "" {
				spec = v
			}
			continue
		}
		if strings.HasPrefix(a, "-") {
			if npmValueFlags[a] && i+1 < len(args) {
				if (a == "-p" || a == "--package") && spec == "" {
					spec = args[i+1]
				}
				i++
			}
			continue
		}
		if spec == "" {
			spec = a
		}
		break
	}
	return spec
}

var (
	exactSemver = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	})
	commitRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })
	pyExact  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^===?\s*[0-9A-Za-z.!+_-]+$`) })
	digestRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@sha256:[0-9a-f]{64}$`) })
)

// splitNpmSpec splits "name@version" ("@scope/name@version"): the version
// follows the last @ that is not the scope's.
func splitNpmSpec(spec string) (name, version string) {
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		return spec[:i], spec[i+1:]
	}
	return spec, ""
}

func isLocalSpec(spec string) bool {
	return strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "~") ||
		strings.HasPrefix(spec, "file:") || strings.HasSuffix(spec, ".tgz") && !strings.Contains(spec, "://")
}

// pyValueFlags are uvx / pipx run options that take a value.
var pyValueFlags = map[string]bool{
	"--from": true, "--spec": true, "--with": true, "-w": true, "--python": true, "-p": true,
	"--index-url": true, "-i": true, "--extra-index-url": true, "--index": true, "--default-index": true,
	"--find-links": true, "-f": true, "--with-requirements": true, "--pip-args": true, "--constraint": true,
	"-c": true, "--directory": true, "--cache-dir": true, "--config-file": true, "--env-file": true,
}

// pySpec finds the package of a uvx or pipx run launch: --from / --spec
// when given (the command then names an entry point), else the first
// argument that is not an option.
func pySpec(manager string, args []string) (Package, bool) {
	spec := pyArgSpec(args)
	if spec == "" || isLocalSpec(spec) {
		return Package{}, false
	}
	p := Package{Manager: manager, Spec: spec}
	switch {
	case strings.Contains(spec, "${"):
		p.Name, p.Why = spec, "the spec comes from a placeholder"
	case strings.Contains(spec, "://") || strings.HasPrefix(spec, "git+"):
		p.Name = spec
		if i := strings.LastIndexByte(spec, '@'); i >= 0 && commitRe().MatchString(spec[i+1:]) {
			p.Version, p.Pinned = spec[i+1:], true
		} else {
			p.Why = "a URL or git reference without a commit"
		}
	default:
		pyRequirement(&p, spec)
	}
	return p, true
}

// pyArgSpec is the spec of a uvx or pipx run argument list: --from /
// --spec when given, else the first argument that is not an option.
func pyArgSpec(args []string) string {
	spec, first := "", ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if first == "" && i+1 < len(args) {
				first = args[i+1]
			}
			break
		}
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
			if k == "--from" || k == "--spec" {
				spec = v
			}
			continue
		}
		if strings.HasPrefix(a, "-") {
			if pyValueFlags[a] && i+1 < len(args) {
				if a == "--from" || a == "--spec" {
					spec = args[i+1]
				}
				i++
			}
			continue
		}
		first = a
		break
	}
	if spec == "" {
		spec = first
	}
	return spec
}

// pyRequirement reads name and version of a requirement spec into p:
// name[extras]==1.2.3, name@1.2.3 (uvx), name>=1, name.
func pyRequirement(p *Package, spec string) {
	i := strings.IndexAny(spec, "=<>~!@ ")
	if i < 0 {
		p.Name, p.Why = spec, "no version"
		return
	}
	p.Name = strings.TrimSpace(spec[:i])
	rest := strings.TrimSpace(spec[i:])
	switch {
	case strings.HasPrefix(rest, "@"):
		v := rest[1:]
		p.Version = v
		if exactSemver().MatchString(v) || regexp.MustCompile(`^\d+(\.\d+)*$`).MatchString(v) {
			p.Pinned = true
		} else {
			p.Why = "version " + v + " is not exact"
		}
	case pyExact().MatchString(rest) && !strings.ContainsAny(rest, "*,"):
		p.Version, p.Pinned = strings.TrimSpace(strings.TrimLeft(rest, "=")), true
	default:
		p.Why = "version constraint " + rest + " is a range"
	}
}

// dockerValueFlags are docker/podman run options that take a value in the
// next argument; every other option is taken as a switch.
var dockerValueFlags = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`-e --env --env-file -v --volume --mount -p --publish --name --network --net
		-w --workdir -u --user --entrypoint --platform -l --label --label-file --add-host --cpus -c --cpu-shares
		-m --memory --memory-swap --cap-add --cap-drop --security-opt --tmpfs --device --ulimit --pull --restart
		--runtime --hostname -h --dns --dns-search --dns-option --ipc --pid --uts --userns --log-driver --log-opt
		--cidfile --gpus --shm-size --stop-signal --stop-timeout --expose --link --volumes-from --group-add
		--health-cmd --health-interval --health-retries --health-timeout --health-start-period --ip --ip6
		--mac-address --cgroupns --cgroup-parent --isolation --kernel-memory --network-alias --attach -a
		--blkio-weight --cpu-period --cpu-quota --cpuset-cpus --cpuset-mems --domainname --oom-score-adj
		--pids-limit --storage-opt --sysctl --annotation --device-cgroup-rule --detach-keys`) {
		dockerValueFlags[f] = true
	}
}

// imageArg finds the image reference among a docker run's arguments (those
// after "run"): the first argument that is not an option or an option's
// value. platform is the --platform the run names before it.
func imageArg(args []string) (index int, platform string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if v, found := strings.CutPrefix(a, "--platform="); found {
				platform = v
			}
			if !strings.Contains(a, "=") && dockerValueFlags[a] && i+1 < len(args) {
				if a == "--platform" {
					platform = args[i+1]
				}
				i++
			}
			continue
		}
		return i, platform, true
	}
	return 0, "", false
}

// imageSpec finds the image of a docker run launch: the first argument
// that is not an option. Only a digest pins an image: a tag, even one that
// looks like a version, can be moved to other bytes by whoever can push.
func imageSpec(manager string, args []string) (Package, bool) {
	i, _, ok := imageArg(args)
	if !ok {
		return Package{}, false
	}
	ref := args[i]
	if ref == "" {
		return Package{}, false
	}
	p := Package{Manager: manager, Spec: ref, Name: ref}
	if i := strings.Index(ref, "@"); i >= 0 {
		p.Name, p.Version = ref[:i], ref[i+1:]
		if digestRe().MatchString(ref) {
			p.Pinned = true
			return p, true
		}
		p.Why = "digest " + p.Version + " is not a sha256 digest"
		return p, true
	}
	// A tag follows the last ':' after the last '/' (a registry port is
	// "host:5000/name").
	slash := strings.LastIndexByte(ref, '/')
	if c := strings.LastIndexByte(ref, ':'); c > slash {
		p.Name, p.Version = ref[:c], ref[c+1:]
		p.Why = "tag " + p.Version + " can be moved; pin by digest"
	} else {
		p.Why = "no tag or digest (latest)"
	}
	if strings.Contains(ref, "${") {
		p.Why = "the image comes from a placeholder"
	}
	return p, true
}

// NpxInstall is what an npx / npm exec launch installed: npm (7 and
// later, libnpmexec) installs the packages of one invocation in
// <cache>/_npx/<first 16 hex of sha512 of the spec>, with a
// package-lock.json whose packages["node_modules/NAME"] holds the version
// and the tarball integrity it verified.
type NpxInstall struct {
	Version, Integrity, Repository string
}

// ReadNpxInstall reads the install of spec (package name) in cacheDir. ok
// is false when npm installed nothing there (the package came from a
// local or global install, or the launch failed before installing).
func ReadNpxInstall(cacheDir, spec, name string) (NpxInstall, bool) {
	sum := sha512.Sum512([]byte(spec))
	dir := filepath.Join(cacheDir, "_npx", hex.EncodeToString(sum[:])[:16])
	var in NpxInstall
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
	in.Repository = GithubRepo(m.Repository)
	return in, in.Version != ""
}

var githubRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:git\+)?(?:https?|git|ssh)://(?:git@)?github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$`)
})

// GithubRepo is the https URL of a package.json "repository" naming a
// GitHub repository, or "": the text is the package author's, so only a
// URL of exactly that shape is shown to a reviewer as a link.
func GithubRepo(raw json.RawMessage) string {
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
	"uv": true, "npm": true, "pnpm": true, "yarn": true,
}

// LaunchFile is the index of the file a non-package launch runs: -1 for
// the command itself, i >= 0 for args[i] (a script given to an
// interpreter). ok is false when no single file is the artifact (python
// -m, node -e, a toolchain).
func LaunchFile(command string, args []string) (int, bool) {
	// Either separator: a config written on Windows is read anywhere.
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".cmd")
	if strings.HasPrefix(base, "python") {
		base = "python"
	}
	if base == "env" {
		// env VAR=VALUE... COMMAND ARGS: the artifact is COMMAND's.
		for j, a := range args {
			if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
				continue
			}
			i, ok := LaunchFile(a, args[j+1:])
			if !ok {
				return 0, false
			}
			if i < 0 {
				return j, true
			}
			return j + 1 + i, true
		}
		return 0, false
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

// FileIdentity hashes the file a launch runs. path is where it lies on
// disk (FilePath); baseDir is the
// project, whose git repository may track it.
func FileIdentity(path, baseDir string) (sum string, tracked bool, err error) {
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

// FilePath is where the file of a non-package launch lies (i as
// LaunchFile returns it). The command itself (i < 0) is found as the
// launch's exec finds it (LookPathIn). An interpreter's script (i >= 0) is
// opened as the interpreter opens it: against the launch's working
// directory cwd, with or without a slash in its name, never on PATH
// (node server.mjs, python server.py, deno run main.ts, bun run index.ts).
// Only a shell (sh, bash, zsh, dash, ksh) looks a bare name up on PATH
// when the working directory has no such file, as those shells do.
func FilePath(command string, args []string, i int, env map[string]string, cwd string) (string, error) {
	switch {
	case i < 0:
		return LookPathIn(command, env, cwd)
	case runsCommand(command, args, i):
		return LookPathIn(args[i], env, cwd)
	}
	name := args[i]
	path := name
	if !filepath.IsAbs(path) && cwd != "" {
		path = filepath.Join(cwd, path)
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return path, nil
	}
	if !strings.ContainsAny(name, `/\`) && shells[interpreterBase(command, args)] {
		if p, err := LookPathIn(name, env, cwd); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("%s: not found in the launch's working directory (%s) or on its PATH", name, orDot(cwd))
	}
	return "", fmt.Errorf("%s: not found in the launch's working directory (%s), where the interpreter opens it", name, orDot(cwd))
}

// runsCommand reports whether args[i] is a command env runs (env A=b
// fakemcp), found on PATH as exec finds it, rather than a script.
func runsCommand(command string, args []string, i int) bool {
	b := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	if strings.TrimSuffix(strings.TrimSuffix(b, ".exe"), ".cmd") != "env" {
		return false
	}
	for j, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			return j == i
		}
	}
	return false
}

// shells are the interpreters that look a script named without a slash
// up on PATH when the working directory has none.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true}

// interpreterBase is the base name of the program that reads a launch's
// script: the command, or the command env runs.
func interpreterBase(command string, args []string) string {
	base := func(c string) string {
		b := strings.ToLower(c[strings.LastIndexAny(c, `/\`)+1:])
		return strings.TrimSuffix(strings.TrimSuffix(b, ".exe"), ".cmd")
	}
	if base(command) == "env" {
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
				return base(a)
			}
		}
	}
	return base(command)
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// LookPathIn finds a bare command on the launch's PATH (the config's env
// PATH, else the checker's), as the sandbox's exec would.
func LookPathIn(command string, env map[string]string, cwd string) (string, error) {
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

// ImageRun is where a docker / podman run launch names its container CLI
// and its image.
type ImageRun struct {
	// CLI is the container command as the launch names it (docker,
	// podman, or a path to one).
	CLI string
	// Index is the position of the image reference in the launch's args;
	// Ref is that reference and Name the image name without tag or digest.
	Index     int
	Ref, Name string
	// Platform is the --platform the run asks for ("" when none).
	Platform string
}

// ImageLaunch finds the CLI and the image of a docker / podman run (or
// container run) launch, as PackageOf does; ok is false for any other
// launch.
func ImageLaunch(command string, args []string) (ImageRun, bool) {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(command), ".cmd"), ".exe")
	if base == "cmd" && len(args) >= 2 && strings.EqualFold(args[0], "/c") {
		r, ok := ImageLaunch(args[1], args[2:])
		r.Index += 2
		return r, ok
	}
	if base != "docker" && base != "podman" {
		return ImageRun{}, false
	}
	skip := 0
	switch {
	case len(args) > 0 && args[0] == "run":
		skip = 1
	case len(args) >= 2 && args[0] == "container" && args[1] == "run":
		skip = 2
	default:
		return ImageRun{}, false
	}
	pkg, ok := imageSpec(base+" run", args[skip:])
	if !ok {
		return ImageRun{}, false
	}
	i, platform, _ := imageArg(args[skip:])
	return ImageRun{CLI: command, Index: skip + i, Ref: pkg.Spec, Name: pkg.Name, Platform: platform}, true
}

// ErrInspect is the error of a container CLI's image inspect that failed
// (no such image, no engine to ask): ImageDigest's error wraps it, and not
// when the CLI answered output that names no digest.
var ErrInspect = errors.New("image inspect failed")

type inspectError struct{ msg string }

func (e *inspectError) Error() string        { return e.msg }
func (e *inspectError) Is(target error) bool { return target == ErrInspect }

// imageInspect is the part of `docker image inspect` / `podman image
// inspect` output read here: an array of images with their id, the
// registry digests their references resolved to, and (podman) Digest.
type imageInspect struct {
	ID          string   `json:"Id"`
	RepoDigests []string `json:"RepoDigests"`
	Digest      string   `json:"Digest"`
}

var digestOnly = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// ImageDigest asks the container CLI the launch used which digest its
// image reference resolved to. The registry digest of the image's
// repository is preferred (what `docker pull NAME@DIGEST` fetches); an
// image only built locally has none, and its image id stands in.
func ImageDigest(ctx context.Context, cli, ref, name string) (string, error) {
	return ImageDigestEnv(ctx, cli, ref, name, nil)
}

// ImageDigestEnv is ImageDigest with the CLI run in env (nil: this
// process's environment), where DOCKER_HOST, DOCKER_CONTEXT or
// CONTAINER_HOST choose the engine that is asked.
func ImageDigestEnv(ctx context.Context, cli, ref, name string, env []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, cli, "image", "inspect", ref)
	cmd.Env = env
	cmd.Stderr = &stderr
	// A credential helper the CLI started and left holding the pipe
	// does not hold the read past the deadline.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return "", &inspectError{fmt.Sprintf("%s image inspect %s: %v: %s", filepath.Base(cli), ref, err, strings.TrimSpace(clip.Tail(stderr.String(), 300)))}
	}
	return ParseImageInspect(out, name)
}

// ImagePull pulls ref (for platform, when one is given) with the
// container CLI, in env (nil: this process's environment), bounded by
// PrefetchTimeout. A pull fetches the image's manifest and layers and
// checks them against their digests; it runs nothing of the image. Its
// progress output is kept, and the end of it told on failure.
func ImagePull(ctx context.Context, cli, ref, platform string, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, PrefetchTimeout)
	defer cancel()
	args := []string{"pull"}
	if platform != "" {
		args = append(args, "--platform", platform)
	}
	cmd := exec.CommandContext(ctx, cli, append(args, ref)...)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s pull %s: no answer within %s", filepath.Base(cli), ref, PrefetchTimeout)
	}
	if err != nil {
		return fmt.Errorf("%s pull %s: %v: %s", filepath.Base(cli), ref, err, OneLine(clip.Tail(string(out), 300)))
	}
	return nil
}

// ParseImageInspect picks the digest from inspect output (see ImageDigest).
func ParseImageInspect(out []byte, name string) (string, error) {
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

// LaunchArtifact reads, launching nothing, the identity of what a stdio
// launch runs as it lies on disk now: for npx / npm exec the install in
// cacheDir (Resolved, Integrity), for a local executable or a script the
// file (File as given, FileSHA256). npm is false for any other launch, and
// the identity is empty then. The guard holds a session to the lock with
// it; env is the launch's (its PATH finds a bare command).
func LaunchArtifact(command string, args []string, env map[string]string, cwd, cacheDir string) (l lock.Launch, npm bool, err error) {
	if pkg, ok := PackageOf(command, args); ok {
		if _, ok := NpmLaunch(command, args); !ok {
			return l, false, nil
		}
		l.Package = pkg.Spec
		if in, ok := ReadNpxInstall(cacheDir, pkg.Spec, pkg.Name); ok {
			l.Resolved, l.Integrity = in.Version, in.Integrity
		}
		return l, true, nil
	}
	i, ok := LaunchFile(command, args)
	if !ok {
		return l, false, nil
	}
	name := command
	if i >= 0 {
		name = args[i]
	}
	path, err := FilePath(command, args, i, env, cwd)
	if err != nil {
		return l, false, err
	}
	l.File = name
	l.FileSHA256, _, err = FileIdentity(path, "")
	return l, false, err
}

// NpmPrefetch installs an npx / npm exec launch's package into cacheDir
// the way check's prefetch does (outside any sandbox, --ignore-scripts,
// --prefer-online: the registry's version today, none of its code run).
// The guard uses it when nothing is installed yet, and then compares what
// was installed with the lock before starting anything.
func NpmPrefetch(ctx context.Context, command string, args []string, env map[string]string, cacheDir string) error {
	pkg, ok := NpmLaunch(command, args)
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
	ctx, cancel := context.WithTimeout(ctx, PrefetchTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "exec", "--yes", "--ignore-scripts", "--no-audit", "--no-fund",
		"--prefer-online", "--loglevel=error", "--package="+pkg.Spec, "--", "true")
	cmd.Dir = tmp
	cmd.Env = NpmEnv(env, cacheDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm exec %s: %v: %s", pkg.Spec, err, OneLine(clip.Tail(string(out), 300)))
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

// NpmLaunch is the package of an npx / npm exec launch whose spec names a
// registry package the checker can resolve ("" otherwise: a placeholder,
// a URL, a git reference, a local path).
func NpmLaunch(command string, args []string) (Package, bool) {
	pkg, ok := PackageOf(command, args)
	if !ok || (pkg.Manager != "npx" && pkg.Manager != "npm exec") || pkg.Spec == "" ||
		strings.Contains(pkg.Spec, "${") || strings.HasPrefix(pkg.Spec, "-") ||
		strings.Contains(pkg.Spec, "://") || strings.Contains(pkg.Spec, ":") {
		return Package{}, false
	}
	return pkg, true
}

// NpmEnv is the environment the checker's own npm runs with: the
// checker's, the launch's npm settings (a config that sets
// npm_config_registry launches against that registry, so it is asked
// too), and the cache the sandboxed launch will use.
func NpmEnv(env map[string]string, cache string) []string {
	e := os.Environ()
	for k, v := range env {
		if strings.HasPrefix(strings.ToLower(k), "npm_config_") && !strings.EqualFold(k, "npm_config_cache") {
			e = append(e, k+"="+v)
		}
	}
	return append(e, "npm_config_cache="+cache, "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
}

func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
