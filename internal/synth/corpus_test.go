package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCorpus synthesizes arguments for every tool of every recorded real
// server (testdata/corpus, copied from the shared corpus dumps) and checks
// each result with the oracle. A result the oracle rejects is a failure; a
// tool for which Arguments gives up is logged with its reason and counted
// against the share, which must stay at 100% of the tools whose schema the
// oracle can compile.
func TestCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	sort.Strings(files)
	var total, synthesized, badSchema int
	var report strings.Builder
	for _, file := range files {
		tools := corpusTools(t, file)
		server := strings.TrimSuffix(filepath.Base(file), ".json")
		var n, ok, bad int
		for _, rawTool := range tools {
			var tool struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if err := json.Unmarshal(rawTool, &tool); err != nil {
				t.Fatalf("%s: %v", server, err)
			}
			n++
			sch, cerr := compileOracle(tool.InputSchema)
			if cerr != nil {
				bad++
				t.Logf("%s %s: the oracle rejects the schema itself: %v", server, tool.Name, cerr)
			}
			args, err := Arguments(tool.InputSchema)
			if err != nil {
				if cerr == nil {
					t.Errorf("%s %s: no arguments for a valid schema: %v", server, tool.Name, err)
				}
				continue
			}
			again, _ := Arguments(tool.InputSchema)
			if string(again) != string(args) {
				t.Errorf("%s %s: not deterministic: %s then %s", server, tool.Name, args, again)
			}
			if cerr != nil {
				continue
			}
			if err := oracleValid(sch, args); err != nil {
				t.Errorf("%s %s: arguments %s do not validate: %v", server, tool.Name, args, err)
				continue
			}
			ok++
		}
		total += n
		synthesized += ok
		badSchema += bad
		fmt.Fprintf(&report, "%-70s %3d/%3d %6.1f%%", server, ok, n, pct(ok, n))
		if bad > 0 {
			fmt.Fprintf(&report, "  (%d schemas the oracle rejects)", bad)
		}
		report.WriteByte('\n')
	}
	fmt.Fprintf(&report, "%-70s %3d/%3d %6.1f%%  (%d schemas the oracle rejects)\n", "overall", synthesized, total, pct(synthesized, total), badSchema)
	t.Logf("valid synthesized arguments per server:\n%s", report.String())
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

// BenchmarkCorpusArguments: Arguments for every tool of every recorded
// real server (324 tools), once per iteration.
func BenchmarkCorpusArguments(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	var schemas []json.RawMessage
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		var dump struct {
			Tools []struct {
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(raw, &dump); err != nil {
			b.Fatal(err)
		}
		for _, t := range dump.Tools {
			schemas = append(schemas, t.InputSchema)
		}
	}
	for b.Loop() {
		for _, s := range schemas {
			if _, err := Arguments(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// corpusTools reads the tools of one corpus file (a server's tools/list).
func corpusTools(t *testing.T, file string) []json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var dump struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &dump); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return dump.Tools
}
