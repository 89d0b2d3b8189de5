//go:build linux

package sandbox

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCanaryShapes(t *testing.T) {
	r := newRun(t, Basic, Options{})
	seen := map[string]bool{}
	for _, c := range r.Canaries() {
		if len(c.Token) < 20 || seen[c.Token] {
			t.Errorf("canary %s: short or duplicate token %q", c.Where, c.Token)
		}
		seen[c.Token] = true
	}
	creds, err := os.ReadFile(filepath.Join(r.Dir(), "home", homeUser(), ".aws", "credentials"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(creds), "aws_access_key_id = AKIA") {
		t.Errorf("credentials:\n%s", creds)
	}
	if tok := canaryFor(t, r, "~/.config/gh/hosts.yml"); !strings.HasPrefix(tok, "gho_") || len(tok) != 40 {
		t.Errorf("gh token %q", tok)
	}
	key, err := os.ReadFile(filepath.Join(r.Dir(), "home", homeUser(), ".ssh", "id_ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Join(strings.Split(string(key), "\n")[1:len(strings.Split(string(key), "\n"))-2], "")
	raw, err := base64.StdEncoding.DecodeString(body)
	if err != nil || !strings.HasPrefix(string(raw), "openssh-key-v1\x00") {
		t.Errorf("id_ed25519 body does not decode to an OpenSSH key: %v", err)
	}

	// Another run, other tokens.
	r2 := newRun(t, Basic, Options{})
	for _, c := range r2.Canaries() {
		if seen[c.Token] {
			t.Errorf("token %s reused across runs", c.Where)
		}
	}
}

func TestLeaks(t *testing.T) {
	r := newRun(t, Basic, Options{})
	tok := canaryFor(t, r, "env:GITHUB_TOKEN")
	file, err := os.ReadFile(filepath.Join(r.Dir(), "home", homeUser(), ".netrc"))
	if err != nil {
		t.Fatal(err)
	}
	spaced := strings.Join(strings.Split(tok, ""), " ")
	cases := map[string]string{
		"verbatim":       `{"description":"token ` + tok + ` here"}`,
		"hex":            "data " + hex.EncodeToString([]byte("xx"+tok+"yy")),
		"HEX":            strings.ToUpper(hex.EncodeToString([]byte(tok))),
		"base64 off 0":   base64.StdEncoding.EncodeToString([]byte(tok + "\n")),
		"base64 off 1":   base64.StdEncoding.EncodeToString([]byte("a" + tok)),
		"base64 off 2":   base64.URLEncoding.EncodeToString([]byte("ab" + tok + "cd")),
		"spaced":         spaced,
		"json escaped":   `"` + tok[:10] + `\n` + tok[10:20] + `\u200b` + tok[20:] + `"`,
		"dashed":         tok[:4] + "-" + tok[4:8] + "-" + tok[8:],
		"netrc base64":   base64.StdEncoding.EncodeToString(file),
		"netrc embedded": "cat ~/.netrc:\n" + string(file),
		// Split over two content blocks of one answer, over two
		// messages of a prompt, over two text members of
		// structuredContent.
		"split blocks":   `{"content":[{"type":"text","text":"x ` + tok[:15] + `"},{"type":"text","text":"` + tok[15:] + ` y"}]}`,
		"split messages": `{"messages":[{"role":"user","content":{"type":"text","text":"` + tok[:9] + `"}},{"role":"user","content":{"type":"text","text":"` + tok[9:] + `"}}]}`,
		"structured":     `{"content":[],"structuredContent":{"notes":[{"id":1,"text":"` + tok[:20] + `"},{"id":2,"text":"` + tok[20:] + `"}]}}`,
		"structured b64": `{"content":[],"structuredContent":{"blob":"` + base64.RawURLEncoding.EncodeToString([]byte("abc"+tok)) + `"}}`,
		// Every character \u-escaped: one string decoded.
		"unicode escaped": `{"text":"` + uEscape(tok) + `"}`,
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			got := r.Leaks([]byte(text))
			if len(got) == 0 {
				t.Fatalf("no leak found in %q", text)
			}
			if !strings.HasPrefix(name, "netrc") && got[0].Where != "env:GITHUB_TOKEN" {
				t.Errorf("Leaks = %v", got)
			}
			if strings.HasPrefix(name, "netrc") && got[0].Where != "~/.netrc" {
				t.Errorf("Leaks = %v", got)
			}
		})
	}
	if got := r.Leaks([]byte(`{"tools":[{"name":"read_file","description":"Reads a file. ghp_ and AKIA are prefixes."}]}`)); len(got) != 0 {
		t.Errorf("false positive: %v", got)
	}

	all := r.Canaries()
	var blob strings.Builder
	for _, c := range all {
		blob.WriteString(c.Token + "\n")
	}
	if got := r.Leaks([]byte(blob.String())); !slices.Equal(got, all) {
		t.Errorf("Leaks(all) = %d canaries, want %d in order", len(got), len(all))
	}
	red := r.Redact(blob.String() + " " + hex.EncodeToString([]byte(tok)))
	for _, c := range all {
		if strings.Contains(red, c.Token) {
			t.Errorf("Redact left %s", c.Where)
		}
	}
	if strings.Contains(red, hex.EncodeToString([]byte(tok))) || !strings.Contains(red, "[canary:env:GITHUB_TOKEN]") {
		t.Errorf("Redact: %s", red)
	}
}

// TestLeaksSplitKey: the planted private key split over two content
// blocks at every place within its token line is still the canary.
func TestLeaksSplitKey(t *testing.T) {
	r := newRun(t, Basic, Options{})
	key, err := os.ReadFile(filepath.Join(r.Dir(), "home", homeUser(), ".ssh", "id_rsa"))
	if err != nil {
		t.Fatal(err)
	}
	tok := canaryFor(t, r, "~/.ssh/id_rsa")
	at := strings.Index(string(key), tok)
	for cut := at; cut <= at+len(tok); cut += 7 {
		a, _ := json.Marshal(string(key[:cut]))
		b, _ := json.Marshal(string(key[cut:]))
		answer := `{"content":[{"type":"text","text":` + string(a) + `},{"type":"text","text":` + string(b) + `}],"isError":false}`
		if got := r.Leaks([]byte(answer)); len(got) != 1 || got[0].Where != "~/.ssh/id_rsa" {
			t.Errorf("split at %d: Leaks = %v", cut-at, got)
		}
	}
}

func uEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		fmt.Fprintf(&b, "\\u%04x", c)
	}
	return b.String()
}

