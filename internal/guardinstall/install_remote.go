package guardinstall

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
)

// remoteKeys are the members of a url entry the bridge command replaces.
var remoteKeys = []string{"type", "url", "httpUrl", "serverUrl", "headers", "env"}

// unbridgeable are members that give a url entry credentials the bridge
// cannot carry (a helper command, an OAuth flow the client runs): bridged,
// the server would be reached without them.
var unbridgeable = []string{"headersHelper", "oauth", "auth", "authProviderType"}

// installRemote rewrites a pinned url entry into the bridge command. The
// whole entry value is replaced by a new object:
//
//	{"type": "stdio" (when the entry had a type), "command": "mcp-lockcheck",
//	 "args": ["guard", "--lock", LOCK, "--server", NAME, "--remote-env", "--transport", "http"],
//	 "env": {ENV..., "MCP_LOCKCHECK_URL": URL, "MCP_LOCKCHECK_HEADER_1": "Authorization: Bearer ${TOKEN}",
//	         "MCP_LOCKCHECK_ORIGINAL": BASE64},
//	 OTHER MEMBERS...}
//
// The url and header templates go in env, never in args (see
// config.GuardEnvURL); --sandbox is dropped (the server runs elsewhere,
// and the guard refuses the flag for it). The entry's bytes as they were,
// comments and all, are kept base64-encoded in MCP_LOCKCHECK_ORIGINAL,
// where no client expands a placeholder a second time: that is what
// uninstallRemote writes back, byte for byte, into the same span.
//
// Only the "mcpServers" and "servers" shapes of JSON and JSONC configs are
// bridged; other formats, and entries whose credentials come from
// somewhere the bridge cannot see, are reported "not bridged".
func installRemote(d *doc, e *srvEntry, s config.Server, o Options, ch *Change) ([]splice, error) {
	ls := o.Lock.Servers[e.name]
	if ls == nil {
		ch.Action = "not pinned"
		return nil, nil
	}
	switch {
	case d.toml || d.yaml || e.opencode || e.holder == "context_servers":
		return notBridged(ch, "guard install bridges url entries only in the \"mcpServers\" and \"servers\" shapes of JSON configs; put this server behind the guard by hand (see docs/guard.md)")
	case len(s.Headers) >= config.MaxGuardEnvHeaders:
		return notBridged(ch, fmt.Sprintf("more than %d headers", config.MaxGuardEnvHeaders-1))
	}
	for k, v := range s.Headers {
		// The guard reads "Name: value" back split at the first colon and
		// trimmed: a header that does not survive that would be sent as
		// something else, or not at all.
		if n := strings.TrimSpace(k); n == "" || n != k || strings.Contains(k, ":") || strings.TrimSpace(v) != v {
			return notBridged(ch, fmt.Sprintf("header %q cannot be carried as \"Name: value\" in env", k))
		}
	}
	for _, k := range unbridgeable {
		if e.member(k) != nil {
			return notBridged(ch, fmt.Sprintf("its %q gives the client credentials the bridge would not have", k))
		}
	}
	var env []field
	if m := e.member("env"); m != nil && string(m.val) != "null" {
		var err error
		if env, err = d.fields(m.node); err != nil {
			return nil, fmt.Errorf("server %q: \"env\": %w", e.name, err)
		}
		for _, v := range env {
			if strings.HasPrefix(v.key, "MCP_LOCKCHECK_") {
				return notBridged(ch, fmt.Sprintf("its env already sets %s, a name the bridge uses", v.key))
			}
		}
	}
	if l := pinned.Launch(s); l.URL != ls.Launch.URL {
		ch.Warning = fmt.Sprintf("the config's url (%s) differs from the lock's approved one (%s); mcp-lockcheck check reports launch-changed", l.URL, ls.Launch.URL)
	} else if !l.Equal(ls.Launch) {
		ch.Warning = "the config's launch (headers or env) differs from the lock's approved one; mcp-lockcheck check reports launch-changed"
	}

	transport := config.TypeHTTP
	if s.Type == config.TypeSSE {
		transport = config.TypeSSE
	}
	args := []string{guardArg, "--lock", o.LockPath, "--server", e.name}
	for i := 0; i < len(o.Flags); i++ {
		if o.Flags[i] == "--sandbox" {
			i++
			continue
		}
		args = append(args, o.Flags[i])
	}
	args = append(args, "--remote-env", "--transport", transport)

	str := func(v string) []byte { b, _ := marshalNoEscape(v); return b }
	env = append(env, field{key: config.GuardEnvURL, val: str(s.URL)})
	names := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		names = append(names, k)
	}
	slices.Sort(names)
	for i, k := range names {
		env = append(env, field{key: config.GuardEnvHeader(i + 1), val: str(k + ": " + s.Headers[k])})
	}
	orig := d.data[e.obj.from:e.obj.to]
	env = append(env, field{key: config.GuardEnvOriginal, val: str(base64.StdEncoding.EncodeToString(orig))})

	argv, _ := marshalNoEscape(args)
	var ms []field
	if e.member("type") != nil {
		// A client that wants a type (VS Code's "servers") gets the one a
		// command has.
		ms = append(ms, field{key: "type", val: str(config.TypeStdio)})
	}
	ms = append(ms, field{key: "command", val: str(o.Executable)}, field{key: "args", val: argv}, field{key: "env", val: objectBytes(env)})
	for _, m := range e.members {
		if !slices.Contains(remoteKeys, m.key) {
			ms = append(ms, m)
		}
	}
	entry, err := d.renderEntry(e, objectBytes(ms))
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", e.name, err)
	}
	ch.Action = "guarded (remote)"
	return []splice{{e.obj.from, e.obj.to, entry}}, nil
}

