package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"

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
	// Distribution is the Python distribution's file name (uvx / pipx
	// run); Py is what its index answered before the launch, PyErr why
	// it could not be asked or read.
	Distribution string
	Py           *launchid.PyRelease
	PyErr        string
}

// record writes the identity into a lock launch.
func (a *artifact) record(l *lock.Launch) {
	l.Resolved, l.Integrity, l.Distribution, l.Digest = a.Version, a.Integrity, a.Distribution, a.Digest
	l.File, l.FileSHA256, l.Tracked = a.File, a.FileSHA256, a.Tracked
}

// readArtifact reads the identity of what the launch ran, after its
// launches: npx has installed its package by then, docker has pulled its
// image. cfg is the launch as configured (its File is recorded as written,
// placeholders unexpanded); command, args and env as resolved.
func readArtifact(ctx context.Context, t *stdioTarget, a *artifact) {
	cfgArgs := t.s.Args
	if pkg, ok := launchid.PackageOf(t.command, t.args); ok {
		switch {
		case pkg.Manager == "npx" || pkg.Manager == "npm exec":
			if _, ok := launchid.NpmLaunch(t.command, t.args); !ok {
				a.Unidentified = fmt.Sprintf("%s %s is not a registry package (a URL, a git reference or a placeholder): its bytes are not pinned", pkg.Manager, pkg.Spec)
				return
			}
			in, ok := launchid.ReadNpxInstall(npmCacheDir(t.opts, t.env), pkg.Spec, pkg.Name)
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
			cli, err := launchid.LookPathIn(t.command, t.env, "")
			if err == nil {
				a.Digest, err = launchid.ImageDigest(ctx, cli, pkg.Spec, pkg.Name)
			}
			if err != nil {
				a.Unidentified = fmt.Sprintf("%s %s: the image digest could not be read: %v", pkg.Manager, pkg.Spec, err)
			}
		case pkg.Manager == "uvx" || pkg.Manager == "pipx run":
			if a.Py == nil {
				a.Unidentified = fmt.Sprintf("%s %s: %s, so its bytes are not pinned", pkg.Manager, pkg.Spec, orUnknown(a.PyErr))
				return
			}
			a.Version, a.Integrity, a.Distribution = a.Py.Version, a.Py.Integrity(), a.Py.File
		default:
			// pnpm dlx / bunx: what the registry resolves the spec to
			// today, the release a fresh install runs.
			if a.Registry == nil {
				a.Unidentified = fmt.Sprintf("%s %s: %s, so its bytes are not pinned", pkg.Manager, pkg.Spec, orUnknown(a.RegistryErr))
				return
			}
			a.Version, a.Integrity = a.Registry.Version, a.Registry.Integrity
		}
		return
	}
	i, ok := launchid.LaunchFile(t.command, t.args)
	if !ok {
		return
	}
	written := t.s.Command
	if i >= 0 {
		written = ""
		if i < len(cfgArgs) {
			written = cfgArgs[i]
		}
	}
	cwd := t.cwd
	if cwd == "" {
		// A user-level config's server starts in the sandbox's own
		// project directory (workDir).
		cwd = t.sb.WorkDir()
	}
	path, err := launchid.FilePath(t.command, t.args, i, t.env, cwd)
	if err == nil {
		a.FileSHA256, a.Tracked, err = launchid.FileIdentity(path, t.opts.BaseDir)
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
	case was.Distribution != "" && now.Distribution != "" && was.Distribution != now.Distribution:
		return "" // another file of the release (a wheel added later): reviewed as a new file
	case was.Integrity != "" && now.Integrity != "" && was.Integrity != now.Integrity:
		return fmt.Sprintf("%s: %s@%s has integrity %s, the lock %s", finding.ArtifactChanged, now.Package, now.Resolved, now.Integrity, was.Integrity)
	case was.Digest != "" && now.Digest != "" && was.Digest != now.Digest:
		return fmt.Sprintf("%s: image %s resolves to %s, the lock %s", finding.ArtifactChanged, now.Package, now.Digest, was.Digest)
	case was.FileSHA256 != "" && now.FileSHA256 != "" && was.FileSHA256 != now.FileSHA256 && was.File == now.File && !now.Tracked:
		return fmt.Sprintf("%s: %s has sha256 %s, the lock %s", finding.ArtifactChanged, now.File, now.FileSHA256, was.FileSHA256)
	}
	return ""
}
