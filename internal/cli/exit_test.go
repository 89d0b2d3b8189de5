package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exitCode is the one mapping from a command's result to the process's
// exit code: every error is exit 2 unless it is help or an interruption,
// an error never passes, and nothing but our own constants escapes.
func TestExitCode(t *testing.T) {
	plain := errors.New("reading mcp-lock.json: unexpected end of JSON input")
	usage := usageErr("--fail-on: unknown severity %q", "fatal")
	wrapped := fmt.Errorf("check: %w", usage)
	for _, tc := range []struct {
		name string
		code int
		err  error
		want int
	}{
		{"ok", ExitOK, nil, ExitOK},
		{"drift", ExitDrift, nil, ExitDrift},
		{"held", ExitHeld, nil, ExitHeld},
		{"usage", ExitUsage, nil, ExitUsage},
		{"an error with no verdict never passes", ExitOK, plain, ExitUsage},
		{"an error keeps the verdict the command reached", ExitDrift, plain, ExitDrift},
		{"a usage error overrides a verdict", ExitDrift, usage, ExitUsage},
		{"a wrapped usage error", ExitHeld, wrapped, ExitUsage},
		{"help", ExitUsage, flag.ErrHelp, ExitOK},
		{"interrupted", ExitOK, errInterrupted, ExitInterrupted},
		{"interrupted, whatever the command said", ExitDrift, fmt.Errorf("pin: %w", errInterrupted), ExitInterrupted},
		{"a server's exit status is not passed through", 137, nil, ExitUsage},
		{"nor a negative one", -1, nil, ExitUsage},
		{"nor the sandbox helper's", 125, plain, ExitUsage},
		{"nor 130 without an interruption", ExitInterrupted, nil, ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.code, tc.err); got != tc.want {
				t.Errorf("exitCode(%d, %v) = %d, want %d", tc.code, tc.err, got, tc.want)
			}
		})
	}
}

// Run routes a command's result through exitCode: an error from a
// cancelled run is reported as the interruption, once, not as bad input.
func TestRunInterruptedError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr strings.Builder
	code := Run(ctx, []string{"mcp-lockcheck", "merge", "--no-such-flag"}, Env{Stdout: &stdout, Stderr: &stderr, Dir: t.TempDir()})
	if code != ExitInterrupted || stderr.String() != "mcp-lockcheck: interrupted: no report and no lock written\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// merge and comment re-summarize reports they read: that is the report's
// own work (report.Summarize), so neither links the engine for it. The
// files must not import check, and report must not depend on check,
// directly or through any package of this module.
func TestSummaryWithoutEngine(t *testing.T) {
	const module = "github.com/mcp-lockcheck/mcp-lockcheck"
	engine := module + "/internal/check"
	for _, file := range []string{"merge.go", "comment.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == engine {
				t.Errorf("cli/%s imports %s", file, engine)
			}
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The module's own packages reachable from report, read from their
	// source (build.ImportDir does not run the go command).
	seen := map[string]string{} // import path -> the package that imports it
	queue := []string{module + "/report"}
	for n := 0; len(queue) > 0; n++ {
		if n > 1000 {
			t.Fatal("more than 1000 packages in report's dependencies")
		}
		path := queue[0]
		queue = queue[1:]
		if path == engine {
			chain := path
			for p := seen[path]; p != ""; p = seen[p] {
				chain = p + " -> " + chain
			}
			t.Fatalf("report depends on the engine: %s", chain)
		}
		pkg, err := build.ImportDir(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(path, module))), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if _, ok := seen[imp]; ok || (imp != module && !strings.HasPrefix(imp, module+"/")) {
				continue
			}
			seen[imp] = path
			queue = append(queue, imp)
		}
	}
	if len(seen) == 0 {
		t.Fatal("report imports no package of this module: the walk read nothing")
	}
}
