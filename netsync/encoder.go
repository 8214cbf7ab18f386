package netsync

import (
	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// Encoder writes one client's ordered delta snapshots (wire.FrameDelta) from
// the arena: each frame applies onto the one before it, which the ordered,
// reliable connection (a WebSocket) delivers. The first frame, and the first
// after RequestKeyframe, is a keyframe. Every wire.CheckEvery frames (and in
// every keyframe) the frame carries the check of what the client holds; which
// ones, SetCheckPhase.
//
// An Encoder writes into its own buffer: the frame Encode returns is valid
// until the next call, and a steady state allocates nothing. It is not safe
// for concurrent use; encoders of different clients may run concurrently
// between the arena's End and its next Begin.
type Encoder struct {
	arena    *Arena
	interest Interest
	state    clientState
	delta    frameDelta
	buf      []byte

	frame    uint32 // frames written
	sinceKey uint32 // frames since the last keyframe
	phase    uint32 // SetCheckPhase
	lastTick uint32 // tick of the last frame: the next one's base
	evTick   uint32 // events up to this tick were taken from the arena
	started  bool
	needKey  bool
	// pending are the events taken from the arena and not yet sent: the
	// last frame carried the first written of them (at most MaxEvents),
	// and the rest wait for the next.
	pending []wire.Event
	written int
	stats   EncoderStats
}

// MaxPendingEvents bounds the events an encoder keeps for its client's
// next frames: 2,048, more than a busy fight makes in the 5 s a client may
// leave its send queue full (server.SlowTicks) before it is cut off. Past
// it the oldest are dropped (EncoderStats.EventsDropped).
const MaxPendingEvents = 2048

// EncoderStats counts what an Encoder did with its client's events.
type EncoderStats struct {
	EventsDropped uint64 // events dropped past MaxPendingEvents
}

// Stats returns the encoder's counters.
func (e *Encoder) Stats() EncoderStats { return e.stats }

// Unsent says the last frame Encode wrote was not sent (the send queue was
// full): its events go in the next frame. The frame's state is another
// matter: the client will not have applied it, so the server asks for a
// keyframe too (RequestKeyframe).
func (e *Encoder) Unsent() { e.written = 0 }

// NewEncoder returns an encoder for one client reading a, with the game's
// interest, InterestFor(wire.AOIRadius).
func NewEncoder(a *Arena) *Encoder {
	// Room for a frame's worth of events made once: a busy tick's events
	// then allocate nothing.
	e := &Encoder{arena: a, interest: InterestFor(wire.AOIRadius), needKey: true, pending: make([]wire.Event, 0, wire.MaxEvents)}
	return e
}

// SetInterest changes the client's interest from the next frame on.
func (e *Encoder) SetInterest(in Interest) { e.interest = in }

// RequestKeyframe makes the next frame a keyframe: the client asked for a
// resync.
func (e *Encoder) RequestKeyframe() { e.needKey = true }

// SetCheckPhase sets which frames carry the check: besides every keyframe,
// those whose count since the keyframe plus phase is a multiple of
// wire.CheckEvery. The default phase, 0, checks the keyframe's count. A
// server gives each client its own phase, so that the clients of a room
// that joined together do not all hash what they hold in the same tick: on
// the peer trace a check costs about 10 µs per client, the work of some
// six frames. The client checks whichever frames carry it.
func (e *Encoder) SetCheckPhase(phase uint32) { e.phase = phase }

// State returns what the encoder believes the client holds after the last
// frame.
func (e *Encoder) State() *wire.Store { return e.state.flushed() }

// Held returns how many entities the client holds after the last frame:
// State().Len(), without bringing the records up to date (State writes
// into them the poses sent since, which costs a look at every entity held).
func (e *Encoder) Held() int { return e.state.store.Len() }

// Last returns the last frame written (valid until the next Encode).
func (e *Encoder) Last() []byte { return e.buf }

// Encode writes the client's frame of the arena's tick, as seen from v.
func (e *Encoder) Encode(v *View) []byte {
	a := e.arena
	key := e.needKey
	if key {
		e.state.reset()
		e.sinceKey = 0
	}
	check := key || (e.sinceKey+e.phase)%wire.CheckEvery == 0
	head := wire.HeaderBytes
	if check {
		head += wire.CheckBytes
	}
	// The changes go into the frame's buffer after room for the header:
	// the removals, found by the same walk, are put before them after.
	e.state.out, e.state.head = e.buf, head
	e.state.advance(a, &e.interest, v, e.frame, &e.delta)
	b := e.state.out

	h := wire.Header{
		Kind:        wire.FrameDelta,
		Tick:        a.tick,
		BaseTick:    e.lastTick,
		LastSeq:     v.LastSeq,
		InputBuffer: v.InputBuffer,
		Removed:     uint16(len(e.delta.removed)),
		Changed:     uint16(e.state.outN),
	}
	if key {
		h.Kind, h.BaseTick = wire.FrameKeyframe, 0
	}
	if check {
		h.Flags |= wire.HeaderCheck
		h.Check = e.state.check()
	}
	// Room for the removals and the events' count: a frame as large as
	// any before allocates nothing (headroom.Ahead).
	r, n := 2*len(e.delta.removed), len(b)
	b = headroom.Ahead(b, r+1)[:n+r]
	if r > 0 {
		copy(b[head+r:], b[head:n])
		for i, wid := range e.delta.removed {
			le.PutUint16(b[head+2*i:], wid)
		}
	}
	wire.AppendHeader(b[:0], &h) // into the room left for it
	b = e.appendEvents(b, v)
	e.buf = b
	e.lastTick = a.tick
	e.frame++
	e.sinceKey++
	e.needKey = false
	return b
}

func le16(b []byte, v uint16) []byte { return append(b, byte(v), byte(v>>8)) }

// appendEvents appends the count and the events the client should see
// (within its leave radius, or done by or to one of its own entities)
// that it has not been sent: those of the ticks since the last frame, and
// those of a frame that was not sent (Unsent) or did not hold them all
// (more than MaxEvents).
func (e *Encoder) appendEvents(b []byte, v *View) []byte {
	a := e.arena
	if !e.started {
		e.evTick = a.tick - 1
		e.started = true
	}
	if e.written > 0 { // the last frame was sent with them
		e.pending = e.pending[:copy(e.pending, e.pending[e.written:])]
		e.written = 0
	}
	e.pending = takeEvents(a, v, e.interest, e.evTick, e.pending)
	e.evTick = a.tick
	if over := len(e.pending) - MaxPendingEvents; over > 0 {
		e.stats.EventsDropped += uint64(over)
		e.pending = e.pending[:copy(e.pending, e.pending[over:])]
	}
	n := min(len(e.pending), wire.MaxEvents)
	b = append(b, byte(n))
	for i := range n {
		ev := &e.pending[i]
		b = wire.AppendEvent(headroom.Ahead(b, wire.EventBytes(ev.Kind)), ev)
	}
	e.written = n
	return b
}

// takeEvents appends to pending the events of the arena's ticks after
// since that the client of v gets.
func takeEvents(a *Arena, v *View, in Interest, since uint32, pending []wire.Event) []wire.Event {
	r := max(in.Leave, in.Enter)
	for i := range a.events {
		se := &a.events[i]
		if int32(se.tick-since) <= 0 {
			continue
		}
		if ev := &se.ev; eventFor(ev, v, r) {
			pending = append(headroom.Ahead(pending, 1), *ev)
		}
	}
	return pending
}

// eventFor reports whether the client of v gets ev: an event of a kind the
// wire carries, within r of its centre, or done by or to one of its own
// entities. The ordered and the acked encoders choose alike.
func eventFor(ev *wire.Event, v *View, r float32) bool {
	if wire.EventBytes(ev.Kind) == 0 {
		return false
	}
	dx, dy := ev.Pos.X-v.Center.X, ev.Pos.Y-v.Center.Y
	return dx*dx+dy*dy <= r*r || v.owns(ev.Source) || v.owns(ev.Target) || v.owns(ev.Other)
}
