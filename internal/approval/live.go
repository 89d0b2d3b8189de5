package approval

import (
	"time"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Approver is who approves what enters a lock, and when: pin records it
// on every entry it writes, approve on every entry it takes in and on
// every acknowledgement.
type Approver struct {
	By string
	At time.Time
}

// Live is what one server showed in an approve probe: the first phase of
// a probe through every phase, in lock form, or why it must not be
// approved from.
type Live struct {
	Name   string
	Config config.Server
	// Server is the first phase as a lock entry, every definition
	// approved by the approver given to check.ProbeLive. Nil when Refused.
	Server *lock.Server
	// Refused says why nothing of this server may be approved or
	// acknowledged: it was held, or its phases disagreed. "" when it may.
	Refused string
	// Leaked says why its changes may not be approved: it sent back a
	// planted secret no acknowledgement covers. The leak itself can be
	// acknowledged (approve --ack canary-leak), nothing else.
	Leaked string
	// Findings are the probe's own findings: stability, inspection,
	// hygiene, availability. Inspection findings carry the content hash
	// an acknowledgement binds to.
	Findings []finding.Finding
}
