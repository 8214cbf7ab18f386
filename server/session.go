package server

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/fiveonit/engine/store"
)

// Limits on what a client may send. A client over any of them is
// disconnected with the reason; the room goes on.
const (
	// MaxBinaryFrame is the largest binary frame a client may send: an
	// input frame with wire.MaxInputsPerFrame inputs and their views.
	MaxBinaryFrame = wire.InputHeaderBytes + wire.MaxInputsPerFrame*wire.InputViewBytes
	// MaxTextFrame is the largest text frame (a JSON command): 4 KiB.
	MaxTextFrame = 4096
	// FramesPerSecond and FrameBurst bound the frames a client sends: a
	// bucket of FrameBurst refilled by FramesPerSecond a second of room
	// ticks. A client sends one input frame a tick (60 a second, a little
	// more while it catches up) and a few commands; the burst (5 s of
	// input) rides out a room that stalls and then drains late.
	FramesPerSecond = 150
	FrameBurst      = 300
	// MaxInbox bounds the frames waiting for the room (10 s of input):
	// only a room stalled that long reaches it.
	MaxInbox = 600
	// TextBurst and TextPerSecond bound the text frames (commands): a
	// bucket of 20 refilled at 10 a second.
	TextBurst     = 20
	TextPerSecond = 10
)

// Errors a session is closed with (the reason the client is shown).
var (
	ErrTooBig         = errors.New("frame too big")
	ErrFlood          = errors.New("flooding: too many frames")
	ErrTooSlow        = errors.New("too slow: the client did not keep up with its snapshots")
	ErrRoomFull       = errors.New("room full")
	ErrMalformedFrame = errors.New("malformed frame")
)

// Who is a joining client: who its join token says it is, and what it asked
// for.
type Who struct {
	Account string
	Name    string
	// Party is the join token's party key: the players with the same key
	// play in one party, numbered in the room (1..N) as they come in. ""
	// is none.
	Party string
	// Addr is the address the client joined from (its connection's): a
	// player without an account who is voted out is refused by it.
	Addr string
	// Debug honours the client's debug commands (a join token that
	// carries debug).
	Debug bool
	// Acked asks for the acked snapshots (ACKED_REQUEST) even over an
	// ordered transport.
	Acked bool
	// Spectate joins without a character: the client watches the area
	// of interest of player Watch (its number in the room; 0: the first
	// player there is, or the level's centre while there is none).
	Spectate bool
	Watch    uint16
	// Keep is the account's claim in the account store (rooms makes it
	// before the join): its character comes in with what the account
	// kept, and its changes are posted back. nil: nothing is kept (an
	// anonymous player, a spectator, or a server without a store).
	Keep *store.Held
	// Rejoin is the reconnect token of the place the client takes back
	// (the welcome's rejoin of the session it had): its character, car
	// and state, held since its connection dropped. "" joins anew, but
	// for an account whose place the room holds: that place is taken
	// back.
	Rejoin string
}

// KeyframeReason says why a client was sent a keyframe.
type KeyframeReason uint8

// The reasons for a keyframe.
const (
	KeyframeFirst    KeyframeReason = iota // the first frame of a session
	KeyframeResync                         // the client refused a frame (a check, a base)
	KeyframeSendFull                       // a frame was dropped: the send queue was full
	KeyframeNoBase                         // acked: no acknowledged frame within SentRing
	KeyframeSwitch                         // the client switched between ordered and acked
	KeyframeSmaller                        // acked: the links since the base took over twice its bytes
	KeyframeReasons                        // how many reasons; not a reason
)

var keyframeReasons = [KeyframeReasons]string{"first", "resync", "send-full", "no-base", "switch", "smaller"}

// String returns the reason's name, as the metrics label it.
func (r KeyframeReason) String() string {
	if r < KeyframeReasons {
		return keyframeReasons[r]
	}
	return "unknown"
}

// SessionStats counts a session's traffic.
type SessionStats struct {
	FramesIn, BytesIn   uint64
	FramesOut, BytesOut uint64
	Keyframes           uint64 // keyframes sent
	Resyncs             uint64 // refusals the client reported (each honoured once with a keyframe)
	SendFull            uint64 // frames dropped: the send queue was full
	BadInputs           uint64 // input frames refused
}

type inFrame struct {
	data []byte
	text bool
}

