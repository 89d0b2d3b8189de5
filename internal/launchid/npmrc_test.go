package launchid

import (
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npmTree is a fake npm install as npmPlainConfig reads one: npm's own
// npm-cli.js behind a bin/npm link, a node beside it, a HOME and an empty
// working directory.
type npmTree struct {
	root, npm, home, cwd string
	env                  []string
}

// newNpmTree builds it; script is npm-cli.js's body (a shell script).
func newNpmTree(t *testing.T, script string) npmTree {
	t.Helper()
	root := t.TempDir()
	pkg := filepath.Join(root, "lib", "node_modules", "npm")
	for _, d := range []string{filepath.Join(pkg, "bin"), filepath.Join(root, "bin"), filepath.Join(root, "etc"), filepath.Join(root, "home"), filepath.Join(root, "cwd")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cli := filepath.Join(pkg, "bin", "npm-cli.js")
	writeFile(t, cli, "#!/bin/sh\n"+script)
	if err := os.Chmod(cli, 0o755); err != nil {
		t.Fatal(err)
	}
	npm := filepath.Join(root, "bin", "npm")
	if err := os.Symlink(cli, npm); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "bin", "node"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(root, "bin", "node"), 0o755); err != nil {
		t.Fatal(err)
	}
	return npmTree{root: root, npm: npm, home: filepath.Join(root, "home"), cwd: filepath.Join(root, "cwd"),
		env: []string{"PATH=" + filepath.Join(root, "bin") + ":/usr/bin:/bin", "HOME=" + filepath.Join(root, "home")}}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNpmPlainConfig: the checker asks the registry itself only where
// every npm setting, in every place npm reads one, is plain; a registry,
// a scope's registry, a token, a proxy, a certificate store, a prefix, a
// project or a section sends the question to npm.
func TestNpmPlainConfig(t *testing.T) {
	srv := httptest.NewTLSServer(nil)
	defer srv.Close()
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	tests := []struct {
		name   string
		files  map[string]string // path under the tree's root: content
		env    []string
		refuse string // "" when plain: what the error must name
		roots  bool
	}{
		{name: "no config", refuse: ""},
		{name: "plain user settings", files: map[string]string{"home/.npmrc": "fund=false\naudit = false\n; a comment\n# another\nyes\nupdate-notifier=\"false\"\nloglevel=warn\n"}},
		{name: "plain settings everywhere", files: map[string]string{
			"lib/node_modules/npm/npmrc": "update-notifier=false\n", "etc/npmrc": "strict-ssl=true\n", "cwd/.npmrc": "progress=false\n"},
			env: []string{"npm_config_fetch_retries=0", "NPM_CONFIG_LOGLEVEL=error", "npm_config_registry="}},
		{name: "cafile", files: map[string]string{"etc/npmrc": "cafile=ROOT/ca.pem\n", "ca.pem": caPEM}, roots: true},
		{name: "cafile in the environment", files: map[string]string{"ca.pem": caPEM}, env: []string{"npm_config_cafile=ROOT/ca.pem"}, roots: true},
		{name: "cafile missing", files: map[string]string{"home/.npmrc": "cafile=ROOT/none.pem\n"}, refuse: "none.pem"},
		{name: "cafile empty", files: map[string]string{"home/.npmrc": "cafile=ROOT/ca.pem\n", "ca.pem": "nothing\n"}, refuse: "holds no certificate"},
		{name: "cafile relative", files: map[string]string{"home/.npmrc": "cafile=ca.pem\n"}, refuse: "sets cafile"},
		{name: "user registry", files: map[string]string{"home/.npmrc": "registry=https://npm.example.invalid/\n"}, refuse: "sets registry"},
		{name: "scope registry", files: map[string]string{"home/.npmrc": "@corp:registry=https://npm.example.invalid/\n"}, refuse: "sets @corp:registry"},
		{name: "token", files: map[string]string{"home/.npmrc": "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n"}, refuse: "sets //registry.npmjs.org/:_authToken"},
		{name: "key npm expands", files: map[string]string{"home/.npmrc": "${KEY}=1\n"}, refuse: "expands"},
		{name: "token literal", files: map[string]string{"home/.npmrc": "//registry.npmjs.org/:_authToken=abc\n"}, refuse: "sets //registry.npmjs.org/:_authToken"},
		{name: "global proxy", files: map[string]string{"etc/npmrc": "https-proxy=http://127.0.0.1:9\n"}, refuse: "global config"},
		{name: "builtin prefix", files: map[string]string{"lib/node_modules/npm/npmrc": "prefix=/elsewhere\n"}, refuse: "builtin config"},
		{name: "project registry", files: map[string]string{"cwd/.npmrc": "registry=https://npm.example.invalid/\n"}, refuse: "project config"},
		{name: "inside a project", files: map[string]string{"package.json": "{}"}, refuse: "inside a project"},
		{name: "section", files: map[string]string{"home/.npmrc": "[x]\nfund=false\n"}, refuse: "a section"},
		{name: "strict-ssl off", files: map[string]string{"home/.npmrc": "strict-ssl=false\n"}, refuse: "sets strict-ssl"},
		{name: "env registry", env: []string{"npm_config_registry=https://npm.example.invalid/"}, refuse: "npm_config_registry"},
		{name: "env upper-case", env: []string{"NPM_CONFIG_HTTPS_PROXY=http://127.0.0.1:9"}, refuse: "sets https-proxy"},
		{name: "env userconfig", env: []string{"npm_config_userconfig=/elsewhere"}, refuse: "sets userconfig"},
		{name: "proxy variable", env: []string{"HTTPS_PROXY=http://127.0.0.1:9"}, refuse: "HTTPS_PROXY"},
		{name: "proxy variable, lower case", env: []string{"https_proxy=http://127.0.0.1:9"}, refuse: "HTTPS_PROXY"},
		{name: "node's extra certificates", files: map[string]string{"ca.pem": caPEM}, env: []string{"NODE_EXTRA_CA_CERTS=ROOT/ca.pem"}, roots: true},
		{name: "node's extra certificates missing", env: []string{"NODE_EXTRA_CA_CERTS=ROOT/none.pem"}, refuse: "NODE_EXTRA_CA_CERTS"},
		{name: "cafile over node's extra certificates", files: map[string]string{"ca.pem": caPEM, "home/.npmrc": "cafile=ROOT/ca.pem\n"}, env: []string{"NODE_EXTRA_CA_CERTS=ROOT/none.pem"}, roots: true},
		{name: "node's options", env: []string{"NODE_OPTIONS=--require /x.js"}, refuse: "NODE_OPTIONS"},
		{name: "no HOME", env: []string{"HOME="}, refuse: "HOME"},
		{name: "PREFIX names the global config", files: map[string]string{"other/etc/npmrc": "registry=https://npm.example.invalid/\n"}, env: []string{"PREFIX=ROOT/other"}, refuse: "global config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := newNpmTree(t, "")
			for p, data := range tt.files {
				p = filepath.Join(tree.root, p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, p, strings.ReplaceAll(data, "ROOT", tree.root))
			}
			env := tree.env
			for _, kv := range tt.env {
				env = append(env, strings.ReplaceAll(kv, "ROOT", tree.root))
			}
			cwd := tree.cwd
			if _, ok := tt.files["package.json"]; ok {
				cwd = tree.root
			}
			roots, err := npmPlainConfig(tree.npm, cwd, env)
			switch {
			case tt.refuse == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.refuse != "" && err == nil:
				t.Fatalf("plain, want refused for %q", tt.refuse)
			case tt.refuse != "" && !strings.Contains(err.Error(), tt.refuse):
				t.Fatalf("error %q does not name %q", err, tt.refuse)
			}
			if (roots != nil) != tt.roots {
				t.Errorf("roots %v, want a pool: %v", roots != nil, tt.roots)
			}
		})
	}
}

// TestNpmPlainConfigNotNpm: a wrapper named npm (a shim, a script of a
// version manager) is not npm's own npm-cli.js, whose files the checker
// knows where to read.
func TestNpmPlainConfigNotNpm(t *testing.T) {
	tree := newNpmTree(t, "")
	shim := filepath.Join(tree.root, "shim")
	writeFile(t, shim, "#!/bin/sh\n")
	if _, err := npmPlainConfig(shim, tree.cwd, tree.env); err == nil || !strings.Contains(err.Error(), "npm-cli.js") {
		t.Fatalf("err = %v, want one naming npm-cli.js", err)
	}
}

func FuzzParseNpmrc(f *testing.F) {
	f.Add("fund=false\n[x]\n")
	f.Add("'a' = \"b\"\nkey[]=1\n; c\n")
	f.Fuzz(func(t *testing.T, data string) {
		kv, err := parseNpmrc(data)
		if err != nil {
			return
		}
		for k := range kv {
			if k == "" || strings.Contains(k, "${") {
				t.Fatalf("key %q accepted", k)
			}
		}
	})
}
