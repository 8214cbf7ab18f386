// Command wasm is the browser's game client. It is the project's own Go
// client (package client: decoder, prediction, interpolation) built for
// WebAssembly with GOOS=js GOARCH=wasm, and bound to the page by syscall/js
// in main_js.go. The rest is what the tests run natively: page.go holds the
// controls, the draw list and the HUD's state; signals.go the lights of the
// traffic signals (levels.SignalPlan); constants.go the numbers the page's
// JavaScript shares with the Go side, which the page reads from the client
// rather than copying. Built for any other target, the command only says
// how to build it: go generate ./web.
package main
