package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// loadUpgrade reads testdata/upgrade.json: the JSON report of a real
// check of server-filesystem pinned at 2025.7.29 and run at 2026.8.31
// (testdata/npm's fs-2025 and @modelcontextprotocol/server-filesystem),
// paths under /srv.
func loadUpgrade(t testing.TB) *Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "upgrade.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestUpgradeText pins the text report of a real upgrade at 80 and 160
// columns: one entry per changed definition, wrapped to the width, never
// cut, and short enough to read (under 150 lines at 80 columns).
func TestUpgradeText(t *testing.T) {
	r := loadUpgrade(t)
	for _, width := range []int{80, 160} {
		var buf bytes.Buffer
		if err := WriteText(&buf, r, Options{Width: width, ToolVersion: "1.0.0-test"}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		goldenFile(t, filepath.Join("testdata", "golden", "upgrade."+itoa(width)+".txt"), buf.Bytes())
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if width == 80 && len(lines) >= 150 {
			t.Errorf("80 columns: %d lines, want under 150", len(lines))
		}
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("%d columns: line %d is %d wide: %q", width, i+1, n, l)
			}
		}
		// Every changed definition is named once, with its fields.
		for _, tool := range []string{"read_text_file", "read_media_file", "list_allowed_directories", "search_files"} {
			if c := strings.Count(out, "tool "+tool+" —"); c != 1 {
				t.Errorf("%d columns: tool %s has %d entries, want 1", width, tool, c)
			}
		}
		// The launch change is shown in full: both versions appear.
		for _, want := range []string{"server-filesystem@2025.7.29", "server-filesystem@2026.8.31", "Next:", "mcp-lockcheck approve filesystem", "mcp-lockcheck diff"} {
			if !strings.Contains(strings.ReplaceAll(out, "\n        ", " "), want) {
				t.Errorf("%d columns: missing %q", width, want)
			}
		}
		// The description change is a word diff, the new sentence whole.
		if !strings.Contains(strings.Join(strings.Fields(out), " "), "{+Subdirectories within these allowed directories are also accessible.+}") {
			t.Errorf("%d columns: the added sentence is not shown whole", width)
		}
	}
}

// TestTextAcknowledgedCounted: acknowledged findings are counted, not
// listed, unless Verbose.
func TestTextAcknowledgedCounted(t *testing.T) {
	r := loadFixture(t)
	var quiet, verbose bytes.Buffer
	if err := WriteText(&quiet, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&verbose, r, Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(quiet.String(), "acknowledged finding not listed (--verbose lists them)") {
		t.Errorf("quiet report does not count the acknowledged finding:\n%s", quiet.String())
	}
	if strings.Contains(quiet.String(), "☑") || !strings.Contains(verbose.String(), "☑") {
		t.Errorf("acknowledged finding: listed quietly or not verbosely")
	}
}

// TestTextColourIsOurs: with colour on, the only escape sequences are our
// SGR colours; hostile text stays escaped.
func TestTextColourIsOurs(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, payloadReport(), Options{Color: true, Width: 60}); err != nil {
		t.Fatal(err)
	}
	sgr := regexp.MustCompile(`\x1b\[[0-9;]*m`)
	if !sgr.MatchString(buf.String()) {
		t.Fatal("no colour written")
	}
	for _, r := range sgr.ReplaceAllString(buf.String(), "") {
		if r != '\n' && hidden(r) {
			t.Fatalf("coloured text output holds U+%04X", r)
		}
	}
}

// TestWrap: text wraps at the width, long words are broken, not cut.
func TestWrap(t *testing.T) {
	got := wrap("aaa bbb "+strings.Repeat("x", 25)+" end", 10, "", "  ")
	want := "aaa bbb\n  xxxxxxxx\n  xxxxxxxx\n  xxxxxxxx\n  x end\n"
	if got != want {
		t.Errorf("wrap = %q, want %q", got, want)
	}
	if strings.Count(got, "x") != 25 {
		t.Errorf("wrap lost characters: %q", got)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// goldenFile compares got with path, or rewrites it with -update.
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", path, got)
	}
}
