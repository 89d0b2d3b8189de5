// Package synth makes up arguments for a tool from its inputSchema, and picks
// the tools that the warm-up calls of a probe use.
//
// A server that rewrites its descriptions after N `tools/call` requests (a
// counter-triggered rug pull) only shows it when it is called, and a call
// with arguments its own validation rejects may never reach the counter. So
// the probe calls tools with the smallest arguments that satisfy the schema
// the server itself published: required properties only, each given its
// schema's default, const, first enum value or first example when they fit,
// else the least value of its type that satisfies its constraints.
//
// The schema is attacker-controlled input. Every recursion is bounded in
// depth, every schema gets a fixed budget of work, sizes the schema asks for
// (minLength, minItems, ...) are capped, and every result is checked against
// the schema by this package's own validator before it is returned, so a
// construct the generator misreads yields an error, never a wrong argument.
// The output is deterministic: the same schema bytes give the same argument
// bytes, with object keys sorted.
package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Call is one warm-up `tools/call` request: which tool, with what arguments.
type Call struct {
	// Tool is the tool's name as the server listed it.
	Tool string
	// Arguments is a JSON object valid against the tool's inputSchema.
	Arguments json.RawMessage
}

// Arguments returns a minimal JSON object that validates against the tool's
// inputSchema (raw JSON as the server sent it), or an error saying why none
// could be synthesized: the schema is unsatisfiable, uses a construct this
// package does not support (a remote $ref, a pattern Go's regexp cannot
// compile), or is too large or deep to explore within the work budget.
//
// An empty or null inputSchema, which the protocol does not allow but some
// servers send, gives {}: a tool that declares no input takes none.
func Arguments(inputSchema json.RawMessage) (json.RawMessage, error) {
	raw := bytes.TrimSpace(inputSchema)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	doc, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("synth: inputSchema: %w", err)
	}
	g := newGen(doc)
	// Tool arguments are always an object, whatever the root schema
	// admits besides, so ask for an object and let the root's own keywords
	// narrow it further.
	root := map[string]any{"allOf": []any{map[string]any{"type": "object"}, doc}}
	v, err := g.one(root, 0)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("synth: internal error: synthesized arguments are not an object")
	}
	out, err := encode(v)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	return out, nil
}

// Pick chooses the tools that the warm-up calls use, in the order a probe
// should cycle through them, and their arguments.
//
// Read-only tools (annotations.readOnlyHint true) come first and alone: when
// at least one has synthesizable arguments, only those are called, because
// a warm-up call should not change anything the server touches. When there
// is none, every tool with synthesizable arguments is used except those
// annotated destructiveHint true. A tool annotated destructiveHint true is
// never picked, even if it also claims to be read-only: the two hints
// contradict each other, and the cautious reading wins. (The protocol's
// default for an absent destructiveHint is true, but honouring that would
// leave most servers, which annotate nothing, without any warm-up call, and
// the probe exists to make those calls.)
//
// Tools are ordered by name, not by listing order, so that a server that
// reorders its list, which is not drift, gets the same calls. Definitions
// that are not JSON objects, have no string name, or repeat an earlier name
// are skipped.
func Pick(tools []json.RawMessage) []Call {
	type tool struct {
		name                  string
		readOnly, destructive bool
		args                  json.RawMessage
	}
	var all []tool
	seen := map[string]bool{}
	for _, raw := range tools {
		var def struct {
			Name        *string         `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations struct {
				ReadOnlyHint    any `json:"readOnlyHint"`
				DestructiveHint any `json:"destructiveHint"`
			} `json:"annotations"`
		}
		if json.Unmarshal(raw, &def) != nil || def.Name == nil || seen[*def.Name] {
			continue
		}
		seen[*def.Name] = true
		args, err := Arguments(def.InputSchema)
		if err != nil {
			continue
		}
		all = append(all, tool{
			name: *def.Name,
			// Only a JSON true counts: "true" or 1 is not an annotation
			// the protocol defines.
			readOnly:    def.Annotations.ReadOnlyHint == true,
			destructive: def.Annotations.DestructiveHint == true,
			args:        args,
		})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].name < all[j].name })
	var readOnly, others []Call
	for _, t := range all {
		if t.destructive {
			continue
		}
		c := Call{Tool: t.name, Arguments: t.args}
		if t.readOnly {
			readOnly = append(readOnly, c)
		} else {
			others = append(others, c)
		}
	}
	if len(readOnly) > 0 {
		return readOnly
	}
	return others
}

// decode reads JSON keeping numbers as written (json.Number), so bounds,
// multiples and constants are compared exactly, not as float64.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the schema")
	}
	return v, nil
}

// encode writes v as compact JSON with sorted keys and without HTML
// escaping: the arguments go to a server, not into a web page.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}
