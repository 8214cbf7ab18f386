package wire

import (
	"math/bits"
	"slices"
)

// The acked snapshots (kind 6) go over a transport that loses, duplicates
// and reorders frames (a WebRTC data channel that never retransmits). A frame
// applies onto the newest frame the client acknowledged (the ack of its
// input frames), whichever frames were lost between; PROTOCOL.md §9 has
// every byte. The server keeps what an ordered client would hold after each
// of its last SentRing frames; the client keeps the states of its last
// HeldRing frames applied, by tick.
//
// A frame's body is one of two kinds. A keyframe, and a delta, carry a
// removed list and changes that turn the base's state into the frame's. A
// chained frame (HeaderChain) carries links instead: the ordered deltas of
// the frames after its base, oldest first, each its tick, its removed list
// and its changes. The client applies the links in turn, as the ordered
// decoder applies deltas.

// SentRing is how many of its last frames the server keeps the client's
// state of, to encode against: 32 frames, 1.6 s at 20 per second. An
// acknowledgement later than that (a round trip, plus every input frame
// carrying it lost for over a second) costs a keyframe. The server keeps,
// per frame, its ordered delta (its link), not a copy of the state: a few
// hundred bytes to a few KB per frame. A chained frame
// has SentRing links at most.
const SentRing = 32

// HeldRing is how many of its last frames applied the client keeps the
// states of: 64, twice SentRing. A base the server uses is one of its last
// SentRing frames, so the client cannot have applied more than SentRing-1
// frames after it: it still holds it. The margin is for a server that writes
// frames faster than it should.
const HeldRing = 64

// EventTTL is how many frames an event goes in, at most, when no frame that
// held it is acknowledged: 20 frames, 1 s. A shot or a hit shown later than
// that is more confusing than one missed, and at 20 % loss all 20 copies
// are lost once in 10^14 events.
const EventTTL = 20

// MaxPoseAge is the largest age a change carries (a u8, in ticks: 4.25 s
// at 60 Hz). A delta's poses are never older than its base (the encoder
// takes no base older than MaxPoseAge ticks); only a keyframe may carry an
// older one, of an entity whose pose has not changed for so long (at rest:
// exact at every tick since): it goes MaxPoseAge ticks old.
const MaxPoseAge = 255

// SerialBytes is the size of the acked frames' u32 firstSerial, which
// follows the events' count when it is not 0.
const SerialBytes = 4

// ParseAckedHeader reads an acked frame's header from the start of b and
// returns it with its length: the header of ParseHeader, of kind FrameAcked,
// a keyframe when its BaseTick is 0 (no removals then, and a check), else a
// delta whose base is older than its tick. With HeaderChain the frame is a
// chain of links: its Removed is 0 and its Changed is the number of links,
// 1 to SentRing.
func ParseAckedHeader(b []byte) (h Header, n int, err error) { return parseHeader(b, true) }

// linkHeadBytes is the head of a chained frame's link: u32 tick | u16
// removed | u16 changed.
const linkHeadBytes = 8

// chainHeader checks the header h of a chained frame, rest being the bytes
// after it. A chain is never a keyframe and has no removals of its own. It
// has 1 to SentRing links, and rest holds each link's head and the events'
// count at least.
func chainHeader(rest []byte, h *Header) error {
	switch {
	case h.BaseTick == 0 || h.BaseTick >= h.Tick:
		return malformed("chained frame of tick %d onto tick %d", h.Tick, h.BaseTick)
	case h.Removed != 0:
		return malformed("chained frame with %d removals of its own", h.Removed)
	case h.Changed == 0 || h.Changed > SentRing:
		return malformed("chain of %d links, not 1 to %d", h.Changed, SentRing)
	}
	if need := int(h.Changed)*linkHeadBytes + 1; len(rest) < need {
		return malformed("%d links in %d bytes", h.Changed, len(rest))
	}
	return nil
}

// linkHead reads the head of link i of the chained frame h from the start
// of b; prev is the tick of the link before it (the base's for the first).
// Link ticks increase strictly from the base's, and the last link's is the
// frame's. The counts must fit in b, which also keeps the heads of the links
// after this one and the events' count: each removal is 2 bytes, each change
// at least 4.
func linkHead(b []byte, h *Header, i int, prev uint32) (tick uint32, removed, changed int, err error) {
	if len(b) < linkHeadBytes {
		return 0, 0, 0, malformed("link %d cut short", i)
	}
	tick = le.Uint32(b)
	removed, changed = int(le.Uint16(b[4:])), int(le.Uint16(b[6:]))
	last := i == int(h.Changed)-1
	switch {
	case tick <= prev:
		return 0, 0, 0, malformed("link of tick %d after tick %d", tick, prev)
	case last && tick != h.Tick, !last && tick >= h.Tick:
		return 0, 0, 0, malformed("link %d of %d, of tick %d, in a frame of tick %d", i+1, h.Changed, tick, h.Tick)
	}
	left := len(b) - linkHeadBytes - (int(h.Changed)-1-i)*linkHeadBytes - 1
	if removed*2+changed*4 > left {
		return 0, 0, 0, malformed("link of tick %d: %d removals and %d changes in %d bytes", tick, removed, changed, left)
	}
	return tick, removed, changed, nil
}

// DiffGroups returns the groups whose bytes differ between a and b.
func DiffGroups(a, b *Record) uint16 { return DiffGroupsIn(a, b, MaskGroups) }

