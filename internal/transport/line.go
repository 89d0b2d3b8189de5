package transport

import (
	"bytes"
	"encoding/json"
	"strings"
)

// IsMessageLine reports whether a client could read line (one line of a
// stdio server's stdout) as a JSON-RPC message or a batch of them, or the
// first line of one spread over several. The lines it rejects are ones the
// TypeScript and Python SDK clients skip and no lenient client reads
// either: not JSON, or a JSON object with no top-level member that folds
// to "jsonrpc", "method", "result" or "error". The guard drops those too.
func IsMessageLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return true // blank: nothing to drop, the SDK skips whitespace
	}
	if t[0] == '[' {
		return true
	}
	if t[0] != '{' {
		return false
	}
	// The common case: a message spells its version member plainly.
	if bytes.Contains(t, []byte(`"jsonrpc"`)) {
		return true
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(t, &members); err != nil {
		// Not JSON on its own: the first line of a value spread over
		// several (the SDK's stream decoder reads those), or a broken
		// message. The SDK decides, and a server it cannot read is held
		// with the line quoted.
		return true
	}
	for k := range members {
		for _, m := range rpcMembers {
			if strings.EqualFold(k, m) {
				return true
			}
		}
	}
	return false
}

// rpcMembers are the members that make a JSON object a message to some
// client: the version, or what a request or a response carries. A client
// that does not insist on "jsonrpc" reads {"id":1,"result":...} as an
// answer, so that line is not skipped (the SDK refuses it, and the server
// is held; the guard refuses the session).
var rpcMembers = []string{"jsonrpc", "method", "result", "error"}