func notBridged(ch *Change, why string) ([]splice, error) {
	ch.Action = "not bridged"
	ch.Warning = "url entry left as it was: " + why
	return nil, nil
}

// uninstallRemote writes a bridged entry back as the bytes it was before
// installRemote, from its MCP_LOCKCHECK_ORIGINAL. An entry that runs the
// bridge without one (written by hand) is left alone, and said.
func uninstallRemote(d *doc, e *srvEntry, ch *Change) ([]splice, error) {
	ch.Action = "not guarded"
	var orig []byte
	if m := e.member("env"); m != nil {
		env, _ := d.fields(m.node)
		for _, v := range env {
			if v.key != config.GuardEnvOriginal {
				continue
			}
			if s, ok := d.str(v.node); ok {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					orig = b
				}
			}
		}
	}
	if len(orig) > 0 {
		// What goes back must be one JSON(C) object, as install kept it.
		if j, err := config.ReadJSONC(orig); err != nil {
			orig = nil
		} else if _, err := (&doc{data: orig, clean: j.Clean}).fields(&j.Tree); err != nil {
			orig = nil
		}
	}
	if orig == nil {
		ch.Warning = fmt.Sprintf("it runs the guard's bridge but its env holds no %s that guard install wrote: restore the url entry from the .bak or by hand", config.GuardEnvOriginal)
		return nil, nil
	}
	ch.Action = "restored"
	return []splice{{e.obj.from, e.obj.to, orig}}, nil
}

// objectBytes writes members as one compact JSON object.
func objectBytes(ms []field) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshalNoEscape(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// renderEntry lays out a new entry value the way the one it replaces was:
// on one line, or one member a line at the entry's indent plus the unit
// its members used, with the file's line ending.
func (d *doc) renderEntry(e *srvEntry, obj []byte) ([]byte, error) {
	var out bytes.Buffer
	nl := newline(d.clean[e.obj.from:e.obj.to])
	if nl == "" {
		if err := json.Compact(&out, obj); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}
	prefix := indentAt(d.data, e.obj.from)
	unit := "  "
	if strings.HasPrefix(prefix, "\t") {
		unit = "\t"
	}
	if len(e.members) > 0 {
		if in := indentAt(d.data, e.members[0].koff); len(in) > len(prefix) && strings.HasPrefix(in, prefix) {
			unit = in[len(prefix):]
		}
	}
	if err := json.Indent(&out, obj, prefix, unit); err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte(nl)), nil
}
