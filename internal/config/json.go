package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// serverKeys are the top-level objects that hold servers, in the order they
// are read: "mcpServers" (Claude Code, Claude Desktop, Cursor, Windsurf,
// Gemini CLI), "servers" (VS Code) and "context_servers" (Zed).
var serverKeys = []string{"mcpServers", "servers", "context_servers"}

// jsonFile carries what every message about one JSON file needs.
type jsonFile struct {
	name   string
	data   []byte // the original bytes: offsets into the cleaned copy are the same
	client string
}

// errAt builds an *Error at a byte offset.
func (f *jsonFile) errAt(off int, format string, args ...any) *Error {
	line, col := lineCol(f.data, off)
	return &Error{File: f.name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func parseJSON(name string, data []byte, client string) ([]Server, error) {
	f := &jsonFile{name: name, data: data, client: client}
	clean, err := standardJSON(data)
	if err != nil {
		return nil, f.jsoncError(err)
	}
	var raw json.RawMessage
	if err := json.Unmarshal(clean, &raw); err != nil {
		return nil, f.syntaxError(clean, err)
	}
	root, err := buildTree(clean)
	if err != nil {
		// Unreachable for valid JSON; kept so a decoder surprise is still an *Error.
		return nil, &Error{File: name, Msg: fmt.Sprintf("reading JSON: %v", err)}
	}
	if root.kind != '{' {
		return nil, f.errAt(root.off, "top level must be an object, not %s", root.kindName())
	}

	var containers []*member
	for _, key := range serverKeys {
		m, dup := root.get(key)
		if dup != nil {
			return nil, f.errAt(dup.keyOff, "%q is given twice (first on line %d)", key, f.line(m.keyOff))
		}
		if m != nil && m.val.kind != 'n' {
			containers = append(containers, m)
		}
	}
	if len(containers) == 0 {
		// A general settings file without MCP servers is normal; a dedicated
		// MCP config without them is a mistake worth stopping for.
		if isGeneralSettings(name, f.client) {
			return nil, nil
		}
		return nil, f.errAt(root.off, `no MCP servers: expected a top-level "mcpServers", "servers" or "context_servers" object`)
	}
	if f.client == ClientUnknown {
		switch containers[0].key {
		case "servers":
			f.client = ClientVSCode // VS Code's user-level mcp.json lives outside .vscode
		case "context_servers":
			f.client = ClientZed
		}
	}

	var servers []Server
	seen := map[string]int{}
	for _, c := range containers {
		if c.val.kind != '{' {
			return nil, f.errAt(c.val.off, "%q must be an object mapping server names to servers, not %s", c.key, c.val.kindName())
		}
		if servers, err = f.servers(servers, c.val, seen, f.server); err != nil {
			return nil, err
		}
	}
	return servers, nil
}

// servers appends the server each member of holder names, built by
// build. seen maps the names read so far, across every container of the
// file, to where each was first defined: a name given twice is an error
// naming both lines, never a silent choice of one.
func (f *jsonFile) servers(out []Server, holder *node, seen map[string]int, build func(*member) (Server, error)) ([]Server, error) {
	for i := range holder.members {
		m := &holder.members[i]
		if first, ok := seen[m.key]; ok {
			return nil, f.errAt(m.keyOff, "server %q is defined twice (first on line %d)", m.key, f.line(first))
		}
		seen[m.key] = m.keyOff
		s, err := build(m)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (f *jsonFile) line(off int) int {
	l, _ := lineCol(f.data, off)
	return l
}

// isGeneralSettings reports whether the file is a client's general settings
// file, which need not configure any MCP server.
func isGeneralSettings(name, client string) bool {
	base := strings.ToLower(filepath.Base(name))
	// Amazon Q's default.json is an agent config: MCP servers are optional in it.
	return client == ClientGeminiCLI || client == ClientZed || base == "settings.json" || base == ".claude.json" ||
		client == ClientAmazonQ && base == "default.json"
}

// syntaxError positions encoding/json's error. SyntaxError.Offset counts the
// bytes read up to and including the offending one.
func (f *jsonFile) syntaxError(clean []byte, err error) *Error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &Error{File: f.name, Msg: fmt.Sprintf("invalid JSON: %v", err)}
	}
	off := int(se.Offset) - 1
	if strings.HasPrefix(se.Error(), "unexpected end") {
		// Point just after the last thing written, not at the file's last newline.
		off = len(strings.TrimRight(string(clean), " \t\r\n"))
	}
	return f.errAt(off, "invalid JSON: %s", se.Error())
}

// server reads one entry. Unknown fields (disabled, autoApprove, timeout,
// trust, description, ...) are ignored: they do not change what is launched.
func (f *jsonFile) server(m *member) (Server, error) {
	s := Server{Name: m.key, File: f.name, Line: f.line(m.keyOff), Client: f.client}
	e := &entry{f: f, name: m.key, obj: m.val}
	if m.key == "" {
		return s, f.errAt(m.keyOff, "server name must not be empty")
	}
	if m.val.kind != '{' {
		return s, f.errAt(m.val.off, "server %q must be an object, not %s", m.key, m.val.kindName())
	}
	if err := f.launch(e, m, &s); err != nil {
		return s, err
	}
	var err error
	if s.Cwd, err = e.str("cwd"); err != nil {
		return s, err
	}
	if s.Headers, err = e.strMap("headers"); err != nil {
		return s, err
	}
	implied, err := f.url(e, m, &s)
	if err != nil {
		return s, err
	}
	if err := f.serverType(e, m, &s, implied); err != nil {
		return s, err
	}
	switch {
	case s.Type == TypeStdio && s.Command == "":
		return s, f.errAt(m.keyOff, "server %q: type %q needs a \"command\"", m.key, s.Type)
	case s.Type != TypeStdio && s.URL == "":
		return s, f.errAt(m.keyOff, "server %q: type %q needs a \"url\"", m.key, s.Type)
	}
	return s, nil
}

// launch reads command, args and env into s, beside each other or in Zed's
// older nested form.
func (f *jsonFile) launch(e *entry, m *member, s *Server) error {
	cmd, err := e.member("command")
	if err != nil {
		return err
	}
	if cmd == nil || cmd.val.kind != '{' {
		if s.Command, err = e.str("command"); err != nil {
			return err
		}
		if s.Args, err = e.strList("args"); err != nil {
			return err
		}
		s.Env, err = e.strMap("env")
		return err
	}
	// Zed before 0.194: "command": {"path", "args", "env"}.
	inner := &entry{f: f, name: m.key, obj: cmd.val, prefix: "command."}
	if s.Command, err = inner.str("path"); err != nil {
		return err
	}
	if s.Args, err = inner.strList("args"); err != nil {
		return err
	}
	if s.Env, err = inner.strMap("env"); err != nil {
		return err
	}
	for _, k := range []string{"args", "env"} {
		if outer, _ := e.member(k); outer != nil && outer.val.kind != 'n' {
			return f.errAt(outer.keyOff, "server %q: %q is given both inside \"command\" and beside it", m.key, k)
		}
	}
	return nil
}

// url reads the URL into s and returns the type its key implies. Gemini
// CLI: "httpUrl" is streamable HTTP and "url" is SSE; Windsurf:
// "serverUrl".
func (f *jsonFile) url(e *entry, m *member, s *Server) (string, error) {
	implied := TypeHTTP
	var urlKey string
	for _, k := range []string{"url", "httpUrl", "serverUrl"} {
		v, err := e.str(k)
		if err != nil {
			return implied, err
		}
		if v == "" {
			continue
		}
		if urlKey != "" {
			mm, _ := e.member(k)
			return implied, f.errAt(mm.keyOff, "server %q: give only one of %q and %q", m.key, urlKey, k)
		}
		urlKey, s.URL = k, v
		if k == "url" && f.client == ClientGeminiCLI {
			implied = TypeSSE
		}
	}
	return implied, nil
}

// serverType sets s.Type from "type", or without one from what is given:
// a command is stdio, a URL the implied type.
func (f *jsonFile) serverType(e *entry, m *member, s *Server, implied string) error {
	typ, err := e.str("type")
	if err != nil {
		return err
	}
	switch typ {
	case "":
		if !inferType(s, implied) {
			msg := fmt.Sprintf("server %q has neither \"command\" nor \"url\"", m.key)
			if src, _ := e.str("source"); src == "extension" {
				msg += ": servers provided by Zed extensions cannot be checked; configure its command instead"
			}
			return &Error{File: f.name, Line: s.Line, Column: f.col(m.keyOff), Msg: msg}
		}
	case "stdio":
		s.Type = TypeStdio
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		s.Type = TypeHTTP
	case "sse":
		s.Type = TypeSSE
	default:
		tm, _ := e.member("type")
		return f.errAt(tm.val.off, "server %q: unknown \"type\" %q (want \"stdio\", \"http\", \"streamable-http\" or \"sse\")", m.key, typ)
	}
	return nil
}

func (f *jsonFile) col(off int) int {
	_, c := lineCol(f.data, off)
	return c
}

// entry reads typed fields of one server object, with messages that name
// the server and the field, and positions of the offending value.
type entry struct {
	f      *jsonFile
	name   string
	obj    *node
	prefix string // "command." for Zed's nested form
}

// member returns the field, rejecting a field given twice: JSON parsers
// disagree on which of two equal keys wins.
func (e *entry) member(key string) (*member, error) {
	m, dup := e.obj.get(key)
	if dup != nil {
		return nil, e.f.errAt(dup.keyOff, "server %q: %q is given twice (first on line %d)", e.name, e.prefix+key, e.f.line(m.keyOff))
	}
	return m, nil
}

// str reads an optional string field; null counts as absent.
func (e *entry) str(key string) (string, error) {
	m, err := e.member(key)
	if err != nil || m == nil || m.val.kind == 'n' {
		return "", err
	}
	if m.val.kind != '"' {
		return "", e.f.errAt(m.val.off, "server %q: %q must be a string, not %s", e.name, e.prefix+key, m.val.kindName())
	}
	return m.val.str, nil
}

func (e *entry) strList(key string) ([]string, error) {
	m, err := e.member(key)
	if err != nil || m == nil || m.val.kind == 'n' {
		return nil, err
	}
	if m.val.kind != '[' {
		return nil, e.f.errAt(m.val.off, "server %q: %q must be an array of strings, not %s", e.name, e.prefix+key, m.val.kindName())
	}
	list := make([]string, 0, len(m.val.elems))
	for i, el := range m.val.elems {
		if el.kind != '"' {
			return nil, e.f.errAt(el.off, "server %q: %q must be an array of strings, but element %d is %s", e.name, e.prefix+key, i, el.kindName())
		}
		list = append(list, el.str)
	}
	return list, nil
}

// strMap reads env and headers. Messages name keys, never values: env values
// may be secrets.
func (e *entry) strMap(key string) (map[string]string, error) {
	m, err := e.member(key)
	if err != nil || m == nil || m.val.kind == 'n' {
		return nil, err
	}
	if m.val.kind != '{' {
		return nil, e.f.errAt(m.val.off, "server %q: %q must be an object of strings, not %s", e.name, e.prefix+key, m.val.kindName())
	}
	out := make(map[string]string, len(m.val.members))
	first := map[string]int{}
	for _, kv := range m.val.members {
		if at, ok := first[kv.key]; ok {
			return nil, e.f.errAt(kv.keyOff, "server %q: %q sets %q twice (first on line %d)", e.name, e.prefix+key, kv.key, e.f.line(at))
		}
		first[kv.key] = kv.keyOff
		if kv.val.kind != '"' {
			return nil, e.f.errAt(kv.val.off, "server %q: %q must be an object of strings, but %q is %s", e.name, e.prefix+key, kv.key, kv.val.kindName())
		}
		out[kv.key] = kv.val.str
	}
	return out, nil
}
