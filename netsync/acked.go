package netsync

import (
	"slices"
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
// It keeps S(B) of the base B of the last delta (a second store), and per
// frame what redoes it: the entities it touched, in order, and the bytes of
// the groups it changed, as they were after it. A newer base B' is reached
// by redoing the frames after B up to B', once each: at a steady
// acknowledgement one frame per frame, however many frames the base lags.
// A frame goes through the entities touched since its base only, each
// compared between the second store and S(N).
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
	// base is S(baseFrame): the base of the last delta, or the last
	// keyframe. The bases of the frames after a keyframe never go back
	// (pickBase), so it only moves forward, redoing frames.
	base      baseStore
	baseFrame uint32
	buf       []byte

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

	// A frame's scratch, cleared after each use: since lists each entity
	// touched since the base.
	since []sinceEnt
	// ids holds, by wire id, where the base store holds it and its place
	// in since. The two share an entry, so the frame that lists an entity
	// finds its base at no cost: the encoders of every client read theirs
	// at random places, each read a wait on memory.
	ids []idEnt

	// touchBuf and redoBuf back the SentRing frames' touched and redo
	// lists, touchStride and redoStride entries per frame. record bounds
	// a frame's lists before it writes them; past a stride, both grow to
	// twice what the frame needs, the frames held copied over: one
	// allocation per doubling for all the ring, not one per frame each
	// time the largest delta creeps up (0.14 allocations per tick at 512
	// players).
	touchBuf                []touch
	redoBuf                 []byte
	touchStride, redoStride int

	stats AckedStats
}

// sentFrame is one of the last SentRing frames: its number and tick, the
// newest event serial it carried, and what redoes it: turns S(frame-1)
// into S(frame).
type sentFrame struct {
	frame, tick uint32
	lastSerial  uint32
	touched     []touch // the entities the frame touched, in the order record met them
	redo        []byte  // the bytes after the frame of the groups each changed, in that order
}

// touch is an entity a frame touched: the groups it changed, whether its
// life changed, and what it was after the frame but its record.
type touch struct {
	eid      uint16
	groups   uint16 // the groups the frame changed; for a whole one, its record goes whole
	flags    uint8  // touchBreak, touchHeld, touchFull
	tier     uint8
	poseTick uint32
	// slot is its slot in the client state's store after the frame, when
	// held. It holds it there until a later frame removes it.
	slot int32
}

// The flags of a touch.
const (
	// touchBreak: the frame removed the entity, or it came new: its life
	// before (or none) is not its life after. Its record goes whole.
	touchBreak uint8 = 1 << iota
	touchHeld        // held after the frame
	touchFull        // its pose mode after is the full pose
	// touchPose: the frame changed only groups of its quantized pose, and
	// the redo holds the whole quantized pose after it (poseBytes).
	touchPose
)

// poseBytes are the bytes of a quantized pose in a redo: the four groups,
// as a record holds them from PositionAt.
const poseBytes = wire.QuantPoseBytes

type pendingEvent struct {
	serial, frame uint32 // its serial, and one more than the first frame it went in (0: none yet)
	ev            wire.Event
}

// idEnt is what an acked encoder keeps per wire id.
type idEnt struct {
	base uint16 // its slot in the base store plus one, 0 when not held there
	// mark is its place in since plus one: 0 when not touched, and
	// markRemoved, while record runs, for an entity the frame removed.
	mark uint16
}

// baseStore is S(B): a Held per slot, found by id through the encoder's
// ids, as wire.Store keeps them.
type baseStore struct {
	held  []wire.Held
	owner []uint16 // by slot: the wire id, 0 for a free slot
	free  []int32
}

// baseGet returns what the base store holds of eid, or nil.
func (e *AckedEncoder) baseGet(eid uint16) *wire.Held {
	if i := e.ids[eid].base; i != 0 {
		return &e.base.held[i-1]
	}
	return nil
}

// baseAdd makes eid held in the base store, its Held zeros.
func (e *AckedEncoder) baseAdd(eid uint16) *wire.Held {
	bs := &e.base
	var i int
	if k := len(bs.free); k > 0 {
		i = int(bs.free[k-1])
		bs.free = bs.free[:k-1]
		bs.held[i] = wire.Held{}
		bs.owner[i] = eid
	} else {
		i = len(bs.held)
		bs.held = append(headroom.Ahead(bs.held, 1), wire.Held{})
		bs.owner = append(headroom.Ahead(bs.owner, 1), eid)
		if cap(bs.free) < cap(bs.held) {
			bs.free = slices.Grow(bs.free, cap(bs.held)-len(bs.free)) // every slot may be freed
		}
	}
	e.ids[eid].base = uint16(i + 1)
	return &bs.held[i]
}

