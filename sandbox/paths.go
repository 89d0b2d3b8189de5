package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// systemRO are the system paths Strict makes readable and executable.
// DESIGN: node "needs /usr, /lib64, its install prefix (the whole npm
// prefix: hoisted dependencies), and /etc/ssl/openssl.cnf readable (denying
// it is fatal, a missing file is fine); npx needs all of /usr". /etc is
// narrowed to what the C library, TLS, time zones and interpreters read:
// /etc as a whole holds host keys (/etc/ssh), /etc/shadow (readable by a
// root sandboxee) and service credentials. Missing entries are skipped.
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
	// The config's cwd, unless it would open the real HOME (or /tmp) as a
	// whole: the server still starts there, but to read it the caller must
	// say so in Options.ReadOnly.
	if dir != "" && dir != r.work && r.safeGrant(dir) {
		ro = append(ro, dir)
	}
	for _, k := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS"} {
		if v := env[k]; filepath.IsAbs(v) {
			ro = append(ro, v)
		}
	}
	return dedupe(ro)
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
// directory as a whole are dropped; the executable itself is always granted.
func (r *Run) installGrants(path string) []string {
	grants := []string{path}
	paths := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		grants = append(grants, real)
		paths = append(paths, real)
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
	return true
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
