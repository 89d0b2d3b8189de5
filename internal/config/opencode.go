package config

import "encoding/json"

// parseOpenCode reads opencode's opencode.json(c): a general config whose
// "mcp" object maps server names to servers (opencode 1.x), or holds them
// under "mcp.servers" (2.x). A local server is
// {"type": "local", "command": ["npx", "-y", "pkg"], "environment": {...}}:
// the command and its arguments in one array. A remote one is
// {"type": "remote", "url": ..., "headers": {...}}; opencode tries
// streamable HTTP first, so that is what it is probed as. enabled/disabled
// are ignored: a disabled server is one toggle away from running.
func parseOpenCode(name string, data []byte) ([]Server, error) {
	f := &jsonFile{name: name, data: data, client: ClientOpenCode}
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
		return nil, &Error{File: name, Msg: "reading JSON: " + err.Error()}
	}
	if root.kind != '{' {
		return nil, f.errAt(root.off, "top level must be an object, not %s", root.kindName())
	}
	mcp, dup := root.get("mcp")
	if dup != nil {
		return nil, f.errAt(dup.keyOff, "%q is given twice (first on line %d)", "mcp", f.line(mcp.keyOff))
	}
	if mcp == nil || mcp.val.kind == 'n' {
		return nil, nil // an opencode config without MCP servers
	}
	if mcp.val.kind != '{' {
		return nil, f.errAt(mcp.val.off, `"mcp" must be an object mapping server names to servers, not %s`, mcp.val.kindName())
	}
	holder := mcp.val
	// opencode 2.x: "mcp": {"servers": {...}}. A 1.x server named "servers"
	// would have a "type" of its own.
	if inner, dup := holder.get("servers"); inner != nil && dup == nil && inner.val.kind == '{' {
		if t, _ := inner.val.get("type"); t == nil {
			holder = inner.val
		}
	}
	return f.servers(nil, holder, map[string]int{}, f.openCodeServer)
}

func (f *jsonFile) openCodeServer(m *member) (Server, error) {
	s := Server{Name: m.key, File: f.name, Line: f.line(m.keyOff), Client: ClientOpenCode}
	if m.key == "" {
		return s, f.errAt(m.keyOff, "server name must not be empty")
	}
	if m.val.kind != '{' {
		return s, f.errAt(m.val.off, "server %q must be an object, not %s", m.key, m.val.kindName())
	}
	e := &entry{f: f, name: m.key, obj: m.val}
	typ, err := e.str("type")
	if err != nil {
		return s, err
	}
	switch typ {
	case "local":
		cmd, err := e.strList("command")
		if err != nil {
			return s, err
		}
		if len(cmd) == 0 || cmd[0] == "" {
			return s, f.errAt(m.keyOff, "server %q: a local server needs \"command\": [program, args...]", m.key)
		}
		s.Type, s.Command, s.Args = TypeStdio, cmd[0], cmd[1:]
		if len(s.Args) == 0 {
			s.Args = nil
		}
		if s.Env, err = e.strMap("environment"); err != nil {
			return s, err
		}
	case "remote":
		if s.URL, err = e.str("url"); err != nil {
			return s, err
		}
		if s.URL == "" {
			return s, f.errAt(m.keyOff, "server %q: a remote server needs a \"url\"", m.key)
		}
		if s.Headers, err = e.strMap("headers"); err != nil {
			return s, err
		}
		s.Type = TypeHTTP
	case "":
		return s, f.errAt(m.keyOff, "server %q has no \"type\" (opencode wants \"local\" or \"remote\")", m.key)
	default:
		tm, _ := e.member("type")
		return s, f.errAt(tm.val.off, "server %q: unknown \"type\" %q (opencode wants \"local\" or \"remote\")", m.key, typ)
	}
	return s, nil
}
