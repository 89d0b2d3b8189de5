package lock

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/jsontok"
)

// ErrForeign marks a file that is not an mcp-lockcheck lock at all, as
// opposed to one of ours with a mistake in it: several tools write a file
// named mcp-lock.json. It wraps ErrInvalid.
var ErrForeign = fmt.Errorf("%w: this is not an mcp-lockcheck lock", ErrInvalid)

// foreignShape reports a file that does not have a lock's skeleton: a
// top-level object with "lockfileVersion" and a "servers" object whose
// first server is an object with a "launch". Another tool's file
// (`{"version": "1.0.0", "mcpServers": ...}`, or one with a
// lockfileVersion of its own and servers of another shape) is named as
// such, with its top-level keys, before anything reads it field by field.
// A file with the skeleton is ours, and a mistake in it is left to
// strictCheck and the decoder, which name its line; so is a syntax error.
// Only the top level and the first server's keys are read.
func foreignShape(name string, data []byte) error {
	dec := jsontok.Get(data)
	defer jsontok.Put(dec)
	tok, err := dec.ReadToken()
	if err != nil {
		return nil
	}
	if k := tok.Kind(); k != '{' {
		return fmt.Errorf("%s: %w: it holds a JSON %s, where a lock is an object with \"lockfileVersion\" and \"servers\" (several tools write a file named %s)%s", name, ErrForeign, kindName(k), DefaultPath, foreignHint)
	}
	var keys []string
	hasVersion, hasServers := false, false
	why := ""
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		if tok.Kind() == '}' {
			break
		}
		key := tok.String()
		keys = append(keys, fmt.Sprintf("%q", key))
		val, _, err := dec.ReadSpan()
		if err != nil {
			return nil
		}
		switch key {
		case "lockfileVersion":
			hasVersion = true
		case "servers":
			hasServers = true
			if w := foreignServers(val); w != "" {
				why = w
			}
		}
	}
	switch {
	case !hasVersion:
		why = "it has no \"lockfileVersion\""
	case !hasServers:
		why = "it has no \"servers\""
	case why == "":
		return nil
	}
	return fmt.Errorf("%s: %w: %s (its top-level keys: %s; a lock has \"lockfileVersion\" and \"servers\", each server with its \"launch\"; several tools write a file named %s)%s", name, ErrForeign, why, strings.Join(keys, ", "), DefaultPath, foreignHint)
}

// foreignServers says why a "servers" value is not a lock's ("" when it
// may be): not an object, or a first server that is an object without a
// "launch".
func foreignServers(val []byte) string {
	dec := jsontok.Get(val)
	defer jsontok.Put(dec)
	tok, err := dec.ReadToken()
	if err != nil {
		return ""
	}
	if tok.Kind() != '{' {
		return "its \"servers\" is not an object"
	}
	tok, err = dec.ReadToken()
	if err != nil || tok.Kind() == '}' {
		return ""
	}
	server := tok.String()
	tok, err = dec.ReadToken()
	if err != nil || tok.Kind() != '{' {
		return "" // a server that is not an object: strictCheck says where
	}
	for {
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() == '}' {
			return fmt.Sprintf("its server %q has no \"launch\"", server)
		}
		if tok.String() == "launch" {
			return ""
		}
		if _, _, err := dec.ReadSpan(); err != nil {
			return ""
		}
	}
}

// foreignHint is what to do about another tool's file.
const foreignHint = ": give mcp-lockcheck a lock of its own with --lock FILE, or move this file aside; mcp-lockcheck does not write over it"

func kindName(k jsontext.Kind) string {
	switch k {
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "value"
}
