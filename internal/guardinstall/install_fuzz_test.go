package guardinstall

import (
	"testing"

	"github.com/mcp-lockcheck/mcp-lockcheck/internal/config"
	"github.com/mcp-lockcheck/mcp-lockcheck/internal/pinned"
	"github.com/mcp-lockcheck/mcp-lockcheck/lock"
)

// installNames are the file names the fuzzer feeds configs under: one per
// format guard install edits.
var installNames = []string{".mcp.json", ".vscode/mcp.json", "opencode.jsonc", ".zed/settings.json", ".codex/config.toml", ".continue/mcpServers/x.yaml"}

// FuzzInstallRoundTrip: for any config that parses, guard install either
// refuses with an error or writes a file that parses, whose guarded
// servers read back (through the wrapper) as their original launches, and
// that guard uninstall turns back into the original bytes. Nothing panics.
func FuzzInstallRoundTrip(f *testing.F) {
	for _, rt := range roundTrips {
		for i, n := range installNames {
			if n == rt.file || (rt.file == ".cursor/mcp.json" && i == 0) {
				f.Add(uint8(i), []byte(rt.data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := installNames[int(which)%len(installNames)]
		orig, err := config.Parse(name, data)
		if err != nil {
			return
		}
		lk := lock.New()
		want := map[string]lock.Launch{}
		for _, s := range orig {
			lk.Servers[s.Name] = &lock.Server{Launch: pinned.Launch(s)}
			want[s.Name] = pinned.Launch(s)
		}
		out, changes, err := Install(name, data, Options{Lock: lk, LockPath: "mcp-lock.json", Executable: "mcp-lockcheck"})
		if err != nil {
			return
		}
		after, err := config.Parse(name, out)
		if err != nil {
			t.Fatalf("installed config does not parse: %v\n%q", err, out)
		}
		config.UnwrapGuard(after, nil)
		guarded := map[string]bool{}
		for _, c := range changes {
			guarded[c.Server] = c.Action == "guarded" || c.Action == "guarded (remote)"
		}
		for _, s := range after {
			if !guarded[s.Name] {
				continue
			}
			if s.Guard == nil || !pinned.Launch(s).Equal(want[s.Name]) {
				t.Fatalf("%s: guarded launch reads back as %+v (guard %v), want %+v\n%q", s.Name, pinned.Launch(s), s.Guard, want[s.Name], out)
			}
		}
		prior := false
		for _, c := range changes {
			prior = prior || c.Action == "already guarded"
		}
		if prior {
			return // uninstall also restores what was guarded before
		}
		back, _, err := Uninstall(name, out)
		if err != nil || string(back) != string(data) {
			t.Fatalf("uninstall: %v\n got %q\nwant %q", err, back, data)
		}
	})
}
