package cli

import (
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// merge and comment re-summarize reports they read: that is the report's
// own work (report.Summarize), so neither links the engine for it. The
// files must not import check, and report must not depend on check,
// directly or through any package of this module.
func TestSummaryWithoutEngine(t *testing.T) {
	const module = "github.com/mcp-lockcheck/mcp-lockcheck"
	engine := module + "/check"
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
	root, err := filepath.Abs("..")
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
