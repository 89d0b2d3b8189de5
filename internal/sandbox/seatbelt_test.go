package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSeatbelt = flag.Bool("update-seatbelt", false, "rewrite testdata/seatbelt.golden")

// TestSeatbeltProfileGolden pins the whole profile text: what Strict on
// macOS allows is reviewed as a diff of this file.
func TestSeatbeltProfileGolden(t *testing.T) {
	got, err := seatbeltProfile(
		[]string{"/opt/homebrew/Cellar/node/22.1.0", "/Users/ann/My Servers/weather", "/opt/homebrew/Cellar/node/22.1.0/"},
		[]string{"/private/var/folders/xy/T/tmp.123"},
	)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "seatbelt.golden")
	if *updateSeatbelt {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update-seatbelt)", err)
	}
	if got != string(want) {
		t.Errorf("profile differs from %s (run with -update-seatbelt to accept):\n%s", golden, got)
	}
	for _, must := range []string{"(deny default)", `(subpath "/private/var/folders/xy/T/tmp.123")`} {
		if !strings.Contains(got, must) {
			t.Errorf("profile lacks %s", must)
		}
	}
	for _, mustNot := range []string{"network", "allow default", "file-write* process-exec\n  (subpath \"/usr\")"} {
		if strings.Contains(got, mustNot) {
			t.Errorf("profile holds %q", mustNot)
		}
	}
}

// TestSeatbeltHostilePaths: a run dir or install prefix is partly chosen by
// whoever named the directory (a repository checked out under a crafted
// name). No path may end its string literal and add a rule of its own.
func TestSeatbeltHostilePaths(t *testing.T) {
	hostile := []string{
		`/tmp/a") (allow default) ("`,
		`/tmp/a\") (allow network*) (\"`,
		`/tmp/back\slash\`,
		`/tmp/"quoted"`,
		`/tmp/;comment`,
		`/tmp/#|block|#`,
		`/tmp/ünïcode spaces`,
	}
	for _, p := range hostile {
		t.Run(p, func(t *testing.T) {
			prof, err := seatbeltProfile(nil, []string{p})
			if err != nil {
				t.Fatal(err)
			}
			lits, code := sbplSplit(t, prof)
			if strings.Contains(code, "allow default") || strings.Contains(code, "network") || strings.Contains(code, ";") || strings.Contains(code, "#|") {
				t.Errorf("path escaped its string: code outside literals is\n%s", code)
			}
			found := false
			for _, l := range lits {
				if l == filepath.Clean(p) {
					found = true
				}
			}
			if !found {
				t.Errorf("no string literal reads back as %q; literals: %q", p, lits)
			}
		})
	}
	for _, bad := range []string{"/tmp/new\nline", "/tmp/nul\x00", "/tmp/bad\xff", "relative/dir", "/tmp/esc\x1b"} {
		if _, err := seatbeltProfile(nil, []string{bad}); err == nil {
			t.Errorf("path %q: profile made, want an error", bad)
		}
		if _, err := seatbeltProfile([]string{bad}, nil); err == nil {
			t.Errorf("read-only path %q: profile made, want an error", bad)
		}
	}
}

// sbplSplit reads prof as SBPL's reader would: it returns the decoded
// string literals and the code outside them.
func sbplSplit(t *testing.T, prof string) (lits []string, code string) {
	var c, cur strings.Builder
	in, esc := false, false
	for i := 0; i < len(prof); i++ {
		ch := prof[i]
		switch {
		case !in && ch == '"':
			in = true
			cur.Reset()
		case !in:
			c.WriteByte(ch)
		case esc:
			cur.WriteByte(ch)
			esc = false
		case ch == '\\':
			esc = true
		case ch == '"':
			in = false
			lits = append(lits, cur.String())
		default:
			cur.WriteByte(ch)
		}
	}
	if in {
		t.Fatalf("unterminated string literal in\n%s", prof)
	}
	return lits, c.String()
}
