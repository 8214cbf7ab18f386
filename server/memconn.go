package server

import "sync"

// MemConn is an in-memory Conn: what the server sends waits in a bounded
// queue until the test (or an in-process client) takes it with Recv. It is
// safe for concurrent use.
type MemConn struct {
	lossy bool
	limit int

	mu     sync.Mutex
	frames []MemFrame
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

// Lossy implements Conn.
func (c *MemConn) Lossy() bool { return c.lossy }

// Send implements Conn.
func (c *MemConn) Send(frame []byte, text, reliable bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.limit > 0 && len(c.frames) >= c.limit {
		return ErrSendFull
	}
	c.frames = append(c.frames, MemFrame{append([]byte(nil), frame...), text, reliable})
	return nil
}

// Close implements Conn.
func (c *MemConn) Close(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed, c.reason = true, reason
	}
}

// Recv takes every frame waiting.
func (c *MemConn) Recv() []MemFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.frames
	c.frames = nil
	return f
}

// Closed returns whether the server closed the connection, and why.
func (c *MemConn) Closed() (bool, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed, c.reason
}
