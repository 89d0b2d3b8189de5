package config

import (
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// continueServer is one entry of a Continue block file's mcpServers list.
// Other fields (name of the block, version, schema, connectionTimeout,
// ...) do not change what is launched and are ignored.
type continueServer struct {
	Name           string            `yaml:"name"`
	Type           string            `yaml:"type"`
	Command        string            `yaml:"command"`
	Args           []string          `yaml:"args"`
	Env            map[string]string `yaml:"env"`
	Cwd            string            `yaml:"cwd"`
	URL            string            `yaml:"url"`
	RequestOptions struct {
		Headers map[string]string `yaml:"headers"`
	} `yaml:"requestOptions"`
}

// parseContinueYAML reads a Continue block file
// (.continue/mcpServers/NAME.yaml): a YAML document whose "mcpServers" is a
// list of servers, each named by its "name". Anchors, aliases, tags and
// merge keys are refused, as in the policy file: a value defined elsewhere
// is a value a reviewer does not see where it is used (and aliases are the
// YAML "billion laughs").
func parseContinueYAML(name string, data []byte, client string) (servers []Server, err error) {
	// The YAML parser is a dependency reading pull request content: a
	// panic in it must be an error naming the file, not a crash.
	defer func() {
		if r := recover(); r != nil {
			servers, err = nil, &Error{File: name, Msg: fmt.Sprintf("the YAML parser failed on this file: %v", r)}
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlError(name, err)
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, &Error{File: name, Line: 1, Msg: "want one YAML document with an \"mcpServers\" list"}
	}
	var bad error
	ast.Walk(visitFunc(func(n ast.Node) bool {
		switch n.(type) {
		case *ast.AliasNode, *ast.AnchorNode, *ast.TagNode, *ast.MergeKeyNode:
			if bad == nil {
				bad = yamlAt(name, n, "anchors, aliases, tags and merge keys are not supported in an MCP config: write the value out")
			}
			return false
		}
		return true
	}), f.Docs[0].Body)
	if bad != nil {
		return nil, bad
	}
	top, ok := f.Docs[0].Body.(*ast.MappingNode)
	if !ok {
		if mv, isMV := f.Docs[0].Body.(*ast.MappingValueNode); isMV {
			top = &ast.MappingNode{Values: []*ast.MappingValueNode{mv}}
		} else {
			return nil, yamlAt(name, f.Docs[0].Body, "top level must be a mapping with an \"mcpServers\" list")
		}
	}
	var list ast.Node
	for _, mv := range top.Values {
		if mv.Key != nil && mv.Key.String() == "mcpServers" {
			list = mv.Value
		}
	}
	seq, ok := list.(*ast.SequenceNode)
	if !ok {
		return nil, yamlAt(name, top, "no MCP servers: expected an \"mcpServers\" list of servers")
	}
	seen := map[string]int{}
	for _, item := range seq.Values {
		line, col := yamlPos(item)
		var cs continueServer
		if err := yaml.NodeToValue(item, &cs); err != nil {
			return nil, &Error{File: name, Line: line, Column: col, Msg: "invalid server entry: " + yamlMessage(err)}
		}
		if cs.Name == "" {
			return nil, &Error{File: name, Line: line, Column: col, Msg: "a server in \"mcpServers\" has no \"name\""}
		}
		if first, dup := seen[cs.Name]; dup {
			return nil, &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("server %q is defined twice (first on line %d)", cs.Name, first)}
		}
		seen[cs.Name] = line
		s := Server{Name: cs.Name, Command: cs.Command, Args: cs.Args, Env: cs.Env, Cwd: cs.Cwd, URL: cs.URL,
			Headers: cs.RequestOptions.Headers, File: name, Line: line, Client: client}
		if err := continueType(&s, cs.Type, name, line, col); err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	return servers, nil
}

// continueType sets s.Type from Continue's "type" typ, or without one from
// what is given, and checks that the type has what it needs. line and col
// place errors in file name.
func continueType(s *Server, typ, name string, line, col int) error {
	switch typ {
	case "":
		if !inferType(s, TypeHTTP) {
			return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("server %q has neither \"command\" nor \"url\"", s.Name)}
		}
	case "stdio":
		s.Type = TypeStdio
	case "sse":
		s.Type = TypeSSE
	case "streamable-http", "http":
		s.Type = TypeHTTP
	default:
		return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("server %q: unknown \"type\" %q (want \"stdio\", \"sse\" or \"streamable-http\")", s.Name, typ)}
	}
	switch {
	case s.Type == TypeStdio && s.Command == "":
		return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("server %q: type %q needs a \"command\"", s.Name, s.Type)}
	case s.Type != TypeStdio && s.URL == "":
		return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("server %q: type %q needs a \"url\"", s.Name, s.Type)}
	}
	return nil
}

