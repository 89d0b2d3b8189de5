package guard

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/check"
	"github.com/mcp-lockcheck/mcp-lockcheck/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestInstallUninstall rewrites a config golden-file style and checks that
// uninstall gives back the original bytes without the backup.
func TestInstallUninstall(t *testing.T) {
	in := filepath.Join("testdata", "install", "mcp.json")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := config.Parse(in, data)
	if err != nil {
		t.Fatal(err)
	}
	lk := lock.New()
	for _, s := range servers {
		if s.Name == "fs" || s.Name == "memory" {
			lk.Servers[s.Name] = &lock.Server{Launch: check.LaunchOf(s), Tools: map[string]*lock.Entry{}}
		}
	}
	lk.Servers["memory"].Launch.Args = []string{"--approved-arg"}
	out, changes, err := Install(in, data, InstallOptions{Lock: lk, LockPath: "/repo/mcp-lock.json", Executable: "/usr/local/bin/mcp-lockcheck", Flags: []string{"--mode", "warn"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"fs": "guarded", "memory": "guarded", "remote": "not pinned", "unpinned": "not pinned"}
	for _, c := range changes {
		if want[c.Server] != c.Action {
			t.Errorf("%s: %s, want %s", c.Server, c.Action, want[c.Server])
		}
		if (c.Warning != "") != (c.Server == "memory") {
			t.Errorf("%s: warning %q", c.Server, c.Warning)
		}
	}
	golden := filepath.Join("testdata", "install", "mcp.json.guarded")
	if *update {
		os.WriteFile(golden, out, 0o644)
	}
	wantOut, _ := os.ReadFile(golden)
	if string(out) != string(wantOut) {
		t.Errorf("install output differs from %s (-update to rewrite):\n%s", golden, out)
	}
	// The rewritten config is still a config, and the guarded server keeps
	// its env and cwd.
	after, err := config.Parse(in, out)
	if err != nil {
		t.Fatalf("rewritten config does not parse: %v", err)
	}
	for _, s := range after {
		if s.Name == "fs" && (s.Command != "/usr/local/bin/mcp-lockcheck" || s.Env["NODE_OPTIONS"] == "" || s.Cwd != "/srv") {
			t.Errorf("fs after install: %+v", s)
		}
	}
	again, changes2, err := Install(in, out, InstallOptions{Lock: lk, LockPath: "/repo/mcp-lock.json", Executable: "/usr/local/bin/mcp-lockcheck"})
	if err != nil || string(again) != string(out) {
		t.Errorf("second install changed the file: %v", err)
	}
	for _, c := range changes2 {
		if c.Server == "fs" && c.Action != "already guarded" {
			t.Errorf("second install: %+v", c)
		}
	}
	back, _, err := Uninstall(in, out)
	if err != nil {
		t.Fatal(err)
	}
	back2, _, _ := Uninstall(in, back)
	if string(back2) != string(back) {
		t.Errorf("second uninstall changed the file")
	}
	orig, _ := config.Parse(in, data)
	restored, err := config.Parse(in, back)
	if err != nil {
		t.Fatal(err)
	}
	for i := range orig {
		if !check.LaunchOf(orig[i]).Equal(check.LaunchOf(restored[i])) {
			t.Errorf("%s: restored launch %+v, want %+v", orig[i].Name, check.LaunchOf(restored[i]), check.LaunchOf(orig[i]))
		}
	}
}

func TestInstallRefusesJSONC(t *testing.T) {
	_, _, err := Install("mcp.json", []byte("{\n  // c\n  \"mcpServers\": {}\n}\n"), InstallOptions{Lock: lock.New()})
	if err == nil {
		t.Fatal("no error for a config with comments")
	}
}
