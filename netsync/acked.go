package netsync

import (
	"unsafe"

	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// AckedEncoder writes one client's acked snapshots (wire.FrameAcked) for a
// transport that loses, duplicates and reorders frames. It computes what an
// ordered client would hold after each frame N, S(N), exactly as the
// ordered Encoder does, and keeps the bytes of each frame's ordered delta,
// S(N-1) to S(N): a link. Frame N goes onto the newest frame B the client
// acknowledged (Ack) as a chain (wire.HeaderChain): the links of frames B+1
// to N, oldest first, which the client applies in turn onto S(B). With no
// acknowledged base among its last wire.SentRing frames, the frame is a
// keyframe: every entity of S(N) whole, its base tick 0. So is a chain that
// would take more than twice the bytes of a keyframe and more than
// wire.ReliableAbove: past twice, a keyframe saves more than it costs, the
// next frames going onto it before its acknowledgement comes.
//
// So a frame costs the ordered encode and a copy of the links since the
// base. A merged delta, S(B) to S(N), would take fewer bytes when the base
// lags, but its encode, which kept S(B) and compared it with S(N), cost 3.5
// times the ordered one on the peer trace.
//
// Events get a serial per client and go in every frame until a frame that
// held them is acknowledged, for wire.EventTTL frames at most.
//
// It writes into its own buffer: the frame Encode returns is valid until the
// next call, and a steady state allocates nothing. It is not safe for
// concurrent use; encoders of different clients may run concurrently between
// the arena's End and its next Begin.
type AckedEncoder struct {
	arena    *Arena
	interest Interest
	state    clientState
	delta    frameDelta
	sent     [wire.SentRing]sentFrame
	buf      []byte
	// work is where advance writes a frame's changes, made its link. log
	// keeps the links of the last SentRing frames, one after the other,
	// round to its start when they reach its end; head is where the next
	// goes. One buffer for all: each frame's own would grow, each at its
	// own new high, for thousands of frames.
	work, log []byte
	head      int

	frame    uint32 // frames written: the number of the next
	phase    uint32 // SetCheckPhase
	hasAck   bool
	ackFrame uint32 // the newest frame acknowledged that may be a base
	minBase  uint32 // no frame before it is a base (a keyframe was asked for)
	needKey  bool
	// The last keyframe written, and how many frames its acknowledgement
	// is waited for (SetKeyframeWait): until then the frames apply onto
	// it unacknowledged.
	hasKey   bool
	keyFrame uint32
	keyWait  uint32
	forSize  bool // the last frame is a keyframe for its size (KeyframeForSize)

	// whole is the bytes per entity of the last keyframe: a keyframe now
	// would take about whole bytes per entity held.
	whole int

	serial  uint32 // the last serial given to an event
	evAcked uint32 // every event up to this serial was in a frame acknowledged
	pending []pendingEvent
	evTick  uint32 // events up to this tick were taken from the arena
	started bool

	stats AckedStats
}

// sentFrame is one of the last SentRing frames: its number and tick, the
// newest event serial it carried, and its link.
type sentFrame struct {
	frame, tick uint32
	lastSerial  uint32
	// The frame's ordered delta as a chain carries it, its link, is
	// log[at:at+size]: u32 tick, u16 removed, u16 changed, the removed
	// ids, the changes.
	at, size int
}

// linkHead is the bytes of a link before its removed ids: its tick and
// its two counts.
const linkHead = 8

// wholeBytes is what an entity sent whole takes in a keyframe until one
// is written: its id and mask, a position, a rotation and a few bytes of
// state.
const wholeBytes = 32

type pendingEvent struct {
	serial, frame uint32 // its serial, and one more than the first frame it went in (0: none yet)
	ev            wire.Event
}

// AckedStats counts what an AckedEncoder wrote.
type AckedStats struct {
	Frames    uint64 // frames written
	Keyframes uint64 // of them, keyframes
	// Smaller counts the keyframes written with a base to go onto: the
	// links since the base took more bytes than a keyframe.
	Smaller uint64
	// BaseLag sums, over the chains, the frames between each and its base
	// (1 when the base is the frame before): over Frames-Keyframes, the mean.
	BaseLag uint64
	// EventsExpired counts events that went EventTTL frames with no frame
	// that held them acknowledged (the client may still have shown them),
	// and those dropped past MaxPendingEvents.
	EventsExpired uint64
}

// NewAckedEncoder returns an acked encoder for one client reading a, with the
// game's interest, InterestFor(wire.AOIRadius). Its first frame is a
// keyframe.
func NewAckedEncoder(a *Arena) *AckedEncoder {
	e := &AckedEncoder{arena: a, interest: InterestFor(wire.AOIRadius), needKey: true, keyWait: DefaultKeyframeWait, whole: wholeBytes,
		pending: make([]pendingEvent, 0, wire.MaxEvents)} // a frame's worth of events: a busy tick allocates nothing
	return e
}

// DefaultKeyframeWait is how many frames an acked encoder waits for the
// acknowledgement of a keyframe before it sends another, until told the
// client's round trip (SetKeyframeWait): 10 frames, half a second.
const DefaultKeyframeWait = 10

// SetKeyframeWait sets how many frames the encoder waits for the
// acknowledgement of a keyframe (at least 1, at most wire.SentRing - 1).
// Until it comes, the frames after the keyframe apply onto it: a client
// that got it applies them, one that did not drops them, and only then,
// the wait over, does another keyframe go. A server sets it from the
// client's round trip and a margin: a join then costs one keyframe, not
// one a frame until the first acknowledgement comes back.
func (e *AckedEncoder) SetKeyframeWait(frames uint32) {
	e.keyWait = min(max(frames, 1), wire.SentRing-1)
}

// SetInterest changes the client's interest from the next frame on.
func (e *AckedEncoder) SetInterest(in Interest) { e.interest = in }

// SetCheckPhase sets which frames carry the check: besides every keyframe,
// those whose number plus phase is a multiple of wire.CheckEvery (see
// Encoder.SetCheckPhase).
func (e *AckedEncoder) SetCheckPhase(phase uint32) { e.phase = phase }

// RequestKeyframe makes the next frame a keyframe, and no frame before it a
// base: the client asked for a resync (its states are not to be trusted).
func (e *AckedEncoder) RequestKeyframe() {
	e.needKey = true
	e.hasAck, e.hasKey = false, false
	e.minBase = e.frame
}

// Ack takes the client's acknowledgement: tick is the newest snapshot tick
// it applied (the input frame's ack). The frame of that tick, when it is one
// of the last SentRing written, becomes the base of the next frames if it is
// newer than the base so far, and the events it carried are acknowledged.
// Any other tick (0, older, unknown: late, reordered or hostile input frames)
// changes nothing.
func (e *AckedEncoder) Ack(tick uint32) {
	if tick == 0 {
		return
	}
	for k := uint32(1); k <= wire.SentRing && k <= e.frame; k++ {
		no := e.frame - k
		sf := &e.sent[no%wire.SentRing]
		if sf.tick < tick {
			return // older frames have older ticks
		}
		if sf.tick != tick {
			continue
		}
		if int32(sf.lastSerial-e.evAcked) > 0 {
			e.evAcked = sf.lastSerial
		}
		if no >= e.minBase && (!e.hasAck || no > e.ackFrame) {
			e.hasAck, e.ackFrame = true, no
		}
		return
	}
}

// AckedBase returns the tick of the acknowledged frame the next frame would
// go onto, and false when there is none: a keyframe is asked for, or none
// was acknowledged since the last keyframe, or the newest acknowledged is
// no base any more. A frame may go onto it until its tick is
// wire.MaxPoseAge ticks old. A server that holds a client's frames back,
// to keep it to its budget, sends one before then: the keyframe that would
// follow costs more than the frame it saves.
func (e *AckedEncoder) AckedBase() (uint32, bool) {
	b, acked, ok := e.onto(e.frame)
	if !ok || !acked {
		return 0, false
	}
	return e.sent[b%wire.SentRing].tick, true
}

// State returns S(N): what an ordered client would hold after the last frame
// (and what the client holds once it applied it).
func (e *AckedEncoder) State() *wire.Store { return e.state.flushed() }

// Held returns how many entities the client holds after the last frame:
// State().Len(), without bringing the records up to date (State writes
// into them the poses sent since, which costs a look at every entity held).
func (e *AckedEncoder) Held() int { return e.state.store.Len() }

// Last returns the last frame written (valid until the next Encode).
func (e *AckedEncoder) Last() []byte { return e.buf }

// Stats returns the encoder's counters.
func (e *AckedEncoder) Stats() AckedStats { return e.stats }

// KeyframeForSize reports whether the last frame is a keyframe written
// with a base to go onto: the links since the base took more bytes.
func (e *AckedEncoder) KeyframeForSize() bool { return e.forSize }

// Encode writes the client's frame of the arena's tick, as seen from v.
func (e *AckedEncoder) Encode(v *View) []byte {
	a := e.arena
	n, tick := e.frame, a.tick
	sf := &e.sent[n%wire.SentRing]
	// advance writes the frame's changes into work after room for the
	// link's head, as the ordered encoder writes a frame's after room for
	// its header; link puts the ids and the head before them.
	e.state.out, e.state.head = e.work, linkHead
	e.state.advance(a, &e.interest, v, n, &e.delta)
	e.work = e.link(tick)
	sf.frame, sf.tick = n, tick
	e.keep(sf, n)

	base, key := e.pickBase(n, tick)
	size, forSize := 0, false
	if !key {
		for f := base + 1; f != n+1; f++ {
			size += e.sent[f%wire.SentRing].size
		}
		if size > max(2*e.whole*e.state.store.Len(), wire.ReliableAbove) { // a keyframe costs less
			key, forSize = true, true
			e.stats.Smaller++
		}
	}
	e.forSize = forSize
	h := wire.Header{Kind: wire.FrameAcked, Tick: tick, LastSeq: v.LastSeq, InputBuffer: v.InputBuffer}
	if !key {
		h.BaseTick = e.sent[base%wire.SentRing].tick
		h.Flags |= wire.HeaderChain
		h.Changed = uint16(n - base)
	}
	if key || (n+e.phase)%wire.CheckEvery == 0 {
		h.Flags |= wire.HeaderCheck
		h.Check = e.state.check()
	}
	b := wire.AppendHeader(e.buf[:0], &h)
	if key {
		at := len(b)
		var changed int
		b, changed = e.appendKeyframe(b, tick)
		le.PutUint16(b[17:], uint16(changed))
		if changed > 0 {
			e.whole = (len(b) - at + changed - 1) / changed
		}
	} else {
		b = headroom.Ahead(b, size)
		for f := base + 1; f != n+1; f++ {
			s := &e.sent[f%wire.SentRing]
			b = append(b, e.log[s.at:s.at+s.size]...)
		}
	}
	b = e.appendEvents(b, v, n, sf)
	e.buf = b
	e.frame++
	e.needKey = false
	e.stats.Frames++
	if key {
		e.stats.Keyframes++
		e.hasKey, e.keyFrame = true, n
	} else {
		e.stats.BaseLag += uint64(n - base)
	}
	return b
}

// link turns what advance wrote, the frame's changes after linkHead bytes
// of room, into the frame's link: the removed ids go before the changes,
// the head before them.
func (e *AckedEncoder) link(tick uint32) []byte {
	b := e.state.out
	removed := e.delta.removed
	r, n := 2*len(removed), len(b)
	b = headroom.Ahead(b, r)[:n+r]
	if r > 0 {
		copy(b[linkHead+r:], b[linkHead:n])
		for i, wid := range removed {
			le.PutUint16(b[linkHead+2*i:], wid)
		}
	}
	le.PutUint32(b, tick)
	le.PutUint16(b[4:], uint16(len(removed)))
	le.PutUint16(b[6:], uint16(e.state.outN))
	return b
}

// keep copies the link of frame n, in work, into the log, past the last
// one, or at the start when it does not fit before the end. The links of
// the SentRing-1 frames before n stay: where the link would cover one, or
// does not fit at all, the log grows to twice what they and it take, and
// they move to its start, oldest first.
func (e *AckedEncoder) keep(sf *sentFrame, n uint32) {
	size := len(e.work)
	at := e.head
	if at+size > len(e.log) {
		at = 0
	}
	live := 0
	for k := uint32(1); k < wire.SentRing && k <= n; k++ {
		s := &e.sent[(n-k)%wire.SentRing]
		live += s.size
		if s.at < at+size && at < s.at+s.size {
			at = -1 // it would cover a link still kept
		}
	}
	if at < 0 || at+size > len(e.log) {
		old := e.log
		e.log = make([]byte, max(2*(live+size), 4096))
		at = 0
		for k := min(n, wire.SentRing-1); k >= 1; k-- {
			s := &e.sent[(n-k)%wire.SentRing]
			copy(e.log[at:], old[s.at:s.at+s.size])
			s.at = at
			at += s.size
		}
	}
	copy(e.log[at:], e.work)
	sf.at, sf.size = at, size
	e.head = at + size
}

// pickBase returns the base of frame n: the newest frame acknowledged, if it
// is one of the last SentRing, no keyframe was asked for since, and its poses
// are within an age byte of tick; with none acknowledged since the last
// keyframe, that keyframe while its acknowledgement is waited for
// (SetKeyframeWait). key says there is none.
func (e *AckedEncoder) pickBase(n, tick uint32) (base uint32, key bool) {
	b, _, ok := e.onto(n)
	if !ok || tick-e.sent[b%wire.SentRing].tick > wire.MaxPoseAge {
		return 0, true
	}
	return b, false
}

// onto returns the frame that frame n would go onto whatever its tick, and
// whether the client acknowledged it; ok is false when there is none.
func (e *AckedEncoder) onto(n uint32) (b uint32, acked, ok bool) {
	if e.needKey {
		return 0, false, false
	}
	b = e.ackFrame
	acked = e.hasAck && (!e.hasKey || e.keyFrame <= b)
	if !acked {
		// Nothing acknowledged since the last keyframe: onto it, unacknowledged.
		if !e.hasKey || e.keyFrame < e.minBase || n-e.keyFrame > e.keyWait || e.sent[e.keyFrame%wire.SentRing].tick == 0 {
			return 0, false, false // tick 0 is never a base: the client acks it for none
		}
		b = e.keyFrame
	}
	return b, acked, n-b < wire.SentRing && b >= e.minBase
}

// appendKeyframe appends every entity of S(N) whole.
func (e *AckedEncoder) appendKeyframe(b []byte, tick uint32) ([]byte, int) {
	cur := e.state.flushed()
	changed := 0
	for i := 0; i < cur.Slots(); i++ {
		if eid := cur.Owner(i); eid != 0 {
			b = appendWhole(b, eid, cur.At(i), tick)
			changed++
		}
	}
	return b, changed
}

// appendWhole appends eid as new: every group of its record that is not
// zeros (whatever its pose mode: the record is what the ordered client
// holds, a group of the other mode included).
func appendWhole(b []byte, eid uint16, now *wire.Held, tick uint32) []byte {
	groups := wire.NonZeroGroups(&now.Rec)
	if groups&wire.MaskPose == 0 && now.PoseTick != 0 {
		groups |= 1 << wire.GroupRotation // a pose of zeros, measured
	}
	var zero [3]int32
	return appendHeld(b, eid, groups, now, tick, &zero)
}

// appendHeld appends a change of eid carrying groups of now, with its tier,
// its pose mode and, when a pose group goes and was measured before tick,
// its age; the position as small steps from from when they fit.
func appendHeld(b []byte, eid, groups uint16, now *wire.Held, tick uint32, from *[3]int32) []byte {
	mask := groups | wire.MaskTierOf(now.Tier)
	if now.PoseFull {
		mask |= wire.PoseFull
	}
	var age uint8
	if groups&wire.MaskPose != 0 && now.PoseTick != tick {
		mask |= wire.PoseAge
		age = uint8(min(tick-now.PoseTick, wire.MaxPoseAge))
	}
	return appendChangeAged(b, eid, mask, age, &now.Rec, from)
}

// appendEvents gives the events since the last frame that the client should
// see their serials, drops the acknowledged and the expired, and appends the
// count, the first serial (when any) and every event still pending.
func (e *AckedEncoder) appendEvents(b []byte, v *View, n uint32, sf *sentFrame) []byte {
	a := e.arena
	if !e.started {
		e.evTick = a.tick - 1
		e.started = true
	}
	r := max(e.interest.Leave, e.interest.Enter)
	for i := range a.events {
		se := &a.events[i]
		if int32(se.tick-e.evTick) <= 0 {
			continue
		}
		if ev := &se.ev; eventFor(ev, v, r) {
			e.serial++
			e.pending = append(headroom.Ahead(e.pending, 1), pendingEvent{serial: e.serial, ev: *ev})
		}
	}
	e.evTick = a.tick
	// The acknowledged are a prefix (serials grow), the expired too (their
	// first frames grow, and those never sent come after every one sent):
	// drop both.
	k := 0
	for ; k < len(e.pending); k++ {
		p := &e.pending[k]
		if int32(p.serial-e.evAcked) <= 0 {
			continue
		}
		if p.frame != 0 && n+1-p.frame >= wire.EventTTL {
			e.stats.EventsExpired++
			continue
		}
		break
	}
	if over := len(e.pending) - k - MaxPendingEvents; over > 0 {
		e.stats.EventsExpired += uint64(over)
		k += over
	}
	if k > 0 {
		e.pending = e.pending[:copy(e.pending, e.pending[k:])]
	}
	count := min(len(e.pending), wire.MaxEvents)
	b = append(b, byte(count))
	sf.lastSerial = e.evAcked
	if count == 0 {
		return b
	}
	b = le.AppendUint32(b, e.pending[0].serial)
	for i := 0; i < count; i++ {
		p := &e.pending[i]
		if p.frame == 0 {
			p.frame = n + 1
		}
		b = wire.AppendEvent(headroom.Ahead(b, wire.EventBytes(p.ev.Kind)), &p.ev)
	}
	sf.lastSerial = e.pending[count-1].serial
	return b
}

// MemBytes returns the bytes the encoder holds for its client (the capacity
// of its slices): S(N), the links of the last SentRing frames, the scratch
// and the buffer.
func (e *AckedEncoder) MemBytes() int {
	n := e.state.memBytes() + cap(e.buf) + cap(e.pending)*int(unsafe.Sizeof(pendingEvent{})) + e.delta.memBytes()
	return n + cap(e.work) + cap(e.log)
}

// MemBytes returns the bytes the ordered encoder holds for its client, as
// AckedEncoder.MemBytes counts them.
func (e *Encoder) MemBytes() int {
	return e.state.memBytes() + cap(e.buf) + e.delta.memBytes()
}

func (s *clientState) memBytes() int {
	return s.store.MemBytes() + cap(s.picks)*int(unsafe.Sizeof(entPick{})) + cap(s.walks)*int(unsafe.Sizeof(entWalk{})) +
		cap(s.has)*8 + cap(s.kinds) + cap(s.cands)*4 + cap(s.order)*4 + cap(s.prio) + cap(s.keys)*2 + cap(s.owned)*4 + cap(s.out) + cap(s.spans)*4 +
		cap(s.watch)*int(unsafe.Sizeof(watchEnt{}))
}

func (d *frameDelta) memBytes() int {
	return cap(d.removed) * 2
}
