// Package npmreg is a local npm registry for tests: an httptest server on
// 127.0.0.1 that speaks the two shapes npm reads (the packument at GET
// /NAME and the tarballs its dist.tarball names), serving fixture MCP
// servers built in the test. It lets a test publish a new release, or
// re-serve a published version with other bytes, as a registry (or a
// compromised mirror) would, without the network.
package npmreg

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Registry is a running local registry.
type Registry struct {
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	pkgs     map[string]map[string][]byte // name -> version -> tarball
	latest   map[string]string
	requests map[string]int // path -> GETs
	gate     chan struct{}  // while open (non-nil), packument GETs wait for it to close
}

// New starts a registry; it stops when the test ends.
func New(t testing.TB) *Registry {
	t.Helper()
	r := &Registry{pkgs: map[string]map[string][]byte{}, latest: map[string]string{}, requests: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	r.URL = r.srv.URL + "/"
	return r
}

// Publish serves tarball as name@version and makes it the latest.
// Publishing a version again replaces its bytes (and its integrity in the
// packument), as a compromised registry would.
func (r *Registry) Publish(name, version string, tarball []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pkgs[name] == nil {
		r.pkgs[name] = map[string][]byte{}
	}
	r.pkgs[name][version] = tarball
	r.latest[name] = version
}

// HoldPackuments makes every packument GET wait, unanswered, until
// release is called (or the request is cancelled): a registry slower than
// the server's own start. Tarballs are served as usual.
func (r *Registry) HoldPackuments() (release func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	r.gate = ch
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.gate = nil
			r.mu.Unlock()
			close(ch)
		})
	}
}

// Requests is how many GETs path had.
func (r *Registry) Requests(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests[path]
}

// Integrity is the sha512 integrity of a tarball as npm writes it.
func Integrity(tarball []byte) string {
	s := sha512.Sum512(tarball)
	return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	path := strings.TrimPrefix(req.URL.Path, "/")
	r.mu.Lock()
	r.requests["/"+path]++
	if gate := r.gate; gate != nil && !strings.Contains(path, "/-/") {
		r.mu.Unlock()
		select {
		case <-gate:
		case <-req.Context().Done():
			return
		}
		r.mu.Lock()
	}
	defer r.mu.Unlock()
	if name, file, ok := strings.Cut(path, "/-/"); ok {
		name = strings.ReplaceAll(name, "%2f", "/")
		for v, tgz := range r.pkgs[name] {
			if file == tarName(name, v) {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write(tgz)
				return
			}
		}
		http.NotFound(w, req)
		return
	}
	name := strings.ReplaceAll(strings.ReplaceAll(path, "%2f", "/"), "%2F", "/")
	versions, ok := r.pkgs[name]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"Not found"}`))
		return
	}
	vs := map[string]any{}
	for v, tgz := range versions {
		sum := sha1.Sum(tgz)
		vs[v] = map[string]any{
			"name": name, "version": v,
			"bin": map[string]string{binName(name): "index.js"},
			"dist": map[string]string{
				"tarball":   r.srv.URL + "/" + name + "/-/" + tarName(name, v),
				"integrity": Integrity(tgz),
				"shasum":    hex.EncodeToString(sum[:]),
			},
		}
	}
	b, _ := json.Marshal(map[string]any{"name": name, "dist-tags": map[string]string{"latest": r.latest[name]}, "versions": vs})
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func binName(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }

func tarName(name, version string) string { return binName(name) + "-" + version + ".tgz" }

// Tarball builds a package tarball: package/package.json and
// package/index.js.
func Tarball(name, version, indexJS string) []byte {
	pj, _ := json.Marshal(map[string]any{"name": name, "version": version, "bin": map[string]string{binName(name): "index.js"}})
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		body []byte
		mode int64
	}{{"package/package.json", pj, 0o644}, {"package/index.js", []byte(indexJS), 0o755}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg})
		tw.Write(f.body)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// MailExecutable is MailServer as an executable run by node at its
// absolute path: a stand-in for a launcher that is not installed (uvx,
// pipx) or a local binary. Strict grants the command's own file, which
// holds the whole server.
func MailExecutable(node, extra string) string {
	return "#!" + node + "\n" + strings.TrimPrefix(MailServer(extra), "#!/usr/bin/env node\n")
}

// MailServer is a tiny MCP server in node that lists one send_email tool,
// the same in every version; extra is a line of code that differs between
// releases (the postmark-mcp case: same tools, new code).
func MailServer(extra string) string {
	return `#!/usr/bin/env node
// fixture-mail-mcp
` + extra + `
const rl = require('readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const tool = { name: 'send_email', description: 'Send an email.', inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to'] } };
rl.on('line', (line) => {
  let m; try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  switch (m.method) {
    case 'initialize': return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion || '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fixture-mail', version: '1.0.0' } } });
    case 'tools/list': return send({ jsonrpc: '2.0', id: m.id, result: { tools: [tool] } });
    case 'ping': return send({ jsonrpc: '2.0', id: m.id, result: {} });
    case 'tools/call': return send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'queued' }] } });
    default: return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'method not found' } });
  }
});
`
}

// Npmrc writes an .npmrc in dir that points npm at the registry and
// cache, and returns its path.
func (r *Registry) Npmrc(t testing.TB, dir, cache string) string {
	t.Helper()
	p := filepath.Join(dir, ".npmrc")
	body := fmt.Sprintf("registry=%s\ncache=%s\nupdate-notifier=false\nfund=false\naudit=false\n", r.URL, cache)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
