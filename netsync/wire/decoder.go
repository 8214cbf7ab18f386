package wire

import (
	"fmt"

	"github.com/fiveonit/engine/internal/headroom"
)

// Changed is an entity a frame changed.
type Changed struct {
	EID  uint16
	Mask uint16 // the change's mask as sent (groups, SmallSteps, PoseFull, tier, PoseAge)
	Tier uint8  // the tier of the change (TierOf(Mask))
	New  bool   // a new entity (or a new life): the client makes a new twin
}

// Measured is an entity whose pose a frame carried, and the tick its pose was
// measured at.
type Measured struct {
	EID  uint16
	Tick uint32
}

// Removed is an entity gone since the last frame shown.
type Removed struct {
	EID     uint16
	Gen     uint8 // the generation of the life that ended
	NewLife bool  // a new life came under the same id in the same frame
}

// DecodedFrame is what a frame told the client.
type DecodedFrame struct {
	Kind        uint8 // FrameKeyframe or FrameDelta
	Tick        uint32
	BaseTick    uint32
	LastSeq     uint32
	InputBuffer int8 // the header's: see Header.InputBuffer
	Checked     bool // the frame carried a check, and it matched
	Changed     []Changed
	Measured    []Measured
	Removed     []Removed
	Events      []Event
}

// SnapshotEntity is one entity of a Snapshot: its wire id, how it came, and
// its state decoded from the record held (the full pose when PoseFull).
type SnapshotEntity struct {
	EID      uint16
	Tier     uint8
	PoseFull bool
	PoseTick uint32
	Entity
}

// Snapshot is the whole state a client holds, its entities by kind, then id.
type Snapshot struct {
	Tick        uint32
	LastSeq     uint32
	InputBuffer int8 // the header's: see Header.InputBuffer
	Entities    []SnapshotEntity
}

// Decoder is the client's side of the ordered snapshots: it applies
// keyframes and deltas onto what it holds (a Store), checks, and says what
// each frame changed. A Decoder is not safe for concurrent use.
//
// Apply never panics and never reads out of range, whatever the bytes: a
// malformed frame is an error wrapping ErrMalformed and leaves what the
// decoder holds unchanged; a frame that does not fit what it holds (a base
// other than the last frame applied, a check that differs) wraps ErrResync.
// After either, the decoder takes only a keyframe: the client asks for one.
type Decoder struct {
	store   Store
	synced  bool // a keyframe applied, and nothing wrong since
	tick    uint32
	lastSeq uint32
	inBuf   int8
	frameNo uint32

	// By wire id: the frame number that removed it, changed it, or held it
	// before a keyframe (with its generation and kind).
	rmAt, chAt, oldAt []uint32
	oldGK             []uint16

	changes   []Change
	removed   []uint16
	old       []uint16
	frame     DecodedFrame
	snap      Snapshot
	unapplied []Event // Events' scratch
}

// NewDecoder returns a decoder holding nothing, waiting for a keyframe.
func NewDecoder() *Decoder {
	return &Decoder{
		frame: newDecodedFrame(),
		rmAt:  make([]uint32, 1<<16),
		chAt:  make([]uint32, 1<<16),
		oldAt: make([]uint32, 1<<16),
		oldGK: make([]uint16, 1<<16),
	}
}

// newDecodedFrame returns a frame's record sized for a busy frame at once,
// so that a busy frame late in play grows nothing in the client's tick.
func newDecodedFrame() DecodedFrame {
	return DecodedFrame{Events: make([]Event, 0, MaxEvents), Removed: make([]Removed, 0, 256)}
}

// Store returns what the decoder holds. It must not be changed.
func (d *Decoder) Store() *Store { return &d.store }

// Synced reports whether the decoder takes deltas: it applied a keyframe and
// nothing went wrong since. When it is false, the client asks for a
// keyframe.
func (d *Decoder) Synced() bool { return d.synced }

// Tick returns the tick of the last frame applied.
func (d *Decoder) Tick() uint32 { return d.tick }

func (d *Decoder) fail(err error) (*DecodedFrame, error) {
	d.synced = false
	return nil, err
}

// Apply applies one frame (a keyframe or a delta) and returns what it told.
// The DecodedFrame is reused by the next call.
func (d *Decoder) Apply(b []byte) (*DecodedFrame, error) {
	d.frameNo++
	if d.frameNo == 0 { // after 2^32 frames the stamps would collide
		clear(d.rmAt)
		clear(d.chAt)
		clear(d.oldAt)
		d.frameNo = 1
	}
	h, off, err := ParseHeader(b)
	if err != nil {
		return d.fail(err)
	}
	key := h.Kind == FrameKeyframe
	if !key {
		if !d.synced {
			return d.fail(fmt.Errorf("%w: delta of tick %d with no keyframe applied", ErrResync, h.Tick))
		}
		if h.BaseTick != d.tick {
			return d.fail(fmt.Errorf("%w: delta of tick %d onto %d, last applied %d", ErrResync, h.Tick, h.BaseTick, d.tick))
		}
	}
	if err := d.parse(b, off, &h); err != nil {
		return d.fail(err)
	}
	fr := &d.frame
	// Room for the frame's changes, with headroom: a client whose frames
	// grow now and then allocates seldom.
	*fr = DecodedFrame{
		Kind: h.Kind, Tick: h.Tick, BaseTick: h.BaseTick, LastSeq: h.LastSeq, InputBuffer: h.InputBuffer,
		Changed:  headroom.Ahead(fr.Changed[:0], len(d.changes)),
		Measured: headroom.Ahead(fr.Measured[:0], len(d.changes)),
		Removed:  fr.Removed[:0], Events: fr.Events,
	}
	if key {
		d.forget()
	} else {
		for _, eid := range d.removed {
			held := d.store.Get(eid)
			fr.Removed = append(fr.Removed, Removed{EID: eid, Gen: held.Rec.Gen(), NewLife: d.chAt[eid] == d.frameNo})
			d.store.Remove(eid)
		}
	}
	for i := range d.changes {
		d.applyChange(&d.changes[i], h.Tick)
	}
	if key {
		d.keyframeRemovals()
	}
	d.tick, d.lastSeq, d.inBuf = h.Tick, h.LastSeq, h.InputBuffer
	d.synced = true
	if h.Flags&HeaderCheck != 0 {
		if got := d.store.Check(); got != h.Check {
			d.synced = false
			return fr, fmt.Errorf("%w: check of tick %d is %#08x, the server's %#08x", ErrResync, h.Tick, got, h.Check)
		}
		fr.Checked = true
	}
	return fr, nil
}

