// Package pyindex is a local Python package index for tests: an httptest
// server on 127.0.0.1 speaking the simple repository API as uv and pip
// read it, in PEP 503 HTML or PEP 691 JSON, with the files its links
// name. A test publishes a release, re-serves a file with other bytes (a
// compromised mirror) or yanks one, without the network.
package pyindex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Index is a running local index. URL is its simple root, as a launch's
// UV_INDEX_URL or PIP_INDEX_URL names it.
type Index struct {
	URL string
	// JSON makes project pages PEP 691 JSON for clients that accept it
	// (uv and the checker do); HTML otherwise.
	JSON bool

	mu       sync.Mutex
	projects map[string][]string // normalized name -> file names, in publish order
	files    map[string][]byte
	yanked   map[string]bool
	requests int
}

// New starts an index; it stops when the test ends.
func New(t testing.TB) *Index {
	t.Helper()
	x := &Index{projects: map[string][]string{}, files: map[string][]byte{}, yanked: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(x.serve))
	t.Cleanup(srv.Close)
	x.URL = srv.URL + "/simple/"
	return x
}

// Normalize is a project name as PEP 503 normalizes it.
func Normalize(name string) string {
	return strings.ToLower(regexp.MustCompile(`[-_.]+`).ReplaceAllString(name, "-"))
}

// Publish serves file (a wheel or sdist name carrying version) under
// project. Publishing a file name again replaces its bytes, and the hash
// its link carries, as a compromised index would.
func (x *Index) Publish(project, version, file string, data []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := Normalize(project)
	if !slices.Contains(x.projects[n], file) {
		x.projects[n] = append(x.projects[n], file)
	}
	x.files[file] = data
	_ = version // the version is in the file name, as installers read it
}

// Yank marks a file yanked (PEP 592).
func (x *Index) Yank(file string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.yanked[file] = true
}

// SHA256 is the hex sha256 the index gives for file.
func (x *Index) SHA256(file string) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	sum := sha256.Sum256(x.files[file])
	return hex.EncodeToString(sum[:])
}

// Requests counts the project pages served.
func (x *Index) Requests() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.requests
}

func (x *Index) serve(w http.ResponseWriter, r *http.Request) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if name, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
		data, ok := x.files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(data)
		return
	}
	project, ok := strings.CutPrefix(r.URL.Path, "/simple/")
	project = strings.TrimSuffix(project, "/")
	if !ok || project == "" || strings.Contains(project, "/") {
		http.NotFound(w, r)
		return
	}
	if project != Normalize(project) {
		// PEP 503: a client may be redirected to the normalized name.
		http.Redirect(w, r, "/simple/"+Normalize(project)+"/", http.StatusMovedPermanently)
		return
	}
	files, ok := x.projects[project]
	if !ok {
		http.NotFound(w, r)
		return
	}
	x.requests++
	sum := func(f string) string {
		s := sha256.Sum256(x.files[f])
		return hex.EncodeToString(s[:])
	}
	if x.JSON && strings.Contains(r.Header.Get("Accept"), "application/vnd.pypi.simple.v1+json") {
		type file struct {
			Filename string            `json:"filename"`
			URL      string            `json:"url"`
			Hashes   map[string]string `json:"hashes"`
			Yanked   any               `json:"yanked,omitempty"`
		}
		page := struct {
			Meta  map[string]string `json:"meta"`
			Name  string            `json:"name"`
			Files []file            `json:"files"`
		}{Meta: map[string]string{"api-version": "1.1"}, Name: project}
		for _, f := range files {
			e := file{Filename: f, URL: "../../files/" + f, Hashes: map[string]string{"sha256": sum(f)}}
			if x.yanked[f] {
				e.Yanked = "withdrawn"
			}
			page.Files = append(page.Files, e)
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		json.NewEncoder(w).Encode(page)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html>\n  <head>\n    <meta name=\"pypi:repository-version\" content=\"1.1\">\n    <title>Links for %s</title>\n  </head>\n  <body>\n    <h1>Links for %s</h1>\n", project, project)
	for _, f := range files {
		y := ""
		if x.yanked[f] {
			y = ` data-yanked="withdrawn"`
		}
		fmt.Fprintf(w, "    <a href=\"../../files/%s#sha256=%s\"%s>%s</a><br />\n", html.EscapeString(f), sum(f), y, html.EscapeString(f))
	}
	fmt.Fprint(w, "  </body>\n</html>\n")
}
