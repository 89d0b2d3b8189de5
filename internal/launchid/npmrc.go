package launchid

import (
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// npmDefaultRegistry is the registry npm asks when no setting names
// another.
const npmDefaultRegistry = "https://registry.npmjs.org/"

// npmPlainKeys are the npm settings that cannot change what `npm view
// NAME@VERSION` asks the default registry or what it makes of the answer:
// output, prompts, install-time and init-time choices, timing and retries.
// A setting outside this list (a registry, a scope's registry, a token, a
// proxy, a certificate, `before`, a prefix or another config file) sends
// the question to npm itself. strict-ssl and cafile are read apart.
var npmPlainKeys = map[string]bool{
	"access": true, "audit": true, "audit-level": true, "bin-links": true, "browser": true,
	"cache": true, "color": true, "commit-hooks": true, "editor": true, "engine-strict": true,
	"fetch-retries": true, "fetch-retry-factor": true, "fetch-retry-maxtimeout": true,
	"fetch-retry-mintimeout": true, "fetch-timeout": true, "foreground-scripts": true,
	"fund": true, "git-tag-version": true, "heading": true, "ignore-scripts": true,
	"init-author-email": true, "init-author-name": true, "init-author-url": true,
	"init-license": true, "init-module": true, "init-version": true, "install-links": true,
	"legacy-peer-deps": true, "loglevel": true, "logs-dir": true, "logs-max": true,
	"maxsockets": true, "message": true, "node-options": true, "nodedir": true,
	"omit-lockfile-registry-resolved": true, "package-lock": true, "prefer-online": true,
	"progress": true, "python": true, "save": true, "save-exact": true, "save-prefix": true,
	"script-shell": true, "shell": true, "sign-git-tag": true, "strict-peer-deps": true,
	"timing": true, "unicode": true, "update-notifier": true, "user-agent": true, "yes": true,
}

// npmProcessVars are environment variables that change how npm, or the
// node running it, reaches a registry: proxies, node's own options (which
// can load code or switch its certificate store) and turning certificate
// checks off. NODE_EXTRA_CA_CERTS is read apart.
var npmProcessVars = []string{
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
	"NODE_OPTIONS", "NODE_TLS_REJECT_UNAUTHORIZED", "NODE_USE_ENV_PROXY",
}

// npmPlainConfig reports whether npm, run as npm with environment env and
// working directory cwd, would ask the default registry with nothing but
// the plain settings above, as the checker's own HTTP client can. It reads
// npm's config files where npm reads them (builtin, project, user,
// global) and its npm_config_ variables. Any doubt is an error saying
// what npm itself must be asked about.
//
// roots is whom to trust, as npm does: with a cafile, only its
// certificates (node then ignores every other store); without one, the
// system's roots plus NODE_EXTRA_CA_CERTS's (nil when that is unset).
// Node's own bundled roots are not the system's: the checker may trust a
// root node does not, never one that neither the system nor npm's
// settings name.
func npmPlainConfig(npm, cwd string, env []string) (roots *x509.CertPool, err error) {
	vars := envMap(env)
	for _, k := range npmProcessVars {
		if vars[k] != "" || vars[strings.ToLower(k)] != "" {
			return nil, fmt.Errorf("%s is set", k)
		}
	}
	home := vars["HOME"]
	if home == "" || !filepath.IsAbs(home) {
		return nil, errors.New("HOME is not set")
	}
	// npm's own files: npm is NPM/bin/npm-cli.js, and its builtin config
	// is NPM/npmrc.
	cli, err := filepath.EvalSymlinks(npm)
	if err != nil || filepath.Base(cli) != "npm-cli.js" || filepath.Base(filepath.Dir(cli)) != "bin" {
		return nil, fmt.Errorf("%s is not npm's own npm-cli.js", npm)
	}
	npmPath := filepath.Dir(filepath.Dir(cli))
	// The global config lives under the prefix: PREFIX, or the node that
	// runs npm (its real path, as node reports it) two levels up.
	prefix := vars["PREFIX"]
	if prefix == "" {
		node, err := lookPathIn("node", vars["PATH"])
		if err != nil {
			return nil, errors.New("node is not on the launch's PATH")
		}
		if node, err = filepath.EvalSymlinks(node); err != nil {
			return nil, err
		}
		prefix = filepath.Dir(filepath.Dir(node))
		if d := vars["DESTDIR"]; d != "" {
			prefix = filepath.Join(d, prefix)
		}
	}
	// The project config: the first directory up from cwd holding a
	// package.json or node_modules, else cwd. Workspaces and a project's
	// own settings are npm's to read.
	for dir := cwd; ; dir = filepath.Dir(dir) {
		for _, f := range []string{"package.json", "node_modules"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				return nil, fmt.Errorf("%s is inside a project (%s)", cwd, filepath.Join(dir, f))
			}
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	// Layers from the weakest to the strongest: a later cafile wins.
	var cafile, cafileFrom string
	for _, layer := range []struct{ file, name string }{
		{filepath.Join(npmPath, "npmrc"), "builtin"},
		{filepath.Join(prefix, "etc", "npmrc"), "global"},
		{filepath.Join(home, ".npmrc"), "user"},
		{filepath.Join(cwd, ".npmrc"), "project"},
	} {
		data, err := os.ReadFile(layer.file)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s config %s: %v", layer.name, layer.file, err)
		}
		kv, err := parseNpmrc(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s config %s: %v", layer.name, layer.file, err)
		}
		for k, v := range kv {
			if err := plainSetting(k, v); err != nil {
				return nil, fmt.Errorf("%s config %s: %v", layer.name, layer.file, err)
			}
			if k == "cafile" {
				cafile, cafileFrom = v, layer.file
			}
		}
	}
	for k, v := range vars {
		if len(k) <= len("npm_config_") || !strings.EqualFold(k[:len("npm_config_")], "npm_config_") || v == "" {
			continue
		}
		key := k[len("npm_config_"):]
		if strings.HasPrefix(key, "//") {
			return nil, fmt.Errorf("%s is set", k)
		}
		key = strings.ToLower(key[:1] + strings.ReplaceAll(key[1:], "_", "-"))
		if err := plainSetting(key, v); err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		if key == "cafile" {
			cafile, cafileFrom = v, k
		}
	}
	if cafile == "" {
		return extraRoots(vars["NODE_EXTRA_CA_CERTS"])
	}
	pem, err := os.ReadFile(cafile)
	if err != nil {
		return nil, fmt.Errorf("cafile (%s): %v", cafileFrom, err)
	}
	roots = x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("cafile %s (%s) holds no certificate", cafile, cafileFrom)
	}
	return roots, nil
}