// Session is one connected client. Receive and Leave may be called from
// any goroutine (the transport's); everything else belongs to the room's.
// It holds what the core keeps of a client; each feature keeps its own
// state of the session beside it (feature.go).
type Session struct {
	id   uint32
	conn Conn
	who  Who

	mu       sync.Mutex
	inbox    []inFrame
	spare    []inFrame // the last drained inbox, reused
	bufs     [][]byte  // frame buffers given back by the room, reused by Receive
	bucket   float32   // frames the client may still send now
	bad      error     // set by Receive: close the session with this
	leaving  bool
	quitting bool // set by Quit

	// Room goroutine only.
	slot      int // its index in the features' perSession lists
	player    uint16
	joined    bool
	char, car ecs.Entity
	charWire  uint16
	debug     bool
	acked     bool
	queue     InputQueue
	lastSeq   uint32
	presses   uint64               // one-shot presses run, a button of a tick one
	ack       uint32               // newest snapshot tick the client acknowledged
	snap      *netsync.Snapshotter // its snapshots, ordered or acked
	slowSince uint64               // tick the send queue was first found full, 0 none
	tokens    float32
	stats     SessionStats
	closed    bool
	input     wire.InputFrame
	view      netsync.View   // the last frame's view: kept here so it does not escape per frame
	frame     []byte         // the frame encoded this tick (the snapshotter's own buffer)
	keyWanted bool           // a keyframe is asked for and not sent yet
	keyWhy    KeyframeReason // why the next keyframe was asked for
	keySent   uint64         // the server tick the last keyframe went out, 0 none
	keyTick   uint32         // its frame tick: the client has applied it once its ack reaches it
	rtt       roundTrip      // its round trip, as the server measures it (rtt.go)
	credit    int            // the bytes it may still be sent (budget.go)

	// Places held through a drop (rejoin.go).
	token     string      // its reconnect token (the welcome's rejoin); "" when the room holds no places
	prevToken string      // the token of the place it took back, good until its first input frame
	detached  bool        // its connection dropped: its place is held until heldUntil
	away      atomic.Bool // detached, for Join's goroutine
	heldUntil uint64      // the tick its held place goes
	quit      bool        // the client said it leaves (the "leave" command): no place is held
	resumeOf  *Session    // for a join that takes a held place back: that place's session
	// hold makes its input steer nothing this tick, whatever the client
	// sends: the car braked where it stands (a run not live, a player out
	// of the run). A feature sets it before the step.
	hold bool
	// out is set once its body left the world for good while it stays
	// (a player a run took out): it watches who.Watch, as a spectator.
	out bool
}

// ID returns the session's number in its room (Player.Session).
func (s *Session) ID() uint32 { return s.id }

// Who returns who the session is.
func (s *Session) Who() Who { return s.who }

// Receive hands the session a frame the client sent (text: a JSON command;
// binary: an input frame). It copies data. It returns an error, and marks
// the session to be closed at the next tick, for a frame over the limits.
func (s *Session) Receive(data []byte, text bool) error {
	limit := MaxBinaryFrame
	if text {
		limit = MaxTextFrame
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bad != nil || s.leaving {
		return s.bad
	}
	switch {
	case len(data) > limit:
		s.bad = fmt.Errorf("%w: %d bytes, at most %d", ErrTooBig, len(data), limit)
	case s.bucket < 1:
		s.bad = fmt.Errorf("%w: more than %d a second", ErrFlood, FramesPerSecond)
	case len(s.inbox) >= MaxInbox:
		s.bad = fmt.Errorf("%w: %d frames waiting", ErrFlood, MaxInbox)
	}
	if s.bad != nil {
		return s.bad
	}
	var buf []byte
	if n := len(s.bufs); n > 0 {
		buf, s.bufs = s.bufs[n-1][:0], s.bufs[:n-1]
	}
	s.bucket--
	s.inbox = append(s.inbox, inFrame{append(buf, data...), text})
	return nil
}

// recycle gives the buffers of frames the room has handled back to
// Receive, so that a steady stream of input frames allocates nothing.
func (s *Session) recycle(frames []inFrame) {
	s.mu.Lock()
	for _, f := range frames {
		if len(s.bufs) < MaxInbox {
			s.bufs = append(s.bufs, f.data)
		}
	}
	s.mu.Unlock()
}

// Leave tells the server the client has gone (its connection closed). The
// room removes its character at the next tick.
func (s *Session) Leave() {
	s.mu.Lock()
	s.leaving = true
	s.mu.Unlock()
}

// Quit tells the server the client means to go (a WebSocket closed
// normally): when its connection ends, the room holds no place for it
// (the leave command does the same). Safe from any goroutine.
func (s *Session) Quit() {
	s.mu.Lock()
	s.quitting = true
	s.mu.Unlock()
}

// take swaps the inbox out for the room goroutine.
func (s *Session) take() (frames []inFrame, bad error, leaving bool) {
	s.mu.Lock()
	s.bucket = min(s.bucket+float32(FramesPerSecond)/ecs.TickRate, FrameBurst)
	frames, s.inbox = s.inbox, s.spare[:0]
	bad, leaving = s.bad, s.leaving
	s.quit = s.quit || s.quitting
	s.mu.Unlock()
	s.spare = frames
	return frames, bad, leaving
}

// Stats returns the session's counters. Room goroutine only.
func (s *Session) Stats() SessionStats { return s.stats }

// Snapshotter returns the session's snapshots (nil until it has joined):
// the last frame encoded for the client (Last), what the client holds once
// it has applied it (State: for the acked snapshots, S(N), the ordered state
// of that tick) and the acked encoder's counters. It is for tests and tools
// that compare what a client shows with what the server sent it: read it
// from the room goroutine after a tick (rooms.Config.Observe), never change
// it. It costs nothing unless called.
func (s *Session) Snapshotter() *netsync.Snapshotter { return s.snap }
