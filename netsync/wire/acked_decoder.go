package wire

import (
	"fmt"

	"github.com/fiveonit/engine/internal/headroom"
)

// AckedDecoder is the client's side of the acked snapshots (kind 6): it keeps
// the states of its last HeldRing frames applied, by tick, applies each frame
// onto the state of its base, and says what the frame changed against the
// last frame it showed. An AckedDecoder is not safe for concurrent use.
//
// It keeps the newest state whole (Store) and, per older frame held, what
// undoes the frame after it (an Undo). To apply a frame onto an older base,
// it undoes the frames after the base for the entities they touched, and
// applies the frame: its removals and changes or, for a chained frame, each
// link's in turn. It then compares the result with the last state shown,
// for those entities and the frame's own.
//
// Apply drops without a word (a nil frame and no error) a frame not newer
// than the last it applied, and one whose base it does not hold: the next
// frame, onto a newer acknowledgement, will come. It never panics and never
// reads out of range, whatever the bytes. A malformed frame is an error
// wrapping ErrMalformed and changes nothing. A frame that does not fit the
// state of its base, by a check that differs or a removal of an entity not
// held (by the base, or after the links before it), is an error wrapping
// ErrResync. It changes nothing shown, and makes the decoder forget every
// state it held: the decoder takes only a keyframe next, and the client asks
// for one (InputResync) while Synced is false.
type AckedDecoder struct {
	cur Store // the state of the last frame shown

	ring  [HeldRing]heldFrame // by position (first+i) % HeldRing, i < n: oldest first
	first int
	n     int

	shown   bool   // a frame was shown
	last    uint32 // tick of the last frame shown
	lastSeq uint32
	inBuf   int8
	serial  uint32 // the newest event serial shown

	// By wire id (grown to the highest id seen), valid when at[eid] ==
	// stamp: the ack* flags, the entity's index in u, and the number (from
	// 1) of the frame's last link that removed it and that changed it.
	at     []uint32
	flags  []uint8
	idx    []int32
	rmLink []uint8
	chLink []uint8
	stamp  uint32

	u         []uint16    // the entities the frame may change against the last shown
	saved     []savedHeld // by index in u: each as the last frame shown held it
	links     []link      // the frame's links, oldest first: one for a frame not chained
	removed   []uint16
	changes   []Change
	events    []Event
	unapplied []Event // Events' scratch
	frame     DecodedFrame
	snap      Snapshot
	stats     AckedStats
}

// heldFrame is a frame applied: its tick, and what turns its state back into
// the state of the frame held before it.
type heldFrame struct {
	tick uint32
	undo Undo
}

// link is one ordered delta of a frame: its tick, and the ends of its spans
// of removed and changes (each link's starts where the link before ends).
// A frame not chained is one link, of the frame's tick.
type link struct {
	tick             uint32
	removed, changed int
}

type savedHeld struct {
	held    Held
	present bool
}

// The per-frame flags of an entity.
const (
	ackInU     = 1 << iota // in u
	ackRemoved             // in the frame's removed list (any link's)
	ackBroke               // its life may have changed between the base and the last frame shown
	ackWhole               // the frame made it onto zeros: removed, not held by the base, or a keyframe
)

// AckedStats counts what an AckedDecoder did with the frames it was given.
type AckedStats struct {
	Applied   uint64 // frames applied and shown
	Keyframes uint64 // of them, keyframes
	Stale     uint64 // dropped: not newer than the last frame shown
	NoBase    uint64 // dropped: onto a base not held
	Failed    uint64 // malformed, or not fitting their base (ErrResync)
}

// NewAckedDecoder returns a decoder holding nothing, waiting for a keyframe.
func NewAckedDecoder() *AckedDecoder { return &AckedDecoder{frame: newDecodedFrame()} }

// Store returns the state of the last frame shown. It must not be changed.
func (d *AckedDecoder) Store() *Store { return &d.cur }

// Synced reports whether the decoder holds a state to apply deltas onto. When
// it is false (before the first keyframe, after ErrResync) the client asks
// for a keyframe.
func (d *AckedDecoder) Synced() bool { return d.n > 0 }

// Tick returns the tick of the newest frame applied, whose state the decoder
// holds: the input frame's ack. It is 0 when it holds none (no base: the
// server then sends keyframes).
func (d *AckedDecoder) Tick() uint32 {
	if d.n == 0 {
		return 0
	}
	return d.last
}

