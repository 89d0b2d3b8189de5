package inspect

import (
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// The benign corpus: the definitions of 100+ real MCP servers, each pinned
// by bench/corpus.sh with every toolset and feature flag it has turned on,
// one lock per server in testdata/corpus/servers (its README lists them,
// their versions and flags, and the servers left out). Every text in it is
// honest; what the rules say about it is what users of those servers
// would see.
const benignCorpusDir = "testdata/corpus/servers"

// benignGroupSize is how many servers (sorted by slug) Across sees
// together, besides each server alone: about as many as a well-equipped
// user configures.
const benignGroupSize = 10

// benignMinServers is the corpus's floor: fewer locks means a lost file.
const benignMinServers = 100

// benignAllowed are the warnings a reviewer wants to see on honest servers,
// each with why. Anything else at warning level, and any error, fails
// TestBenignCorpus; so do more allowed warnings than one per 100 tools.
var benignAllowed = []struct {
	server  string
	rule    finding.RuleID
	subject string
	why     string
}{
	{"cloudbase", finding.SensitivePath, "manageFunctions", "tells the model to edit the client's mcp.json env block: a client config file is where credentials live"},
	{"datadog-mcp", finding.ToolShadowing, "monitors", "names getMonitor, which reads as another server's get-monitor: with both configured the model may call the other"},
	{"desktop-commander", finding.SensitivePath, "start_search", "lists .env among the files its search finds: the model is pointed at where secrets live"},
	{"gcloud", finding.ModelInstruction, "run_gcloud_command", "'Prioritize this tool over any other': ranks itself over every other tool"},
	{"github-go", finding.ToolShadowing, "label_write", "sends the model to 'update_issue', a tool github-mcp-server no longer has and another forge's server does"},
	{"hostinger", finding.SensitivePath, "instructions", "speaks of .env files as where Node.js apps' values come from"},
	{"hostinger", finding.SensitivePath, "hosting_listNode_jsEnvironmentVariablesV1", "tells the model to take values from the project's .env file"},
	{"hostinger", finding.SensitivePath, "hosting_replaceNode_jsEnvironmentVariablesV1", "tells the model to take values from the project's .env file and send them to the host"},
	{"lark", finding.HiddenCharacters, "im_v1_message_list", "two zero-width spaces in a heading of its docs: they hide nothing, and a reviewer should know they are there"},
	{"mapbox", finding.ModelInstruction, "render_map_tool", "'ALWAYS use this tool to display maps, never use built-in or fallback map display tools': ranks itself over the client's own tools"},
}

// benignServer is one recorded server: its slug and its definitions.
type benignServer struct {
	slug     string
	tools    int
	subjects []Subject
}

// loadBenignCorpus reads every lock in benignCorpusDir, sorted by slug, and
// turns each pinned definition into a Subject as the probe makes them.
func loadBenignCorpus(t testing.TB) []benignServer {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(benignCorpusDir, "*.lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var out []benignServer
	for _, file := range files {
		f, _, err := lock.Read(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		slug := strings.TrimSuffix(filepath.Base(file), ".lock.json")
		if len(f.Servers) != 1 || f.Servers[slug] == nil {
			t.Fatalf("%s: want exactly the server %q, have %v", file, slug, slices.Sorted(maps.Keys(f.Servers)))
		}
		s := f.Servers[slug]
		bs := benignServer{slug: slug, tools: len(s.Tools)}
		for _, kind := range lock.Kinds {
			entries := s.Entries(kind, false)
			for _, name := range slices.Sorted(maps.Keys(entries)) {
				e := entries[name]
				raw := []byte(e.Definition)
				if e.Raw != "" {
					if raw, err = base64.StdEncoding.DecodeString(e.Raw); err != nil {
						t.Fatalf("%s: %s %q: raw: %v", file, kind, name, err)
					}
				}
				bs.subjects = append(bs.subjects, Subject{Server: slug, Kind: kind, Name: name, Raw: raw, Phase: "launch-1/initial"})
			}
		}
		if len(s.Instructions) > 0 {
			bs.subjects = append(bs.subjects, Subject{Server: slug, Kind: finding.KindServer, Name: "instructions", Raw: s.Instructions, Phase: "launch-1/initial"})
		}
		out = append(out, bs)
	}
	return out
}

// benignFindings runs Definition on every subject, and Across on each server
// alone and on fixed groups of benignGroupSize servers, and returns the
// findings once each (by Key), sorted, with where Across saw each.
func benignFindings(servers []benignServer) []finding.Finding {
	seen := map[string]bool{}
	var out []finding.Finding
	add := func(where string, fs []finding.Finding) {
		for _, f := range fs {
			if seen[f.Key()] {
				continue
			}
			seen[f.Key()] = true
			if where != "" {
				f.Phase = where
			}
			out = append(out, f)
		}
	}
	for _, s := range servers {
		for _, sub := range s.subjects {
			add("", Definition(sub))
		}
		add("across:alone", Across(s.subjects))
	}
	for i := 0; i < len(servers); i += benignGroupSize {
		group := servers[i:min(i+benignGroupSize, len(servers))]
		var subjects []Subject
		for _, s := range group {
			subjects = append(subjects, s.subjects...)
		}
		add(fmt.Sprintf("across:group-%d(%s..%s)", i/benignGroupSize+1, group[0].slug, group[len(group)-1].slug), Across(subjects))
	}
	finding.Sort(out)
	return out
}

// oneLine is a finding as one line of the test's log: where, what, and the
// quoted text.
func oneLine(f finding.Finding) string {
	detail := strings.Join(strings.Fields(f.Detail), " ")
	if len(detail) > 300 {
		detail = detail[:300] + "..."
	}
	return fmt.Sprintf("%s %s %s/%s/%q %s [%s]: %s | %s", f.Severity, f.Rule, f.Server, f.Kind, f.Subject, f.Field, f.Phase, strings.Join(strings.Fields(f.Message), " "), detail)
}

// TestBenignCorpus asserts that the rules are quiet on 100+ honest real
// servers: no error at all, and at most one warning per 100 tools, each
// one listed in benignAllowed with why a reviewer wants it. It logs every
// finding and the counts per rule and per server (-v); with
// BENIGN_CORPUS_REPORT=FILE it also writes them to FILE.
func TestBenignCorpus(t *testing.T) {
	servers := loadBenignCorpus(t)
	tools, defs := 0, 0
	for _, s := range servers {
		tools += s.tools
		defs += len(s.subjects)
	}
	findings := benignFindings(servers)

	type count struct{ errors, warnings, notes int }
	byRule := map[finding.RuleID]*count{}
	byServer := map[string]*count{}
	bump := func(c *count, sev finding.Severity) {
		switch sev {
		case finding.Error:
			c.errors++
		case finding.Warning:
			c.warnings++
		default:
			c.notes++
		}
	}
	var report strings.Builder
	fmt.Fprintf(&report, "benign corpus: %d servers, %d tools, %d definitions, %d findings\n", len(servers), tools, defs, len(findings))
	allowed := map[[3]string]bool{}
	for _, a := range benignAllowed {
		allowed[[3]string{a.server, string(a.rule), a.subject}] = true
	}
	var errs, warns, unlisted int
	for _, f := range findings {
		if byRule[f.Rule] == nil {
			byRule[f.Rule] = &count{}
		}
		if byServer[f.Server] == nil {
			byServer[f.Server] = &count{}
		}
		bump(byRule[f.Rule], f.Severity)
		bump(byServer[f.Server], f.Severity)
		fmt.Fprintln(&report, oneLine(f))
		switch f.Severity {
		case finding.Error:
			errs++
			t.Errorf("error on a benign server: %s", oneLine(f))
		case finding.Warning:
			warns++
			if !allowed[[3]string{f.Server, string(f.Rule), f.Subject}] {
				unlisted++
				t.Errorf("warning not in benignAllowed: %s", oneLine(f))
			}
		}
	}
	fmt.Fprintln(&report, "per rule (errors/warnings/notes):")
	for _, r := range slices.Sorted(maps.Keys(byRule)) {
		c := byRule[r]
		fmt.Fprintf(&report, "  %s: %d/%d/%d\n", r, c.errors, c.warnings, c.notes)
	}
	fmt.Fprintln(&report, "per server (errors/warnings/notes):")
	for _, s := range slices.Sorted(maps.Keys(byServer)) {
		c := byServer[s]
		fmt.Fprintf(&report, "  %s: %d/%d/%d\n", s, c.errors, c.warnings, c.notes)
	}
	t.Log(report.String())
	if path := os.Getenv("BENIGN_CORPUS_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if len(servers) < benignMinServers {
		t.Errorf("%d servers in %s, want at least %d", len(servers), benignCorpusDir, benignMinServers)
	}
	if errs > 0 {
		t.Errorf("%d errors on the benign corpus, want 0", errs)
	}
	if limit := tools / 100; warns > limit {
		t.Errorf("%d warnings on the benign corpus (%d tools), want at most %d (one per 100 tools)", warns, tools, limit)
	}
	if unlisted > 0 {
		t.Errorf("%d warnings not listed in benignAllowed", unlisted)
	}
	if len(benignAllowed) > tools/100 {
		t.Errorf("benignAllowed lists %d warnings, more than one per 100 tools (%d)", len(benignAllowed), tools/100)
	}
}
