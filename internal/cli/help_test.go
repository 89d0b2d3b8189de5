package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// helpCases are every command's help, as `help ARGS` is asked for.
func helpCases() [][]string {
	cases := [][]string{{}}
	for _, n := range pagedCommands() {
		cases = append(cases, []string{n})
	}
	return append(cases, []string{"guard", "install"}, []string{"guard", "uninstall"})
}

// TestHelpGolden pins each command's help in testdata/help: a usage line,
// a summary, examples and only the flags the command parses.
func TestHelpGolden(t *testing.T) {
	for _, args := range helpCases() {
		name := strings.Join(append([]string{"help"}, args...), "-")
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(context.Background(), append([]string{"mcp-lockcheck", "help"}, args...), Env{Stdout: &out, Stderr: &errb})
			if code != ExitOK || errb.Len() > 0 {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			golden(t, filepath.Join("testdata", "help", name+".txt"), out.Bytes())
			// COMMAND -h prints the same.
			if len(args) > 0 {
				var dash bytes.Buffer
				Run(context.Background(), append(append([]string{"mcp-lockcheck"}, args...), "-h"), Env{Stdout: &dash, Stderr: &errb})
				if dash.String() != out.String() {
					t.Errorf("%s -h differs from help %s", args, args)
				}
			}
		})
	}
}

// TestHelpFlags checks the specific faults help had: single-dash flags,
// a back-quoted phrase taken as the argument name, and flags listed for
// commands that ignore them.
func TestHelpFlags(t *testing.T) {
	help := func(args ...string) string {
		var out bytes.Buffer
		Run(context.Background(), append([]string{"mcp-lockcheck", "help"}, args...), Env{Stdout: &out, Stderr: &out})
		return out.String()
	}
	for _, tc := range []struct {
		args    []string
		want    []string
		mustNot []string
	}{
		{[]string{"approve"}, []string{"  --from FILE\n", "Usage:\n  mcp-lockcheck approve", "Examples:"}, []string{"-from check"}},
		{[]string{"servers"}, []string{"--config FILE", "--matrix"}, []string{"--sandbox", "--warmup-calls", "--lock", "--jobs"}},
		{[]string{"guard", "uninstall"}, []string{"--config FILE"}, []string{"--lock", "--mode", "--sandbox"}},
		{[]string{"guard", "install"}, []string{"--lock FILE", "--mode MODE", "--sandbox LEVEL"}, []string{"--warmup-calls"}},
		{[]string{"merge"}, []string{"REPORT.json...", "JSON report files"}, []string{"--sandbox"}},
		{[]string{"comment"}, []string{"--from FILE"}, []string{"--sandbox"}},
	} {
		got := help(tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("help %v: missing %q", tc.args, w)
			}
		}
		for _, w := range tc.mustNot {
			if strings.Contains(got, w) {
				t.Errorf("help %v: has %q", tc.args, w)
			}
		}
	}
	oneDash := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	for _, args := range helpCases() {
		if got := help(args...); oneDash.MatchString(got) {
			t.Errorf("help %v: a flag in -flag form: %q", args, oneDash.FindString(got))
		}
	}
	for _, args := range helpCases()[1:] {
		h := helps[strings.Join(args, " ")]
		if h.summary == "" || len(h.usage) == 0 || len(h.examples) < 2 {
			t.Errorf("help %v: needs a summary, a usage line and two or three examples", args)
		}
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s", path, got)
	}
}

// TestCommandTable checks the table against the help: every command is
// listed once, the overview lists them in the table's order, every
// command with a page has a help entry, and every help entry but the
// guard's subcommands is a command, so none is run but never listed.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	var want strings.Builder
	for _, c := range commandTable() {
		if seen[c.name] {
			t.Errorf("%s is in the table twice", c.name)
		}
		seen[c.name] = true
		if c.run == nil {
			t.Errorf("%s has no run function", c.name)
		}
		h, ok := helps[c.name]
		if ok == (c.summary != "") {
			t.Errorf("%s: want its summary either in helps or in the table, once", c.name)
		}
		fmt.Fprintf(&want, "  %-9s %s\n", c.name, h.summary+c.summary)
	}
	for name := range helps {
		if !seen[name] && !strings.HasPrefix(name, "guard ") {
			t.Errorf("helps has %q, which is no command", name)
		}
	}
	if !strings.Contains(overview(), "Commands:\n"+want.String()+"\n") {
		t.Errorf("the overview does not list the table in its order:\n%s", overview())
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"help"}, {"--help"}, {"help", "version"}} {
		var out bytes.Buffer
		if code := Run(context.Background(), append([]string{"mcp-lockcheck"}, args...), Env{Stdout: &out, Stderr: &out}); code != ExitOK || out.Len() == 0 {
			t.Errorf("%v: exit %d: %q", args, code, out.String())
		}
	}
}