// Serial returns the serial of the newest event shown (0 for none).
func (d *AckedDecoder) Serial() uint32 { return d.serial }

// Stats returns the decoder's counters.
func (d *AckedDecoder) Stats() AckedStats { return d.stats }

// Held returns the ticks of the frames whose states the decoder holds, oldest
// first, appended to dst.
func (d *AckedDecoder) Held(dst []uint32) []uint32 {
	for i := 0; i < d.n; i++ {
		dst = append(dst, d.ring[(d.first+i)%HeldRing].tick)
	}
	return dst
}

// MemBytes returns the bytes the decoder holds: its state, the undo of its
// frames and its scratch.
func (d *AckedDecoder) MemBytes() int {
	n := d.cur.MemBytes() + cap(d.at)*4 + cap(d.flags) + cap(d.idx)*4 + cap(d.rmLink) + cap(d.chLink)
	for i := range d.ring {
		n += d.ring[i].undo.Cap()
	}
	return n + cap(d.u)*2 + cap(d.saved)*(RecordBytes+14) + cap(d.links)*24 + cap(d.removed)*2 + cap(d.changes)*32 + cap(d.events)*48
}

// forget drops every state held: only a keyframe applies next.
func (d *AckedDecoder) forget() { d.first, d.n = 0, 0 }

// find returns the position in the ring of the frame of tick, or -1.
func (d *AckedDecoder) find(tick uint32) int {
	for i := d.n - 1; i >= 0; i-- {
		p := (d.first + i) % HeldRing
		if t := d.ring[p].tick; t == tick {
			return i
		} else if t < tick {
			return -1
		}
	}
	return -1
}

// flag returns the flags of eid in this frame.
func (d *AckedDecoder) flag(eid uint16) *uint8 {
	if int(eid) >= len(d.at) {
		d.grow(eid)
	}
	if d.at[eid] != d.stamp {
		d.at[eid] = d.stamp
		d.flags[eid], d.rmLink[eid], d.chLink[eid] = 0, 0, 0
	}
	return &d.flags[eid]
}

// grow makes room in the arrays by wire id for eid: to the highest id seen
// (doubling), not to every id a frame could name.
func (d *AckedDecoder) grow(eid uint16) {
	n := min(max(int(eid)+1, 2*len(d.at), 256), 1<<16)
	d.at = append(d.at, make([]uint32, n-len(d.at))...)
	d.flags = append(d.flags, make([]uint8, n-len(d.flags))...)
	d.idx = append(d.idx, make([]int32, n-len(d.idx))...)
	d.rmLink = append(d.rmLink, make([]uint8, n-len(d.rmLink))...)
	d.chLink = append(d.chLink, make([]uint8, n-len(d.chLink))...)
}

// Apply applies one acked frame and returns what it told against the last
// frame shown. A nil frame with a nil error is a frame dropped (stale, or
// onto a base not held). The DecodedFrame is reused by the next call; its
// Kind is FrameAcked, and a keyframe has BaseTick 0.
func (d *AckedDecoder) Apply(b []byte) (*DecodedFrame, error) {
	h, off, err := parseHeader(b, true)
	if err != nil {
		d.stats.Failed++
		return nil, err
	}
	key := h.BaseTick == 0
	if d.shown && h.Tick <= d.last {
		d.stats.Stale++
		return nil, nil
	}
	base := -1
	if !key {
		if base = d.find(h.BaseTick); base < 0 {
			d.stats.NoBase++
			return nil, nil
		}
	}
	d.stamp++
	if d.stamp == 0 {
		clear(d.at)
		d.stamp = 1
	}
	first, err := d.parse(b, off, &h)
	if err != nil {
		d.stats.Failed++
		return nil, err
	}
	d.collect(key, base)
	d.revert(key, base)
	if err := d.applyFrame(&h); err != nil {
		d.rollback()
		d.forget()
		d.stats.Failed++
		return nil, err
	}
	if h.Flags&HeaderCheck != 0 {
		if got := d.cur.Check(); got != h.Check {
			d.rollback()
			d.forget()
			d.stats.Failed++
			return nil, fmt.Errorf("%w: check of tick %d is %#08x, the server's %#08x", ErrResync, h.Tick, got, h.Check)
		}
	}
	undo := d.push(h.Tick)
	fr := &d.frame
	*fr = DecodedFrame{
		Kind: FrameAcked, Tick: h.Tick, BaseTick: h.BaseTick, LastSeq: h.LastSeq, InputBuffer: h.InputBuffer,
		Checked:  h.Flags&HeaderCheck != 0,
		Changed:  headroom.Ahead(fr.Changed[:0], len(d.changes)),
		Measured: headroom.Ahead(fr.Measured[:0], len(d.changes)),
		Removed:  fr.Removed[:0], Events: fr.Events[:0],
	}
	d.report(undo, h.Tick, key)
	for i := range d.events {
		if s := first + uint32(i); int32(s-d.serial) > 0 {
			fr.Events = append(fr.Events, d.events[i])
			d.serial = s
		}
	}
	d.shown, d.last, d.lastSeq, d.inBuf = true, h.Tick, h.LastSeq, h.InputBuffer
	d.stats.Applied++
	if key {
		d.stats.Keyframes++
	}
	return fr, nil
}

