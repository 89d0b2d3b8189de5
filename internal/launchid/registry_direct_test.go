package launchid

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestResolveRegistryDirect: an exact version under plain npm settings is
// asked of the registry by the checker itself (the fake npm, which would
// answer otherwise, never runs); any other answer than the version's
// manifest, any setting npm must read, and any other spec go to npm.
func TestResolveRegistryDirect(t *testing.T) {
	const manifest = `{"name":"@fixture/server","version":"1.2.3","dist":{"integrity":"sha512-registry","tarball":"https://registry.example.invalid/@fixture/server/-/server-1.2.3.tgz"}}`
	tests := []struct {
		name, spec, npmrc string
		status            int
		body              string
		wantIntegrity     string
		wantAsked         int32
		// otherRoot: the cafile holds a root the registry's certificate
		// is not from. npm then trusts no other store, and neither does
		// the checker: the registry gets no request, and npm is asked.
		otherRoot bool
		// extra: NODE_EXTRA_CA_CERTS holds the registry's root (node adds
		// it to its own roots, unless a cafile replaces them all);
		// noCafile: npm's settings name no cafile.
		extra, noCafile bool
		// redirect: the registry sends the question elsewhere, where
		// another manifest waits. npm's question is the registry's own
		// answer, so the checker does not follow.
		redirect bool
	}{
		{name: "manifest", spec: "@fixture/server@1.2.3", status: 200, body: manifest, wantIntegrity: "sha512-registry", wantAsked: 1},
		{name: "not found", spec: "@fixture/server@1.2.3", status: 404, body: `{"error":"not found"}`, wantIntegrity: "sha512-npm", wantAsked: 1},
		{name: "another version's manifest", spec: "@fixture/server@1.2.3", status: 200, body: strings.Replace(manifest, `"1.2.3"`, `"1.2.4"`, 1), wantIntegrity: "sha512-npm", wantAsked: 1},
		{name: "no integrity", spec: "@fixture/server@1.2.3", status: 200, body: strings.Replace(manifest, "sha512-registry", "", 1), wantIntegrity: "sha512-npm", wantAsked: 1},
		{name: "a registry set", spec: "@fixture/server@1.2.3", npmrc: "registry=https://npm.example.invalid/\n", status: 200, body: manifest, wantIntegrity: "sha512-npm"},
		{name: "a range", spec: "@fixture/server@^1.2.0", status: 200, body: manifest, wantIntegrity: "sha512-npm"},
		{name: "a tag", spec: "@fixture/server@latest", status: 200, body: manifest, wantIntegrity: "sha512-npm"},
		{name: "a registry the cafile does not trust", spec: "@fixture/server@1.2.3", status: 200, body: manifest, wantIntegrity: "sha512-npm", otherRoot: true},
		{name: "node's extra roots do not count beside a cafile", spec: "@fixture/server@1.2.3", status: 200, body: manifest, wantIntegrity: "sha512-npm", otherRoot: true, extra: true},
		{name: "a redirect", spec: "@fixture/server@1.2.3", status: 200, body: manifest, wantIntegrity: "sha512-npm", wantAsked: 1, redirect: true},
		{name: "node's extra roots without a cafile", spec: "@fixture/server@1.2.3", status: 200, body: manifest, wantIntegrity: "sha512-registry", wantAsked: 1, extra: true, noCafile: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked atomic.Int32
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/mirror" {
					w.Write([]byte(strings.Replace(manifest, "sha512-registry", "sha512-mirror", 1)))
					return
				}
				asked.Add(1)
				if tt.redirect {
					http.Redirect(w, r, "/mirror", http.StatusFound)
					return
				}
				if r.URL.EscapedPath() != "/@fixture%2fserver/1.2.3" {
					http.NotFound(w, r)
					return
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			old := registryURL
			registryURL = srv.URL + "/"
			defer func() { registryURL = old }()

			tree := newNpmTree(t, `printf '{"version":"1.2.3","dist.integrity":"sha512-npm","dist.tarball":"t"}\n'`+"\n")
			root := srv.Certificate().Raw
			if tt.otherRoot {
				root = selfSigned(t)
			}
			ca := filepath.Join(tree.root, "ca.pem")
			writeFile(t, ca, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: root})))
			npmrc := "cafile=" + ca + "\n" + tt.npmrc
			if tt.noCafile {
				npmrc = tt.npmrc
			}
			writeFile(t, filepath.Join(tree.home, ".npmrc"), npmrc)
			env := tree.env
			if tt.extra {
				extra := filepath.Join(tree.root, "extra.pem")
				writeFile(t, extra, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
				env = append(env, "NODE_EXTRA_CA_CERTS="+extra)
			}
			ans, err := ResolveRegistry(context.Background(), tree.npm, tt.spec, env)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Integrity != tt.wantIntegrity {
				t.Errorf("integrity %q, want %q", ans.Integrity, tt.wantIntegrity)
			}
			if got := asked.Load(); got != tt.wantAsked {
				t.Errorf("the registry was asked %d times, want %d", got, tt.wantAsked)
			}
		})
	}
}

// selfSigned is a certificate of a root nobody else uses (httptest's
// servers all share one).
func selfSigned(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other root"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// TestAskRegistryAgreesWithNpmView: against the real registry, the
// checker's own question and npm view give the same version, integrity
// and tarball for a pinned release. It runs where the test servers are
// installed from npm.
func TestAskRegistryAgreesWithNpmView(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm is needed: the tests install their servers with it")
	}
	env := append(os.Environ(), "HOME="+t.TempDir(), "npm_config_cache="+t.TempDir())
	const spec = "@modelcontextprotocol/server-memory@2025.11.25"
	if _, err := npmPlainConfig(npm, os.TempDir(), env); err != nil {
		// A proxy or a registry of the machine's own: the checker asks
		// npm here, and TestResolveRegistryDirect covers the question.
		t.Skipf("npm's settings here are not plain, so the checker asks npm: %v", err)
	}
	direct, err := askRegistry(context.Background(), npm, spec, env)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(npm, "view", "--json", "--prefer-online", "--loglevel=error", spec, "version", "dist.integrity", "dist.tarball")
	cmd.Env, cmd.Dir = env, os.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm view: %v", err)
	}
	view, err := ParseView(out, spec)
	if err != nil {
		t.Fatal(err)
	}
	if *direct != *view {
		t.Errorf("the checker read %+v, npm view %+v", *direct, *view)
	}
}
