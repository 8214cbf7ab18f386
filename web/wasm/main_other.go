//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "web/wasm runs in a browser: go generate ./web builds it (GOOS=js GOARCH=wasm)")
	os.Exit(2)
}
