package report

import (
	"encoding/json"
	"io"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// writeJSON writes the Report as the `--format json` contract: the Report
// type's own JSON, 2-space indent, trailing newline. Nil lists and maps are
// written as [] and {}, so consumers never have to handle null for a field
// the contract calls a list; nothing else is changed, and server text stays
// raw (JSON string escaping makes it inert; consumers escape for display).
func writeJSON(w io.Writer, r *Report, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(normalized(r))
}

// normalized returns a shallow copy of r with nil slices and maps replaced by
// empty ones. r is not modified.
func normalized(r *Report) *Report {
	out := *r
	out.Servers = make([]Server, len(r.Servers))
	for i, s := range r.Servers {
		if s.Phases == nil {
			s.Phases = []string{}
		}
		if s.Findings == nil {
			s.Findings = []finding.Finding{}
		}
		out.Servers[i] = s
	}
	if out.Summary.ByRule == nil {
		out.Summary.ByRule = map[finding.RuleID]int{}
	}
	return &out
}
