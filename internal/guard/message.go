package guard

import (
	"fmt"
	"strings"
)

// msgKind is what one JSON-RPC message is. A message from the server is
// exactly one of the three, or it is refused.
type msgKind int

const (
	kindRequest msgKind = iota + 1
	kindNotification
	kindResponse
)

// rpc is one message's JSON-RPC members, as spans of the line.
type rpc struct {
	kind   msgKind
	id     []byte // nil when absent
	method string
	params []byte
	result []byte // nil when absent
	err    []byte // nil when absent
}

// reservedFold maps the fold of each member JSON-RPC 2.0 defines to its
// spelling in the specification.
var reservedFold = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
		m[fold(k)] = k
	}
	return m
}()

// classify decides what a message is, from its members spelled exactly as
// JSON-RPC 2.0 spells them, and refuses (errAmbiguous) a message that two
// clients could read as two different things:
//
//   - a member whose name folds to a JSON-RPC member's but is spelled
//     otherwise ("Method", "ID", "reſult"): encoding/json, and so the Go
//     SDK's client, matches member names case-insensitively, a TypeScript
//     client matches them exactly. {"id":1,"Method":"","result":...} is a
//     response to the Go client and an unknown member to a strict one;
//   - a method beside a result or an error: a request to one reader, a
//     response to another;
//   - a method that is not a non-empty string: the Go SDK reads "" and null
//     as "no method", so the message becomes a response;
//   - an id that is not a string or a number on a request (null reads as
//     a notification to some and a request to others), an id on a
//     notifications/ method, params on a response;
//   - a response with both result and error, or neither;
//   - a "jsonrpc" member that is not exactly "2.0".
func classify(ms []member) (rpc, error) {
	var r rpc
	var jsonrpc []byte
	hasMethod, hasParams := false, false
	var method []byte
	for _, m := range ms {
		spec, reserved := reservedFold[m.fold]
		if !reserved {
			continue
		}
		if m.key != spec {
			return r, fmt.Errorf("%w: member %q is spelled like %q but not as JSON-RPC spells it: clients that fold case read it as %q, the others ignore it", errAmbiguous, m.key, spec, spec)
		}
		switch spec {
		case "jsonrpc":
			jsonrpc = m.val
		case "id":
			r.id = m.val
		case "method":
			hasMethod, method = true, m.val
		case "params":
			hasParams, r.params = true, m.val
		case "result":
			r.result = m.val
		case "error":
			r.err = m.val
		}
	}
	if v, ok := jsonString(jsonrpc); !ok || v != "2.0" {
		return r, fmt.Errorf("%w: \"jsonrpc\" is %s, not \"2.0\"", errAmbiguous, orAbsent(jsonrpc))
	}
	if hasMethod {
		name, ok := jsonString(method)
		switch {
		case !ok:
			return r, fmt.Errorf("%w: \"method\" is %s, not a string: one client reads a request, another a response", errAmbiguous, excerpt(method))
		case name == "":
			return r, fmt.Errorf("%w: \"method\" is empty: one client reads a request, another a response", errAmbiguous)
		case r.result != nil || r.err != nil:
			return r, fmt.Errorf("%w: \"method\" beside \"result\" or \"error\": one client reads a request, another a response", errAmbiguous)
		}
		r.method = name
		if r.id == nil {
			r.kind = kindNotification
			return r, nil
		}
		if !validID(r.id) {
			return r, fmt.Errorf("%w: request id %s is not a string or a number", errAmbiguous, excerpt(r.id))
		}
		if strings.HasPrefix(name, "notifications/") {
			return r, fmt.Errorf("%w: an id on notification %s: one client answers it, another does not", errAmbiguous, quote(name))
		}
		r.kind = kindRequest
		return r, nil
	}
	switch {
	case r.result != nil && r.err != nil:
		return r, fmt.Errorf("%w: a response with both \"result\" and \"error\"", errAmbiguous)
	case r.result == nil && r.err == nil:
		return r, fmt.Errorf("%w: neither a request (no \"method\") nor a response (no \"result\" or \"error\")", errAmbiguous)
	case hasParams:
		return r, fmt.Errorf("%w: \"params\" on a response", errAmbiguous)
	case r.id == nil:
		return r, fmt.Errorf("%w: a response without an id", errAmbiguous)
	case !validID(r.id) && !(r.err != nil && string(r.id) == "null"):
		return r, fmt.Errorf("%w: response id %s is not a string or a number", errAmbiguous, excerpt(r.id))
	case r.err != nil && (len(r.err) == 0 || r.err[0] != '{'):
		return r, fmt.Errorf("%w: \"error\" is not an object", errAmbiguous)
	}
	r.kind = kindResponse
	return r, nil
}

func validID(raw []byte) bool {
	_, ok := idKey(raw)
	return ok
}

func orAbsent(b []byte) string {
	if b == nil {
		return "absent"
	}
	return excerpt(b)
}
