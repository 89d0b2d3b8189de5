package lock

import (
	"errors"
	"strconv"
	"strings"
)

// A field path names one place inside a definition: the object keys and
// array indexes from its root, as in "inputSchema/properties/path/description"
// or "content/0/text". Field paths are part of the report contract (a
// finding's "field" in the JSON report and SARIF, the changed fields a drift
// finding names, the acknowledgements a reviewer writes against them), so
// every package that names a place in a definition spells it with these
// functions.
//
// The form is an RFC 6901 JSON pointer without its leading "/": each key is
// a reference token ("~" written "~0", "/" written "~1", so a key holding "/"
// cannot forge a deeper path), tokens are joined by "/", an array index is
// its decimal number, and the root is "". One pointer would lose its only
// token that way: a single empty key at the top ("/" in RFC 6901) would read
// as the root, and its members as top-level fields ({"":{"description":..}}
// as "description"). The empty key as the first token is therefore written
// "~", which no escaped key can be. Every other key, however odd (dots,
// brackets, quotes, control or invisible characters), is kept as it is: a
// field path is data; renderers escape it like any other server text.

// AppendFieldPath returns the path of key inside the object at path.
func AppendFieldPath(path, key string) string {
	if strings.ContainsAny(key, "~/") {
		key = strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
	}
	if path == "" {
		if key == "" {
			return "~"
		}
		return key
	}
	return path + "/" + key
}

// AppendFieldIndex returns the path of element i of the array at path.
func AppendFieldIndex(path string, i int) string {
	return AppendFieldPath(path, strconv.Itoa(i))
}

// JoinFieldPaths returns the path rest names relative to prefix: the path
// of a place found inside a part of a message ("prompts/get" + a path inside
// the prompt). Either may be the root ("").
func JoinFieldPaths(prefix, rest string) string {
	switch {
	case rest == "":
		return prefix
	case prefix == "":
		return rest
	case rest == "~" || strings.HasPrefix(rest, "~/"):
		// The leading empty key is "~" only at the top; inside prefix it
		// is an empty token like any other.
		return prefix + "/" + rest[1:]
	}
	return prefix + "/" + rest
}

var errFieldPath = errors.New("not a field path")

// SplitFieldPath returns the keys and indexes a path names, unescaped: the
// inverse of AppendFieldPath, so SplitFieldPath(AppendFieldPath(p, k)) is
// SplitFieldPath(p) followed by k. It refuses a token with a "~" not
// followed by "0" or "1" (other than the leading "~") and a path starting
// with "/", which AppendFieldPath never writes.
func SplitFieldPath(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	toks := strings.Split(path, "/")
	for i, tok := range toks {
		if i == 0 && tok == "~" {
			toks[i] = ""
			continue
		}
		if i == 0 && tok == "" {
			return nil, errFieldPath
		}
		for j := 0; j < len(tok); j++ {
			if tok[j] == '~' && (j+1 == len(tok) || tok[j+1] != '0' && tok[j+1] != '1') {
				return nil, errFieldPath
			}
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// MaxFieldChanges bounds the changed fields listed for one entry, in a
// drift finding and in a base review alike; a rewritten schema is
// summarized after that.
const MaxFieldChanges = 25

// IsInputProperty reports whether path names a property of a tool's input
// schema at any depth: inputSchema/.../properties/NAME. Drift and the base
// review both call a new one out (a new input is a new thing the model is
// asked to fill in).
func IsInputProperty(path string) bool {
	if !strings.HasPrefix(path, "inputSchema/") {
		return false
	}
	parts := strings.Split(path, "/")
	return len(parts) >= 3 && parts[len(parts)-2] == "properties"
}
