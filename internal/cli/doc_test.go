package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// Markers around the part of docs/commands.md generated from the help.
const (
	cmdDocBegin = "<!-- BEGIN GENERATED: go test ./internal/cli -run TestCommandsDoc -update -->\n"
	cmdDocEnd   = "<!-- END GENERATED -->\n"
)

// commandsDoc is every command's help, as `mcp-lockcheck help COMMAND`
// prints it: the flag sets themselves are the source.
func commandsDoc(t *testing.T) string {
	help := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), append([]string{"mcp-lockcheck", "help"}, args...), Env{Stdout: &out, Stderr: &errb}); code != ExitOK {
			t.Fatalf("help %v: exit %d: %s", args, code, errb.String())
		}
		return out.String()
	}
	names := pagedCommands()
	var b strings.Builder
	b.WriteString("```text\n" + help() + "```\n")
	for _, n := range names {
		b.WriteString("\n## " + n + "\n\n```text\n" + help(n) + "```\n")
		if n == "guard" {
			for _, sub := range []string{"install", "uninstall"} {
				b.WriteString("\n### guard " + sub + "\n\n```text\n" + help(n, sub) + "```\n")
			}
		}
	}
	return b.String()
}

// TestCommandsDoc fails when docs/commands.md is not what the commands'
// help says (go test ./internal/cli -run TestCommandsDoc -update rewrites it).
func TestCommandsDoc(t *testing.T) {
	const path = "../../docs/commands.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, cmdDocBegin), strings.Index(doc, cmdDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated part between %q and %q", path, cmdDocBegin, cmdDocEnd)
	}
	want := doc[:i+len(cmdDocBegin)] + commandsDoc(t) + doc[j:]
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("%s is stale: run go test ./internal/cli -run TestCommandsDoc -update", path)
	}
}
