package launchid

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilePath: an interpreter's script resolves against the launch's
// working directory, as node, python, deno and bun open it, never on
// PATH; the command itself and a shell's bare script name are looked up
// on PATH as exec and the shells do.
func TestFilePath(t *testing.T) {
	work, bin := t.TempDir(), t.TempDir()
	for _, f := range []string{"server.mjs", "server.py", "main.ts", "index.ts", "run.sh", "srv/index.js"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tool", "server.mjs", "onpath.sh"} {
		if err := os.WriteFile(filepath.Join(bin, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(work, "run.sh")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": bin}
	for _, tc := range []struct {
		command string
		args    []string
		want    string // relative to work or bin: "work/x", "bin/x"
		err     string // a part of the error, when one is wanted
	}{
		{"node", []string{"server.mjs"}, "work/server.mjs", ""},
		{"python3", []string{"-u", "server.py"}, "work/server.py", ""},
		{"deno", []string{"run", "-A", "main.ts"}, "work/main.ts", ""},
		{"bun", []string{"run", "index.ts"}, "work/index.ts", ""},
		{"node", []string{"srv/index.js"}, "work/srv/index.js", ""},
		{"node", []string{"./server.mjs"}, "work/server.mjs", ""},
		{"env", []string{"A=b", "node", "server.mjs"}, "work/server.mjs", ""},
		// The command env runs is exec's: PATH, not the directory.
		{"env", []string{"A=b", "tool"}, "bin/tool", ""},
		{"env", []string{"-i", "A=b", "server.mjs"}, "bin/server.mjs", ""},
		// A script missing from the working directory is not taken from
		// PATH, even when a file of that name lies there.
		{"node", []string{"missing.mjs"}, "", "missing.mjs: not found in the launch's working directory"},
		{"node", []string{"srv"}, "", "srv: not found in the launch's working directory"},
		// A shell falls back to PATH for a bare name.
		{"sh", []string{"onpath.sh"}, "bin/onpath.sh", ""},
		{"bash", []string{"run.sh"}, "", "run.sh: not found in the launch's working directory (" + work + ") or on its PATH"},
		// The command itself is exec's: PATH.
		{"tool", nil, "bin/tool", ""},
		{"nope", nil, "", "nope: not found on the launch's PATH"},
	} {
		i, ok := LaunchFile(tc.command, tc.args)
		if !ok {
			t.Fatalf("LaunchFile(%q, %q) found no file", tc.command, tc.args)
		}
		if tc.command == "node" && tc.args[0] == "missing.mjs" {
			// A file of the name on PATH changes nothing.
			if err := os.WriteFile(filepath.Join(bin, "missing.mjs"), []byte("x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		got, err := FilePath(tc.command, tc.args, i, env, work)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("FilePath(%q, %q) = %q, %v; want an error with %q", tc.command, tc.args, got, err, tc.err)
			}
			continue
		}
		want := strings.NewReplacer("work/", work+"/", "bin/", bin+"/").Replace(tc.want)
		if err != nil || got != filepath.FromSlash(want) {
			t.Errorf("FilePath(%q, %q) = %q, %v; want %q", tc.command, tc.args, got, err, want)
		}
	}
}

// TestLaunchArtifactScript: the guard reads the same identity for a
// script named without a slash as check does: the file in the launch's
// working directory.
func TestLaunchArtifactScript(t *testing.T) {
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "server.mjs"), []byte("console.log(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, npm, err := LaunchArtifact("node", []string{"server.mjs"}, map[string]string{"PATH": t.TempDir()}, work, "")
	if err != nil || npm {
		t.Fatalf("LaunchArtifact: npm %v, %v", npm, err)
	}
	if l.File != "server.mjs" || len(l.FileSHA256) != 64 {
		t.Errorf("LaunchArtifact = %+v; want server.mjs with its sha256", l)
	}
}
