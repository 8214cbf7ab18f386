package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFlagsDocumented: every flag the binary defines has its environment
// variable in envFlags, a line in the package doc's list and a row in
// docs/operations.md's table, each naming that variable and, where the
// code gives the default as a constant, that default; and neither lists a
// flag the binary does not define. The package comment is in one file.
func TestFlagsDocumented(t *testing.T) {
	files := packageFiles(t)
	defined := definedFlags(t, files)
	if len(defined) == 0 {
		t.Fatal("found no flag defined on a flag.NewFlagSet in the package's files")
	}
	env := map[string]string{}
	for _, p := range envFlags {
		env[p[0]] = p[1]
	}

	var docs []string
	for _, f := range files {
		if f.file.Doc != nil {
			docs = append(docs, f.name)
		}
	}
	if len(docs) != 1 {
		t.Fatalf("package comment in %v; want it in doc.go alone", docs)
	}
	var doc string
	for _, f := range files {
		if f.file.Doc != nil {
			doc = f.file.Doc.Text()
		}
	}
	ops, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}

	names := make([]string, 0, len(defined))
	for name := range defined {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		v, ok := env[name]
		if !ok {
			t.Errorf("-%s has no environment variable in envFlags", name)
			continue
		}
		item := fmt.Sprintf("- -%s, %s, default ", name, v)
		row := fmt.Sprintf("| `-%s` | `%s` | ", name, v)
		d := defined[name]
		switch {
		case !strings.Contains(doc, item):
			t.Errorf("package doc: no item %q", item+"...")
		case d != "" && !strings.Contains(doc, item+d+":"):
			t.Errorf("package doc: -%s's default is not %q", name, d)
		}
		switch {
		case !strings.Contains(string(ops), row):
			t.Errorf("docs/operations.md: no row %q", row+"...")
		case d != "" && !strings.Contains(string(ops), row+"`"+d+"` |"):
			t.Errorf("docs/operations.md: -%s's default is not %q", name, d)
		}
	}
	for _, p := range envFlags {
		if _, ok := defined[p[0]]; !ok {
			t.Errorf("envFlags names -%s, which no flag set defines", p[0])
		}
	}
	for _, c := range []struct {
		where, text string
		item        *regexp.Regexp
	}{
		{"package doc", doc, regexp.MustCompile(`(?m)^\s*- -([a-z0-9-]+), `)},
		{"docs/operations.md", string(ops), regexp.MustCompile("(?m)^\\| `-([a-z0-9-]+)` \\|")},
	} {
		for _, m := range c.item.FindAllStringSubmatch(c.text, -1) {
			if _, ok := defined[m[1]]; !ok {
				t.Errorf("%s lists -%s, which the binary does not define", c.where, m[1])
			}
		}
	}
}

// goFile is a parsed source file of the package and its name.
type goFile struct {
	name string
	file *ast.File
}

// packageFiles parses the package's Go files, its tests aside.
func packageFiles(t *testing.T) []goFile {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []goFile
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, goFile{n, f})
	}
	return files
}

// definedFlags finds the flags defined on every variable made by
// flag.NewFlagSet, by reading the source: the flag sets are made inside a
// function, out of a test's reach. It maps each name to its default when
// the call gives that as a constant (a string, a number, true or false, a
// number times a unit of time), and to "" otherwise. A definition whose
// name is not a string literal fails the test, rather than be missed.
func definedFlags(t *testing.T, files []goFile) map[string]string {
	t.Helper()
	// The methods of flag.FlagSet that define a flag, and the index of
	// the name among their arguments.
	nameArg := map[string]int{
		"Bool": 0, "Int": 0, "Int64": 0, "Uint": 0, "Uint64": 0, "String": 0,
		"Float64": 0, "Duration": 0, "Func": 0, "BoolFunc": 0,
		"BoolVar": 1, "IntVar": 1, "Int64Var": 1, "UintVar": 1, "Uint64Var": 1,
		"StringVar": 1, "Float64Var": 1, "DurationVar": 1, "TextVar": 1, "Var": 1,
	}
	flags := map[string]string{}
	for _, f := range files {
		sets := map[string]bool{}
		ast.Inspect(f.file, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
				for i, rhs := range as.Rhs {
					if id, ok := as.Lhs[i].(*ast.Ident); ok && isCall(rhs, "flag", "NewFlagSet") {
						sets[id.Name] = true
					}
				}
			}
			return true
		})
		ast.Inspect(f.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			recv, ok := sel.X.(*ast.Ident)
			i, defines := nameArg[sel.Sel.Name]
			if !ok || !sets[recv.Name] || !defines {
				return true
			}
			name, ok := stringLit(call.Args[i])
			if !ok {
				t.Fatalf("%s: %s.%s defines a flag whose name is not a string literal", f.name, recv.Name, sel.Sel.Name)
			}
			def := ""
			if strings.HasSuffix(sel.Sel.Name, "Var") && sel.Sel.Name != "Var" && len(call.Args) > 2 {
				def = constDefault(call.Args[2])
			} else if !strings.HasSuffix(sel.Sel.Name, "Func") && len(call.Args) > 1 {
				def = constDefault(call.Args[1])
			}
			flags[name] = def
			return true
		})
	}
	return flags
}

// stringLit is the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// isCall says whether e is a call of pkg.fn.
func isCall(e ast.Expr, pkg, fn string) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && sel.Sel.Name == fn
}

// constDefault is a flag's default as the docs write it, when the code
// gives it as a constant: "" for an empty string or anything else.
func constDefault(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if s, ok := stringLit(e); ok {
			return s
		}
		if e.Kind == token.INT {
			return e.Value
		}
	case *ast.Ident:
		if e.Name == "true" || e.Name == "false" {
			return e.Name
		}
	case *ast.BinaryExpr:
		n, ok := e.X.(*ast.BasicLit)
		unit, ok2 := e.Y.(*ast.SelectorExpr)
		if !ok || !ok2 || e.Op != token.MUL || n.Kind != token.INT {
			return ""
		}
		v, err := strconv.Atoi(n.Value)
		units := map[string]time.Duration{"Millisecond": time.Millisecond, "Second": time.Second, "Minute": time.Minute}
		if u, ok := units[unit.Sel.Name]; ok && err == nil {
			// The docs write 2m, not Go's 2m0s.
			return strings.Replace((time.Duration(v) * u).String(), "m0s", "m", 1)
		}
	}
	return ""
}
