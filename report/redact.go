package report

import (
	"encoding/json"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// Redacted returns a copy of r with every text a server or config could
// have put in it passed through red (nil: the secret shapes only):
// findings' subjects, fields, messages, before and after text and detail,
// held reasons, notes, server names and warm-up calls. The engine already
// redacts what it reports; this is the renderers' backstop, so a path that
// forgot cannot carry a secret into a report. r itself is not changed.
func Redacted(r *Report, red Redactor) *Report {
	if red == nil {
		red = shapesOnly
	}
	out := *r
	out.Servers = make([]Server, len(r.Servers))
	for i, s := range r.Servers {
		s.Name = red.String(s.Name)
		s.Reason = red.String(s.Reason)
		if s.Notes != nil {
			notes := make([]string, len(s.Notes))
			for j, n := range s.Notes {
				notes[j] = red.String(n)
			}
			s.Notes = notes
		}
		if s.Calls != nil {
			calls := make([]Call, len(s.Calls))
			for j, c := range s.Calls {
				c.Tool = red.String(c.Tool)
				c.Arguments = json.RawMessage(red.JSON(c.Arguments))
				calls[j] = c
			}
			s.Calls = calls
		}
		if s.Findings != nil {
			fs := make([]finding.Finding, len(s.Findings))
			for j, f := range s.Findings {
				f.Server = red.String(f.Server)
				f.Subject = red.String(f.Subject)
				f.Field = red.String(f.Field)
				f.Message = red.String(f.Message)
				f.Before = redactText(red, f.Before)
				f.After = redactText(red, f.After)
				f.Detail = red.String(f.Detail)
				f.AckReason = red.String(f.AckReason)
				fs[j] = f
			}
			s.Findings = fs
		}
		out.Servers[i] = s
	}
	return &out
}

// redactText redacts a finding's before or after text, which is JSON (a
// serverInfo, a whole definition) or plain text: JSON is redacted inside
// its decoded strings, so an escaped spelling is caught there too.
func redactText(red Redactor, s string) string {
	if t := strings.TrimSpace(s); t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '"') && json.Valid([]byte(t)) {
		return string(red.JSON([]byte(s)))
	}
	return red.String(s)
}
