package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxGameServerMethods bounds GameServer's methods, exported or not: the
// core stays small, and a feature's work goes in its own type.
const maxGameServerMethods = 39

// TestGameServerStaysSmall counts the methods declared on *GameServer in
// the package's files, tests left out, and fails past the bound.
func TestGameServerStaysSmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "GameServer" {
					names = append(names, fn.Name.Name)
				}
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("found %d methods of GameServer: the count is broken", len(names))
	}
	if len(names) > maxGameServerMethods {
		t.Errorf("GameServer has %d methods, at most %d: put a feature's work in its feature (feature.go): %v",
			len(names), maxGameServerMethods, names)
	}
}
