package websocket

import (
	"context"
	"errors"
	"fmt"

	"github.com/coder/websocket"
)

// ClientConn is a client's side of the WebSocket, for the Go client and the
// bots.
type ClientConn struct {
	ws *websocket.Conn
}

// Dial connects to a room's URL (ws://host/rooms/NAME?...).
func Dial(ctx context.Context, url string) (*ClientConn, error) {
	ws, resp, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("websocket: dial %s: %s: %w", url, resp.Status, err)
		}
		return nil, fmt.Errorf("websocket: dial %s: %w", url, err)
	}
	ws.SetReadLimit(1 << 20)
	return &ClientConn{ws: ws}, nil
}

// Send writes one frame.
func (c *ClientConn) Send(ctx context.Context, frame []byte, text bool) error {
	typ := websocket.MessageBinary
	if text {
		typ = websocket.MessageText
	}
	return c.ws.Write(ctx, typ, frame)
}

// Read returns the next frame. When the server closed the connection the
// error is a *CloseError with its reason.
func (c *ClientConn) Read(ctx context.Context) (frame []byte, text bool, err error) {
	typ, data, err := c.ws.Read(ctx)
	if err != nil {
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return nil, false, &CloseError{Code: int(ce.Code), Reason: ce.Reason}
		}
		return nil, false, err
	}
	return data, typ == websocket.MessageText, nil
}

// Close closes the connection normally.
func (c *ClientConn) Close() error { return c.ws.Close(websocket.StatusNormalClosure, "bye") }

// CloseError is the server's close of the connection: its code and reason.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	return fmt.Sprintf("closed by the server (%d): %s", e.Code, e.Reason)
}

// Lossy reports false: a WebSocket loses nothing.
func (c *ClientConn) Lossy() bool { return false }