// parse reads and checks the whole frame after its header, changing nothing
// held: the removals and the changes (each link's, in a chained frame), the
// events and their first serial.
func (d *AckedDecoder) parse(b []byte, off int, h *Header) (first uint32, err error) {
	d.links = d.links[:0]
	d.removed = d.removed[:0]
	d.changes = d.changes[:0]
	d.events = d.events[:0]
	if h.Flags&HeaderChain == 0 {
		if off, err = d.parseLink(b, off, h.Tick, int(h.Removed), int(h.Changed)); err != nil {
			return 0, err
		}
	} else {
		prev := h.BaseTick
		for i := 0; i < int(h.Changed); i++ {
			tick, removed, changed, err := linkHead(b[off:], h, i, prev)
			if err != nil {
				return 0, err
			}
			if off, err = d.parseLink(b, off+linkHeadBytes, tick, removed, changed); err != nil {
				return 0, err
			}
			prev = tick
		}
	}
	if len(b)-off < 1 {
		return 0, malformed("no event count")
	}
	nev := int(b[off])
	off++
	if nev > 0 {
		if len(b)-off < SerialBytes {
			return 0, malformed("no first serial")
		}
		first = le.Uint32(b[off:])
		off += SerialBytes
	}
	for i := 0; i < nev; i++ {
		ev, n, err := ParseEvent(b[off:])
		if err != nil {
			return 0, err
		}
		off += n
		d.events = append(d.events, ev)
	}
	if off != len(b) {
		return 0, malformed("%d bytes after the events", len(b)-off)
	}
	return first, nil
}

// parseLink reads from off one link of tick, an ordered delta of removed
// ids and changed changes, and returns the offset after it. Within a link,
// an id is removed once and changed once at most; across links it may come
// again.
func (d *AckedDecoder) parseLink(b []byte, off int, tick uint32, removed, changed int) (int, error) {
	no := uint8(len(d.links) + 1) // at most SentRing
	for i := 0; i < removed; i++ {
		if len(b)-off < 2 {
			return 0, malformed("removed list cut short")
		}
		eid := le.Uint16(b[off:])
		off += 2
		if eid == 0 {
			return 0, malformed("removal of entity 0")
		}
		fl := d.flag(eid)
		if d.rmLink[eid] == no {
			return 0, malformed("entity %d removed twice", eid)
		}
		d.rmLink[eid] = no
		*fl |= ackRemoved
		d.removed = append(d.removed, eid)
	}
	for i := 0; i < changed; i++ {
		c, n, err := ParseChange(b[off:])
		if err != nil {
			return 0, err
		}
		off += n
		d.flag(c.EID) // the id's link numbers, from this frame's stamp
		if d.chLink[c.EID] == no {
			return 0, malformed("entity %d changed twice", c.EID)
		}
		d.chLink[c.EID] = no
		d.changes = append(d.changes, c)
	}
	d.links = append(d.links, link{tick: tick, removed: len(d.removed), changed: len(d.changes)})
	return off, nil
}

// touch adds eid to the entities the frame may change, saving it as the last
// frame shown holds it.
func (d *AckedDecoder) touch(eid uint16) {
	fl := d.flag(eid)
	if *fl&ackInU != 0 {
		return
	}
	*fl |= ackInU
	d.idx[eid] = int32(len(d.u))
	d.u = append(d.u, eid)
	if h := d.cur.Get(eid); h != nil {
		d.saved = append(d.saved, savedHeld{held: *h, present: true})
	} else {
		d.saved = append(d.saved, savedHeld{})
	}
}

