// Package wire is the snapshot protocol's bytes: the entity record and its
// groups, the quantization, the frames (keyframe, ordered delta, input), the
// check, and the client's Decoder. It imports only the standard library
// and internal/headroom, so the Go client, the bots and the WebAssembly
// build use it without the server. Every byte is described in PROTOCOL.md beside this file.
package wire
