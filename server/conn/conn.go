// Package conn is the contract between the game server and a client's
// transport: the Conn interface a WebSocket, a WebRTC pair of data channels
// or an in-memory pipe implements, and the errors its Send returns. It is a
// leaf package so that transports and test kits can implement a Conn
// without importing the server.
package conn

import "errors"

// ErrSendFull is returned by Conn.Send when the connection's send queue is
// full: the client is not keeping up.
var ErrSendFull = errors.New("server: send queue full")

// ErrClosed is returned by Conn.Send on a closed connection.
var ErrClosed = errors.New("server: connection closed")

// Conn is a client's connection as the game server sees it: a transport
// (WebSocket, WebRTC data channels, or an in-memory pipe in tests) that
// delivers the client's frames to Session.Receive and sends the server's.
//
// The game server calls Send and Close from its room goroutine only; the
// transport must never block it.
type Conn interface {
	// Lossy reports whether the transport may lose, duplicate or reorder
	// frames (a WebRTC data channel that never retransmits): such a client
	// gets the acked snapshots and sends several inputs per frame.
	Lossy() bool

	// Send queues one frame for the client and returns at once. text
	// frames are JSON; binary ones are netsync frames. reliable asks for
	// the reliable channel of a transport that has one (a frame over
	// wire.ReliableAbove, or a text frame); an ordered transport ignores
	// it. frame is only valid during the call: the transport copies it. It
	// returns ErrSendFull when the queue is full (the frame is dropped) and
	// ErrClosed once the connection is closed.
	Send(frame []byte, text, reliable bool) error

	// Close closes the connection with a reason the client is shown. It
	// may be called more than once; only the first counts.
	Close(reason string)
}