// collect gathers the entities whose state may differ between the last
// frame shown and the frame's: those it removes or changes in any link, and
// those the frames held after its base touched (every one held, for a
// keyframe).
func (d *AckedDecoder) collect(key bool, base int) {
	d.u, d.saved = d.u[:0], d.saved[:0]
	for _, eid := range d.removed {
		d.touch(eid)
	}
	for i := range d.changes {
		d.touch(d.changes[i].EID)
	}
	if key {
		for i := 0; i < d.cur.Slots(); i++ {
			if eid := d.cur.Owner(i); eid != 0 {
				d.touch(eid)
			}
		}
		return
	}
	for i := base + 1; i < d.n; i++ {
		u := &d.ring[(d.first+i)%HeldRing].undo
		for e, off, ok := u.Next(0); ok; e, off, ok = u.Next(off) {
			d.touch(e.EID)
		}
	}
}

// revert brings what the decoder holds back to the state of the base (to
// nothing for a keyframe), noting the entities whose life changed after it.
func (d *AckedDecoder) revert(key bool, base int) {
	if key {
		d.cur.Reset()
		return
	}
	for i := d.n - 1; i > base; i-- {
		u := &d.ring[(d.first+i)%HeldRing].undo
		for e, off, ok := u.Next(0); ok; e, off, ok = u.Next(off) {
			if e.Break {
				*d.flag(e.EID) |= ackBroke
			}
			e.Restore(&d.cur)
		}
	}
}

// applyFrame applies the frame's links in order onto the base's state: each
// link's removals, then its changes, as the ordered decoder applies a
// delta. A pose carried by a link was measured at the link's tick, less its
// age.
func (d *AckedDecoder) applyFrame(h *Header) error {
	prev, rm, ch := h.BaseTick, 0, 0
	for _, l := range d.links {
		for _, eid := range d.removed[rm:l.removed] {
			if d.cur.Get(eid) == nil {
				return fmt.Errorf("%w: removal of entity %d, not held at tick %d", ErrResync, eid, prev)
			}
			d.cur.Remove(eid)
		}
		for i := ch; i < l.changed; i++ {
			d.applyChange(&d.changes[i], l.tick)
		}
		prev, rm, ch = l.tick, l.removed, l.changed
	}
	return nil
}

// applyChange applies c, of a link of tick, onto what is held, or onto zeros
// for an id not held.
func (d *AckedDecoder) applyChange(c *Change, tick uint32) {
	held := d.cur.Get(c.EID)
	if held == nil {
		held = d.cur.At(d.cur.Add(c.EID))
		d.flags[c.EID] |= ackWhole
	}
	ApplyChange(&held.Rec, c)
	held.Tier = TierOf(c.Mask)
	held.PoseFull = c.Mask&PoseFull != 0
	if c.Mask&MaskPose != 0 {
		held.PoseTick = tick - uint32(c.Age)
		if c.Age == MaxPoseAge {
			d.keepPoseTick(c.EID, held)
		}
	}
}

// keepPoseTick keeps the pose tick the last frame shown had for eid when a
// pose of age MaxPoseAge (that old or older: a keyframe's) is the very pose
// it held, of the same life: the client's older tick is the true one.
func (d *AckedDecoder) keepPoseTick(eid uint16, held *Held) {
	sv := &d.saved[d.idx[eid]]
	old := &sv.held
	if sv.present && int32(held.PoseTick-old.PoseTick) > 0 && old.Rec.Gen() == held.Rec.Gen() &&
		old.Rec.Kind() == held.Rec.Kind() && string(old.Rec[PoseAt:]) == string(held.Rec[PoseAt:]) {
		held.PoseTick = old.PoseTick
	}
}

// rollback brings what the decoder holds back to the last frame shown: only
// the entities of u were changed.
func (d *AckedDecoder) rollback() {
	for k, eid := range d.u {
		sv := &d.saved[k]
		if !sv.present {
			d.cur.Remove(eid)
			continue
		}
		h := d.cur.Get(eid)
		if h == nil {
			h = d.cur.At(d.cur.Add(eid))
		}
		*h = sv.held
	}
}