type visitFunc func(ast.Node) bool

func (v visitFunc) Visit(n ast.Node) ast.Visitor {
	if v(n) {
		return v
	}
	return nil
}

// yamlPos is where a node starts (1-based): a mapping's first key.
func yamlPos(n ast.Node) (line, col int) {
	if m, ok := n.(*ast.MappingNode); ok && len(m.Values) > 0 {
		n = m.Values[0].Key
	}
	if mv, ok := n.(*ast.MappingValueNode); ok {
		n = mv.Key
	}
	if n == nil {
		return 0, 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line, tk.Position.Column
	}
	return 0, 0
}

func yamlAt(file string, n ast.Node, msg string) *Error {
	line, col := yamlPos(n)
	return &Error{File: file, Line: line, Column: col, Msg: msg}
}

// yamlError positions the YAML parser's error; only its message is kept,
// not the source line it would quote (which may hold a secret).
func yamlError(file string, err error) *Error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &Error{File: file, Msg: "invalid YAML: " + ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Column = tk.Position.Line, tk.Position.Column
		}
		return e
	}
	return &Error{File: file, Msg: "invalid YAML: " + err.Error()}
}

func yamlMessage(err error) string {
	var ye yaml.Error
	if errors.As(err, &ye) {
		return ye.GetMessage()
	}
	return err.Error()
}

// YAMLFieldPos gives, for each server of a Continue block file, the 1-based
// line and column of each of its keys: what guard install needs to edit
// the file in place.
func YAMLFieldPos(data []byte) (out map[string]map[string][2]int, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, err
	}
	out = map[string]map[string][2]int{}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return out, nil
	}
	for _, fields := range continueEntries(f.Docs[0].Body) {
		pos := map[string][2]int{}
		name := ""
		for _, fv := range fields {
			if fv.Key == nil {
				continue
			}
			k := fv.Key.String()
			line, col := yamlPos(fv.Key)
			pos[k] = [2]int{line, col}
			if k == "name" && fv.Value != nil {
				var s string
				if yaml.NodeToValue(fv.Value, &s) == nil {
					name = s
				}
			}
		}
		if name != "" {
			out[name] = pos
		}
	}
	return out, nil
}

// continueEntries lists the fields of each entry of a Continue block file's
// mcpServers sequence (an entry written as a one-line mapping included).
func continueEntries(body ast.Node) [][]*ast.MappingValueNode {
	var top []*ast.MappingValueNode
	switch b := body.(type) {
	case *ast.MappingNode:
		top = b.Values
	case *ast.MappingValueNode:
		top = []*ast.MappingValueNode{b}
	}
	var out [][]*ast.MappingValueNode
	for _, mv := range top {
		seq, ok := mv.Value.(*ast.SequenceNode)
		if mv.Key == nil || mv.Key.String() != "mcpServers" || !ok {
			continue
		}
		for _, item := range seq.Values {
			switch m := item.(type) {
			case *ast.MappingNode:
				out = append(out, m.Values)
			case *ast.MappingValueNode:
				out = append(out, []*ast.MappingValueNode{m})
			default:
				out = append(out, nil)
			}
		}
	}
	return out
}
