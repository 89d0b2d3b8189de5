package inspect

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/fakeserver"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// manifest1000 builds a realistic 1,000-tool manifest from the recorded
// servers' own tools (renamed so they stay distinct), across ten servers.
func manifest1000(b *testing.B) []Subject {
	var tools []Subject
	for _, cs := range loadCorpus(b) {
		for _, s := range cs.subjects {
			if s.Kind == finding.KindTool {
				tools = append(tools, s)
			}
		}
	}
	out := make([]Subject, 0, 1000)
	for i := 0; len(out) < 1000; i++ {
		s := tools[i%len(tools)]
		var m map[string]json.RawMessage
		if err := json.Unmarshal(s.Raw, &m); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%s_%d", s.Name, i)
		m["name"], _ = json.Marshal(name)
		raw, _ := json.Marshal(m)
		out = append(out, Subject{Server: fmt.Sprintf("server-%d", i%10), Kind: finding.KindTool, Name: name, Raw: raw})
	}
	return out
}

func BenchmarkInspect1000Tools(b *testing.B) {
	tools := manifest1000(b)
	size := 0
	for _, s := range tools {
		size += len(s.Raw)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		for _, s := range tools {
			_ = Definition(s)
		}
		_ = Across(tools)
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkInspectLinear scans one huge description of ordinary prose (with
// the anchor words the heuristics look for, and a few hidden characters) at
// 1 MB and 10 MB: MB/s must stay flat.
func BenchmarkInspectLinear(b *testing.B) {
	para := "Use this tool when the user asks to read a file from a previous session. " +
		"Returns results from the conversation index; only works within allowed directories. " +
		"When using the search tool, pass a query. Cafés and naïve façades\u200b render fine. "
	for _, mb := range []int{1, 10} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			desc := strings.Repeat(para, mb<<20/len(para)+1)[:mb<<20]
			for !strings.HasSuffix(desc, " ") {
				desc = desc[:len(desc)-1]
			}
			raw, _ := json.Marshal(map[string]any{"name": "big", "description": desc})
			s := Subject{Server: "s", Kind: finding.KindTool, Name: "big", Raw: raw}
			b.SetBytes(int64(len(raw)))
			cpu := processCPU()
			for b.Loop() {
				_ = Definition(s)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkInspectAnswer is what the guard pays to read one tools/call
// answer of ordinary prose (3.7 KB of documentation, as text and as
// structuredContent) with every text rule, and with the two rules that
// need no judgement alone.
func BenchmarkInspectAnswer(b *testing.B) {
	prose := []byte(fakeserver.ProseResult)
	for _, c := range []struct {
		name string
		raw  []byte
		o    AnswerOptions
	}{
		{"all-rules", prose, AnswerOptions{Data: true}},
		{"controls", prose, AnswerOptions{ControlsOnly: true}},
		// A forge's list of issues, serialized into a text content
		// item as most servers do: read as one text and member by
		// member.
		{"json-text", jsonTextAnswer(b), AnswerOptions{Data: true}},
	} {
		raw := c.raw
		b.Run(c.name, func(b *testing.B) {
			s := Subject{Server: "s", Kind: lock.KindTool, Name: "read_text_file", Raw: raw}
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if fs := Answer(s, c.o); len(fs) > 0 {
					b.Fatal(dumpFindings(fs))
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

// jsonTextAnswer is a tools/call result whose one text content item holds
// twenty issues as JSON (about 6 KB), their bodies ordinary prose.
func jsonTextAnswer(b *testing.B) []byte {
	type issue struct {
		Number int    `json:"number"`
		Title  string `json:"title"`
		State  string `json:"state"`
		Body   string `json:"body"`
	}
	var issues []issue
	for i := range 20 {
		issues = append(issues, issue{i + 1, fmt.Sprintf("Build fails on step %d", i), "open",
			"The build fails on the linux runner after the cache step. Logs show a timeout while fetching the toolchain, and a retry passes. We should pin the toolchain version and raise the timeout; see the attached log for the full trace."})
	}
	doc, err := json.Marshal(issues)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(doc)}}})
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkAcross is the cross-server pass alone: the 1,000-tool manifest
// as ten servers with distinct names ("distinct"), and the same manifest
// where every server also exposes the same tool names as the others
// ("colliding": each name shows up on ten servers), which is what a config
// of several forges or filesystems looks like at scale.
func BenchmarkAcross(b *testing.B) {
	distinct := manifest1000(b)
	colliding := make([]Subject, len(distinct))
	for i, s := range distinct {
		s.Server = fmt.Sprintf("server-%d", i%10)
		s.Name = fmt.Sprintf("tool_%d", i/10)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(s.Raw, &m); err != nil {
			b.Fatal(err)
		}
		m["name"], _ = json.Marshal(s.Name)
		s.Raw, _ = json.Marshal(m)
		colliding[i] = s
	}
	for _, c := range []struct {
		name     string
		subjects []Subject
	}{{"distinct", distinct}, {"colliding", colliding}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				_ = Across(c.subjects)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkAddressedAI reads, for the model addressed, clauses of the kind
// AI tools' descriptions are full of: the model, the agent and the
// assistant named beside many verbs, none an order. The addressing
// expressions once held every imperative verb in alternations, which the
// backtracker tried at every place, and the model-as-subject readers two
// more: 190 µs for these three clauses at d67f70a, 13 µs once the verb is
// looked up in a set.
func BenchmarkAddressedAI(b *testing.B) {
	clauses := [][]byte{
		[]byte("returns the embedding model used for the query and the ai summary of the results, with the model name and its version for the given agent session"),
		[]byte("lists the agents of the workspace with their model, status and last run, and the assistant threads each agent has open"),
		[]byte("for agents that run on a schedule, the list includes the next run time and the model each one uses to summarise its inputs"),
	}
	gs := make([]mask, len(clauses))
	for i, c := range clauses {
		gs[i] = gateMask(c)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range clauses {
			_ = addressedClause(c, gs[i])
		}
	}
}
