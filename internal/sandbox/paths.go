package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// systemRO are the system paths Strict makes readable and executable. As
// measured (docs/design.md#measured-facts), node "needs /usr, /lib64, its
// install prefix (the whole npm prefix: hoisted dependencies), and
// /etc/ssl/openssl.cnf readable (denying it is fatal, a missing file is
// fine); npx needs all of /usr". /etc is narrowed to what the C library,
// TLS, time zones and interpreters read: /etc as a whole holds host keys
// (/etc/ssh), /etc/shadow (readable by a root sandboxee) and service
// credentials. Missing entries are skipped.
var systemRO = []string{
	"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/nix/store",
	"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/crypto-policies",
	"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/ld.so.preload", "/etc/localtime", "/etc/timezone", "/etc/passwd", "/etc/group",
	"/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf",
	"/etc/services", "/etc/protocols", "/etc/mime.types", "/etc/os-release",
	"/etc/lsb-release", "/etc/debian_version", "/etc/locale.alias", "/etc/locale.conf",
	"/etc/default/locale",
}

// strictBaseRO is what every Strict launch of this Run can read: the system
// paths, the user's real package caches (see Options.CacheDir) and
// Options.ReadOnly.
func (r *Run) strictBaseRO() []string {
	ro := append([]string(nil), systemRO...)
	for _, pat := range []string{"/etc/python3*", "/etc/node*"} {
		if m, err := filepath.Glob(pat); err == nil {
			ro = append(ro, m...)
		}
	}
	if !r.cacheRW {
		for _, d := range r.caches {
			if r.safeGrant(d) {
				ro = append(ro, d)
			}
		}
	}
	for _, p := range r.opts.ReadOnly {
		if abs, err := filepath.Abs(p); err == nil {
			ro = append(ro, abs)
		}
	}
	return dedupe(ro)
}

// commandRO adds, for one launch, what the command itself needs: the
// executable, its install prefix and node_modules tree, the same for the
// interpreter its #! line names, the working directory the config gave, and
// CA files the environment points at.
func (r *Run) commandRO(path, pathEnv, dir string, env map[string]string) []string {
	ro := append([]string(nil), r.baseRO...)
	ro = append(ro, r.installGrants(path)...)
	if interp := shebang(path); interp != "" {
		if p, err := lookPath(interp, pathEnv, dir); err == nil {
			ro = append(ro, r.installGrants(p)...)
		}
	}
	// The config's cwd (the caller has checked that it lies in the
	// repository's work tree), without its .git.
	if dir != "" && dir != r.work {
		ro = append(ro, r.dirGrants(dir)...)
	}
	// Certificate variables come from the config, that is from the pull
	// request: `"SSL_CERT_DIR": "/"` must not open the filesystem, nor
	// NODE_EXTRA_CA_CERTS=~/.ssh/id_rsa the key. Only paths that resolve
	// under the system's certificate directories are granted; the server
	// still gets the variable, and a path it cannot read.
	for _, k := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS"} {
		if v := env[k]; filepath.IsAbs(v) && underCertDirs(v) {
			ro = append(ro, v)
		}
	}
	return dedupe(ro)
}

// certDirs are where systems keep CA certificates.
var certDirs = []string{
	"/etc/ssl", "/etc/pki", "/etc/ca-certificates", "/etc/crypto-policies",
	"/usr/share/ca-certificates", "/usr/local/share/ca-certificates",
	"/usr/lib/ssl", "/usr/local/etc/openssl", "/opt/homebrew/etc/openssl",
}

// underCertDirs reports whether p, symlinks resolved, lies under one of
// certDirs.
func underCertDirs(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	for _, d := range certDirs {
		if isAncestorOrSelf(d, real) {
			return true
		}
		if rd, err := filepath.EvalSymlinks(d); err == nil && isAncestorOrSelf(rd, real) {
			return true
		}
	}
	return false
}

// dirGrants makes a working directory readable without what a checkout
// keeps secret: when dir holds .git (the repository root, where the
// checkout token sits in .git/config), each entry beside .git is granted
// instead of dir itself. The same goes for a directory that holds what no
// grant may reach (the temp directory, the run directory, the real HOME: a
// project whose TMPDIR lies inside it): its other entries are granted, and
// the way down to what must stay out is walked. An entry that is a symlink
// is granted only when it resolves inside dir: a committed link to ~/.ssh
// must not open it.
func (r *Run) dirGrants(dir string) []string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !filepath.IsAbs(real) || real == string(filepath.Separator) || r.denied(real) || r.keptSelf(real) {
		return nil
	}
	return r.treeGrants(real, real, 0)
}

// maxGrantDepth bounds how far treeGrants walks down to what must stay out.
const maxGrantDepth = 8

