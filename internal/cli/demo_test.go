package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/testing/testproc"
	"github.com/mcp-lockcheck/mcp-lockcheck/report"
)

// TestREADMEDemo runs the README's first command, as written, on the
// bundled demo: its committed lock must catch the rug pull at the third
// warm-up call.
func TestREADMEDemo(t *testing.T) {
	if testproc.Parallel(t) {
		return
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "go run ./cmd/mcp-lockcheck check --config examples/demo/.mcp.json --lock examples/demo/mcp-lock.json"
	if !strings.Contains(string(readme), "\n"+cmd+"\n") {
		t.Fatalf("README no longer shows the demo command %q", cmd)
	}
	args := append([]string{"mcp-lockcheck"}, strings.Fields(strings.TrimPrefix(cmd, "go run ./cmd/mcp-lockcheck "))...)
	args = append(args, "--format", "json", "--quiet")
	var stdout, stderr bytes.Buffer
	wd, _ := os.Getwd()
	code := Run(context.Background(), args, Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.LookupEnv, Dir: wd + "/../.."})
	if code != ExitDrift {
		t.Fatalf("exit %d, want 1\nstderr: %s\nstdout: %s", code, stderr.String(), stdout.String())
	}
	var r report.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings() {
		if f.Rule == "tool-changed" && f.Subject == "search_notes" && f.Field == "description" && f.Phase == "launch-1/after-call-3" {
			found = true
		}
	}
	if !found {
		t.Errorf("the rug pull was not caught at launch-1/after-call-3:\n%s", stdout.String())
	}
	// Its "Next:" names the instruction to pass the key on for what it
	// is, first, and offers neither to acknowledge nor to approve it.
	var text bytes.Buffer
	if err := report.Write(&text, report.FormatText, &r, report.Options{Width: 80}); err != nil {
		t.Fatal(err)
	}
	_, next, _ := strings.Cut(text.String(), "\nNext:\n")
	first, _, _ := strings.Cut(next, "\n")
	if !strings.HasPrefix(first, "  # notes/tool/search_notes (model-instruction): ") || strings.Contains(next, "--ack") || strings.Contains(next, "mcp-lockcheck approve") {
		t.Errorf("the demo's Next: offers to acknowledge or approve the instruction, or does not say what it is first:\n%s", next)
	}
}

// TestREADMEShortAndLinksValid: the README is a guide, at most 12 KB
// (12,000 bytes), with the rest in docs/; every relative link of the
// README and of docs/*.md names a file that exists and, for a markdown
// page, a heading it has (GitHub's anchors).
func TestREADMEShortAndLinksValid(t *testing.T) {
	t.Parallel()
	root := "../.."
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(readme) > 12000 {
		t.Errorf("README.md is %d bytes, want at most 12,000: move detail to docs/", len(readme))
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fence := false
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if fence || !strings.HasPrefix(l, "#") {
				continue
			}
			h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
			var slug strings.Builder
			for _, r := range h {
				switch {
				case r == ' ':
					slug.WriteByte('-')
				case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
					slug.WriteRune(r)
				}
			}
			s := slug.String()
			for n := 1; a[s]; n++ {
				s = slug.String() + "-" + strconv.Itoa(n)
			}
			a[s] = true
		}
		anchors[path] = a
		return a
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", page, target, path, anchor)
			}
		}
	}
}
