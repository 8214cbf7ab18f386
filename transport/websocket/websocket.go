// Package websocket is the ordered transport: a client's connection as a
// server.Conn over a WebSocket (github.com/coder/websocket), and the
// client's side for the Go client and the bots.
//
// The server's side never blocks the room: Send puts a copy of the frame in
// a bounded queue (SendQueue) that a writer goroutine drains; a full queue
// is server.ErrSendFull, and the game server then drops the frame and
// resyncs the client with a keyframe, cutting it off if it stays full
// (server.SlowTicks): a client that reads too slowly. A client that stops
// reading altogether is cut off at the latest by the write it stalls: the
// writer gives up after WriteTimeout and closes the connection (with no
// close frame: the client's socket is full), before SlowTicks can run out,
// since the queue fills only after that write has stalled.
package websocket

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/fiveonit/engine/server"
)

// SendQueue is the frames waiting for a slow client before frames are
// dropped: 64, three seconds of snapshots at 20 a second.
const SendQueue = 64

// WriteTimeout is the longest one frame's write may take before the
// connection is closed.
const WriteTimeout = 5 * time.Second

// ReadLimit is the largest message read from a client: the largest text
// frame the server takes (a larger one closes the connection).
const ReadLimit = server.MaxTextFrame

// Options are the server side's settings.
type Options struct {
	// OriginPatterns are the browser origins allowed besides the
	// server's own host (coder/websocket's patterns, e.g.
	// "localhost:5173"). Nil allows only the same origin.
	OriginPatterns []string
	// AnyOrigin allows every origin (development only).
	AnyOrigin bool
}

type outFrame struct {
	data []byte
	text bool
}

// Conn is the server's side of one client's WebSocket. It implements
// server.Conn.
type Conn struct {
	ws     *websocket.Conn
	q      chan outFrame
	free   chan []byte // buffers written, reused by Send: no allocation per frame
	done   chan struct{}
	ended  chan struct{} // closed when the writer has written its last frame
	once   sync.Once
	closed atomic.Bool
	reason string

	// Counters, for metrics.
	FramesOut, BytesOut, FramesIn, BytesIn atomic.Uint64
}

// Accept upgrades the request to a WebSocket and starts the writer. The
// caller then joins the room and calls Serve.
func Accept(w http.ResponseWriter, r *http.Request, o Options) (*Conn, error) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:     o.OriginPatterns,
		InsecureSkipVerify: o.AnyOrigin,
	})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(ReadLimit)
	c := &Conn{ws: ws, q: make(chan outFrame, SendQueue), free: make(chan []byte, SendQueue+1), done: make(chan struct{}), ended: make(chan struct{})}
	go c.writer()
	return c, nil
}

// Lossy implements server.Conn: a WebSocket loses nothing.
func (c *Conn) Lossy() bool { return false }

// Send implements server.Conn.
func (c *Conn) Send(frame []byte, text, reliable bool) error {
	if c.closed.Load() {
		return server.ErrClosed
	}
	var buf []byte
	select {
	case buf = <-c.free:
	default:
	}
	f := outFrame{append(buf[:0], frame...), text}
	select {
	case c.q <- f:
		return nil
	default:
		c.give(f.data)
		return server.ErrSendFull
	}
}

// give hands a buffer back for Send to reuse.
func (c *Conn) give(b []byte) {
	select {
	case c.free <- b:
	default:
	}
}

// Close implements server.Conn: the frames queued are written, then the
// close frame with reason.
func (c *Conn) Close(reason string) {
	c.once.Do(func() {
		c.reason = reason
		c.closed.Store(true)
		close(c.done)
	})
}

// Done is closed when Close has been called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Finished is closed when the connection is over: the frames queued and the
// close frame written (or the write failed). A server that drains waits for
// it, so that its clients get their close reason before the process ends.
func (c *Conn) Finished() <-chan struct{} { return c.ended }

