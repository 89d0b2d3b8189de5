package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/npmtest"
)

// sarifSchema compiles the SARIF 2.1.0 JSON schema as the npm package
// @microsoft/jest-sarif ships it (2.1.0-rtm.5), installed with the test
// servers by internal/testing/npmtest: the schema comes from a registry at a pinned
// version rather than being copied into this repository.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	d := npmtest.Servers(t)
	f, err := os.Open(filepath.Join(d.Root, "node_modules", "@microsoft", "jest-sarif", "lib", "schemas", "sarif-2.1.0-rtm.5.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://json.schemastore.org/sarif-2.1.0-rtm.5.json"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestSARIFValidatesAgainstSchema(t *testing.T) {
	t.Parallel()
	sch := sarifSchema(t)
	for name, r := range map[string]*Report{
		"fixture": loadFixture(t),
		"payload": payloadReport(),
		"empty":   {LockfileVersion: 1},
	} {
		var buf bytes.Buffer
		if err := writeSARIF(&buf, r, fixtureOptions); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: SARIF does not validate: %v", name, err)
		}
	}
}

// sarifLog is the part of SARIF the tests read back.
type sarifLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name    string
				Version string
				Rules   []struct {
					ID                   string
					DefaultConfiguration struct{ Level string }
					Help                 struct{ Text string }
				}
			}
		}
		AutomationDetails struct{ ID string }
		Results           []struct {
			RuleID              string
			RuleIndex           int
			Level               string
			Message             struct{ Text string }
			PartialFingerprints map[string]string
			Locations           []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string }
					Region           struct{ StartLine int }
				}
			}
			Suppressions []struct{ Kind, Status, Justification string }
			Properties   map[string]string
		}
	}
}

func TestSARIFContent(t *testing.T) {
	t.Parallel()
	r := loadFixture(t)
	var buf bytes.Buffer
	if err := writeSARIF(&buf, r, fixtureOptions); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "mcp-lockcheck" || d.Version != "1.0.0-test" || run.AutomationDetails.ID != "mcp-lockcheck/pr-check" {
		t.Errorf("driver %q %q, automation id %q", d.Name, d.Version, run.AutomationDetails.ID)
	}
	if len(d.Rules) != len(finding.Rules) {
		t.Fatalf("%d rules, want %d", len(d.Rules), len(finding.Rules))
	}
	for i, rule := range finding.Rules {
		if d.Rules[i].ID != string(rule.ID) || d.Rules[i].DefaultConfiguration.Level != rule.Severity.String() || !strings.Contains(d.Rules[i].Help.Text, rule.Help) {
			t.Errorf("rule %d = %+v, want %s", i, d.Rules[i], rule.ID)
		}
	}
	all := r.Findings()
	if len(run.Results) != len(all) {
		t.Fatalf("%d results, want %d", len(run.Results), len(all))
	}
	for i, res := range run.Results {
		f := all[i]
		if res.RuleID != string(f.Rule) || d.Rules[res.RuleIndex].ID != string(f.Rule) {
			t.Errorf("result %d: rule %s index %d, want %s", i, res.RuleID, res.RuleIndex, f.Rule)
		}
		if res.PartialFingerprints[FingerprintKey] != fingerprint(f) || len(fingerprint(f)) != 64 {
			t.Errorf("result %d: fingerprint %v", i, res.PartialFingerprints)
		}
		loc := res.Locations[0].PhysicalLocation
		wantFile, wantLine := f.File, f.Line
		if wantFile == "" {
			wantFile, wantLine = "mcp-lock.json", 1
		}
		if wantLine == 0 {
			wantLine = 1
		}
		if loc.ArtifactLocation.URI != wantFile || loc.Region.StartLine != wantLine {
			t.Errorf("result %d: location %+v, want %s:%d", i, loc, wantFile, wantLine)
		}
		if res.Properties["server"] != f.Server {
			t.Errorf("result %d: properties %v", i, res.Properties)
		}
		if f.Acknowledged != (len(res.Suppressions) == 1) {
			t.Errorf("result %d: acknowledged %v but suppressions %+v", i, f.Acknowledged, res.Suppressions)
		}
		if f.Acknowledged {
			s := res.Suppressions[0]
			if s.Kind != "external" || s.Status != "accepted" || s.Justification != f.AckReason {
				t.Errorf("result %d: suppression %+v", i, s)
			}
		}
	}
}

// TestFingerprintIgnoresLineAndPhase: a re-pin that moves the entry in the
// lock, or a different phase seeing the same drift, is the same alert.
func TestFingerprintIgnoresLineAndPhase(t *testing.T) {
	t.Parallel()
	f := finding.New(finding.ToolChanged, "evil")
	f.Kind, f.Subject, f.Field, f.Line, f.Phase, f.Message = finding.KindTool, "read_file", "description", 10, "launch-1/initial", "a"
	g := f
	g.Line, g.Phase, g.Message = 99, "launch-2/initial", "b"
	if fingerprint(f) != fingerprint(g) {
		t.Error("fingerprint depends on line, phase or message")
	}
	g.Field = "title"
	if fingerprint(f) == fingerprint(g) {
		t.Error("fingerprint ignores the field")
	}
	if suppressionGUID(f) == suppressionGUID(g) {
		t.Error("suppression GUIDs collide")
	}
}

func TestSARIFMessageIsInert(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := writeSARIF(&buf, payloadReport(), Options{}); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	for _, res := range log.Runs[0].Results {
		for _, s := range append([]string{res.Message.Text}, res.Properties["subject"]) {
			if strings.ContainsAny(s, "\n\r\x1b\u202E") {
				t.Errorf("SARIF text not escaped: %q", s)
			}
		}
	}
}

func TestRelativeURI(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"mcp-lock.json":           "mcp-lock.json",
		"./.vscode/mcp.json":      ".vscode/mcp.json",
		"dir with space/a#b.json": "dir%20with%20space/a%23b.json",
	} {
		if got := relativeURI(in); got != want {
			t.Errorf("relativeURI(%q) = %q, want %q", in, got, want)
		}
	}
}
