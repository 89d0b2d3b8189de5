package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/finding"
)

func TestAnnotationsAreInert(t *testing.T) {
	t.Parallel()
	r := payloadReport()
	// A message that tries to smuggle a second workflow command past the
	// runner with a real newline and with the runner's own escapes.
	f := finding.New(finding.ToolChanged, "s")
	f.Message = "100% done\n::error::pwned %0A::warning::pwned\r\x1b[2K"
	f.File = "dir,with:odd/mcp.json"
	r.Servers = append(r.Servers, Server{Name: "s", Status: StatusDrift, Findings: []finding.Finding{f}})

	var buf bytes.Buffer
	if err := writeAnnotations(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := 0
	for _, f := range r.Findings() {
		if !f.Acknowledged {
			want++
		}
	}
	if len(lines) != want {
		t.Fatalf("%d lines for %d unacknowledged findings: a message broke a line\n%s", len(lines), want, buf.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") && !strings.HasPrefix(l, "::notice ") {
			t.Errorf("line is not one annotation: %q", l)
		}
		if strings.ContainsAny(l, "\r\x1b\u202E") {
			t.Errorf("annotation holds a control character: %q", l)
		}
	}
	last := lines[len(lines)-1]
	for _, want := range []string{
		"file=dir%2Cwith%3Aodd/mcp.json", // properties: , and : escaped by the library
		"100%25 done",                    // % escaped so %0A stays literal
		`\n::error::pwned %250A::warning::pwned\r\u{001B}[2K`, // CR spelled \r as inert.Text does
	} {
		if !strings.Contains(last, want) {
			t.Errorf("annotation %q lacks %q", last, want)
		}
	}
}

func TestAnnotationsWriteError(t *testing.T) {
	t.Parallel()
	err := writeAnnotations(failWriter{}, loadFixture(t), Options{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error = %v, want the writer's error (not a panic)", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteAll writes SARIF, markdown, JSON and the summary in one call, over
// longer files left by an earlier run.
func TestWriteAll(t *testing.T) {
	t.Parallel()
	r := loadFixture(t)
	dir := t.TempDir()
	tg := Targets{
		SARIF:    filepath.Join(dir, "out.sarif"),
		Markdown: filepath.Join(dir, "comment.md"),
		JSON:     filepath.Join(dir, "report.json"),
		Summary:  filepath.Join(dir, "summary.md"),
	}
	for _, p := range []string{tg.SARIF, tg.JSON} {
		if err := os.WriteFile(p, bytes.Repeat([]byte("stale "), 100000), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteAll(r, tg, fixtureOptions); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		path string
		f    Format
	}{{tg.SARIF, FormatSARIF}, {tg.Markdown, FormatMarkdown}, {tg.JSON, FormatJSON}, {tg.Summary, FormatSummary}} {
		got, err := os.ReadFile(x.path)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := Write(&want, x.f, r, fixtureOptions); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: file differs from the %s renderer's output (stale tail?)", x.path, x.f)
		}
		if x.f == FormatJSON || x.f == FormatSARIF {
			if !json.Valid(got) {
				t.Errorf("%s is not valid JSON", x.path)
			}
		}
	}
	if fi, _ := os.Stat(tg.SARIF); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want the old file's 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(tg.Markdown); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestWriteAllReportsEveryFailure(t *testing.T) {
	t.Parallel()
	r := loadFixture(t)
	dir := t.TempDir()
	tg := Targets{
		JSON:     filepath.Join(dir, "missing", "report.json"),
		SARIF:    filepath.Join(dir, "missing", "out.sarif"),
		Markdown: filepath.Join(dir, "comment.md"),
	}
	err := WriteAll(r, tg, Options{})
	if err == nil || !strings.Contains(err.Error(), "json") || !strings.Contains(err.Error(), "sarif") {
		t.Errorf("err = %v, want both failures", err)
	}
	if _, statErr := os.Stat(tg.Markdown); statErr != nil {
		t.Errorf("a failing target stopped the others: %v", statErr)
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range Formats {
		if got, err := ParseFormat(strings.ToUpper(string(f))); err != nil || got != f {
			t.Errorf("ParseFormat(%s) = %v, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) accepted")
	}
}