// treeGrants grants dir, or its entries when dir holds .git or what no
// grant may reach; root is the working directory symlinks must stay in.
func (r *Run) treeGrants(root, dir string, depth int) []string {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil && !r.contains(dir) {
		return []string{dir}
	}
	if depth >= maxGrantDepth {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Name() == ".git" {
			continue
		}
		p, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name()))
		if err != nil || !isAncestorOrSelf(root, p) || p == root || p == dir || r.denied(p) {
			continue
		}
		if r.contains(p) {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() && !r.keptSelf(p) {
				out = append(out, r.treeGrants(root, p, depth+1)...)
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

// kept are the directories no grant may reach into: the real HOME, the
// temp directory and the run directory.
func (r *Run) kept() []string { return []string{r.realHome, os.TempDir(), r.dir} }

// contains reports whether p holds (or is) one of the kept directories.
func (r *Run) contains(p string) bool {
	for _, k := range r.kept() {
		if k == "" {
			continue
		}
		if isAncestorOrSelf(p, k) {
			return true
		}
		if rk, err := filepath.EvalSymlinks(k); err == nil && isAncestorOrSelf(p, rk) {
			return true
		}
	}
	return false
}

// keptSelf reports whether p is itself one of the kept directories.
func (r *Run) keptSelf(p string) bool {
	for _, k := range r.kept() {
		if k == "" {
			continue
		}
		if k == p {
			return true
		}
		if rk, err := filepath.EvalSymlinks(k); err == nil && rk == p {
			return true
		}
	}
	return false
}

// scriptGrants makes the scripts a command runs readable: `node
// /abs/server/dist/index.js` names its program as an argument, and node
// then needs the file and the node_modules its imports resolve in. Only
// existing regular files with a script's extension, or executables, are
// granted, with the same install prefixes as the command itself.
func (r *Run) scriptGrants(args []string, dir string) []string {
	var ro []string
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) {
			if dir == "" || strings.HasPrefix(a, "-") {
				continue
			}
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".js", ".mjs", ".cjs", ".ts", ".mts", ".py", ".rb", ".jar":
		default:
			if fi.Mode().Perm()&0o111 == 0 {
				continue
			}
		}
		ro = append(ro, r.installGrants(p)...)
	}
	return ro
}

// installGrants is an executable, its symlink target, and the prefixes it
// was installed under: the parent of its bin/ directory (node's prefix, a
// venv) and the outermost node_modules on its real path (an npm package's
// hoisted dependencies sit beside it, not under it). The brief said "the
// directory containing node_modules"; granting node_modules itself is
// enough for node's resolver and keeps a project's own files (its .env)
// out of reach. Prefixes that would expose the real HOME or the temp
// directory as a whole are dropped; the executable itself is granted unless
// it lies where nothing may be granted ([Run.denied]).
func (r *Run) installGrants(path string) []string {
	paths := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		paths = append(paths, real)
	}
	var grants []string
	for _, p := range paths {
		if r.denied(p) {
			// An executable under ~/.ssh or .git is not run: it cannot
			// be read, so the launch fails and the server is held.
			return nil
		}
		grants = append(grants, p)
	}
	for _, p := range paths {
		var cands []string
		if bin := filepath.Dir(p); filepath.Base(bin) == "bin" || filepath.Base(bin) == "sbin" {
			cands = append(cands, filepath.Dir(bin))
		}
		const nm = string(filepath.Separator) + "node_modules"
		if i := strings.Index(p, nm+string(filepath.Separator)); i >= 0 {
			cands = append(cands, p[:i+len(nm)])
		}
		for _, c := range cands {
			if r.safeGrant(c) {
				grants = append(grants, c)
			}
		}
	}
	return grants
}

// safeGrant reports whether an automatically derived path may be granted:
// never the root, nor anything that contains the real HOME, the temp
// directory or the run directory (a binary in ~/bin must not open ~).
func (r *Run) safeGrant(p string) bool {
	if p == "" || !filepath.IsAbs(p) || p == string(filepath.Separator) {
		return false
	}
	for _, keep := range []string{r.realHome, os.TempDir(), r.dir} {
		if isAncestorOrSelf(p, keep) {
			return false
		}
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p && !r.safeGrant(real) {
		return false
	}
	return !r.denied(p)
}

// sensitiveHome are the places under a user's HOME that hold credentials.
// An install prefix under HOME (~/.nvm, ~/.local) may be granted; these
// never are, whatever path leads to them.
var sensitiveHome = []string{
	".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".gnupg",
	".kube", ".docker", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".yarnrc",
	".yarnrc.yml", ".bash_history", ".zsh_history", ".python_history", ".node_repl_history",
	".password-store", ".vault-token", ".terraform.d", ".cargo/credentials", ".cargo/credentials.toml",
	".config/op", ".config/mcp", ".claude", ".claude.json", ".cursor", ".codeium",
	"Library/Application Support", "Library/Keychains", ".config/Code/User",
}

// denied reports whether p lies where no grant may reach, whatever asked
// for it: the kernel's views of processes and devices (/proc shows the
// checker's environment; Strict mounts its own), any .git directory (the
// checkout token), the runner's own directories (RUNNER_TEMP holds the
// files behind GITHUB_ENV and GITHUB_PATH, and the binaries later steps
// run), and the credential stores under the real HOME.
func (r *Run) denied(p string) bool {
	p = filepath.Clean(p)
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		if isAncestorOrSelf(d, p) {
			return true
		}
	}
	for _, el := range strings.Split(p, string(filepath.Separator)) {
		if el == ".git" {
			return true
		}
	}
	for _, k := range []string{"RUNNER_TEMP", "RUNNER_WORKSPACE_TEMP", "RUNNER_TRACKING_ID_DIR"} {
		if v, _ := r.getenv(k); v != "" && filepath.IsAbs(v) && (isAncestorOrSelf(v, p) || isAncestorOrSelf(p, v)) {
			return true
		}
	}
	// The runner's own installation (its .credentials and .runner files,
	// its _diag logs). Tool caches (setup-node's node) are install
	// prefixes and stay allowed.
	for _, el := range []string{"/actions-runner", "/runners", "/_diag"} {
		if strings.Contains(p+"/", el+"/") {
			return true
		}
	}
	if r.realHome != "" {
		for _, s := range sensitiveHome {
			if isAncestorOrSelf(filepath.Join(r.realHome, s), p) {
				return true
			}
		}
	}
	return false
}

// shebang returns the interpreter a script's #! line names: the program
// itself, or for `#!/usr/bin/env [-S] prog` the program env looks up.
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	buf = buf[:n]
	if !bytes.HasPrefix(buf, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(buf[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) != "env" {
		return fields[0]
	}
	for _, f := range fields[1:] {
		if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
			continue
		}
		return f
	}
	return ""
}
