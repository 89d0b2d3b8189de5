package check

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/launchid"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/sandbox"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// launchHygiene reports launches that can run different code tomorrow
// under the same config (unpinned-package), artifacts that differ from the
// lock's (package-changed: another version; artifact-changed: the same
// version or file with other bytes) and package launches whose artifact
// could not be identified (artifact-unidentified).
func launchHygiene(run *serverRun, ls *lock.Server) []finding.Finding {
	name := run.cfg.Name
	var out []finding.Finding
	pkg, isPkg := launchid.PackageOf(run.cfg.Command, run.cfg.Args)
	if isPkg && !pkg.Pinned {
		f := finding.New(finding.UnpinnedPackage, name)
		f.Kind, f.Subject, f.Field = finding.KindServer, name, "launch"
		f.Message = fmt.Sprintf("%s launch of %q names no exact version or digest (%s): the same config can run different code tomorrow", pkg.Manager, pkg.Spec, pkg.Why)
		f.After = pkg.Spec
		out = append(out, f)
	}
	if run.art.Unidentified != "" && run.held == "" {
		f := finding.New(finding.ArtifactUnidentified, name)
		f.Kind, f.Subject, f.Field = finding.KindServer, name, "launch"
		f.Message = run.art.Unidentified
		// The lock pins an identity and nothing of it could be read
		// now: nothing was compared, so the check does not pass on
		// that account (fail closed).
		if ls != nil && (ls.Launch.Resolved != "" || ls.Launch.Integrity != "" || ls.Launch.Digest != "" || ls.Launch.FileSHA256 != "") &&
			run.art.Version == "" && run.art.Integrity == "" && run.art.Digest == "" && run.art.FileSHA256 == "" {
			f.Severity = finding.Error
			f.Message += "; the lock pins what this launch runs, and none of it could be compared"
		}
		out = append(out, f)
	}
	if ls == nil || run.held != "" {
		return out
	}
	was, now := ls.Launch, run.art
	if was.Resolved != "" && now.Version != "" && was.Resolved != now.Version {
		f := finding.New(finding.PackageChanged, name)
		f.Kind, f.Subject, f.Field = finding.KindServer, name, "launch/resolved"
		f.Message = fmt.Sprintf("%s resolved to %s; the lock has %s: new code runs under the same tools, so review it before approving", pkg.Name, now.Version, was.Resolved)
		f.Before, f.After = was.Resolved, now.Version
		f.Detail = reviewLinks(pkg.Name, was.Resolved, now.Version, now.Repository, now.Registry)
		if now.Py != nil {
			f.Detail = pyReviewLinks(pkg.Name, was.Resolved, now.Version, now.Py.Page)
		}
		out = append(out, f)
		return out
	}
	changed := func(field, before, after, why string) {
		f := finding.New(finding.ArtifactChanged, name)
		f.Kind, f.Subject, f.Field = finding.KindServer, name, "launch/"+field
		f.Before, f.After = before, after
		f.Message = why
		if field == "fileSha256" && now.Tracked {
			f.Severity = finding.Note
			f.Message += " The file is tracked in this repository: its change is in the pull request's diff."
		}
		out = append(out, f)
	}
	switch {
	case was.Distribution != "" && now.Distribution != "" && was.Distribution != now.Distribution:
		changed("distribution", was.Distribution, now.Distribution, fmt.Sprintf("%s %s now installs %s (sha256 %s); the lock has %s: the release gained or lost a file (a wheel uploaded after the sdist, say), so other code runs under the same version. Review the new file before approving.", pkg.Name, now.Version, now.Distribution, strings.TrimPrefix(now.Integrity, "sha256:"), was.Distribution))
	case was.Integrity != "" && now.Integrity != "" && was.Integrity != now.Integrity && now.Distribution != "":
		changed("integrity", was.Integrity, now.Integrity, fmt.Sprintf("%s of %s %s was served with other bytes than the lock's: Python indexes never let a file name be uploaded twice, so the same file with a different sha256 means a compromised index, mirror or cache. Do not approve it unless you know why.", now.Distribution, pkg.Name, now.Version))
	case was.Integrity != "" && now.Integrity != "" && was.Integrity != now.Integrity:
		changed("integrity", was.Integrity, now.Integrity, fmt.Sprintf("%s@%s was served with other bytes than the lock's: npm never lets a published version be republished, so the same version with a different integrity means a compromised registry, mirror or cache. Do not approve it unless you know why.", pkg.Name, now.Version))
	case was.Digest != "" && now.Digest != "" && was.Digest != now.Digest:
		changed("digest", was.Digest, now.Digest, fmt.Sprintf("image %s now resolves to %s, the lock has %s: the tag was moved to other bytes (a push to the tag, or a compromised registry). Pin the image by digest, and review the new image before approving.", pkg.Spec, now.Digest, was.Digest))
	case was.FileSHA256 != "" && now.FileSHA256 != "" && was.FileSHA256 != now.FileSHA256 && was.File == now.File:
		// Another file named (a script path with the new release's
		// version in it) is launch-changed, not these bytes replaced.
		changed("fileSha256", was.FileSHA256, now.FileSHA256, fmt.Sprintf("the file the launch runs (%s) has other bytes than the lock's: a program outside review was replaced, and the same tools do not mean the same code.", now.File))
	}
	return out
}