// baseRemove forgets eid in the base store.
func (e *AckedEncoder) baseRemove(eid uint16) {
	id := &e.ids[eid]
	if id.base == 0 {
		return
	}
	i := int(id.base - 1)
	id.base = 0
	e.base.owner[i] = 0
	e.base.free = append(e.base.free, int32(i))
}

// sinceEnt is an entity touched since the base, and whether its life
// changed since.
type sinceEnt struct {
	eid    uint16
	groups uint16 // the groups the frames after the base changed: all that may differ
	broke  bool   // a frame after the base removed it, or it was new
	// slot is its slot in S(N), -1 when not held; was its slot in the
	// base store, -1 when S(B) does not hold it.
	slot, was int32
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
	if len(e.ids) < len(a.recs) {
		e.ids = append(e.ids, make([]idEnt, len(a.recs)-len(e.ids))...)
	}
	e.state.advance(a, &e.interest, v, n, &e.delta)
	sf := &e.sent[n%wire.SentRing]
	sf.frame, sf.tick = n, tick
	e.record(sf, int(n%wire.SentRing))

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
		e.keepBase(n)
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
	if n-b >= wire.SentRing || b < e.minBase || b < e.baseFrame || tick-e.sent[b%wire.SentRing].tick > wire.MaxPoseAge {
		return 0, true // b < baseFrame never comes: the bases after a keyframe only move forward
	}
	return b, false
}

// markRemoved marks an id the frame removed, while record runs.
const markRemoved = 0xFFFF

// record writes into sf what redoes the frame advance just computed,
// turning S(N-1) into S(N): each entity of the frame's delta, in order, and
// the bytes after the frame of the groups it changed, or of its whole
// record when its life changed.
func (e *AckedEncoder) record(sf *sentFrame, at int) {
	cur := &e.state.store
	d := &e.delta
	touches, bytes := e.reserve(d)
	touched := e.touchBuf[at*e.touchStride : at*e.touchStride : (at+1)*e.touchStride]
	if touches > e.touchStride {
		touched = make([]touch, 0, touches)
	}
	redo := e.redoBuf[at*e.redoStride : at*e.redoStride : (at+1)*e.redoStride]
	if bytes > e.redoStride {
		redo = make([]byte, 0, bytes)
	}
	for _, eid := range d.removed {
		e.ids[eid].mark = markRemoved
		if slot := cur.SlotOf(eid); slot >= 0 { // a new life in the same frame
			after := cur.At(slot)
			touched = addTouch(touched, eid, 0, touchBreak|touchHeld, slot, after)
			redo = append(redo, after.Rec[:]...)
			continue
		}
		touched = append(touched, touch{eid: eid, flags: touchBreak, slot: -1})
	}
	for i := range d.changes {
		c := &d.changes[i]
		if c.isNew && len(d.removed) > 0 && e.ids[c.eid].mark == markRemoved {
			continue // the new life of one removed above
		}
		after := cur.At(int(c.slot))
		if c.isNew { // not held before: new
			touched = addTouch(touched, c.eid, 0, touchBreak|touchHeld, int(c.slot), after)
			redo = append(redo, after.Rec[:]...)
			continue
		}
		groups := c.mask & wire.MaskGroups
		if groups != 0 && groups&^wire.MaskQuantPose == 0 {
			// Most changes: the pose alone, read from the entWalk advance
			// just wrote, not from the store's record, which the
			// processor is still writing.
			w := &e.state.walks[c.slot]
			touched = append(touched, touch{})
			t := &touched[len(touched)-1]
			t.eid, t.groups, t.flags, t.tier, t.poseTick, t.slot = c.eid, groups, touchHeld|touchPose, w.tier, w.pose.tick, c.slot
			if w.flags&hfFull != 0 {
				t.flags |= touchFull
			}
			redo = appendPose(redo, &w.pose)
			continue
		}
		touched = addTouch(touched, c.eid, groups, touchHeld, int(c.slot), after)
		for m := groups; m != 0; m &= m - 1 {
			redo = append(redo, after.Rec.Group(lowBit(m))...)
		}
	}
	for _, eid := range d.removed {
		e.ids[eid].mark = 0
	}
	sf.touched, sf.redo = touched, redo
}

// poseRedoBytes are the bytes appendPose writes.
const poseRedoBytes = 8 + 8 + 8 + 4

