package check

import (
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/redact"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// redactServer redacts one server's report entry: the engine's last pass
// over the text it reports (findings quote warm-up call results and
// prompts/get answers, and messages quote definitions).
func redactServer(s report.Server, r *redact.Redactor) report.Server {
	return report.Redacted(&report.Report{Servers: []report.Server{s}}, r).Servers[0]
}
