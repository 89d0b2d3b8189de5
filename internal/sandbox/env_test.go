package sandbox

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEnvironScrubbedEverywhere is the platform-neutral half of the
// environment contract: credentials of the checker's environment do not
// pass, every home variable of the platform points into the run
// directory, and the config's env and PassEnv still win. It runs on every
// OS (the launch tests that exercise the helper are Linux-only).
func TestEnvironScrubbedEverywhere(t *testing.T) {
	dir := t.TempDir()
	real := map[string]string{
		"PATH": "/usr/bin", "HOME": "/home/real", "USERPROFILE": `C:\Users\real`,
		"APPDATA": `C:\Users\real\AppData\Roaming`, "LOCALAPPDATA": `C:\Users\real\AppData\Local`,
		"GITHUB_TOKEN": "ghp_real", "AWS_SECRET_ACCESS_KEY": "real-aws", "ACTIONS_RUNTIME_TOKEN": "real-rt",
		"OPENAI_API_KEY": "real-oai", "SystemRoot": `C:\Windows`, "PASSED": "yes",
	}
	r := &Run{
		opts:   Options{Level: Basic, PassEnv: []string{"PASSED"}},
		getenv: func(k string) (string, bool) { v, ok := real[k]; return v, ok },
		dir:    dir, home: filepath.Join(dir, "home", "u"), tmp: filepath.Join(dir, "tmp"),
		envCan: map[string]string{"GITHUB_TOKEN": "ghp_canary"},
	}
	e := r.environ(map[string]string{"CONFIGURED": "1"})
	for k, v := range e {
		for _, secret := range []string{"ghp_real", "real-aws", "real-rt", "real-oai", "/home/real", `C:\Users\real`} {
			if strings.Contains(v, secret) {
				t.Errorf("%s=%q carries the checker's %q", k, v, secret)
			}
		}
	}
	if e["GITHUB_TOKEN"] != "ghp_canary" {
		t.Errorf("GITHUB_TOKEN = %q, want the canary", e["GITHUB_TOKEN"])
	}
	if e["PASSED"] != "yes" || e["CONFIGURED"] != "1" {
		t.Errorf("PassEnv or config env lost: PASSED=%q CONFIGURED=%q", e["PASSED"], e["CONFIGURED"])
	}
	homes := []string{"HOME", "TMPDIR", "TMP", "TEMP", "XDG_CONFIG_HOME"}
	if runtime.GOOS == "windows" {
		homes = append(homes, "USERPROFILE", "APPDATA", "LOCALAPPDATA")
		if e["SystemRoot"] != `C:\Windows` {
			t.Errorf("SystemRoot = %q: Windows programs need it", e["SystemRoot"])
		}
	}
	for _, k := range homes {
		if !isAncestorOrSelf(dir, e[k]) {
			t.Errorf("%s = %q, want it inside the run dir %s", k, e[k], dir)
		}
	}
}
