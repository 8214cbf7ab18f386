package bot

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// A bot whose connection drops comes back to its place (Options.Redial):
// the room holds a dropped player's character and car for a while, and a
// join that presents the welcome's reconnect token takes them back. A bot
// that ends its run says so (the leave command, a normal close): the room
// then holds nothing for it.

// Dropper is a Conn that can end as a failing network ends it, with no
// close frame (transport/websocket's ClientConn.Drop): the room holds the
// player's place. A bot drops the connections it gives up on this way
// (a Conn that is no Dropper is closed), and Options.DropAt drops its
// connection on purpose.
type Dropper interface {
	Drop() error
}

// ErrDropped is the loss of a connection the bot dropped on purpose
// (Options.DropAt).
var ErrDropped = errors.New("bot: connection dropped on purpose")

// errNoWelcome is a new connection that brought no welcome in WelcomeWait.
var errNoWelcome = errors.New("bot: no welcome on the new connection")

// WelcomeWait is how long a new connection may take to bring its welcome
// before the bot gives it up and tries again.
const WelcomeWait = 10 * time.Second

// ServerClosed returns the reason of err when it is the server's close of
// the connection (a transport's error with a CloseReason method, as
// transport/websocket's and transport/webrtc's CloseError): a refusal, a
// kick, a room gone. A bot does not come back after one.
func ServerClosed(err error) (reason string, ok bool) {
	var ce interface{ CloseReason() string }
	if errors.As(err, &ce) {
		return ce.CloseReason(), true
	}
	return "", false
}

// RejoinURL returns a room's join URL with the reconnect token in its
// query (rejoin=TOKEN), the rest of the query kept: an account's join token
// (token=) must come again with it.
func RejoinURL(join, token string) (string, error) {
	u, err := url.Parse(join)
	if err != nil {
		return "", fmt.Errorf("bot: join URL %q: %w", join, err)
	}
	q := u.Query()
	q.Set("rejoin", token)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