// parse reads and checks the whole frame after its header, changing nothing
// the decoder holds: the removals, the changes and the events.
func (d *Decoder) parse(b []byte, off int, h *Header) error {
	d.removed = d.removed[:0]
	d.changes = d.changes[:0]
	for i := 0; i < int(h.Removed); i++ {
		if len(b)-off < 2 {
			return malformed("removed list cut short")
		}
		eid := le.Uint16(b[off:])
		off += 2
		if eid == 0 {
			return malformed("removal of entity 0")
		}
		if d.rmAt[eid] == d.frameNo {
			return malformed("entity %d removed twice", eid)
		}
		if d.store.Get(eid) == nil {
			return fmt.Errorf("%w: removal of entity %d, not held", ErrResync, eid)
		}
		d.rmAt[eid] = d.frameNo
		d.removed = append(d.removed, eid)
	}
	for i := 0; i < int(h.Changed); i++ {
		c, n, err := ParseChange(b[off:])
		if err != nil {
			return err
		}
		off += n
		if d.chAt[c.EID] == d.frameNo {
			return malformed("entity %d changed twice", c.EID)
		}
		d.chAt[c.EID] = d.frameNo
		d.changes = append(d.changes, c)
	}
	if len(b)-off < 1 {
		return malformed("no event count")
	}
	nev := int(b[off])
	off++
	d.frame.Events = d.frame.Events[:0]
	for i := 0; i < nev; i++ {
		ev, n, err := ParseEvent(b[off:])
		if err != nil {
			return err
		}
		off += n
		d.frame.Events = append(d.frame.Events, ev)
	}
	if off != len(b) {
		return malformed("%d bytes after the events", len(b)-off)
	}
	return nil
}

// forget drops everything held before a keyframe, remembering each id's
// generation and kind to tell a continued entity from a new one.
func (d *Decoder) forget() {
	d.old = d.old[:0]
	for i := 0; i < d.store.Slots(); i++ {
		eid := d.store.Owner(i)
		if eid == 0 {
			continue
		}
		rec := &d.store.At(i).Rec
		d.oldAt[eid] = d.frameNo
		d.oldGK[eid] = uint16(rec.Gen())<<8 | uint16(rec.Kind())
		d.old = append(d.old, eid)
	}
	d.store.Reset()
}

// continued reports whether eid, held before this keyframe, is the same
// entity in it: held again with the same generation and kind.
func (d *Decoder) continued(eid uint16) bool {
	if d.oldAt[eid] != d.frameNo {
		return false
	}
	held := d.store.Get(eid)
	return held != nil && d.oldGK[eid] == uint16(held.Rec.Gen())<<8|uint16(held.Rec.Kind())
}

func (d *Decoder) keyframeRemovals() {
	fr := &d.frame
	for _, eid := range d.old {
		if d.continued(eid) {
			continue
		}
		fr.Removed = append(fr.Removed, Removed{EID: eid, Gen: uint8(d.oldGK[eid] >> 8), NewLife: d.chAt[eid] == d.frameNo})
	}
	for i := range fr.Changed {
		fr.Changed[i].New = !d.continued(fr.Changed[i].EID)
	}
}

func (d *Decoder) applyChange(c *Change, tick uint32) {
	held := d.store.Get(c.EID)
	isNew := held == nil
	if isNew {
		held = d.store.At(d.store.Add(c.EID))
	}
	ApplyChange(&held.Rec, c)
	held.Tier = TierOf(c.Mask)
	held.PoseFull = c.Mask&PoseFull != 0
	fr := &d.frame
	if c.Mask&MaskPose != 0 {
		held.PoseTick = tick - uint32(c.Age)
		fr.Measured = append(fr.Measured, Measured{EID: c.EID, Tick: held.PoseTick})
	}
	fr.Changed = append(fr.Changed, Changed{EID: c.EID, Mask: c.Mask, Tier: held.Tier, New: isNew})
}

// Snapshot rebuilds the whole state held, its entities by kind, then id. It
// is reused by the next call.
func (d *Decoder) Snapshot() *Snapshot {
	s := &d.snap
	s.Tick, s.LastSeq, s.InputBuffer = d.tick, d.lastSeq, d.inBuf
	s.Entities = s.Entities[:0]
	for _, k := range d.store.Canonical() {
		eid := uint16(k)
		held := d.store.Get(eid)
		se := SnapshotEntity{EID: eid, Tier: held.Tier, PoseFull: held.PoseFull, PoseTick: held.PoseTick}
		held.Rec.Decode(&se.Entity, held.PoseFull)
		s.Entities = append(s.Entities, se)
	}
	return s
}
