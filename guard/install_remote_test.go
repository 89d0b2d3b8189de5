package guard

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// TestInstallRemote rewrites url entries into the bridge command: the url
// and header templates move into env (never into args, where an expanded
// token would be on every process listing), and uninstall writes the
// entries back as they were.
func TestInstallRemote(t *testing.T) {
	in := filepath.Join("testdata", "install", "remote.json")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	before, err := config.Parse(in, data)
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New()
	for _, s := range before {
		if s.Name != "unpinned" {
			lk.Servers[s.Name] = &lock.Server{Launch: check.LaunchOf(s), Tools: map[string]*lock.Entry{}}
		}
	}
	out, changes, err := Install(in, data, InstallOptions{Lock: lk, LockPath: "/repo/mcp-lock.json", Executable: "/usr/local/bin/mcp-lockcheck", Flags: []string{"--sandbox", "basic", "--mode", "sanitize"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"linear": "guarded (remote)", "legacy": "guarded (remote)", "windsurf-style": "guarded (remote)", "unpinned": "not pinned"}
	for _, c := range changes {
		if want[c.Server] != c.Action || c.Warning != "" {
			t.Errorf("%s: %s %q, want %s", c.Server, c.Action, c.Warning, want[c.Server])
		}
	}
	golden := filepath.Join("testdata", "install", "remote.json.guarded")
	if *update {
		os.WriteFile(golden, out, 0o644)
	}
	wantOut, _ := os.ReadFile(golden)
	if string(out) != string(wantOut) {
		t.Errorf("install output differs from %s (-update to rewrite):\n%s", golden, out)
	}
	after, err := config.Parse(in, out)
	if err != nil {
		t.Fatalf("rewritten config does not parse: %v", err)
	}
	for _, s := range after {
		if s.Name == "unpinned" {
			continue
		}
		if s.Type != config.TypeStdio || strings.Contains(strings.Join(s.Args, " "), "$") {
			t.Errorf("%s: %s %q: a placeholder in args would be expanded onto the command line", s.Name, s.Type, s.Args)
		}
		if slices.Contains(s.Args, "--sandbox") || !slices.Contains(s.Args, "sanitize") {
			t.Errorf("%s: %q: --sandbox does not apply to a remote server; --mode does", s.Name, s.Args)
		}
		if s.Env[EnvURL] == "" {
			t.Errorf("%s: no %s in env: %v", s.Name, EnvURL, s.Env)
		}
	}
	if again, _, _ := Install(in, out, InstallOptions{Lock: lk, LockPath: "/repo/mcp-lock.json", Executable: "/usr/local/bin/mcp-lockcheck", Flags: []string{"--sandbox", "basic"}}); string(again) != string(out) {
		t.Error("a second install changed the file")
	}
	back, _, err := Uninstall(in, out)
	if err != nil {
		t.Fatal(err)
	}
	restored, err := config.Parse(in, back)
	if err != nil {
		t.Fatalf("uninstalled config does not parse: %v\n%s", err, back)
	}
	for i, s := range restored {
		b := before[i]
		if s.Name != b.Name || s.Type != b.Type || s.URL != b.URL || !maps.Equal(s.Headers, b.Headers) || !maps.Equal(s.Env, b.Env) {
			t.Errorf("uninstall: %+v, want %+v", s, b)
		}
	}
}
