package client

import "github.com/fiveonit/engine/netsync/wire"

// A room that holds a dropped player's place gives the place's reconnect
// token in the welcome (Rejoin). A client whose connection drops takes a
// new one with it: the caller dials again with rejoin=TOKEN in the join's
// query, calls Reconnect, and hands the client the new connection's frames
// as it did the old one's. The server treats the new connection as a new
// client of the same session: it sends a welcome (with a new token), a
// keyframe and every text frame anew, and runs the client's inputs from
// the first that comes. So the client starts its connection's state over,
// as on a first join, and keeps what is its player's rather than its
// connection's.

// Rejoin returns the reconnect token of the client's place, from the
// server's last welcome, and false when there is none: no welcome yet, or
// a room that holds no places. A join that presents it (rejoin=TOKEN)
// within the welcome's RejoinSeconds of a drop takes the place back. It is
// secret: whoever has it takes the place.
func (c *Client) Rejoin() (token string, ok bool) {
	return c.welcome.Rejoin, c.welcome.Rejoin != ""
}

// Reconnect readies the client for a new connection to its place, the old
// one gone. Call it before handing the client the new connection's first
// frame, and hand it none of the old connection's after.
//
// It starts the connection's state over: the decoders hold nothing (the
// next input frames acknowledge no snapshot), the ticks count from 1 again,
// the clock keeping, the prediction, the drawn error and the remote
// entities' tracks start anew, and a pending resync is forgotten (the
// server sends a keyframe anyway). Welcome reports false until the new
// welcome comes, and nothing is predicted until then; Rejoin still gives
// the old token, for another try if this one fails.
//
// It keeps what is the player's: Stats (the counters add up over the
// connections; JoinKeyframes counts each join's keyframes), the events not
// taken yet, the text frames last received (until the new ones replace
// them), the server's last inputs frame and the presses it ran, the level's
// geometry and OnText.
func (c *Client) Reconnect() {
	c.ord, c.ack = wire.NewDecoder(), wire.NewAckedDecoder()
	c.dec = c.ord
	c.joined = false
	c.seq, c.resumed, c.sent = 1, 1, 0
	clear(c.hist[:])
	// Tick 0 is before the connection's first: the presses made so far
	// (PressesUpTo(0), for an inputs frame that comes before any input).
	c.hist[0] = histEntry{presses: c.stats.Presses}
	clear(c.tails[:])
	c.resync, c.delta, c.applied, c.trigger = false, false, false, false
	c.pred = body{}
	c.near = c.near[:0]
	c.smooth.reset(0)
	c.remote.reset()
	c.rttSeq = 0
	c.pacer = pacer{buffer: c.target()}
}

// reset forgets every track and the render clock; the tables keep their
// room.
func (r *remotes) reset() {
	r.forget()
	r.latest, r.render, r.clock = 0, 0, false
}
