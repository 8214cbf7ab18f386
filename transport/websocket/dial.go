package websocket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/fiveonit/engine/transport/loss"
)

// ClientConn is a client's side of the WebSocket, for the Go client and the
// bots.
type ClientConn struct {
	ws *websocket.Conn

	sim *loss.Sim // the simulated loss (DialOptions.Loss)

	// LostIn and LostOut count the binary frames the simulated loss
	// dropped (DialOptions.Loss): received and not handed to Read, and
	// handed to Send and never sent.
	LostIn, LostOut atomic.Uint64
}

// DialOptions are a client's settings for DialWith.
type DialOptions struct {
	// Loss drops that fraction (0..1) of the binary frames each way,
	// before they are sent and as they arrive: a lossy network over the
	// ordered transport, for tests and the bots (a client that asks for
	// the acked snapshots with acked=1 tests them this way). Text frames
	// are never dropped: the server's reliable frames stay reliable.
	Loss float64
	// Seed seeds the loss, so that a run can be repeated.
	Seed uint64
}

// MaxRedirects bounds the HTTP redirects a dial follows: a fleet's
// process answers a join for a room another process holds with a 307 to
// it (rooms.Manager.Elsewhere), one hop.
const MaxRedirects = 3

// dialClient follows a join's redirects, at most MaxRedirects, to
// ws, wss, http or https URLs alone.
var dialClient = &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("more than %d redirects", MaxRedirects)
	}
	switch req.URL.Scheme {
	case "ws", "wss", "http", "https":
		return nil
	}
	return fmt.Errorf("redirect to %q: not a ws, wss, http or https URL", req.URL.Redacted())
}}

// Dial connects to a room's URL (ws://host/rooms/NAME?...). A join sent
// to another server (an HTTP 307: the room lives on another process of
// the fleet) is followed there, the same query kept.
func Dial(ctx context.Context, url string) (*ClientConn, error) {
	return DialWith(ctx, url, DialOptions{})
}

// DialWith connects to a room's URL (ws://host/rooms/NAME?...) with o's
// simulated loss, following a redirect as Dial does.
func DialWith(ctx context.Context, url string, o DialOptions) (*ClientConn, error) {
	sim, err := loss.New(o.Loss, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("websocket: %w", err)
	}
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: dialClient})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("websocket: dial %s: %s: %w", url, resp.Status, err)
		}
		return nil, fmt.Errorf("websocket: dial %s: %w", url, err)
	}
	ws.SetReadLimit(1 << 20)
	return &ClientConn{ws: ws, sim: sim}, nil
}

// Send writes one frame. A binary frame the simulated loss drops is not
// written, and Send reports no error, as a lossy network would.
func (c *ClientConn) Send(ctx context.Context, frame []byte, text bool) error {
	typ := websocket.MessageBinary
	if text {
		typ = websocket.MessageText
	} else if c.sim.Drop() {
		c.LostOut.Add(1)
		return nil
	}
	return c.ws.Write(ctx, typ, frame)
}

// Read returns the next frame that the simulated loss keeps. When the
// server closed the connection the error is a *CloseError with its reason.
func (c *ClientConn) Read(ctx context.Context) (frame []byte, text bool, err error) {
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return nil, false, &CloseError{Code: int(ce.Code), Reason: ce.Reason}
			}
			return nil, false, err
		}
		if typ == websocket.MessageBinary && c.sim.Drop() {
			c.LostIn.Add(1)
			continue
		}
		return data, typ == websocket.MessageText, nil
	}
}

// ReadInto is Read into buf's room: the frame is buf grown as needed, to
// be used before the next call, so that a client that reads hundreds of
// frames a second (a thin bot) allocates nothing for them. A ctx with no
// Done channel (context.Background) sets no timer either; the read then
// ends when the connection does (Close, Drop, the server's close).
func (c *ClientConn) ReadInto(ctx context.Context, buf []byte) (frame []byte, text bool, err error) {
	for {
		typ, r, err := c.ws.Reader(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return buf[:0], false, &CloseError{Code: int(ce.Code), Reason: ce.Reason}
			}
			return buf[:0], false, err
		}
		buf = buf[:0]
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)] // room to read into
			}
			n, rerr := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				return buf[:0], false, rerr
			}
		}
		if typ == websocket.MessageBinary && c.sim.Drop() {
			c.LostIn.Add(1)
			continue
		}
		return buf, typ == websocket.MessageText, nil
	}
}

// Close closes the connection normally: the client means to go, and the
// room holds no place for it.
func (c *ClientConn) Close() error { return c.ws.Close(websocket.StatusNormalClosure, "bye") }

// Drop ends the connection at once, with no close frame, as a network
// that fails does: a room with a rejoin window holds the player's place.
func (c *ClientConn) Drop() error { return c.ws.CloseNow() }

// CloseError is the server's close of the connection: its code and reason.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	return fmt.Sprintf("closed by the server (%d): %s", e.Code, e.Reason)
}

// CloseReason returns the server's reason: a client that reconnects by
// itself (package bot) does not come back after a close that gives one.
func (e *CloseError) CloseReason() string { return e.Reason }

// Lossy reports whether the connection simulates loss (DialOptions.Loss
// above 0): a WebSocket itself loses nothing, but a client whose frames may
// be dropped sends several inputs a frame, as over a lossy transport.
func (c *ClientConn) Lossy() bool { return c.sim.P() > 0 }
