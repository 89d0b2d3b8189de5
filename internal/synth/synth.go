// Package synth makes up arguments for a tool from its inputSchema, and picks
// the tools that the warm-up calls of a probe use.
//
// A warm-up call must never change the user's world: a checker that sets
// Redis keys, creates repositories or adds Slack reactions to bait a rug
// pull does the damage it looks for. So only tools that read are called:
// annotated readOnlyHint, or, without read/write hints, named (or
// described) as reads; a name that reads as a write is never called
// (Select, ClassifyName). The policy file is the only way to call others.
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
// the schema by santhosh-tekuri/jsonschema before it is returned (fenced in
// as validate.go describes: it fetches nothing, and compiles and validates
// only within limits), so a construct the generator misreads yields an
// error, never a wrong argument.
// The output is deterministic: the same schema bytes give the same argument
// bytes, with object keys sorted.
package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// could be synthesized: the schema is unsatisfiable, is not a valid schema
// of its draft, refers to anything outside itself (a remote $ref, a nested
// $schema the library would load), uses a construct this package does not
// support (a pattern Go's regexp cannot compile, $dynamicRef), or is too
// large or deep to compile or explore within the limits and work budget.
//
// An empty or null inputSchema, which the protocol does not allow but some
// servers send, gives {}: a tool that declares no input takes none.
func Arguments(inputSchema json.RawMessage) (json.RawMessage, error) {
	out, _, err := arguments(inputSchema)
	return out, err
}

// arguments is Arguments, also giving the compiled schema for Plan to
// judge its realistic values by (nil for an empty schema).
func arguments(inputSchema json.RawMessage) (json.RawMessage, *gen, error) {
	raw := bytes.TrimSpace(inputSchema)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil, nil
	}
	doc, err := decode(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("synth: inputSchema: %w", err)
	}
	g, err := newGen(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("synth: %w", err)
	}
	// Tool arguments are always an object, whatever the root schema
	// admits besides, so ask for an object and let the root's own keywords
	// narrow it further.
	root := map[string]any{"allOf": []any{map[string]any{"type": "object"}, doc}}
	v, err := g.one(root, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("synth: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, nil, errors.New("synth: internal error: synthesized arguments are not an object")
	}
	out, err := encode(v)
	if err != nil {
		return nil, nil, fmt.Errorf("synth: %w", err)
	}
	return out, g, nil
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
