package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPublicAPINamesNoInternalType: no exported declaration of the
// module's public packages (check, report, lock, finding) names a type of
// an internal/ package in a signature, a field or an alias. A program
// outside the module could neither name nor build such a value: the
// report's redactor was an *internal/redact.Redactor, and its types were
// aliases of internal/report's, so go doc showed no fields.
func TestPublicAPINamesNoInternalType(t *testing.T) {
	t.Parallel()
	const module = "github.com/mcp-lockcheck/mcp-lockcheck/"
	for _, dir := range []string{"../check", "../report", "../lock", "../finding"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			internal := map[string]string{} // local name -> import path
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(p, module+"internal/") {
					continue
				}
				name := filepath.Base(p)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internal[name] = p
			}
			if len(internal) == 0 {
				continue
			}
			check := func(what string, n ast.Node) {
				if n == nil {
					return
				}
				ast.Inspect(n, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] != "" {
							t.Errorf("%s: %s names %s.%s (%s)", fset.Position(sel.Pos()), what, id.Name, sel.Sel.Name, internal[id.Name])
						}
					}
					return true
				})
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv) {
						continue
					}
					check("func "+d.Name.Name, d.Type)
					if d.Recv != nil {
						check("func "+d.Name.Name, d.Recv)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							exportedOnly(s.Type)
							check("type "+s.Name.Name, s.Type)
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									check("var or const "+n.Name, s.Type)
								}
							}
						}
					}
				}
			}
		}
	}
}

// exportedRecv reports whether a method's receiver is an exported type.
func exportedRecv(fl *ast.FieldList) bool {
	if fl == nil || len(fl.List) == 0 {
		return false
	}
	t := fl.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

// exportedOnly drops a struct's unexported fields and an interface's
// unexported methods from t, so that only what another package can reach
// is checked.
func exportedOnly(t ast.Expr) {
	var fl *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fl = t.Fields
	case *ast.InterfaceType:
		fl = t.Methods
	default:
		return
	}
	kept := fl.List[:0]
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			kept = append(kept, f) // embedded: reachable through promotion
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				kept = append(kept, f)
				break
			}
		}
	}
	fl.List = kept
}
