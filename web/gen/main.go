// Command gen builds the page's WebAssembly client and copies what runs it
// into a directory (static/ by default, from go generate ./web):
//
//	client.wasm          GOOS=js GOARCH=wasm go build -trimpath -buildvcs=false -ldflags="-s -w -buildid=" ./web/wasm
//	client.wasm.version  the Go version that built it
//	wasm_exec.js         the Go distribution's JS runtime of that version
//
// The flags make the build reproducible: -trimpath drops the machine's
// paths, -buildvcs=false the commit (which changes with every commit
// without changing the code), -buildid= the build id; -s -w drop the
// symbol table and DWARF, which the browser never reads. The same Go
// version building the same source gives the same bytes, which is what
// the web package's stale-build test checks; go.mod's toolchain line
// names that version.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package is the WebAssembly client's import path.
const Package = "github.com/fiveonit/engine/web/wasm"

func main() {
	out := flag.String("o", "static", "directory to write client.wasm, client.wasm.version and wasm_exec.js into")
	flag.Parse()
	if err := build(*out); err != nil {
		fmt.Fprintln(os.Stderr, "web/gen:", err)
		os.Exit(1)
	}
}

func build(dir string) error {
	goroot, goversion, err := goEnv()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=",
		"-o", filepath.Join(dir, "client.wasm"), Package)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOWASM=", "GOFLAGS=", "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", Package, err)
	}
	js, err := wasmExec(goroot)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), js, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "client.wasm.version"), []byte(goversion+"\n"), 0o644)
}

// goEnv returns the go command's GOROOT and version.
func goEnv() (goroot, version string, err error) {
	b, err := exec.Command("go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return "", "", fmt.Errorf("go env GOROOT GOVERSION: %q", b)
	}
	return f[0], f[1], nil
}

// wasmExec returns the distribution's wasm_exec.js: lib/wasm since Go
// 1.24, misc/wasm before.
func wasmExec(goroot string) ([]byte, error) {
	var errs []string
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		b, err := os.ReadFile(filepath.Join(goroot, p))
		if err == nil {
			return b, nil
		}
		errs = append(errs, err.Error())
	}
	return nil, fmt.Errorf("wasm_exec.js not found: %s", strings.Join(errs, "; "))
}
