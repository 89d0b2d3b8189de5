// Package pinned is the form pin records a server in, and so the form
// check and guard must put live things in before they compare: the launch
// identity of a configured server (placeholders kept, environment and
// header names only, secret shapes redacted), the paths a launch sees
// (replaced by placeholders), and every definition canonical and redacted.
// A comparison that skips it would never match a pin that holds a
// secret shape or a sandbox path.
package pinned

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Launch is the launch identity of a configured server as the lock
// records it: placeholders unexpanded, environment and header names only,
// and secrets in the command and arguments redacted. It redacts secret
// shapes only (a URL's password, a token), never environment values: the
// identity must be the same on every machine that pins or checks it.
func Launch(s config.Server) lock.Launch {
	var shapes *redact.Redactor
	l := lock.Launch{Type: s.Type, Command: shapes.String(s.Command), Args: redactArgs(s.Args), Env: s.EnvNames(), Cwd: s.Cwd}
	if l.Type == "" {
		l.Type = "stdio"
	}
	if s.URL != "" {
		l.URL = RedactURL(s.URL)
	}
	for h := range s.Headers {
		l.Headers = append(l.Headers, h)
	}
	sort.Strings(l.Headers)
	return l
}

// RedactURL drops credentials from a URL: the lock is committed.
// Userinfo goes, and secret-named query values (?token=, ?api_key=)
// become REDACTED (redactQuery).
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return redactUnparsed(raw)
	}
	q, redacted := redactQuery(u.RawQuery)
	// A fragment never reaches the server; keys hide there (#token=...).
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = "", ""
		redacted = true
	}
	// Keys embedded in the path (/mcp/sk-.../sse).
	segs := strings.Split(u.Path, "/")
	for i, seg := range segs {
		if looksSecret(seg) {
			segs[i] = redactedValue(seg)
			redacted = true
		}
	}
	if u.User == nil && !redacted {
		return raw
	}
	u.User, u.RawQuery = nil, q
	u.Path, u.RawPath = strings.Join(segs, "/"), ""
	return u.String()
}

// redactArgs hides the values of secret-named flags (--api-key X,
// --token=X) and of arguments that look like keys. The lock keeps a short
// hash in their place, so a changed value is still a changed launch.
func redactArgs(args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if isPlaceholderArg(a) {
			continue
		}
		if strings.HasPrefix(a, "-") {
			name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !SecretQueryKey(name) {
				continue
			}
			if hasVal {
				if !isPlaceholderArg(val) {
					out[i] = a[:len(a)-len(val)] + redactedValue(val)
				}
			} else if i+1 < len(out) && !strings.HasPrefix(out[i+1], "-") && !isPlaceholderArg(out[i+1]) {
				out[i+1] = redactedValue(out[i+1])
				i++
			}
			continue
		}
		if name, val, ok := strings.Cut(a, "="); ok && SecretQueryKey(name) && !isPlaceholderArg(val) {
			out[i] = name + "=" + redactedValue(val)
			continue
		}
		if looksSecret(a) {
			out[i] = redactedValue(a)
		}
	}
	// Then secret shapes anywhere in any argument: postgres://u:PASSWORD@h,
	// --db=..., a token inside a longer value.
	var shapes *redact.Redactor
	for i := range out {
		out[i] = shapes.String(out[i])
	}
	return out
}

func isPlaceholderArg(v string) bool {
	return strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") && strings.Count(v, "$") == 1
}

// redactedValue stands in for a secret (redact.Value).
func redactedValue(v string) string { return redact.Value(v) }

// looksSecret recognises an API-key-shaped token: a known key prefix, or
// 24+ characters of letters and digits with no separators a word or a
// path would have.
func looksSecret(s string) bool {
	for _, p := range []string{"sk-", "sk_", "ghp_", "gho_", "ghs_", "github_pat_", "xoxb-", "xoxp-", "glpat-", "AKIA", "AIza"} {
		if strings.HasPrefix(s, p) && len(s) >= len(p)+12 {
			return true
		}
	}
	if len(s) < 24 || strings.ContainsAny(s, "./@: ") {
		return false
	}
	var lower, upper, digit bool
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		case r == '-' || r == '_':
		default:
			return false
		}
	}
	return digit && (lower || upper) && (lower && upper || digit)
}

// LaunchText renders a launch for a message: "stdio: npx -y pkg (env
// [TOKEN])", "http: https://host/mcp".
func LaunchText(l lock.Launch) string {
	s := l.Type + ": "
	if l.URL != "" {
		return s + l.URL
	}
	s += l.Command
	for _, a := range l.Args {
		s += " " + a
	}
	if len(l.Env) > 0 {
		s += fmt.Sprintf(" (env %v)", l.Env)
	}
	if l.Cwd != "" {
		s += " (cwd " + l.Cwd + ")"
	}
	if len(l.Network) > 0 {
		s += " (network " + strings.Join(l.Network, ", ") + ")"
	}
	return s
}

// SecretQueryKey reports whether a URL query parameter's name says its
// value is a credential (?token=, ?api_key=, ?sig=, ...).
func SecretQueryKey(k string) bool {
	n := strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(k))
	switch n {
	case "key", "sig", "signature", "code", "session", "sessionid", "sid", "jwt", "pat", "auth":
		return true
	}
	for _, part := range []string{"token", "secret", "passw", "apikey", "accesskey", "privatekey", "credential", "authorization"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	// smithery_key, openaiKey, ...
	return strings.HasSuffix(n, "key")
}

// redactQuery replaces the values of secret-named query parameters with
// REDACTED, keeping the order and encoding of the rest (the query is part
// of the launch identity). A value that is only a ${PLACEHOLDER} is kept:
// it names a variable, not a secret.
func redactQuery(raw string) (string, bool) {
	if raw == "" {
		return raw, false
	}
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok || v == "" {
			continue
		}
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if !SecretQueryKey(name) || isPlaceholder(v) {
			continue
		}
		parts[i] = k + "=REDACTED"
		changed = true
	}
	return strings.Join(parts, "&"), changed
}

func isPlaceholder(v string) bool {
	if u, err := url.QueryUnescape(v); err == nil {
		v = u
	}
	return isPlaceholderArg(v)
}

// redactUnparsed redacts a URL url.Parse refused (a placeholder in the
// host, say): "user:pass@" is dropped and the query redacted as
// redactQuery does, by string surgery.
func redactUnparsed(raw string) string {
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		authority := rest
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			authority = rest[:i]
		}
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			raw = raw[:len(raw)-len(rest)] + rest[at+1:]
		}
	}
	base, query, ok := strings.Cut(raw, "?")
	if !ok {
		return raw
	}
	query, frag, hasFrag := strings.Cut(query, "#")
	query, _ = redactQuery(query)
	if hasFrag {
		query += "#" + frag
	}
	return base + "?" + query
}
