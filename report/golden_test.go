package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current renderers")

// fixtureOptions are the options every golden file is rendered with.
var fixtureOptions = Options{
	LockPath:     "mcp-lock.json",
	ToolVersion:  "1.0.0-test",
	AutomationID: "mcp-lockcheck/pr-check",
	SummaryURL:   "https://github.com/acme/agents/actions/runs/42",
}

// loadFixture reads testdata/fixture.json: one finding per registered rule,
// a held server, an ok server, an acknowledged finding and drift whose after
// text hides instructions in Unicode tag characters.
func loadFixture(t testing.TB) *Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("fixture.json: %v", err)
	}
	return &r
}

// TestFixtureCoversEveryRule keeps the fixture honest: a rule added to the
// registry must get a finding in fixture.json (and so in every golden file).
func TestFixtureCoversEveryRule(t *testing.T) {
	t.Parallel()
	r := loadFixture(t)
	seen := map[finding.RuleID]bool{}
	var held, ok, acked, tagDrift bool
	for _, s := range r.Servers {
		held = held || s.Status == StatusHeld
		ok = ok || s.Status == StatusOK
		for _, f := range s.Findings {
			seen[f.Rule] = true
			acked = acked || f.Acknowledged
			tagDrift = tagDrift || (f.Before != "" && decodeTags(f.After) != "")
		}
		sorted := append([]finding.Finding(nil), s.Findings...)
		finding.Sort(sorted)
		if !reflect.DeepEqual(sorted, s.Findings) {
			t.Errorf("fixture: findings of server %q are not in finding.Sort order", s.Name)
		}
	}
	for _, f := range r.Repository {
		seen[f.Rule] = true
	}
	for _, rule := range finding.Rules {
		if !seen[rule.ID] {
			t.Errorf("fixture has no finding for rule %s", rule.ID)
		}
	}
	for what, has := range map[string]bool{"held server": held, "ok server": ok, "acknowledged finding": acked, "tag-hidden drift": tagDrift} {
		if !has {
			t.Errorf("fixture has no %s", what)
		}
	}
}

// goldenFiles maps each format to its golden file and how it is compared:
// JSON and SARIF semantically (key order and indentation are not the
// contract), the rest byte for byte.
var goldenFiles = []struct {
	format   Format
	file     string
	semantic bool
}{
	{FormatText, "report.txt", false},
	{FormatJSON, "report.json", true},
	{FormatSARIF, "report.sarif", true},
	{FormatMarkdown, "report.md", false},
	{FormatSummary, "report.summary.md", false},
	{FormatAnnotations, "report.annotations.txt", false},
}

func TestGolden(t *testing.T) {
	t.Parallel()
	r := loadFixture(t)
	for _, g := range goldenFiles {
		t.Run(string(g.format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, g.format, r, fixtureOptions); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", g.file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run `go test ./report -update` to create it)", err)
			}
			if g.semantic {
				var got, exp any
				if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
					t.Fatalf("output is not JSON: %v", err)
				}
				if err := json.Unmarshal(want, &exp); err != nil {
					t.Fatalf("%s is not JSON: %v", path, err)
				}
				if !reflect.DeepEqual(got, exp) {
					t.Errorf("%s differs semantically from the output; run `go test ./report -update` and review the diff\ngot:\n%s", path, buf.String())
				}
				return
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s differs from the output; run `go test ./report -update` and review the diff\ngot:\n%s", path, buf.String())
			}
		})
	}
}

// TestJSONRoundTrip checks that --format json is the Report itself: decoding
// it gives back the fixture.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	r := loadFixture(t)
	var buf bytes.Buffer
	if err := writeJSON(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) {
		t.Error("JSON report does not end in a newline")
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	// Compare through compact JSON: json.RawMessage call arguments come back
	// re-indented, which is the same value.
	a, _ := json.Marshal(&back)
	b, _ := json.Marshal(r)
	if !bytes.Equal(a, b) {
		t.Error("JSON report does not decode to the report it was written from")
	}
}