func (c *Conn) writer() {
	defer close(c.ended)
	for {
		select {
		case f := <-c.q:
			if !c.write(f) {
				c.Close("write failed")
				c.ws.CloseNow()
				return
			}
		case <-c.done:
			if !c.drain() {
				c.ws.CloseNow()
				return
			}
			c.ws.Close(closeCode(c.reason), truncate(c.reason))
			return
		}
	}
}

// drain writes the frames still queued (the last snapshot, the reply that
// says why the client is closed), and reports whether every write worked.
func (c *Conn) drain() bool {
	for {
		select {
		case f := <-c.q:
			if !c.write(f) {
				return false
			}
		default:
			return true
		}
	}
}

func (c *Conn) write(f outFrame) bool {
	typ := websocket.MessageBinary
	if f.text {
		typ = websocket.MessageText
	}
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	err := c.ws.Write(ctx, typ, f.data)
	n := len(f.data)
	c.give(f.data)
	if err != nil {
		return false
	}
	c.FramesOut.Add(1)
	c.BytesOut.Add(uint64(n))
	return true
}

func closeCode(reason string) websocket.StatusCode {
	switch reason {
	case "left", "":
		return websocket.StatusNormalClosure
	case "server shutting down":
		return websocket.StatusGoingAway
	}
	return websocket.StatusPolicyViolation
}

// truncate keeps a close reason within the 123 bytes a close frame allows.
func truncate(s string) string {
	if len(s) > 123 {
		return s[:120] + "..."
	}
	return s
}

// Serve reads the client's frames into sess until the connection ends, then
// tells the session the client left. A frame the session refuses ends it.
//
// Once Close has been called, Serve hands the session nothing more but reads
// on until the writer has finished, for at most CloseGrace: coder/websocket
// ends the connection at once when a read's context ends, so cancelling the
// read at Close would lose the close frame and its reason (the client would
// see the connection drop), and the read takes the client's answer to the
// close frame.
func (c *Conn) Serve(ctx context.Context, sess *server.Session) {
	defer sess.Leave()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go c.endRead(ctx, cancel)
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) || ctx.Err() != nil {
				if ce.Code == websocket.StatusNormalClosure {
					sess.Quit() // a client that closes normally means to go
				}
				c.Close("left")
				return
			}
			c.Close("read failed")
			return
		}
		c.FramesIn.Add(1)
		c.BytesIn.Add(uint64(len(data)))
		if c.closed.Load() {
			continue // the server has let the client go: its frames count no more
		}
		if err := sess.Receive(data, typ == websocket.MessageText); err != nil {
			return // the session closes with the reason at its next tick
		}
	}
}

// CloseGrace is how long a closed connection stays open for its last
// frames and its close frame to be written and answered: a client that does
// not read has its connection ended then, rather than held for
// WriteTimeout (a server draining does not wait on it).
const CloseGrace = time.Second

// endRead cancels Serve's read (and so ends the connection) once the writer
// has finished after Close, or CloseGrace after Close, or when ctx ends.
func (c *Conn) endRead(ctx context.Context, cancel context.CancelFunc) {
	defer cancel()
	select {
	case <-c.done:
	case <-ctx.Done():
		return
	}
	t := time.NewTimer(CloseGrace)
	defer t.Stop()
	select {
	case <-c.ended: // the close frame is out, or a write failed
	case <-t.C:
	case <-ctx.Done():
	}
}

// Refuse upgrades the request and closes it at once with reason: a browser
// sees the reason, which an HTTP error status would hide from it.
func Refuse(w http.ResponseWriter, r *http.Request, o Options, reason string) {
	RefuseCode(w, r, o, int(websocket.StatusPolicyViolation), reason)
}

// RefuseCode is Refuse with the close code code (an application's: 4000
// to 4999).
func RefuseCode(w http.ResponseWriter, r *http.Request, o Options, code int, reason string) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:     o.OriginPatterns,
		InsecureSkipVerify: o.AnyOrigin,
	})
	if err != nil {
		return
	}
	ws.Close(websocket.StatusCode(code), truncate(reason))
}
