package netsync

import (
	"unsafe"

	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// AckedEncoder writes one client's acked delta snapshots (wire.FrameAcked)
// for a transport that loses, duplicates and reorders frames. It computes
// what an ordered client would hold after each frame N, S(N), exactly as
// the ordered Encoder does. It writes frame N against the newest frame B
// the client acknowledged (Ack): the entities gone since B, those whose
// life changed removed and whole again, the groups that differ between
// S(B) and S(N), a position as small steps from S(B)'s, and every pose
// with its mode (PoseFull) and, when it was measured before N, its age
// (PoseAge). With no acknowledged base among its last wire.SentRing
// frames, the frame is a keyframe onto nothing, its base tick 0.
//
// It keeps S(B) for its last SentRing frames without copying the state.
// Per frame it keeps what undoes the frame (wire.Undo): the bytes the
// frame changed, read from a copy of S(N-1) it keeps. It finds S(B) of the
// entities touched since B by undoing the frames after B from S(N).
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
	prev     wire.Store // S(N-1), then S(N): what each frame changed is read from it
	sent     [wire.SentRing]sentFrame
	buf      []byte

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

	serial  uint32 // the last serial given to an event
	evAcked uint32 // every event up to this serial was in a frame acknowledged
	pending []pendingEvent
	evTick  uint32 // events up to this tick were taken from the arena
	started bool

	// A frame's scratch, cleared after each use. base holds S(B) of each
	// entity touched since the base. mark holds, by wire id, its place in
	// base plus one: 0 when not touched, and markRemoved, while record
	// runs, for an entity the frame removed. It takes two bytes per id:
	// the encoders of every client read theirs at random places.
	base []baseEnt
	mark []uint16

	// undoMost is the room each undo is given when it is reused: a quarter
	// more than the largest undo yet. An undo grows at once to what the
	// others needed, rather than each of the SentRing doubling its way
	// there: a steady tick allocates nothing sooner.
	undoMost int

	stats AckedStats
}

// sentFrame is one of the last SentRing frames: its number and tick, the
// newest event serial it carried, and what undoes it.
type sentFrame struct {
	frame, tick uint32
	lastSerial  uint32
	undo        wire.Undo // turns S(frame) back into S(frame-1)
}

type pendingEvent struct {
	serial, frame uint32 // its serial, and one more than the first frame it went in (0: none yet)
	ev            wire.Event
}

// baseEnt is an entity touched since the base: what S(B) held of it, and
// whether its life changed since.
type baseEnt struct {
	held    wire.Held
	eid     uint16
	groups  uint16 // the groups the frames after the base changed: all that may differ
	present bool   // S(B) holds it
	broke   bool   // a frame after the base removed it, or it was new
}