// extraRoots is the system's roots plus the certificates of file
// (NODE_EXTRA_CA_CERTS), nil for the system's alone when file is "".
func extraRoots(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("NODE_EXTRA_CA_CERTS: %v", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		return nil, fmt.Errorf("the system's certificates: %v", err)
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("NODE_EXTRA_CA_CERTS %s holds no certificate", file)
	}
	return roots, nil
}

// plainSetting accepts the settings of npmPlainKeys, strict-ssl left on,
// and an absolute cafile.
func plainSetting(key, value string) error {
	switch {
	case npmPlainKeys[key]:
		return nil
	case key == "strict-ssl" && value == "true":
		return nil
	case key == "cafile" && filepath.IsAbs(value) && !strings.Contains(value, "${"):
		return nil
	}
	return fmt.Errorf("sets %s", key)
}

// parseNpmrc reads an .npmrc the way npm's ini reader does, for what
// npmPlainConfig needs: key = value lines, ; and # comments, quoted
// values, key[] arrays. A section header, or a key holding a variable,
// is refused: both are npm's to read.
func parseNpmrc(data string) (map[string]string, error) {
	kv := map[string]string{}
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			return nil, fmt.Errorf("line %d: a section", i+1)
		}
		key, value, hasValue := strings.Cut(line, "=")
		key, value = unquoteIni(strings.TrimSpace(key)), unquoteIni(strings.TrimSpace(value))
		key = strings.TrimSuffix(key, "[]")
		if key == "" || strings.Contains(key, "${") {
			return nil, fmt.Errorf("line %d: a key npm expands", i+1)
		}
		if !hasValue {
			value = "true"
		}
		kv[key] = value
	}
	return kv, nil
}

func unquoteIni(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// envMap is env as a map, the last of a repeated name winning as it does
// for a process started with env.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// lookPathIn is exec.LookPath on the PATH list path.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
