package report

import (
	"fmt"
	"strings"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// One finding on many subjects of one server (a vendor's sentence repeated
// on eight tools' descriptions) is shown once, naming the subjects, by
// every renderer a person reads: text, markdown (the PR comment and the
// job summary) and the workflow annotations. What is counted and decided
// stays per finding: the JSON report (a contract: one finding per subject,
// as the lock and the acknowledgements are), the summary's counts, the
// exit code, the acknowledgement commands. SARIF stays one result per
// subject too: code scanning keys an alert by its fingerprint and shows it
// at one location, so a result per tool is what lets one tool's alert be
// fixed or dismissed without the others', as its acknowledgement is.

// sameKey is what makes two findings one finding on two subjects: everything
// a reader is shown but the subject (and the phase and line it was seen
// at), and the detail's quote. A vendor repeats a sentence with a word
// changed from tool to tool (Resend's "Don't bother telling the user the
// IDs unless they ask", "... the IDs or creation dates ..."), and the quote
// carries the words around the match: the rule, the field and what the
// message says it asks are the finding. The group shows the first
// subject's detail, and says when the others' quotes differ. Drift of a
// definition is not grouped: each definition's change is its own diff.
func sameKey(f finding.Finding) (string, bool) {
	if f.Server == "" || f.Subject == "" || f.Kind == "" || f.Kind == finding.KindServer || driftRules[f.Rule] {
		return "", false
	}
	ack := "0"
	if f.Acknowledged {
		ack = "1"
	}
	return strings.Join([]string{string(f.Rule), f.Severity.String(), f.Server, string(f.Kind), f.Field,
		f.Message, f.Before, f.After, ack, f.AckReason}, "\x00"), true
}

// identity names one finding of a report (Dedup leaves no two alike).
func identity(f finding.Finding) string {
	return f.Key() + "\x00" + f.Message + "\x00" + f.Phase
}

// sameGroups maps the finding that stands for a group (by identity) to
// every finding of the group, itself first, in report order.
type sameGroups map[string][]finding.Finding

// groupSame returns fs with every finding that repeats an earlier one on
// another subject left out, and the groups the ones kept stand for. fs
// keeps its order.
func groupSame(fs []finding.Finding) ([]finding.Finding, sameGroups) {
	first := map[string]string{} // sameKey: identity of the first
	groups := sameGroups{}
	var out []finding.Finding
	for _, f := range fs {
		k, ok := sameKey(f)
		if !ok {
			out = append(out, f)
			continue
		}
		if id, seen := first[k]; seen {
			groups[id] = append(groups[id], f)
			continue
		}
		id := identity(f)
		first[k] = id
		groups[id] = []finding.Finding{f}
		out = append(out, f)
	}
	for id, g := range groups {
		if len(g) < 2 {
			delete(groups, id)
		}
	}
	for i, f := range out {
		g := groups[identity(f)]
		if len(g) < 2 {
			continue
		}
		for _, x := range g[1:] {
			if x.Detail != f.Detail {
				out[i].Detail = fmt.Sprintf("quoted from %s %s (the other %d differ around the match): %s", f.Kind, escape(f.Subject), len(g)-1, f.Detail)
				break
			}
		}
	}
	return out, groups
}

// of is the group f stands for (nil when it stands for itself alone).
func (g sameGroups) of(f finding.Finding) []finding.Finding {
	if g == nil {
		return nil
	}
	return g[identity(f)]
}

// subjectText is subjectText(f), or for a group "8 tools: a, b, c, ...",
// every name there.
func (g sameGroups) subjectText(f finding.Finding) string {
	fs := g.of(f)
	if len(fs) < 2 {
		return subjectText(f)
	}
	return fmt.Sprintf("%d %ss: %s", len(fs), f.Kind, strings.Join(g.names(f), ", "))
}

// names are the subjects of f's group.
func (g sameGroups) names(f finding.Finding) []string {
	fs := g.of(f)
	if len(fs) < 2 {
		return []string{f.Subject}
	}
	out := make([]string, len(fs))
	for i, x := range fs {
		out[i] = x.Subject
	}
	return out
}