// missingIdentity is the note for a lock written before artifact
// identities were recorded: the run read identities the lock cannot
// compare, which pin adds. It is a note: an old lock alone never fails.
func missingIdentity(run *serverRun, ls *lock.Server) string {
	if ls == nil || run.held != "" {
		return ""
	}
	var miss []string
	add := func(has bool, live, what string) {
		if !has && live != "" {
			miss = append(miss, what)
		}
	}
	l := ls.Launch
	add(l.Resolved != "", run.art.Version, "the package version")
	if run.art.Distribution != "" {
		add(l.Integrity != "", run.art.Integrity, "the distribution's sha256")
	} else {
		add(l.Integrity != "", run.art.Integrity, "the tarball integrity")
	}
	add(l.Digest != "", run.art.Digest, "the image digest")
	add(l.FileSHA256 != "", run.art.FileSHA256, "the file's sha256")
	if len(miss) == 0 {
		return ""
	}
	return "the lock does not record " + strings.Join(miss, ", ") + " of this launch, so it was not compared; `mcp-lockcheck pin` adds it"
}

// reviewLinks are links a reviewer can follow to the code difference
// between two versions: the source repository's compare view when the
// package names a GitHub repository, and the registry's pages of both
// versions (npmjs.com for the public registry, the tarballs otherwise).
func reviewLinks(name, before, after, repo string, reg *registryAnswer) string {
	var l []string
	if repo != "" {
		l = append(l, fmt.Sprintf("compare: %s/compare/v%s...v%s", repo, before, after))
	}
	if reg == nil || strings.HasPrefix(reg.Tarball, "https://registry.npmjs.org/") {
		l = append(l, fmt.Sprintf("npm: https://www.npmjs.com/package/%s/v/%s and https://www.npmjs.com/package/%s/v/%s", name, before, name, after))
	} else {
		l = append(l, "registry tarball of "+after+": "+reg.Tarball)
	}
	return strings.Join(l, "; ")
}

// pyReviewLinks are the Python counterpart of reviewLinks: PyPI's pages
// of both versions for the public index, the index's project page
// otherwise.
func pyReviewLinks(name, before, after, page string) string {
	if strings.HasPrefix(page, launchid.DefaultPyIndex) {
		return fmt.Sprintf("PyPI: https://pypi.org/project/%s/%s/ and https://pypi.org/project/%s/%s/", name, before, name, after)
	}
	return "index page: " + page
}

// liveLaunch is the launch identity of the configured server as checked:
// pinned.Launch and the network allowance it was given.
func liveLaunch(run *serverRun) lock.Launch {
	l := pinned.Launch(run.cfg)
	l.Network = run.network
	return l
}

// launchRecord is the launch identity the lock records for a probed
// server: pinned.Launch plus, for a package launch, the package spec, and
// the artifact the launch ran (artifact.record).
func launchRecord(run *serverRun) lock.Launch {
	l := liveLaunch(run)
	if pkg, ok := launchid.PackageOf(run.cfg.Command, run.cfg.Args); ok {
		l.Package = pkg.Spec
	}
	if l.Type == "stdio" || l.Type == "" {
		run.art.record(&l)
	}
	return l
}

