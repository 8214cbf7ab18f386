// Package servertest is the game server's test kit: MemConn, an in-memory
// Conn whose frames a test or an in-process client reads back.
package servertest

import (
	"slices"
	"sync"

	"github.com/fiveonit/engine/server/conn"
)

// MemConn is an in-memory conn.Conn: what the server sends waits in a bounded
// queue until the test (or an in-process client) takes it with Recv. It is
// safe for concurrent use.
type MemConn struct {
	lossy bool
	limit int

	mu     sync.Mutex
	frames []MemFrame
	spare  []MemFrame // the slice Recv handed out last, reused
	free   [][]byte   // buffers given back by Release
	closed bool
	reason string
}

// MemFrame is one frame a MemConn holds.
type MemFrame struct {
	Data     []byte
	Text     bool
	Reliable bool
}

// NewMemConn returns a connection whose queue holds limit frames (0: no
// limit); lossy is what Lossy reports.
func NewMemConn(lossy bool, limit int) *MemConn {
	return &MemConn{lossy: lossy, limit: limit}
}

// Lossy implements conn.Conn.
func (c *MemConn) Lossy() bool { return c.lossy }

// Send implements conn.Conn.
func (c *MemConn) Send(frame []byte, text, reliable bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return conn.ErrClosed
	}
	if c.limit > 0 && len(c.frames) >= c.limit {
		return conn.ErrSendFull
	}
	buf := c.take(len(frame))
	if len(c.frames) == cap(c.frames) {
		c.frames = slices.Grow(c.frames, len(c.frames)+memFrames)
	}
	c.frames = append(c.frames, MemFrame{append(buf, frame...), text, reliable})
	return nil
}

// take returns a buffer for a frame of n bytes: the last one given back
// that holds it (the buffers too small stay for smaller frames), else a new
// one of twice n, so that a conn whose frames grow allocates seldom.
func (c *MemConn) take(n int) []byte {
	for i := len(c.free) - 1; i >= 0; i-- {
		if b := c.free[i]; cap(b) >= n {
			last := len(c.free) - 1
			c.free[i], c.free[last] = c.free[last], nil
			c.free = c.free[:last]
			return b[:0]
		}
	}
	return make([]byte, 0, max(2*n, memFrameCap))
}

// memFrames is the least the queue grows by: the frames of a few ticks.
const memFrames = 8

// memFrameCap is the least a MemConn buffer holds: most frames fit, so a
// buffer taken back from the free list seldom has to grow (and allocate)
// for the next frame.
const memFrameCap = 4 << 10

// Close implements conn.Conn.
func (c *MemConn) Close(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed, c.reason = true, reason
	}
}

// Recv takes every frame waiting (nil for none). The frames are the
// caller's until it gives them back with Release (or forever, if it never
// does).
func (c *MemConn) Recv() []MemFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.frames) == 0 {
		return nil // the queue keeps its room
	}
	f := c.frames
	c.frames, c.spare = c.spare[:0], nil
	return f
}

// Release gives back frames from Recv that the caller is done with: their
// buffers are reused by Send, so a steady stream allocates nothing.
func (c *MemConn) Release(frames []MemFrame) {
	if frames == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range frames {
		c.free = append(c.free, f.Data)
	}
	clear(frames)
	c.spare = frames[:0]
}

// Closed returns whether the server closed the connection, and why.
func (c *MemConn) Closed() (bool, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed, c.reason
}
