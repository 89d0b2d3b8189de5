package finding

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated part of docs/rules.md from the registry")

// Markers around the part of docs/rules.md generated from Rules.
const (
	docBegin = "<!-- BEGIN GENERATED: go test ./finding -run TestRulesDoc -update -->\n"
	docEnd   = "<!-- END GENERATED -->\n"
)

// resolutionDoc says, per Resolution, what a report prints for a finding.
var resolutionDoc = map[string]string{
	ResolveApprove: "approving what the server shows: `mcp-lockcheck approve SERVER` (or `SERVER/KIND/NAME`), which `check` prints under Next.",
	ResolvePin:     "pinning: `mcp-lockcheck pin --server NAME` for a server the lock lacks, `mcp-lockcheck pin` to drop entries no config names; `check` prints it under Next.",
	ResolveAck:     "fixing it at the source, or acknowledging it with a reason, bound to the content's hash (the launch's, for a finding about the server itself): `mcp-lockcheck approve --ack RULE --reason WHY SERVER/KIND/NAME`, which `pin` and `check` print for every finding that fails them where acknowledging is a reasonable outcome. They do not offer it for `canary-leak`, `canary-used` or a `model-instruction` at error (text that tells the model to pass secrets on or send data away): `check`'s Next names those first as what they are, and offers no approve for their server either; an acknowledgement typed by hand, with a reason, still records one that is plainly legitimate.",
	ResolveFix:     "fixing the cause; it cannot be acknowledged, since that would pass what nobody could check.",
	ResolveReview:  "reading it: a note for reviewers that does not fail the run.",
	ResolvePolicy:  "fixing the cause, or, for one the team has decided to live with, an entry in the policy file's `acknowledge:` section naming the rule, the subject (the file of an unchecked-config, the setting's path of a policy-weakened) and the reason; under `--base` the base branch's policy is in force, and an acknowledgement a pull request adds is itself `policy-weakened` until merged.",
}

// rulesDoc is the rule table and one section per rule, from the registry:
// the ids, order and default severities are a contract, and the words are
// the ones SARIF's rules[] carries.
func rulesDoc() string {
	var b strings.Builder
	b.WriteString("| rule | default severity | what |\n|---|---|---|\n")
	for _, r := range Rules {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", r.ID, r.ID, r.Severity, r.Short)
	}
	for _, r := range Rules {
		fmt.Fprintf(&b, "\n### %s\n\nDefault severity: %s. %s\n", r.ID, r.Severity, r.Full)
		if r.Help != "" {
			fmt.Fprintf(&b, "\nWhat to do: %s\n", r.Help)
		}
		fmt.Fprintf(&b, "\nResolved by: %s\n", resolutionDoc[Resolution(r.ID)])
	}
	return b.String()
}

// TestRulesDoc fails when docs/rules.md's generated part is not what the
// registry says (go test ./finding -run TestRulesDoc -update rewrites it).
func TestRulesDoc(t *testing.T) {
	t.Parallel()
	const path = "../docs/rules.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, docBegin), strings.Index(doc, docEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated part between %q and %q", path, docBegin, docEnd)
	}
	want := doc[:i+len(docBegin)] + rulesDoc() + doc[j:]
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("%s is stale: run go test ./finding -run TestRulesDoc -update", path)
	}
}
