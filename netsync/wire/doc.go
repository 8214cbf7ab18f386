// Package wire is the snapshot protocol's bytes: the entity [Record] and its
// groups, the quantization, the frames (keyframe, ordered delta, acked delta
// and input), the check, and the client's [Decoder] and [AckedDecoder]. It
// imports only the standard library and internal/headroom, so the Go client,
// the bots and the WebAssembly build use it without the server.
//
// PROTOCOL.md, beside this file, describes every byte.
package wire