// BenchmarkLeaks: the matcher on a 64 KiB answer that holds no canary,
// the common case and the worst (every form of every canary is looked
// for, in the bytes and in the JSON's strings).
func BenchmarkLeaks(b *testing.B) {
	r := newRun(b, Basic, Options{})
	var page strings.Builder
	page.WriteString(`{"tools":[`)
	for i := 0; page.Len() < 64<<10; i++ {
		if i > 0 {
			page.WriteString(",")
		}
		fmt.Fprintf(&page, `{"name":"tool_%d","description":"Reads the record %d and returns it as JSON; see https://docs.invalid/tools/%d. Token-free \u00e9 text.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}}`, i, i, i)
	}
	page.WriteString(`]}`)
	payload := []byte(page.String())
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	for b.Loop() {
		if got := r.Leaks(payload); len(got) != 0 {
			b.Fatalf("false positive: %v", got)
		}
	}
}

func TestInstallGrants(t *testing.T) {
	home := t.TempDir()
	r := newRun(t, Basic, Options{Getenv: checkerEnv(home)})
	prefix := filepath.Join(t.TempDir(), "prefix")
	cli := filepath.Join(prefix, "lib", "node_modules", "pkg", "bin", "cli.js")
	if err := os.MkdirAll(filepath.Dir(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cli, []byte("#!/usr/bin/env -S node --no-warnings\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(prefix, "bin", "pkg")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../lib/node_modules/pkg/bin/cli.js", bin); err != nil {
		t.Fatal(err)
	}
	got := r.installGrants(bin)
	for _, want := range []string{bin, cli, prefix, filepath.Join(prefix, "lib", "node_modules")} {
		if !slices.Contains(got, want) {
			t.Errorf("installGrants(%s) = %q, missing %s", bin, got, want)
		}
	}
	if interp := shebang(cli); interp != "node" {
		t.Errorf("shebang = %q", interp)
	}

	// A binary in ~/bin must not open the real HOME.
	homeBin := filepath.Join(home, "bin", "tool")
	if err := os.MkdirAll(filepath.Dir(homeBin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(homeBin, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := r.installGrants(homeBin); !slices.Equal(got, []string{homeBin}) {
		t.Errorf("installGrants(~/bin/tool) = %q, want only the file", got)
	}
}

// TestWatchBeforePlant: a run is handed to Options.Watch with every canary
// chosen and none yet on disk, so a caller that registers it there looks
// for a canary before any server can read it (a neighbour reading the key
// the moment it is written was missed when the run was registered after
// New).
func TestWatchBeforePlant(t *testing.T) {
	calls := 0
	r := newRun(t, Basic, Options{Watch: func(r *Run) {
		calls++
		cs := r.Canaries()
		if len(cs) == 0 {
			t.Fatal("Watch called before the canaries were chosen")
		}
		for _, c := range cs {
			if p := r.CanaryPath(c.Where); p != "" {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was on disk before Watch", c.Where)
				}
			}
			if len(r.Leaks([]byte("found: "+c.Token))) != 1 {
				t.Errorf("%s: Leaks did not find its token during Watch", c.Where)
			}
		}
	}})
	if calls != 1 {
		t.Fatalf("Watch called %d times, want 1", calls)
	}
	for _, c := range r.Canaries() {
		if p := r.CanaryPath(c.Where); p != "" {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s not planted after New: %v", c.Where, err)
			}
		}
	}
}
