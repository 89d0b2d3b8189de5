package inspect

import (
	"fmt"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// The ambiguous-json rule: text that is not JSON with one meaning (a
// duplicate key, a number no parser reads the same, invalid UTF-8) is
// pinned by its raw bytes, and says so. Check, lint and the base review
// raise it through these, so it reads the same wherever it comes from.

// AmbiguousEntry is ambiguous-json for definition key of kind, whose
// canonical form c says why (c.Ambiguous), bound to c's hash.
func AmbiguousEntry(server string, kind lock.Kind, key, phase string, c lock.Canonical) finding.Finding {
	f := finding.New(finding.AmbiguousJSON, server)
	f.Kind, f.Subject, f.Phase, f.ContentSHA256 = kind, key, phase, c.SHA256
	f.Message = fmt.Sprintf("%s %q is not JSON with one meaning: %s", kind, key, c.Ambiguous)
	return f
}

// AmbiguousField is ambiguous-json for a handshake value of the server
// (instructions, serverInfo, capabilities).
func AmbiguousField(server, field, phase string, c lock.Canonical) finding.Finding {
	f := finding.New(finding.AmbiguousJSON, server)
	f.Kind, f.Subject, f.Field, f.Phase, f.ContentSHA256 = finding.KindServer, field, field, phase, c.SHA256
	f.Message = fmt.Sprintf("the server's %s is not JSON with one meaning: %s; it is pinned by its raw bytes", field, c.Ambiguous)
	return f
}

// DuplicateEntry is ambiguous-json for a definition a list holds more
// than once: clients may keep either.
func DuplicateEntry(server string, kind lock.Kind, key, phase string) finding.Finding {
	f := finding.New(finding.AmbiguousJSON, server)
	f.Kind, f.Subject, f.Phase = kind, key, phase
	f.Message = fmt.Sprintf("%s %q is listed more than once; clients may keep either definition", kind, key)
	return f
}
