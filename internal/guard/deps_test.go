package guard

import (
	"os/exec"
	"path"
	"strings"
	"testing"
)

// TestGuardLinksNoEngine: the guard is the proxy that runs beside every
// agent session. It depends on the lock, inspection, the sandbox, the
// transport and small internal packages, never on the check engine or what
// only the engine needs (probing, synthesized calls, the policy file, the
// report renderers): code it does not link cannot break or slow it, and a
// change there cannot change what it refuses. go list -deps is the build's
// own answer, transitive imports included.
func TestGuardLinksNoEngine(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the guard's imports: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/mcp-lockcheck/mcp-lockcheck/"
	// By package name, so the rule holds wherever a package moves
	// (internal/check is still the engine).
	forbidden := map[string]bool{"check": true, "probe": true, "synth": true, "policy": true, "report": true}
	var ours []string
	for _, p := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(p, module)
		if !ok {
			continue
		}
		ours = append(ours, rest)
		if forbidden[path.Base(rest)] {
			t.Errorf("guard imports %s (directly or through another package)", p)
		}
	}
	if len(ours) == 0 {
		t.Fatalf("go list -deps named no package of this module:\n%s", out)
	}
	if t.Failed() {
		t.Logf("the guard's packages: %s", strings.Join(ours, " "))
	}
}
