// Command racepkgs prints the module's packages whose tests may run the
// module's code on more than one goroutine at once: the packages worth a
// run under the race detector. test.sh runs those alone with -race.
//
// A package's tests qualify when its test files, its own files, or the
// files of a package of the module its tests import, directly or not,
// start a goroutine: a go statement, t.Parallel, an httptest server, a
// command run with os/exec, time.AfterFunc or signal.Notify. The others
// run the module's code on the test's goroutine alone, where the race
// detector has nothing to find: the simulation's packages, whose tests
// are long and deterministic.
//
// Usage, from the module's root:
//
//	go run ./internal/racepkgs
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// starters are the calls, as package.Name, that start a goroutine running
// code of the caller's. A method named Parallel (testing's) does too.
var starters = map[string]bool{
	"httptest.NewServer": true, "httptest.NewTLSServer": true, "httptest.NewUnstartedServer": true,
	"exec.Command": true, "exec.CommandContext": true, "time.AfterFunc": true, "signal.Notify": true,
}

// pkg is a package as go list gives it: its test files, external ones
// too, and the imports of both.
type pkg struct {
	path, dir                      string
	files, tests, deps, testImport []string
	spawns, testSpawns             bool
}

func main() {
	pkgs, err := list("./...")
	if err != nil {
		fmt.Fprintln(os.Stderr, "racepkgs:", err)
		os.Exit(1)
	}
	for _, p := range selected(pkgs) {
		fmt.Println(p)
	}
}

// selected returns the paths of the packages with tests that may run on
// more than one goroutine, in the order of pkgs.
func selected(pkgs []*pkg) []string {
	byPath := map[string]*pkg{}
	for _, p := range pkgs {
		byPath[p.path] = p
	}
	// deep: the package or one of its dependencies starts a goroutine.
	deep := func(path string) bool {
		p := byPath[path]
		if p == nil {
			return false
		}
		if p.spawns {
			return true
		}
		for _, d := range p.deps {
			if q := byPath[d]; q != nil && q.spawns {
				return true
			}
		}
		return false
	}
	var out []string
	for _, p := range pkgs {
		race := p.testSpawns || deep(p.path)
		for _, t := range p.testImport {
			race = race || deep(t)
		}
		if race && len(p.tests) > 0 {
			out = append(out, p.path)
		}
	}
	return out
}

// list reads the packages of pattern from go list and parses their files.
func list(pattern string) ([]*pkg, error) {
	const format = `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}|{{join .TestGoFiles ","}}{{if and .TestGoFiles .XTestGoFiles}},{{end}}{{join .XTestGoFiles ","}}|{{join .Deps ","}}|{{join .TestImports ","}}{{if and .TestImports .XTestImports}},{{end}}{{join .XTestImports ","}}`
	out, err := exec.Command("go", "list", "-f", format, pattern).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []*pkg
	fset := token.NewFileSet()
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		if len(f) != 6 {
			return nil, fmt.Errorf("go list: unexpected line %q", sc.Text())
		}
		p := &pkg{path: f[0], dir: f[1], files: split(f[2]), tests: split(f[3]), deps: split(f[4]), testImport: split(f[5])}
		if p.spawns, err = anyStarts(fset, p.dir, p.files); err != nil {
			return nil, err
		}
		if p.testSpawns, err = anyStarts(fset, p.dir, p.tests); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, sc.Err()
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// anyStarts reports whether one of the files starts a goroutine.
func anyStarts(fset *token.FileSet, dir string, files []string) (bool, error) {
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return false, fmt.Errorf("parse: %w", err)
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				found = true
			case *ast.SelectorExpr:
				id, ok := n.X.(*ast.Ident)
				found = n.Sel.Name == "Parallel" || ok && starters[id.Name+"."+n.Sel.Name]
			}
			return !found
		})
		if found {
			return true, nil
		}
	}
	return false, nil
}
