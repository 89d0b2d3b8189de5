package finding

import (
	"os"
	"regexp"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestDocsRuleTable keeps the rule table in docs/rules.md and the registry
// the same: the ids, their order and their default severities are a
// contract. (TestRulesDoc regenerates the page; this reads it as a person
// would, so a hand edit inside the table fails too.)
func TestDocsRuleTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| \\[`([a-z-]+)`\\]\\(#[a-z-]+\\) \\| (error|warning|note) \\|").FindAllStringSubmatch(string(b), -1)
	if len(rows) != len(Rules) {
		t.Fatalf("docs/rules.md lists %d rules, the registry %d", len(rows), len(Rules))
	}
	for i, r := range Rules {
		if rows[i][1] != string(r.ID) || rows[i][2] != r.Severity.String() {
			t.Errorf("docs/rules.md row %d = %s/%s, registry %s/%s", i+1, rows[i][1], rows[i][2], r.ID, r.Severity)
		}
	}
}

func TestSeverityRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []Severity{Note, Warning, Error, Never} {
		got, err := ParseSeverity(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal) succeeded")
	}
}

// TestEntryRule: every entry kind has a registered rule for each change,
// named kind-op (templates as resource-template-...), and nothing else
// has one.
func TestEntryRule(t *testing.T) {
	t.Parallel()
	for _, kind := range lock.Kinds {
		prefix := string(kind)
		if kind == lock.KindTemplate {
			prefix = "resource-template"
		}
		for _, op := range []lock.Op{lock.Added, lock.Removed, lock.Changed} {
			id := EntryRule(kind, op)
			if _, ok := Lookup(id); !ok || string(id) != prefix+"-"+string(op) {
				t.Errorf("EntryRule(%s, %s) = %q", kind, op, id)
			}
		}
	}
	if id := EntryRule(KindServer, lock.Changed); id != "" {
		t.Errorf("the server's own fields have a rule per field, not %q", id)
	}
}

// TestParseRuleID pins the closed set of rule ids: every registered id
// parses as itself, and no other spelling or name does (a policy file, an
// --ack flag or a report read back cannot name a rule that is not there).
func TestParseRuleID(t *testing.T) {
	for _, r := range Rules {
		if got, err := ParseRuleID(string(r.ID)); err != nil || got != r.ID || !r.ID.Valid() {
			t.Errorf("ParseRuleID(%q) = %q, %v", r.ID, got, err)
		}
	}
	for _, tc := range []struct {
		in   string
		want RuleID
		ok   bool
	}{
		{"tool-changed", ToolChanged, true},
		{"launch-depends-on-environment", LaunchDependsOnEnv, true},
		{"Tool-Changed", "", false},
		{"TOOL-ADDED", "", false},
		{"tool_changed", "", false},
		{" tool-changed", "", false},
		{"", "", false},
		{"tool", "", false},
		{"no-such-rule", "", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRuleID(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("ParseRuleID(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
			if RuleID(tc.in).Valid() != tc.ok {
				t.Errorf("RuleID(%q).Valid() = %v, want %v", tc.in, !tc.ok, tc.ok)
			}
		})
	}
}
