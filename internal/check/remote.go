package check

import (
	"crypto/x509"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/probe"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/transport"
)

// remoteIsolation is what the report says about a remote server's
// sandbox: there is none to apply, the server runs on someone else's host.
const remoteIsolation = "remote: not sandboxed (runs elsewhere)"

// remoteRootCAs, when set, replaces the system roots remote servers'
// certificates are verified against. Tests set it to trust their own
// httptest server; nothing else does (a private CA is configured with
// SSL_CERT_FILE / SSL_CERT_DIR, which Go reads for the system roots).
var remoteRootCAs *x509.CertPool

// remoteTarget is a server reached over streamable HTTP or SSE. The
// phases are the stdio probe's, over one connection per launch; a
// relaunch is a new session. Header values and URL secrets are expanded
// here only, for the connection: the lock records header names and the
// URL without credentials (pinned.Launch), and every text this run reports is
// scrubbed of the expanded values.
type remoteTarget struct {
	probe.Remote
	s       config.Server
	red     *redact.Redactor
	secrets []secret
	mu      sync.Mutex
	echoed  map[string]bool // where a secret the server sent back came from
}

// newRemoteTarget expands the url and headers and sets popts up for the
// server: roots, the tap that catches a credential sent back. It returns
// nil when the url or headers cannot be expanded (run.held says why).
func newRemoteTarget(s config.Server, opts *Options, popts *probe.Options, run *serverRun) *remoteTarget {
	run.isolation = remoteIsolation
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	endpoint, headers, err := s.ResolveRemote(getenv)
	if err != nil {
		run.held = "cannot resolve the url or headers: " + err.Error()
		return nil
	}
	t := &remoteTarget{s: s, red: opts.Redactor, secrets: remoteSecrets(s, endpoint, headers), echoed: map[string]bool{}}
	t.Remote = probe.Remote{URL: endpoint, Headers: headers, SSE: s.Type == config.TypeSSE,
		Options: transport.RemoteOptions{Timeout: popts.RequestTimeout, MaxMessageBytes: popts.MaxMessageBytes, RootCAs: remoteRootCAs}}
	// A remote server asking roots/list gets the project the config
	// belongs to, as the client would tell it.
	if root, err := filepath.Abs(projectRoot(configFile(s, opts))); err == nil && s.File != "" {
		popts.Roots = []string{(&url.URL{Scheme: "file", Path: root}).String()}
	}
	popts.Tap = func(phase, method, _ string, _ json.RawMessage, payload []byte) {
		if method == "tools/call" {
			// A call's result is not pinned; a tool that tells the user
			// who they are logged in as is not leaking into the lock.
			return
		}
		for _, sec := range t.secrets {
			if strings.Contains(string(payload), sec.value) {
				t.mu.Lock()
				if !t.echoed[sec.where] {
					t.echoed[sec.where] = true
					run.findings = append(run.findings, echoFinding(s.Name, sec.where, phase, method))
				}
				t.mu.Unlock()
			}
		}
	}
	if len(opts.ClockOffsets) > 0 {
		run.notes = append(run.notes, "the clock of a remote server cannot be moved (--clock-offset): no clock launch was made")
	}
	return t
}

// planDir is "": a path argument is relative, to nothing of ours.
func (t *remoteTarget) planDir() string { return "" }

func (t *remoteTarget) redactor() *redact.Redactor { return t.red }

// scrub replaces the expanded secrets: an error may quote the url, a
// note what the server said.
func (t *remoteTarget) scrub(s string) string { return redactSecrets(s, t.secrets) }

// where names the endpoint, without its credentials.
func (t *remoteTarget) where() string { return " (" + pinned.RedactURL(t.s.URL) + ")" }

// finish holds a server that sent back a configured credential, and drops
// what it showed: whatever carries the credential must not reach the lock.
func (t *remoteTarget) finish(run *serverRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.echoed) == 0 {
		return
	}
	wheres := make([]string, 0, len(t.echoed))
	for w := range t.echoed {
		wheres = append(wheres, w)
	}
	sort.Strings(wheres)
	run.held = "the server sent back the value of " + strings.Join(wheres, ", ") + "; nothing it showed is pinned"
	if run.inspector != nil {
		run.inspector.finish() // its workers end; what it found is dropped
	}
	run.snaps, run.inspector = nil, nil
}

func (t *remoteTarget) close() {}

// secret is an expanded value that must not appear in anything written.
type secret struct {
	where string // "header Authorization", "url query token", "url credentials"
	value string
}

// remoteSecrets lists what the expansion put into the connection that
// the config file itself does not show: every header value (and the
// token after a "Bearer "/"Basic " scheme), URL credentials, and URL
// query values that are secret by name or came from a placeholder.
// Values shorter than 6 bytes are left out: they would match too much to
// be scrubbed meaningfully and are not credentials.
func remoteSecrets(s config.Server, endpoint string, headers map[string]string) []secret {
	var out []secret
	add := func(where, v string) {
		if len(v) >= 6 {
			out = append(out, secret{where, v})
			if e := url.QueryEscape(v); e != v {
				out = append(out, secret{where, e})
			}
		}
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := headers[k]
		add("header "+k, v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			add("header "+k, strings.TrimSpace(tok))
		}
	}
	if u, err := url.Parse(endpoint); err == nil {
		if u.User != nil {
			add("url credentials", u.User.Username())
			if p, ok := u.User.Password(); ok {
				add("url credentials", p)
			}
		}
		written := map[string]string{}
		if w, err := url.Parse(s.URL); err == nil {
			for k, vs := range w.Query() {
				written[k] = strings.Join(vs, "")
			}
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				if pinned.SecretQueryKey(k) || strings.Contains(written[k], "$") {
					add("url query "+k, v)
				}
			}
		}
	}
	// Longest first, so a token inside a longer value is not left half.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].value) > len(out[j].value) })
	return out
}

func redactSecrets(text string, secrets []secret) string {
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s.value, "[REDACTED "+s.where+"]")
	}
	return text
}

// echoFinding reports a server that sent back a configured credential:
// pinning what it showed would write the secret into a committed file.
func echoFinding(server, where, phase, method string) finding.Finding {
	return leakFinding(server, where, phase, method, "the server sent back the value of %s (in %s); the value is not shown")
}
