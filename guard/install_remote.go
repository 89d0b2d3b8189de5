package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/config"
)

// The environment a guarded remote server's entry carries (guard install
// writes it, guard --remote-env reads it). The url and header values go in
// env, not in args: clients expand placeholders in both, and an expanded
// token in args is on every process listing; env is where a stdio
// server's secrets already live.
const (
	// EnvURL holds the url as the config wrote it.
	EnvURL = "MCP_LOCKCHECK_URL"
	// envURLKey and envType keep what uninstall needs to write the entry
	// back: the url member's name when it is not "url" (Windsurf's
	// serverUrl, Gemini CLI's httpUrl) and the "type" as written.
	envURLKey = "MCP_LOCKCHECK_URL_KEY"
	envType   = "MCP_LOCKCHECK_TYPE"
	// MaxEnvHeaders bounds the headers read back.
	MaxEnvHeaders = 64
)

// EnvHeader names the i-th (1-based) header variable: "Name: value".
func EnvHeader(i int) string { return "MCP_LOCKCHECK_HEADER_" + strconv.Itoa(i) }

var urlKeys = []string{"url", "httpUrl", "serverUrl"}

// installRemote rewrites a pinned url entry into the bridge command:
//
//	"command": "/abs/mcp-lockcheck",
//	"args": ["guard", "--lock", LOCK, "--server", NAME, "--remote-env", "--transport", "http"],
//	"env": {"MCP_LOCKCHECK_URL": URL, "MCP_LOCKCHECK_HEADER_1": "Authorization: Bearer ${TOKEN}"}
//
// in place of its url, type and headers; every other member stays.
func installRemote(s config.Server, ms []member, o InstallOptions) ([]member, error) {
	if len(s.Headers) >= MaxEnvHeaders {
		return nil, fmt.Errorf("server %q: more than %d headers", s.Name, MaxEnvHeaders-1)
	}
	transport := "http"
	if s.Type == config.TypeSSE {
		transport = "sse"
	}
	args := []string{guardArg, "--lock", o.LockPath, "--server", s.Name}
	for i := 0; i < len(o.Flags); i++ {
		// --sandbox isolates a process the guard starts; a remote server
		// runs elsewhere, and the guard refuses the flag for one.
		if o.Flags[i] == "--sandbox" {
			i++
			continue
		}
		args = append(args, o.Flags[i])
	}
	args = append(args, "--remote-env", "--transport", transport)
	vars := map[string]string{EnvURL: s.URL}
	for _, k := range urlKeys[1:] {
		if _, ok := get(ms, k); ok {
			vars[envURLKey] = k
		}
	}
	if raw, ok := get(ms, "type"); ok {
		if t, ok := jsonString(raw); ok {
			vars[envType] = t
		}
	}
	names := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		vars[EnvHeader(i+1)] = k + ": " + s.Headers[k]
	}
	cmd, _ := marshalNoEscape(o.Executable)
	argv, _ := marshalNoEscape(args)
	out := make([]member, 0, len(ms)+2)
	placed, hasEnv := false, false
	for _, m := range ms {
		switch {
		case m.key == "type" || m.key == "headers" || slices.Contains(urlKeys, m.key):
			if !placed {
				placed = true
				out = append(out, member{key: "command", fold: fold("command"), val: cmd}, member{key: "args", fold: fold("args"), val: argv})
			}
		case m.key == "env":
			hasEnv = true
			val, err := mergeEnv(m.val, vars)
			if err != nil {
				return nil, fmt.Errorf("server %q: %w", s.Name, err)
			}
			m.val = val
			out = append(out, m)
		default:
			out = append(out, m)
		}
	}
	if !hasEnv {
		val, _ := mergeEnv(nil, vars)
		out = append(out, member{key: "env", fold: fold("env"), val: val})
	}
	return out, nil
}

// mergeEnv adds vars to an env object's members (raw may be nil), in a
// stable order.
func mergeEnv(raw []byte, vars map[string]string) ([]byte, error) {
	var ms []member
	if len(raw) > 0 && string(raw) != "null" {
		var err error
		if ms, err = objectMembers(raw); err != nil {
			return nil, fmt.Errorf(`"env": %w`, err)
		}
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return envOrder(keys[i]) < envOrder(keys[j]) })
	for _, k := range keys {
		v, _ := marshalNoEscape(vars[k])
		ms = append(ms, member{key: k, fold: fold(k), val: v})
	}
	return renderObject(ms, "", false), nil
}

// envOrder puts the url first and the headers in their numeric order.
func envOrder(k string) string {
	switch k {
	case EnvURL:
		return "0"
	case envURLKey:
		return "1"
	case envType:
		return "2"
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(k, "MCP_LOCKCHECK_HEADER_"))
	return fmt.Sprintf("3%04d", n)
}

// uninstallRemote writes a bridged entry back as the url entry it was.
func uninstallRemote(ms []member) ([]member, bool, error) {
	raw, ok := get(ms, "env")
	if !ok {
		return nil, false, nil
	}
	env, err := objectMembers(raw)
	if err != nil {
		return nil, false, nil
	}
	u, ok := get(env, EnvURL)
	if !ok {
		return nil, false, nil
	}
	urlKey := "url"
	if k, ok := get(env, envURLKey); ok {
		if s, ok := jsonString(k); ok && slices.Contains(urlKeys, s) {
			urlKey = s
		}
	}
	var restored []member
	if t, ok := get(env, envType); ok {
		restored = append(restored, member{key: "type", fold: fold("type"), val: t})
	}
	restored = append(restored, member{key: urlKey, fold: fold(urlKey), val: u})
	var headers []member
	var keep []member
	for _, m := range env {
		switch {
		case m.key == EnvURL || m.key == envURLKey || m.key == envType:
		case strings.HasPrefix(m.key, "MCP_LOCKCHECK_HEADER_"):
			h, _ := jsonString(m.val)
			name, value, _ := strings.Cut(h, ":")
			v, _ := marshalNoEscape(strings.TrimSpace(value))
			headers = append(headers, member{key: strings.TrimSpace(name), fold: fold(strings.TrimSpace(name)), val: v, off: envIndex(m.key)})
		default:
			keep = append(keep, m)
		}
	}
	if len(headers) > 0 {
		sort.SliceStable(headers, func(i, j int) bool { return headers[i].off < headers[j].off })
		for i := range headers {
			headers[i].off = 0
		}
		restored = append(restored, member{key: "headers", fold: fold("headers"), val: renderObject(headers, "", false)})
	}
	out := make([]member, 0, len(ms)+2)
	for _, m := range ms {
		switch m.key {
		case "command":
			out = append(out, restored...)
		case "args":
		case "env":
			if len(keep) > 0 {
				m.val = renderObject(keep, "", false)
				out = append(out, m)
			}
		default:
			out = append(out, m)
		}
	}
	return out, true, nil
}

func envIndex(k string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(k, "MCP_LOCKCHECK_HEADER_"))
	return n
}

// renderObject writes members back as one JSON object, compact or indented at indent.
func renderObject(ms []member, indent string, multiline bool) []byte {
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
	if !multiline {
		var c bytes.Buffer
		if json.Compact(&c, b.Bytes()) == nil {
			return c.Bytes()
		}
		return b.Bytes()
	}
	unit := "  "
	if strings.HasPrefix(indent, "\t") {
		unit = "\t"
	}
	var out bytes.Buffer
	if json.Indent(&out, b.Bytes(), indent, unit) != nil {
		return b.Bytes()
	}
	return out.Bytes()
}
