package ghcmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envWith(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSetOutputs(t *testing.T) {
	t.Parallel()
	if err := SetOutputs(envWith(nil), map[string]string{"a": "b"}); !errors.Is(err, ErrNoOutputFile) {
		t.Errorf("unset GITHUB_OUTPUT: err = %v, want ErrNoOutputFile", err)
	}
	path := filepath.Join(t.TempDir(), "output")
	if err := os.WriteFile(path, []byte("earlier=step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := envWith(map[string]string{"GITHUB_OUTPUT": path})
	hostile := "line one\nghadelimiter_x\n_GitHubActionsFileCommandDelimeter_\nexit-code=0\n"
	if err := SetOutputs(env, map[string]string{"exit-code": "1", "report": hostile}); err != nil {
		t.Fatal(err)
	}
	if err := SetOutputs(env, map[string]string{"bad\nname": "x"}); err == nil {
		t.Error("an output name with a newline was accepted")
	}
	got := parseOutputFile(t, path)
	want := map[string]string{"earlier": "step", "exit-code": "1", "report": hostile}
	if len(got) != len(want) {
		t.Fatalf("outputs = %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("output %s = %q, want %q", k, got[k], v)
		}
	}
}

// parseOutputFile reads a GITHUB_OUTPUT file the way the runner does:
// name=value lines and name<<DELIM blocks ended by a line equal to DELIM.
// A later value for a name does not replace an earlier one here, so an
// injected duplicate shows up as a wrong count or value.
func parseOutputFile(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		set := func(k, v string) {
			if _, dup := out[k]; dup {
				t.Errorf("output %q set twice", k)
				return
			}
			out[k] = v
		}
		if k, delim, ok := strings.Cut(l, "<<"); ok {
			var v []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				v = append(v, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("delimiter %q never closes", delim)
			}
			set(k, strings.Join(v, "\n"))
			continue
		}
		k, v, _ := strings.Cut(l, "=")
		set(k, v)
	}
	return out
}
