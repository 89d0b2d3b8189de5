package launchid

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

// registryURL is the default registry's address (npmDefaultRegistry);
// tests point it at a registry of their own.
var registryURL = npmDefaultRegistry

// directTimeout bounds the direct question: past it npm view is asked,
// which has the rest of PrefetchTimeout.
const directTimeout = 30 * time.Second

// exactNpmSpec matches NAME@VERSION with a lower-case package name, as
// new packages must have, and a plain semantic version: the only specs
// whose answer is one version's manifest, fetched as npm fetches it.
var exactNpmSpec = regexp.MustCompile(`^((?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$`)

// askRegistry asks the default registry for spec's manifest over the
// checker's own HTTP client, when npm would ask that registry plainly
// (npmPlainConfig). The error says why it did not answer; ResolveRegistry
// then asks npm view.
func askRegistry(ctx context.Context, npm, spec string, env []string) (*RegistryAnswer, error) {
	m := exactNpmSpec.FindStringSubmatch(spec)
	if m == nil {
		return nil, errors.New("not an exact version of a registry package")
	}
	name, version := m[1], m[2]
	roots, err := npmPlainConfig(npm, os.TempDir(), env)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, directTimeout)
	defer cancel()
	tr := &http.Transport{
		Proxy:               nil,
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("the registry redirected")
	}}
	u := registryURL + strings.Replace(name, "/", "%2f", 1) + "/" + version
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	var doc struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Dist    struct {
			Integrity string `json:"integrity"`
			Tarball   string `json:"tarball"`
		} `json:"dist"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("GET %s: %v", u, err)
	}
	if doc.Name != name || doc.Version != version || doc.Dist.Integrity == "" || doc.Dist.Tarball == "" {
		return nil, fmt.Errorf("GET %s: the manifest is of %s@%s, or has no integrity", u, doc.Name, doc.Version)
	}
	return &RegistryAnswer{Version: doc.Version, Integrity: doc.Dist.Integrity, Tarball: doc.Dist.Tarball}, nil
}
