// Command walk measures how a check flows through the code, the way issue
// 20 counted it: from the engine's check.Run (check.Check before issue 46),
// follow every call that carries its context on (a function with a context.Context parameter, or a closure
// that captured one), over the call graph of the whole command (RTA from
// main, so calls through interfaces and func values are resolved to what
// the program can really call). It prints:
//
//   - stops: the functions of this module the context reaches;
//   - files: the files they are in, and how many stops each holds;
//   - returns upward: calls from a package to one that imports it
//     (directly or not), which only an interface or a callback can make:
//     the flow going back up a layer.
//
// With -all it follows every call into this module instead (the data's
// whole path: probe, snapshots, findings, settle, summary).
//
// Usage, from bench/ (a module of its own): go run ./walk [-dir DIR] [-all] [-v]
//
// DIR is the product module's root (default "..", bench's parent), so an
// older commit checked out elsewhere is measured by the same program.
package main

import (
	"flag"
	"fmt"
	"go/types"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/rta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

func main() {
	dir := flag.String("dir", "..", "the product module's root")
	verbose := flag.Bool("v", false, "list every stop and every upward return")
	all := flag.Bool("all", false, "follow every call into this module, not only those that carry the context")
	flag.Parse()
	log.SetFlags(0)

	cfg := &packages.Config{Dir: *dir, Mode: packages.LoadAllSyntax | packages.NeedModule}
	pkgs, err := packages.Load(cfg, "./cmd/mcp-lockcheck")
	if err != nil {
		log.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		os.Exit(1)
	}
	module := pkgs[0].Module.Path
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()

	var roots []*ssa.Function
	var check *ssa.Function
	for _, p := range prog.AllPackages() {
		switch {
		case p.Pkg.Name() == "main" && strings.HasPrefix(p.Pkg.Path(), module):
			roots = append(roots, p.Func("main"), p.Func("init"))
		case p.Pkg.Path() == module+"/internal/check":
			// The engine's entry (Run: load, then Loaded.Check); before
			// issue 46, check.Check.
			if check = p.Func("Run"); check == nil {
				check = p.Func("Check")
			}
		}
	}
	if check == nil || len(roots) == 0 {
		log.Fatal("walk: no main package or no check.Check")
	}
	cg := rta.Analyze(roots, true).CallGraph
	start := cg.Nodes[check]
	if start == nil {
		log.Fatal("walk: check.Check is not reachable from main")
	}

	seen, upward := follow(prog, module, check, start, *all)
	printWalk(prog, module, seen, upward, *verbose)
}

// edge is a call from one function to another.
type edge struct{ from, to *ssa.Function }

// follow walks the call graph from check (start, its node) over the calls
// into module that carry the context on (every call into module with
// all): the functions reached, check included, and the calls among them
// that go back up a layer.
func follow(prog *ssa.Program, module string, check *ssa.Function, start *callgraph.Node, all bool) (map[*ssa.Function]bool, []edge) {
	ours := func(fn *ssa.Function) *types.Package {
		for fn.Parent() != nil {
			fn = fn.Parent()
		}
		if fn.Pkg == nil || !strings.HasPrefix(fn.Pkg.Pkg.Path(), module) {
			return nil
		}
		return fn.Pkg.Pkg
	}
	imports := importers(prog)

	seen := map[*ssa.Function]bool{check: true}
	queue := []*callgraph.Node{start}
	var upward []edge
	upSeen := map[edge]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range n.Out {
			fn := e.Callee.Func
			if ours(fn) == nil || !all && !carriesContext(fn) {
				continue
			}
			if from, to := ours(n.Func), ours(fn); from != to && imports[to][from] {
				if k := (edge{n.Func, fn}); !upSeen[k] {
					upSeen[k] = true
					upward = append(upward, k)
				}
			}
			if !seen[fn] {
				seen[fn] = true
				queue = append(queue, e.Callee)
			}
		}
	}
	return seen, upward
}

// printWalk prints the stops by file, and with verbose every stop and
// every upward return.
func printWalk(prog *ssa.Program, module string, seen map[*ssa.Function]bool, upward []edge, verbose bool) {
	files := map[string]int{}
	var stops []string
	for fn := range seen {
		f := fileOf(prog, fn, module)
		files[f]++
		stops = append(stops, f+": "+fn.String())
	}
	type fc struct {
		file string
		n    int
	}
	var byFile []fc
	for f, n := range files {
		byFile = append(byFile, fc{f, n})
	}
	sort.Slice(byFile, func(i, j int) bool {
		if byFile[i].n != byFile[j].n {
			return byFile[i].n > byFile[j].n
		}
		return byFile[i].file < byFile[j].file
	})
	fmt.Printf("stops %d, files %d, returns upward %d\n", len(seen), len(files), len(upward))
	for _, f := range byFile {
		fmt.Printf("  %3d  %s\n", f.n, f.file)
	}
	if verbose {
		sort.Strings(stops)
		fmt.Println("\nstops:")
		for _, s := range stops {
			fmt.Println("  " + s)
		}
		fmt.Println("\nreturns upward:")
		for _, e := range upward {
			fmt.Printf("  %s -> %s\n", e.from, e.to)
		}
	}
}

// carriesContext: fn takes a context.Context, or is a closure that
// captured one.
func carriesContext(fn *ssa.Function) bool {
	isCtx := func(t types.Type) bool {
		n, ok := t.(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
	}
	for _, p := range fn.Params {
		if isCtx(p.Type()) {
			return true
		}
	}
	for _, v := range fn.FreeVars {
		t := v.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if isCtx(t) {
			return true
		}
	}
	return false
}

// importers maps each package to the set of packages it imports,
// directly or not.
func importers(prog *ssa.Program) map[*types.Package]map[*types.Package]bool {
	out := map[*types.Package]map[*types.Package]bool{}
	var walk func(p *types.Package) map[*types.Package]bool
	walk = func(p *types.Package) map[*types.Package]bool {
		if m, ok := out[p]; ok {
			return m
		}
		m := map[*types.Package]bool{}
		out[p] = m
		for _, q := range p.Imports() {
			m[q] = true
			for r := range walk(q) {
				m[r] = true
			}
		}
		return m
	}
	for _, p := range prog.AllPackages() {
		walk(p.Pkg)
	}
	return out
}

// fileOf names fn's file relative to the module ("internal/check/engine.go").
func fileOf(prog *ssa.Program, fn *ssa.Function, module string) string {
	pos := prog.Fset.Position(fn.Pos())
	for fn.Parent() != nil && !pos.IsValid() {
		fn = fn.Parent()
		pos = prog.Fset.Position(fn.Pos())
	}
	dir := strings.TrimPrefix(fn.Pkg.Pkg.Path(), module)
	return strings.TrimPrefix(filepath.Join(dir, filepath.Base(pos.Filename)), "/")
}
