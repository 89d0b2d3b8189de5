package check

import (
	"context"
	"crypto/x509"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-lockcheck/mcp-lockcheck/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/probe"
)

// remoteIsolation is what the report says about a remote server's
// sandbox: there is none to apply, the server runs on someone else's host.
const remoteIsolation = "remote: not sandboxed (runs elsewhere)"

// remoteRootCAs, when set, replaces the system roots remote servers'
// certificates are verified against. Tests set it to trust their own
// httptest server; nothing else does (a private CA is configured with
// SSL_CERT_FILE / SSL_CERT_DIR, which Go reads for the system roots).
var remoteRootCAs *x509.CertPool

// probeRemote probes a server reached over streamable HTTP or SSE. The
// phases are the stdio probe's, over one connection per launch; a
// relaunch is a new session. Header values and URL secrets are expanded
// here only, for the connection: the lock records header names and the
// URL without credentials (pinned.Launch), and every text this run reports is
// scrubbed of the expanded values.
func probeRemote(ctx context.Context, s config.Server, opts *Options) *serverRun {
	run := &serverRun{cfg: s, res: &probe.Result{}, isolation: remoteIsolation}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	endpoint, headers, err := s.ResolveRemote(getenv)
	if err != nil {
		run.held = "cannot resolve the url or headers: " + err.Error()
		return run
	}
	secrets := remoteSecrets(s, endpoint, headers)

	popts := probeOptions(s, opts)
	// A remote server asking roots/list gets the project the config
	// belongs to, as the client would tell it.
	if root, err := filepath.Abs(projectRoot(configFile(s, opts))); err == nil && s.File != "" {
		popts.Roots = []string{(&url.URL{Scheme: "file", Path: root}).String()}
	}
	var mu sync.Mutex
	if popts.Plan == nil {
		// No run dir: a path argument is relative, to nothing of ours.
		popts.Plan = warmupPlanner(&popts, "", func(line string) {
			mu.Lock()
			run.planNote = line
			mu.Unlock()
		})
	}
	echoed := map[string]bool{}
	popts.Tap = func(phase, method, _ string, payload []byte) {
		if method == "tools/call" {
			// A call's result is not pinned; a tool that tells the user
			// who they are logged in as is not leaking into the lock.
			return
		}
		for _, sec := range secrets {
			if strings.Contains(string(payload), sec.value) {
				mu.Lock()
				if !echoed[sec.where] {
					echoed[sec.where] = true
					run.findings = append(run.findings, echoFinding(s.Name, sec.where, phase, method))
				}
				mu.Unlock()
			}
		}
	}
	ropts := probe.RemoteOptions{Timeout: popts.RequestTimeout, MaxMessageBytes: popts.MaxMessageBytes, RootCAs: remoteRootCAs}
	if s.Type == config.TypeSSE {
		popts.Connect = probe.SSEConnector(endpoint, headers, ropts)
	} else {
		popts.Connect = probe.HTTPConnector(endpoint, headers, ropts)
	}
	if len(opts.ClockOffsets) > 0 {
		run.notes = append(run.notes, "the clock of a remote server cannot be moved (--clock-offset): no clock launch was made")
	}
	pctx, cancel := serverDeadline(ctx, opts)
	defer cancel()
	run.identities = countIdentities(popts)
	run.res = probe.Run(pctx, nil, popts)
	run.notes = append(run.notes, run.res.Notes...)
	if run.planNote != "" {
		run.notes = append(run.notes, run.planNote)
	}
	run.res.Stderr = opts.Redactor.String(run.res.Stderr)
	if run.res.Err != nil {
		run.held = opts.Redactor.String(redactSecrets(heldReason(run.res.Err, opts, serverExpired(ctx, pctx)), secrets) + " (" + pinned.RedactURL(s.URL) + ")")
	}
	for i, n := range run.notes {
		run.notes[i] = redactSecrets(n, secrets)
	}
	run.redactNotes(opts.Redactor)
	if len(echoed) > 0 {
		// Whatever carries the credential must not reach the lock.
		wheres := make([]string, 0, len(echoed))
		for w := range echoed {
			wheres = append(wheres, w)
		}
		sort.Strings(wheres)
		run.held = "the server sent back the value of " + strings.Join(wheres, ", ") + "; nothing it showed is pinned"
		return run
	}
	run.snapshot(opts.Redactor)
	return run
}

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
