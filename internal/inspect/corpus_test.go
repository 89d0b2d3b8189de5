package inspect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

// dump is the part of a recorded server answer (testdata/corpus) the tests
// need, with every definition kept as raw bytes.
type dump struct {
	Initialize struct {
		Instructions json.RawMessage `json:"instructions"`
	} `json:"initialize"`
	Tools             []json.RawMessage `json:"tools"`
	Prompts           []json.RawMessage `json:"prompts"`
	Resources         []json.RawMessage `json:"resources"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
}

// subjectsOf turns one dump into subjects the way the probe would.
func subjectsOf(t testing.TB, server string, data []byte) []Subject {
	t.Helper()
	var d dump
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", server, err)
	}
	var out []Subject
	name := func(raw json.RawMessage, field string) string {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		s, _ := m[field].(string)
		return s
	}
	for _, r := range d.Tools {
		out = append(out, Subject{Server: server, Kind: finding.KindTool, Name: name(r, "name"), Raw: r, Phase: "launch-1/initial"})
	}
	for _, r := range d.Prompts {
		out = append(out, Subject{Server: server, Kind: finding.KindPrompt, Name: name(r, "name"), Raw: r, Phase: "launch-1/initial"})
	}
	for _, r := range d.Resources {
		out = append(out, Subject{Server: server, Kind: finding.KindResource, Name: name(r, "uri"), Raw: r, Phase: "launch-1/initial"})
	}
	for _, r := range d.ResourceTemplates {
		out = append(out, Subject{Server: server, Kind: finding.KindTemplate, Name: name(r, "uriTemplate"), Raw: r, Phase: "launch-1/initial"})
	}
	if len(d.Initialize.Instructions) > 0 && string(d.Initialize.Instructions) != "null" {
		out = append(out, Subject{Server: server, Kind: finding.KindServer, Name: "instructions", Raw: d.Initialize.Instructions, Phase: "launch-1/initial"})
	}
	return out
}

type corpusServer struct {
	file, pkg string
	subjects  []Subject
}

func loadCorpus(t testing.TB) []corpusServer {
	t.Helper()
	return loadCorpusGlob(t, "testdata/corpus/*.json")
}

// loadSweepCorpus adds the definitions bench/sweep.sh pinned from more real
// servers (testdata/corpus/sweep). They feed TestCorpusBenign only: several
// of them share tool names on purpose (github-mcp-server and the npm github
// server, two filesystem servers), which is the sweep's shadowing case, not
// noise for TestCorpusAcross.
func loadSweepCorpus(t testing.TB) []corpusServer {
	t.Helper()
	return append(loadCorpus(t), loadCorpusGlob(t, "testdata/corpus/sweep/*.json")...)
}

func loadCorpusGlob(t testing.TB, glob string) []corpusServer {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus at %s: %v", glob, err)
	}
	var out []corpusServer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		// "@scope__name@version" or "name@version": the package is the server.
		pkg := base[:strings.LastIndex(base, "@")]
		out = append(out, corpusServer{file: base, pkg: pkg, subjects: subjectsOf(t, pkg, data)})
	}
	return out
}

// TestCorpusBenign runs every real server's definitions through Definition
// and asserts no error-level finding; warnings are counted per rule, logged,
// and held to the ceiling recorded in testdata/corpus/README.md so a looser
// heuristic shows up as a failing test rather than as noise in users' PRs.
func TestCorpusBenign(t *testing.T) {
	t.Parallel()
	counts := map[finding.RuleID]int{}
	notes := map[finding.RuleID]int{}
	defs := 0
	for _, cs := range loadSweepCorpus(t) {
		for _, s := range cs.subjects {
			defs++
			for _, f := range Definition(s) {
				if f.Severity >= finding.Error {
					t.Errorf("%s %s %q %s: %s: %s\n%s", cs.file, s.Kind, s.Name, f.Field, f.Rule, f.Message, f.Detail)
					continue
				}
				if f.Severity == finding.Warning {
					counts[f.Rule]++
				} else {
					notes[f.Rule]++
				}
				t.Logf("%s: %s %s %q %s: %s\n%s", f.Severity, cs.file, s.Kind, s.Name, f.Field, f.Message, f.Detail)
			}
		}
	}
	rules := make([]finding.RuleID, 0, len(counts))
	for r := range counts {
		rules = append(rules, r)
	}
	slices.Sort(rules)
	t.Logf("benign corpus: %d definitions", defs)
	for _, r := range rules {
		t.Logf("warnings %s: %d", r, counts[r])
	}
	// Ceilings, as recorded in testdata/corpus/README.md.
	ceiling := map[finding.RuleID]int{finding.ModelInstruction: 0, finding.SensitivePath: 0}
	for r, n := range counts {
		if n > ceiling[r] {
			t.Errorf("%d %s warnings on the benign corpus, ceiling %d", n, r, ceiling[r])
		}
	}
	// Notes: Resend's "Don't bother telling the user the IDs" on its
	// eight list tools.
	noteCeiling := map[finding.RuleID]int{finding.ModelInstruction: 8}
	for r, n := range notes {
		t.Logf("notes %s: %d", r, n)
		if n > noteCeiling[r] {
			t.Errorf("%d %s notes on the benign corpus, ceiling %d", n, r, noteCeiling[r])
		}
	}
}

// TestCorpusAcross configures the newest version of every corpus server
// together, as a user with all of them installed would, and asserts that
// Across finds no shadowing and no confusable names among real servers.
func TestCorpusAcross(t *testing.T) {
	t.Parallel()
	latest := map[string]corpusServer{}
	for _, cs := range loadCorpus(t) {
		if strings.Contains(cs.file, "client-caps") || strings.Contains(cs.file, "+zod3") {
			continue
		}
		latest[cs.pkg] = cs // glob order: the last version wins
	}
	var all []Subject
	for _, cs := range latest {
		all = append(all, cs.subjects...)
	}
	for _, f := range Across(all) {
		t.Errorf("%s %s %q %s: %s: %s", f.Server, f.Kind, f.Subject, f.Field, f.Rule, f.Message)
	}
	if len(latest) < 8 {
		t.Fatalf("only %d servers", len(latest))
	}
}
