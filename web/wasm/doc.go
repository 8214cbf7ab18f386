// Command wasm is the browser's game client. It is the project's own Go
// client (package client: decoder, prediction, interpolation) built for
// WebAssembly with GOOS=js GOARCH=wasm, and bound to the page by syscall/js
// in main_js.go. page.go is the part the tests run natively: the controls,
// the draw list and the HUD's state. Built for any other target, the
// command only says how to build it: go generate ./web.
package main
