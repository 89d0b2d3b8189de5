// Package finding defines what a run reports: one Finding type, the severity
// scale, and the ordered registry of rules every finding comes from.
//
// Every renderer (text, JSON, SARIF, markdown, annotations) and every filter
// (--fail-on, policy re-levelling, acknowledgements) works on this one type,
// so a rule id means the same thing everywhere it appears.
package finding

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// Severity orders findings. The zero value is Note, the lowest.
type Severity int

const (
	Note Severity = iota
	Warning
	Error
	// Never is only a --fail-on threshold: no finding reaches it.
	Never
)

var severityNames = [...]string{"note", "warning", "error", "never"}

func (s Severity) String() string {
	if s >= 0 && int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads "note", "warning", "error" or "never".
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want note, warning, error or never)", s)
}

// MarshalText writes the severity's name, so JSON carries "error", not 2.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Kinds of subject a finding can be about: the lock's entry kinds, and
// the server itself.
const (
	KindServer   = lock.KindServer
	KindTool     = lock.KindTool
	KindPrompt   = lock.KindPrompt
	KindResource = lock.KindResource
	KindTemplate = lock.KindTemplate
)

// Finding is one thing a run found about one server.
//
// Before and After carry the lock's text and the live text for drift, already
// rendered as strings (JSON for structured values); they are attacker-controlled
// and every renderer must escape them.
type Finding struct {
	Rule     RuleID   `json:"rule"`
	Severity Severity `json:"severity"`
	Server   string   `json:"server"`
	// Kind is what Subject names: tool, prompt, resource, template or server.
	Kind    lock.Kind `json:"kind,omitempty"`
	Subject string    `json:"subject,omitempty"`
	// Field is a JSON-pointer-like path inside the subject's definition
	// ("description", "inputSchema/properties/path/description").
	Field string `json:"field,omitempty"`
	// Phase is the probe phase the finding was seen in ("launch-1/after-call-3").
	Phase   string `json:"phase,omitempty"`
	Message string `json:"message"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	// Detail is extra text for a human: decoded hidden text, the offending
	// span escaped, the calls made.
	Detail string `json:"detail,omitempty"`
	// ContentSHA256 is the hash of the content the finding is about, which an
	// acknowledgement must match to silence it.
	ContentSHA256 string `json:"contentSha256,omitempty"`
	// Acknowledged is set when a lock acknowledgement silences the finding:
	// it is still reported, but never fails the run.
	Acknowledged bool   `json:"acknowledged,omitempty"`
	AckReason    string `json:"ackReason,omitempty"`
	// File and Line locate the finding in the repository: the lockfile line
	// of a pinned entry, or the config line of a server. Line is 1-based;
	// 0 means unknown.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Key identifies a finding independently of phase, message and line numbers:
// (rule, server, kind, subject, field). SARIF fingerprints and deduplication use it.
func (f Finding) Key() string {
	return strings.Join([]string{string(f.Rule), f.Server, string(f.Kind), f.Subject, f.Field}, "\x00")
}

// Compare orders findings deterministically: by server, severity (highest
// first), rule, kind, subject, field, phase, message.
func Compare(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Server, b.Server),
		cmp.Compare(b.Severity, a.Severity),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Subject, b.Subject),
		cmp.Compare(a.Field, b.Field),
		cmp.Compare(a.Phase, b.Phase),
		cmp.Compare(a.Message, b.Message),
	)
}

// Sort sorts findings with Compare.
func Sort(fs []Finding) { slices.SortStableFunc(fs, Compare) }

// Dedup drops findings that repeat an earlier one's key, keeping the first
// (earliest phase after Sort). The same drift seen in ten phases is one finding.
func Dedup(fs []Finding) []Finding {
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := f.Key() + "\x00" + f.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// MarshalJSON is the default encoding; declared so the type's JSON shape is
// part of this package's contract and golden-tested.
func (f Finding) MarshalJSON() ([]byte, error) {
	type plain Finding
	return json.Marshal(plain(f))
}