// resolvedVersion is the version an npx / npm exec launch actually ran,
// read offline from the npm cache the sandbox gave the server:
// npm installs the packages of one `npx` invocation in
// <cache>/_npx/<first 16 hex of sha512 of the sorted specs joined by
// "\n">/node_modules (npm 7 and later, libnpmexec). It returns "" when the
// launch is not an npm one, the spec came from a placeholder, or npm
// found the package elsewhere (a local or global install): the version is
// then unknown rather than guessed. serverInfo.version is not used as a
// fallback: the server says what it likes there, and server-info-changed
// already reports it.
func resolvedVersion(command string, args []string, cacheDir string) string {
	pkg, ok := launchid.PackageOf(command, args)
	if !ok || cacheDir == "" || (pkg.Manager != "npx" && pkg.Manager != "npm exec") {
		return ""
	}
	if strings.Contains(pkg.Spec, "${") || strings.Contains(pkg.Spec, "://") {
		return ""
	}
	sum := sha512.Sum512([]byte(pkg.Spec))
	dir := filepath.Join(cacheDir, "_npx", hex.EncodeToString(sum[:])[:16])
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg.Name), "package.json"))
	if err != nil {
		return ""
	}
	var m struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	return m.Version
}

// npmCacheDir is the npm cache a server's npx used: the config's own
// npm_config_cache, else the one the sandbox points it at (see
// sandbox.Options.CacheDir), else the user's.
func npmCacheDir(opts *Options, env map[string]string) string {
	for _, k := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v := env[k]; v != "" {
			return v
		}
	}
	if opts.Sandbox.CacheDir != "" && opts.Sandbox.Level != sandbox.Off {
		if root, err := filepath.Abs(opts.Sandbox.CacheDir); err == nil {
			return filepath.Join(root, "npm")
		}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	for _, k := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v, ok := getenv(k); ok && v != "" {
			return v
		}
	}
	if home, ok := getenv("HOME"); ok && home != "" {
		return filepath.Join(home, ".npm")
	}
	return ""
}

// envDependence reports each launch field that expands a variable the
// config does not set (launch-depends-on-environment): the lock records
// the template, so CI may approve one expansion while a developer runs
// another. A warning, and an error for a variable CI sets (CI, GITHUB_*,
// RUNNER_*): then the two differ by construction. With a default both
// expansions are named, as templates: a variable's value may be a secret.
func envDependence(cfg config.Server) []finding.Finding {
	var out []finding.Finding
	for _, r := range cfg.EnvRefs() {
		f := finding.New(finding.LaunchDependsOnEnv, cfg.Name)
		f.Kind, f.Subject, f.Field = finding.KindServer, cfg.Name, r.Field
		ci := ""
		if config.CISets(r.Var) {
			f.Severity = finding.Error
			ci = " (CI sets it)"
		}
		if r.HasDefault {
			f.Message = fmt.Sprintf("%s expands %s, which the config does not set%s: %q where it is set, %q where it is not; the lock records only the template",
				r.Field, r.Var, ci, r.WhenSet, r.WhenUnset)
		} else {
			f.Message = fmt.Sprintf("%s expands %s, which the config does not set%s: what runs depends on where it runs; the lock records only the template %q",
				r.Field, r.Var, ci, r.Template)
		}
		out = append(out, f)
	}
	return out
}

// unknownKeys reports each key of the server's config entry that its
// format does not accept (unknown-config-key): the client ignores it, so
// "arg" for "args" would launch the server without its arguments, silently.
// The message carries the file and line of the key itself.
func unknownKeys(cfg config.Server) []finding.Finding {
	var out []finding.Finding
	for _, w := range cfg.UnknownKeys {
		f := finding.New(finding.UnknownConfigKey, cfg.Name)
		f.Kind, f.Subject, f.Field = finding.KindServer, cfg.Name, w.Key
		f.File, f.Line = cfg.File, w.Line
		where := cfg.File
		if w.Line > 0 {
			where = fmt.Sprintf("%s:%d", cfg.File, w.Line)
		}
		f.Message = where + ": " + w.Message()
		out = append(out, f)
	}
	return out
}