// push makes room for the frame of tick as the newest held and returns its
// Undo, emptied. The oldest frame goes when the ring is full.
func (d *AckedDecoder) push(tick uint32) *Undo {
	if d.n == HeldRing {
		d.first = (d.first + 1) % HeldRing
		d.n--
	}
	hf := &d.ring[(d.first+d.n)%HeldRing]
	d.n++
	hf.tick = tick
	hf.undo.Reset()
	return &hf.undo
}

// report compares, for every entity the frame may have changed, the frame's
// state with the last one shown: it fills the DecodedFrame and writes what
// undoes the frame.
func (d *AckedDecoder) report(undo *Undo, tick uint32, key bool) {
	fr := &d.frame
	for k, eid := range d.u {
		sv := &d.saved[k]
		now := d.cur.Get(eid)
		switch {
		case now == nil && !sv.present:
		case now == nil:
			fr.Removed = append(fr.Removed, Removed{EID: eid, Gen: sv.held.Rec.Gen()})
			undo.Add(eid, &sv.held, NonZeroGroups(&sv.held.Rec), true)
		case !sv.present:
			d.reportNew(eid, now, tick)
			undo.AddAbsent(eid)
		default:
			old := &sv.held
			fl := d.flags[eid]
			// A new life against the last frame shown: the frame says the
			// life changed since its base and the frames after the base
			// do not (so it changed after the last shown), or the
			// generation or the kind differ. A life that may have changed
			// both before and after the last shown, with the same
			// generation and kind, passes for the same.
			newLife := !key && fl&ackRemoved != 0 && fl&ackBroke == 0 ||
				old.Rec.Gen() != now.Rec.Gen() || old.Rec.Kind() != now.Rec.Kind()
			groups := DiffGroups(&old.Rec, &now.Rec)
			if newLife {
				fr.Removed = append(fr.Removed, Removed{EID: eid, Gen: old.Rec.Gen(), NewLife: true})
				d.reportNew(eid, now, tick)
				undo.Add(eid, old, groups, true)
				continue
			}
			// Made onto zeros, it may be a new life taken for the same:
			// its undo says the life may have changed. A later frame onto
			// an older base that removes it then passes it for the same
			// too, rather than telling a new life that is not.
			whole := fl&ackWhole != 0
			if groups == 0 && old.Tier == now.Tier && old.PoseFull == now.PoseFull && old.PoseTick == now.PoseTick {
				if whole {
					undo.Add(eid, old, 0, true)
				}
				continue
			}
			mask := groups | MaskTierOf(now.Tier)
			if now.PoseFull {
				mask |= PoseFull
			}
			if now.PoseTick != old.PoseTick {
				fr.Measured = append(fr.Measured, Measured{EID: eid, Tick: now.PoseTick})
				if now.PoseTick != tick {
					mask |= PoseAge
				}
			}
			fr.Changed = append(fr.Changed, Changed{EID: eid, Mask: mask, Tier: now.Tier})
			undo.Add(eid, old, groups, whole)
		}
	}
}

// reportNew reports eid as a new entity (or a new life): every group it
// holds, and its pose as measured.
func (d *AckedDecoder) reportNew(eid uint16, now *Held, tick uint32) {
	fr := &d.frame
	groups := NonZeroGroups(&now.Rec)
	mask := groups | MaskTierOf(now.Tier)
	if now.PoseFull {
		mask |= PoseFull
	}
	if groups&MaskPose != 0 {
		fr.Measured = append(fr.Measured, Measured{EID: eid, Tick: now.PoseTick})
		if now.PoseTick != tick {
			mask |= PoseAge
		}
	}
	fr.Changed = append(fr.Changed, Changed{EID: eid, Mask: mask, Tier: now.Tier, New: true})
}

// Snapshot rebuilds the whole state of the last frame shown, its entities by
// kind, then id. It is reused by the next call.
func (d *AckedDecoder) Snapshot() *Snapshot {
	s := &d.snap
	s.Tick, s.LastSeq, s.InputBuffer = d.last, d.lastSeq, d.inBuf
	s.Entities = s.Entities[:0]
	for _, k := range d.cur.Canonical() {
		eid := uint16(k)
		held := d.cur.Get(eid)
		se := SnapshotEntity{EID: eid, Tier: held.Tier, PoseFull: held.PoseFull, PoseTick: held.PoseTick}
		held.Rec.Decode(&se.Entity, held.PoseFull)
		s.Entities = append(s.Entities, se)
	}
	return s
}