// AckedStats counts what an AckedEncoder wrote.
type AckedStats struct {
	Frames    uint64 // frames written
	Keyframes uint64 // of them, keyframes
	// BaseLag sums, over the deltas, the frames between each and its base
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
	return &AckedEncoder{arena: a, interest: InterestFor(wire.AOIRadius), needKey: true, keyWait: DefaultKeyframeWait,
		pending: make([]pendingEvent, 0, wire.MaxEvents)} // a frame's worth of events: a busy tick allocates nothing
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

// Encode writes the client's frame of the arena's tick, as seen from v.
func (e *AckedEncoder) Encode(v *View) []byte {
	a := e.arena
	n, tick := e.frame, a.tick
	if len(e.mark) < len(a.recs) {
		e.mark = append(e.mark, make([]uint16, len(a.recs)-len(e.mark))...)
	}
	e.state.advance(a, &e.interest, v, n, &e.delta)
	sf := &e.sent[n%wire.SentRing]
	sf.frame, sf.tick = n, tick
	e.record(&sf.undo)

	base, key := e.pickBase(n, tick)
	h := wire.Header{Kind: wire.FrameAcked, Tick: tick, LastSeq: v.LastSeq, InputBuffer: v.InputBuffer}
	if !key {
		h.BaseTick = e.sent[base%wire.SentRing].tick
	}
	if key || (n+e.phase)%wire.CheckEvery == 0 {
		h.Flags |= wire.HeaderCheck
		h.Check = e.state.check()
	}
	b := wire.AppendHeader(e.buf[:0], &h)
	var removed, changed int
	if key {
		b, changed = e.appendKeyframe(b, tick)
	} else {
		b, removed, changed = e.appendDelta(b, base, n, tick)
	}
	le.PutUint16(b[15:], uint16(removed))
	le.PutUint16(b[17:], uint16(changed))
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

// pickBase returns the base of frame n: the newest frame acknowledged, if it
// is one of the last SentRing, no keyframe was asked for since, and its poses
// are within an age byte of tick; with none acknowledged since the last
// keyframe, that keyframe while its acknowledgement is waited for
// (SetKeyframeWait). key says there is none.
func (e *AckedEncoder) pickBase(n, tick uint32) (base uint32, key bool) {
	if e.needKey {
		return 0, true
	}
	b := e.ackFrame
	if !e.hasAck || e.hasKey && e.keyFrame > b {
		// Nothing acknowledged since the last keyframe: onto it, unacknowledged.
		if !e.hasKey || e.keyFrame < e.minBase || n-e.keyFrame > e.keyWait || e.sent[e.keyFrame%wire.SentRing].tick == 0 {
			return 0, true // tick 0 is never a base: the client acks it for none
		}
		b = e.keyFrame
	}
	if n-b >= wire.SentRing || b < e.minBase || tick-e.sent[b%wire.SentRing].tick > wire.MaxPoseAge {
		return 0, true
	}
	return b, false
}

// markRemoved marks an id the frame removed, while record runs.
const markRemoved = 0xFFFF

// record writes into u what undoes the frame advance just computed, turning
// S(N) back into S(N-1). It reads S(N-1) from prev, and brings prev to
// S(N). Only the entities of the frame's delta are touched.
func (e *AckedEncoder) record(u *wire.Undo) {
	u.Reset()
	if u.Cap() < e.undoMost {
		u.Grow(e.undoMost)
	}
	cur := &e.state.store
	for _, eid := range e.delta.removed {
		e.mark[eid] = markRemoved
		before := e.prev.Get(eid)
		if after := cur.Get(eid); after != nil { // a new life in the same frame
			u.Add(eid, before, wire.DiffGroups(&before.Rec, &after.Rec), true)
			*before = *after
			continue
		}
		u.Add(eid, before, wire.NonZeroGroups(&before.Rec), true)
		e.prev.Remove(eid)
	}
	for i := range e.delta.changes {
		c := &e.delta.changes[i]
		if c.isNew && len(e.delta.removed) > 0 && e.mark[c.eid] == markRemoved {
			continue // the new life of one removed above
		}
		after := cur.Get(c.eid)
		before := e.prev.Get(c.eid)
		if before == nil {
			u.AddAbsent(c.eid)
			*e.prev.At(e.prev.Add(c.eid)) = *after
			continue
		}
		u.Add(c.eid, before, c.mask&wire.MaskGroups, false)
		*before = *after
	}
	for _, eid := range e.delta.removed {
		e.mark[eid] = 0
	}
	e.undoMost = max(e.undoMost, u.Len()+u.Len()/4)
}

// appendKeyframe appends every entity of S(N) whole.
func (e *AckedEncoder) appendKeyframe(b []byte, tick uint32) ([]byte, int) {
	cur := &e.state.store
	changed := 0
	for i := 0; i < cur.Slots(); i++ {
		if eid := cur.Owner(i); eid != 0 {
			b = appendWhole(b, eid, cur.At(i), tick)
			changed++
		}
	}
	return b, changed
}

// appendDelta appends what turns S(base) into S(n): it undoes the frames
// after base from S(n), for the entities they touched only, into e.base, and
// compares.
func (e *AckedEncoder) appendDelta(b []byte, base, n, tick uint32) ([]byte, int, int) {
	cur := &e.state.store
	e.base = e.base[:0]
	for f := n; f != base; f-- {
		u := &e.sent[f%wire.SentRing].undo
		for ent, off, ok := u.Next(0); ok; ent, off, ok = u.Next(off) {
			m := &e.mark[ent.EID]
			if *m == 0 {
				if h := cur.Get(ent.EID); h != nil {
					e.base = append(e.base, baseEnt{held: *h, eid: ent.EID, present: true})
				} else {
					e.base = append(e.base, baseEnt{eid: ent.EID})
				}
				*m = uint16(len(e.base))
			}
			be := &e.base[*m-1]
			be.broke = be.broke || ent.Break
			be.groups |= ent.Groups
			ent.RestoreHeld(&be.held, &be.present)
		}
	}
	removed := 0
	for i := range e.base {
		be := &e.base[i]
		e.mark[be.eid] = 0
		if be.present && (be.broke || cur.Get(be.eid) == nil) {
			b = le16(b, be.eid)
			removed++
		}
	}
	changed := 0
	for i := range e.base {
		be := &e.base[i]
		eid := be.eid
		now := cur.Get(eid)
		if now == nil {
			continue
		}
		old := &be.held
		if !be.present || be.broke {
			b = appendWhole(b, eid, now, tick)
			changed++
			continue
		}
		groups := wire.DiffGroupsIn(&old.Rec, &now.Rec, be.groups)
		if groups == 0 && old.Tier == now.Tier && old.PoseFull == now.PoseFull && old.PoseTick == now.PoseTick {
			continue
		}
		if now.PoseTick != old.PoseTick && groups&wire.MaskPose == 0 {
			// The pose was measured again with the same bytes: a group of
			// it goes (the smallest), so the client records the tick.
			groups |= 1 << wire.GroupRotation
		}
		from := old.Rec.Position()
		b = appendHeld(b, eid, groups, now, tick, &from)
		changed++
	}
	return b, removed, changed
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
	if groups&(1<<wire.GroupPosition) != 0 && wire.StepsFit(&now.Rec, from) {
		mask |= wire.SmallSteps
	}
	return wire.AppendChange(b, eid, mask, age, &now.Rec, from)
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
// of its slices): S(N), the copy of it, what undoes each of the last
// SentRing frames, the scratch and the buffer.
func (e *AckedEncoder) MemBytes() int {
	n := e.state.memBytes() + e.prev.MemBytes() + cap(e.base)*int(unsafe.Sizeof(baseEnt{})) + cap(e.buf) +
		cap(e.mark)*2 + cap(e.pending)*int(unsafe.Sizeof(pendingEvent{})) + e.delta.memBytes()
	for i := range e.sent {
		n += e.sent[i].undo.Cap()
	}
	return n
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
	return cap(d.removed)*2 + cap(d.changes)*int(unsafe.Sizeof(entChange{}))
}