// DiffGroupsIn returns the groups of mask whose bytes differ between a and
// b: the encoder knows which groups may differ, and compares only those.
func DiffGroupsIn(a, b *Record, mask uint16) uint16 {
	var m uint16
	for mask &= MaskGroups; mask != 0; mask &= mask - 1 {
		if g := bits.TrailingZeros16(mask); !GroupEqual(a, b, g) {
			m |= 1 << g
		}
	}
	return m
}

var zeroRecord Record

// NonZeroGroups returns the groups of r whose bytes are not all zero: what a
// new entity needs to hold r (a group never received is zeros).
func NonZeroGroups(r *Record) uint16 { return DiffGroups(r, &zeroRecord) }

// MemBytes returns the bytes the store's slices take (their capacity): what
// holding it costs.
func (s *Store) MemBytes() int {
	const held = RecordBytes + 4 + 1 + 1 + 4 // PoseTick, Tier, PoseFull, and the padding to 4
	return cap(s.slot)*4 + cap(s.held)*held + cap(s.owner)*2 + cap(s.free)*4 + cap(s.keys)*4
}

// Undo is what turns a client's state after a frame back into its state
// before it. It holds, per entity the frame touched, whether it was held
// before. For an entity held before, it also holds its tier, pose mode and
// pose tick, and the bytes of the groups that differ from after: every group
// not zero, when the entity is not held after. The client keeps one per
// frame instead of a copy of the state, and finds with them the state of
// any of its last HeldRing frames. An Undo reuses its memory.
//
// An entry is, in bytes: u16 eid | u8 flags (undoHeld, undoFull,
// undoBreak) and, when held, u16 groups | u8 tier | u32 poseTick | the
// groups' bytes, in group order.
type Undo struct{ b []byte }

// The flags of an Undo entry.
const (
	undoHeld  = 1 << iota // the entity was held before
	undoFull              // its pose mode before was the full pose
	undoBreak             // its life before (or none) is not its life after
)

// Reset empties u, keeping its memory.
func (u *Undo) Reset() { u.b = u.b[:0] }

// Grow makes room in u for n more bytes, as slices.Grow does.
func (u *Undo) Grow(n int) { u.b = slices.Grow(u.b, n) }

// Len returns the bytes u holds.
func (u *Undo) Len() int { return len(u.b) }

// Cap returns the bytes u has room for.
func (u *Undo) Cap() int { return cap(u.b) }

// AddAbsent notes that eid was not held before the frame (a new life
// started in it).
func (u *Undo) AddAbsent(eid uint16) {
	u.b = append(u.b, byte(eid), byte(eid>>8), undoBreak)
}

// Add notes that eid was held as before, keeping the groups of before that
// differ from what it is after the frame (every group not zero when it is
// not held after: NonZeroGroups). brk says its life after is another one
// (or none). A client that cannot tell, having made the entity whole, sets
// it too: a later frame then takes no life change for one after this frame.
func (u *Undo) Add(eid uint16, before *Held, groups uint16, brk bool) {
	fl := byte(undoHeld)
	if before.PoseFull {
		fl |= undoFull
	}
	if brk {
		fl |= undoBreak
	}
	groups &= MaskGroups
	n := 10
	for m := groups; m != 0; m &= m - 1 {
		n += int(groupBytes[bits.TrailingZeros16(m)])
	}
	at := len(u.b)
	u.b = slices.Grow(u.b, n)[:at+n]
	b := u.b[at : at+n]
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(eid), byte(eid>>8), fl, byte(groups), byte(groups>>8), before.Tier
	le.PutUint32(b[6:], before.PoseTick)
	b = b[10:]
	for m := groups; m != 0; m &= m - 1 {
		b = b[copy(b, before.Rec.Group(bits.TrailingZeros16(m))):]
	}
}

// UndoEntry is one entity of an Undo.
type UndoEntry struct {
	EID      uint16
	Held     bool   // held before the frame
	Break    bool   // its life before (or none) is not its life after
	Groups   uint16 // the groups of its record before that Body holds
	Tier     uint8
	PoseFull bool
	PoseTick uint32
	Body     []byte
}

// Next returns the entry at offset off (0 for the first) and the offset of
// the next one; ok is false past the last.
func (u *Undo) Next(off int) (e UndoEntry, next int, ok bool) {
	if off >= len(u.b) {
		return e, off, false
	}
	b := u.b[off:]
	e.EID = le.Uint16(b)
	fl := b[2]
	e.Held, e.Break = fl&undoHeld != 0, fl&undoBreak != 0
	if !e.Held {
		return e, off + 3, true
	}
	e.PoseFull = fl&undoFull != 0
	e.Groups = le.Uint16(b[3:])
	e.Tier = b[5]
	e.PoseTick = le.Uint32(b[6:])
	n := 10
	for m := e.Groups; m != 0; m &= m - 1 {
		n += int(groupBytes[bits.TrailingZeros16(m)])
	}
	e.Body = b[10:n]
	return e, off + n, true
}

// Restore brings the entity of e in s back to what it was before the frame;
// s must hold it as it was after.
func (e *UndoEntry) Restore(s *Store) {
	if !e.Held {
		s.Remove(e.EID)
		return
	}
	h := s.Get(e.EID)
	if h == nil {
		h = s.At(s.Add(e.EID))
	}
	e.restore(h)
}

func (e *UndoEntry) restore(h *Held) {
	body := e.Body
	for m := e.Groups; m != 0; m &= m - 1 {
		g := bits.TrailingZeros16(m)
		n := copy(h.Rec.Group(g), body)
		body = body[n:]
	}
	h.Tier, h.PoseFull, h.PoseTick = e.Tier, e.PoseFull, e.PoseTick
}
