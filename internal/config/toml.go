package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// tomlFile reads Codex's config.toml: [mcp_servers.NAME] tables with
// command, args, env, cwd for stdio servers, and url, http_headers,
// env_http_headers, bearer_token_env_var for streamable HTTP ones.
type tomlFile struct {
	name string
	md   toml.MetaData
}

// errPosition is returned by posProbe so that the toml package wraps it in a
// ParseError carrying the position of the key being decoded: MetaData has
// positions for every key but no exported way to ask for one.
var errPosition = errors.New("position probe")

type posProbe struct{}

func (*posProbe) UnmarshalTOML(any) error { return errPosition }

// line returns the 1-based line of the key a primitive was read from, or 0
// when the toml package does not know it (implicit tables). Only the line:
// the package's columns for keys are not reliably those of the key.
func (f *tomlFile) line(p toml.Primitive) int {
	var pe toml.ParseError
	if err := f.md.PrimitiveDecode(p, &posProbe{}); errors.As(err, &pe) {
		return pe.Position.Line
	}
	return 0
}

func (f *tomlFile) errAt(p toml.Primitive, format string, args ...any) *Error {
	return &Error{File: f.name, Line: f.line(p), Msg: fmt.Sprintf(format, args...)}
}

func (f *tomlFile) errLine(line int, format string, args ...any) *Error {
	return &Error{File: f.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// table decodes a primitive that must be a TOML table. The type is checked
// first: decoding a non-table into a map silently succeeds in the toml package.
func (f *tomlFile) table(p toml.Primitive) (map[string]toml.Primitive, bool) {
	var v any
	if err := f.md.PrimitiveDecode(p, &v); err != nil {
		return nil, false
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, false
	}
	var t map[string]toml.Primitive
	if err := f.md.PrimitiveDecode(p, &t); err != nil {
		return nil, false
	}
	return t, true
}

func parseTOML(name string, data []byte, client string) ([]Server, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// Message only: ErrorWithPosition would quote the line, which may hold a secret.
			return nil, &Error{File: name, Line: pe.Position.Line, Column: pe.Position.Col, Msg: "invalid TOML: " + pe.Message}
		}
		return nil, &Error{File: name, Msg: fmt.Sprintf("invalid TOML: %v", err)}
	}
	f := &tomlFile{name: name, md: md}
	prim, ok := top["mcp_servers"]
	if !ok {
		// Codex's config.toml is its general settings file.
		if strings.EqualFold(filepath.Base(name), "config.toml") {
			return nil, nil
		}
		return nil, &Error{File: name, Msg: "no MCP servers: expected [mcp_servers.NAME] tables"}
	}
	if client == ClientUnknown {
		client = ClientCodex // no other client reads this shape
	}
	table, ok := f.table(prim)
	if !ok {
		return nil, f.errAt(prim, "mcp_servers must be a table of servers ([mcp_servers.NAME])")
	}
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	slices.Sort(names)
	servers := make([]Server, 0, len(names))
	for _, n := range names {
		s, err := f.server(n, table[n], client)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	return servers, nil
}

func (f *tomlFile) server(name string, prim toml.Primitive, client string) (Server, error) {
	s := Server{Name: name, File: f.name, Line: f.line(prim), Client: client}
	if name == "" {
		return s, f.errLine(s.Line, "server name must not be empty")
	}
	fields, ok := f.table(prim)
	if !ok {
		return s, f.errLine(s.Line, "server %q must be a table", name)
	}
	if s.Line == 0 {
		// Dotted keys (b.command = "x") define the table implicitly, without
		// a position of its own: use its first field's line.
		for _, p := range fields {
			if l := f.line(p); l > 0 && (s.Line == 0 || l < s.Line) {
				s.Line = l
			}
		}
	}
	r := &tomlEntry{f: f, name: name, fields: fields}
	var err error
	if s.Command, err = r.str("command"); err != nil {
		return s, err
	}
	if s.Args, err = r.strList("args"); err != nil {
		return s, err
	}
	if s.Env, err = r.strMap("env"); err != nil {
		return s, err
	}
	if s.Cwd, err = r.str("cwd"); err != nil {
		return s, err
	}
	if s.URL, err = r.str("url"); err != nil {
		return s, err
	}
	if s.Headers, err = r.strMap("http_headers"); err != nil {
		return s, err
	}
	// Headers Codex fills from the environment are recorded as placeholders,
	// so Resolve sends what Codex would send and the lock holds no secret.
	if err := f.envHeaders(r, &s); err != nil {
		return s, err
	}
	if !inferType(&s, TypeHTTP) {
		return s, f.errLine(s.Line, "server %q has neither \"command\" nor \"url\"", name)
	}
	return s, nil
}

// envHeaders adds to s the headers Codex fills from the environment
// (env_http_headers, bearer_token_env_var), as placeholders.
func (f *tomlFile) envHeaders(r *tomlEntry, s *Server) error {
	fromEnv, err := r.strMap("env_http_headers")
	if err != nil {
		return err
	}
	bearer, err := r.str("bearer_token_env_var")
	if err != nil {
		return err
	}
	addHeader := func(h, v string) error {
		for have := range s.Headers {
			if strings.EqualFold(have, h) {
				return f.errLine(s.Line, "server %q: header %q is set twice", s.Name, h)
			}
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[h] = v
		return nil
	}
	for _, h := range slices.Sorted(maps.Keys(fromEnv)) {
		if err := addHeader(h, "${"+fromEnv[h]+"}"); err != nil {
			return err
		}
	}
	if bearer != "" {
		if err := addHeader("Authorization", "Bearer ${"+bearer+"}"); err != nil {
			return err
		}
	}
	return nil
}

type tomlEntry struct {
	f      *tomlFile
	name   string
	fields map[string]toml.Primitive
}

// value decodes one optional field into its natural Go type.
func (r *tomlEntry) value(key string) (any, toml.Primitive, bool) {
	p, ok := r.fields[key]
	if !ok {
		return nil, p, false
	}
	var v any
	if err := r.f.md.PrimitiveDecode(p, &v); err != nil {
		return nil, p, false
	}
	return v, p, true
}

func (r *tomlEntry) str(key string) (string, error) {
	v, p, ok := r.value(key)
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", r.f.errAt(p, "server %q: %q must be a string, not %s", r.name, key, tomlKind(v))
	}
	return s, nil
}

func (r *tomlEntry) strList(key string) ([]string, error) {
	v, p, ok := r.value(key)
	if !ok {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, r.f.errAt(p, "server %q: %q must be an array of strings, not %s", r.name, key, tomlKind(v))
	}
	out := make([]string, 0, len(arr))
	for i, el := range arr {
		s, ok := el.(string)
		if !ok {
			return nil, r.f.errAt(p, "server %q: %q must be an array of strings, but element %d is %s", r.name, key, i, tomlKind(el))
		}
		out = append(out, s)
	}
	return out, nil
}

// strMap reads a table of strings; messages name keys, never values.
func (r *tomlEntry) strMap(key string) (map[string]string, error) {
	v, p, ok := r.value(key)
	if !ok {
		return nil, nil
	}
	tbl, ok := v.(map[string]any)
	if !ok {
		return nil, r.f.errAt(p, "server %q: %q must be a table of strings, not %s", r.name, key, tomlKind(v))
	}
	out := make(map[string]string, len(tbl))
	for _, k := range slices.Sorted(maps.Keys(tbl)) {
		s, ok := tbl[k].(string)
		if !ok {
			return nil, r.f.errAt(p, "server %q: %q must be a table of strings, but %q is %s", r.name, key, k, tomlKind(tbl[k]))
		}
		out[k] = s
	}
	return out, nil
}

func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a date or time"
}

// TOMLFieldLines gives, for each server of a Codex config, the 1-based line
// of each of its keys (0 when the toml package knows none): what a tool
// that edits the file in place (guard install) needs to find a value
// without re-encoding the file.
func TOMLFieldLines(data []byte) (map[string]map[string]int, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil, err
	}
	f := &tomlFile{md: md}
	out := map[string]map[string]int{}
	prim, ok := top["mcp_servers"]
	if !ok {
		return out, nil
	}
	table, ok := f.table(prim)
	if !ok {
		return out, nil
	}
	for name, p := range table {
		fields, ok := f.table(p)
		if !ok {
			continue
		}
		lines := map[string]int{}
		for k, fp := range fields {
			lines[k] = f.line(fp)
		}
		out[name] = lines
	}
	return out, nil
}