// reserve makes the strides of touchBuf and redoBuf hold what record
// writes of the frame's delta d, its new entities left out: at most a
// touch per entity, and its whole record for a new life, its pose or the
// groups it changed otherwise. Past a stride, both buffers grow to twice
// the need and every frame's lists are copied into their places. It
// returns what the frame needs with its new entities: a frame of many
// (a keyframe's, a crowd's) gets lists of its own, so that the ring is
// not sized for it.
func (e *AckedEncoder) reserve(d *frameDelta) (touches, bytes int) {
	touches, bytes = len(d.removed)+len(d.changes), len(d.removed)*wire.RecordBytes
	news := 0
	for i := range d.changes {
		c := &d.changes[i]
		switch groups := c.mask & wire.MaskGroups; {
		case c.isNew:
			news++
		case groups != 0 && groups&^wire.MaskQuantPose == 0:
			bytes += poseRedoBytes
		default:
			for m := groups; m != 0; m &= m - 1 {
				bytes += wire.GroupBytes(lowBit(m))
			}
		}
	}
	if steady := touches - news; steady > e.touchStride {
		stride := max(2*steady, 64)
		buf := make([]touch, wire.SentRing*stride)
		for i := range e.sent {
			t := &e.sent[i].touched
			*t = append(buf[i*stride:i*stride:(i+1)*stride], *t...)
		}
		e.touchBuf, e.touchStride = buf, stride
	}
	if bytes > e.redoStride {
		stride := max(2*bytes, 1024)
		buf := make([]byte, wire.SentRing*stride)
		for i := range e.sent {
			r := &e.sent[i].redo
			*r = append(buf[i*stride:i*stride:(i+1)*stride], *r...)
		}
		e.redoBuf, e.redoStride = buf, stride
	}
	return touches, bytes + news*wire.RecordBytes
}

// appendPose appends the quantized pose p, as a record holds it.
func appendPose(b []byte, p *poseWords) []byte {
	b = le.AppendUint64(b, p.a)
	b = le.AppendUint64(b, p.b)
	b = le.AppendUint64(b, p.c)
	return le.AppendUint32(b, p.d)
}

// addTouch appends to ts the touch of eid, held after the frame as after,
// in slot. It writes the fields in place: a touch built whole and copied
// is written in parts and read back at once, which the processor cannot
// forward and waits on.
func addTouch(ts []touch, eid, groups uint16, flags uint8, slot int, after *wire.Held) []touch {
	ts = append(ts, touch{})
	t := &ts[len(ts)-1]
	if after.PoseFull {
		flags |= touchFull
	}
	t.eid, t.groups, t.flags, t.tier, t.poseTick, t.slot = eid, groups, flags, after.Tier, after.PoseTick, int32(slot)
	return ts
}

// keepBase makes S(n), the keyframe just written, the base store.
func (e *AckedEncoder) keepBase(n uint32) {
	cur := &e.state.store
	bs := &e.base
	for _, eid := range bs.owner {
		if eid != 0 {
			e.ids[eid].base = 0
		}
	}
	bs.held, bs.owner, bs.free = bs.held[:0], bs.owner[:0], bs.free[:0]
	for i := 0; i < cur.Slots(); i++ {
		if eid := cur.Owner(i); eid != 0 {
			*e.baseAdd(eid) = *cur.At(i)
		}
	}
	e.baseFrame = n
}

// redoTo brings the base store forward to S(b), redoing the frames after
// its frame up to b.
func (e *AckedEncoder) redoTo(b uint32) {
	for ; e.baseFrame != b; e.baseFrame++ {
		sf := &e.sent[(e.baseFrame+1)%wire.SentRing]
		redo := sf.redo
		for i := range sf.touched {
			t := &sf.touched[i]
			h := e.baseGet(t.eid)
			switch {
			case t.flags&touchHeld == 0:
				e.baseRemove(t.eid)
				continue
			case t.flags&touchBreak != 0:
				if h == nil {
					h = e.baseAdd(t.eid)
				}
				redo = redo[copy(h.Rec[:], redo):]
			case t.flags&touchPose != 0:
				// The groups the frame did not change are S(baseFrame)'s
				// already: the whole pose goes.
				redo = redo[copy(h.Rec[wire.PositionAt:wire.PositionAt+poseBytes], redo):]
			default:
				for m := t.groups; m != 0; m &= m - 1 {
					redo = redo[copy(h.Rec.Group(lowBit(m)), redo):]
				}
			}
			h.Tier, h.PoseFull, h.PoseTick = t.tier, t.flags&touchFull != 0, t.poseTick
		}
	}
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

// appendDelta appends what turns S(base) into S(n): it brings the base
// store to S(base), lists the entities the frames after base touched, and
// compares each between the base store and S(n).
func (e *AckedEncoder) appendDelta(b []byte, base, n, tick uint32) ([]byte, int, int) {
	e.redoTo(base)
	cur, old := &e.state.store, e.base.held
	since := e.since[:0]
	for f := n; f != base; f-- {
		touched := e.sent[f%wire.SentRing].touched
		for i := range touched {
			t := &touched[i]
			id := &e.ids[t.eid]
			m := &id.mark
			if *m == 0 {
				// The newest touch: where S(N) holds it, if it does.
				since = append(since, sinceEnt{})
				*m = uint16(len(since))
				// Its base slot as the frame found it: redoTo is done.
				since[*m-1].eid, since[*m-1].slot, since[*m-1].was = t.eid, t.slot, int32(id.base)-1
			}
			se := &since[*m-1]
			se.broke = se.broke || t.flags&touchBreak != 0
			se.groups |= t.groups
		}
	}
	e.since = since
	removed := 0
	for i := range since {
		se := &since[i]
		e.ids[se.eid].mark = 0
		if se.was >= 0 && (se.broke || se.slot < 0) {
			b = le16(b, se.eid)
			removed++
		}
	}
	changed := 0
	for i := range since {
		se := &since[i]
		eid := se.eid
		if se.slot < 0 {
			continue
		}
		now := cur.At(int(se.slot))
		if se.was < 0 || se.broke {
			b = appendWhole(b, eid, now, tick)
			changed++
			continue
		}
		was := &old[se.was]
		groups := diffGroups(&was.Rec, &now.Rec, se.groups)
		if groups == 0 && was.Tier == now.Tier && was.PoseFull == now.PoseFull && was.PoseTick == now.PoseTick {
			continue
		}
		if now.PoseTick != was.PoseTick && groups&wire.MaskPose == 0 {
			// The pose was measured again with the same bytes: a group of
			// it goes (the smallest), so the client records the tick.
			groups |= 1 << wire.GroupRotation
		}
		from := was.Rec.Position()
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
	return appendChangeAged(b, eid, mask, age, &now.Rec, from)
}

// diffGroups returns the groups of mask whose bytes differ between a and b,
// as wire.DiffGroupsIn does: the quantized pose's groups, most of what
// differs, with a word or two each.
func diffGroups(a, b *wire.Record, mask uint16) uint16 {
	const p, r, v, s = wire.PositionAt, wire.RotationAt, wire.VelocityAt, wire.SpinAt
	var m uint16
	if mask&(1<<wire.GroupPosition) != 0 && (le.Uint64(a[p:]) != le.Uint64(b[p:]) || le.Uint32(a[p+8:]) != le.Uint32(b[p+8:])) {
		m |= 1 << wire.GroupPosition
	}
	if mask&(1<<wire.GroupRotation) != 0 && le.Uint32(a[r:]) != le.Uint32(b[r:]) {
		m |= 1 << wire.GroupRotation
	}
	if mask&(1<<wire.GroupVelocity) != 0 && (le.Uint32(a[v:]) != le.Uint32(b[v:]) || le.Uint16(a[v+4:]) != le.Uint16(b[v+4:])) {
		m |= 1 << wire.GroupVelocity
	}
	if mask&(1<<wire.GroupSpin) != 0 && (le.Uint16(a[s:]) != le.Uint16(b[s:]) || le.Uint32(a[s+2:]) != le.Uint32(b[s+2:])) {
		m |= 1 << wire.GroupSpin
	}
	if rest := mask & wire.MaskGroups &^ wire.MaskQuantPose; rest != 0 {
		m |= wire.DiffGroupsIn(a, b, rest)
	}
	return m
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
// of its slices): S(N), S(B), what redoes each of the last SentRing frames,
// the scratch and the buffer.
func (e *AckedEncoder) MemBytes() int {
	bs := &e.base
	n := e.state.memBytes() + cap(bs.held)*int(unsafe.Sizeof(wire.Held{})) + cap(bs.owner)*2 + cap(bs.free)*4 +
		cap(e.since)*int(unsafe.Sizeof(sinceEnt{})) + cap(e.buf) +
		cap(e.ids)*int(unsafe.Sizeof(idEnt{})) + cap(e.pending)*int(unsafe.Sizeof(pendingEvent{})) + e.delta.memBytes()
	n += cap(e.touchBuf)*int(unsafe.Sizeof(touch{})) + cap(e.redoBuf)
	for i := range e.sent { // the lists of their own of frames of many new entities
		if t := cap(e.sent[i].touched); t > e.touchStride {
			n += t * int(unsafe.Sizeof(touch{}))
		}
		if r := cap(e.sent[i].redo); r > e.redoStride {
			n += r
		}
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
