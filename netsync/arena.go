package netsync

import (
	"math"
	"unsafe"

	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// Arena holds every replicated entity of one tick, quantized once into its
// record, for every client's encoder to read. It is a set of flat slices
// indexed by wire id (sized by the highest id seen: no map, no per-entity
// allocation once grown), with what the encoders need without decoding a
// record: the entity's ground position for the area of interest, its kind,
// whether it goes to everyone, the ticks its pose and its other groups last
// changed, its life, whether it is at rest, and a log of each tick's changes
// (which ids changed, which jumped or came to life).
//
// Each tick: Begin, then Put every replicated entity (and AddEvent every
// event), then End. An id not Put between Begin and End is gone. An Arena is
// not safe for concurrent use; encoders read it between End and the next
// Begin.
type Arena struct {
	tick uint32

	recs  []wire.Record
	qpose []poseWords // by id: the quantized pose of recs, apart (see poseWords)
	hot   []hotEnt    // what every encoder reads of every candidate
	// moves is, by id, what an encoder's pick reads of every entity held,
	// every frame. It is kept apart from hot so that the part the
	// encoders read, 16 bytes per id, stays in the first-level cache while
	// they run.
	moves *[1 << 16]moveEnt
	putAt []uint32 // tick of the last Put
	// groupAt is, by id, the tick each group other than the pose's
	// (wire.MaskState: drive, action, flags, identity) last changed: an
	// encoder whose client held them all as of its last frame copies the
	// ones changed since without reading what the client holds.
	groupAt []stateTicks
	input   []wire.Entity // the entity last Put: unchanged, it is not quantized again

	live   []uint16 // ids present after End, in the order Put
	next   []uint16 // ids Put since Begin
	always []uint16 // ids present and Always
	grid   grid

	events []stampedEvent
	log    [changeLogTicks]logSegment // by tick % changeLogTicks
}

// changeLogTicks is how many ticks of its log the arena keeps for the
// encoders: an encoder whose last frame is within them looks for newcomers
// only in the log and in a thin ring of its area of interest; one further
// back (its first frame, a keyframe, a long pause) looks at the whole area.
// 8 ticks hold a frame every SnapshotEvery (3) ticks with room.
const changeLogTicks = 8

// jumpStep is the most an entity moves on the ground in one tick and still
// counts as a step (240 m/s): one that moves more jumped, and the log lists
// it, so that an encoder finds it wherever it landed.
const jumpStep float32 = 4

// stateTicks are the ticks an entity's groups wire.GroupDrive to
// wire.GroupIdentity (wire.MaskState) last changed, in that order, then
// the tick its health (in the drive group) last changed: a budget lets a
// far entity's throttle and steering wait, never its health.
type stateTicks [5]uint32

// healthAt is the index of the health's tick in stateTicks.
const healthAt = wire.GroupIdentity - wire.GroupDrive + 1

// logSegment is one tick of the arena's log: the ids that may have come into
// a client's area of interest other than by a step (a new life, a jump, a
// switch of Always), and the longest step of any other entity.
type logSegment struct {
	tick    uint32
	maxStep float32
	wids    []uint16
}

// changedAt returns the last tick wid's arena facts changed: its pose, or
// anything else (moveEnt.evAt).
func (a *Arena) changedAt(wid uint16) uint32 {
	m := &a.moves[wid]
	return max(m.poseAt, m.evAt)
}

// markEvent marks news of wid that an encoder must look at the general way,
// by keep. It sets evAt and adds eventOdo to the entity's odometer: a step
// past every edge an encoder measures, so that the pick's edge test finds
// the news too. It does so once per tick at most.
func (a *Arena) markEvent(wid uint16) {
	m := &a.moves[wid]
	if m.evAt != a.tick {
		m.evAt = a.tick
		m.odo += eventOdo
	}
}

// eventOdo is the odometer's step for an event (markEvent). It is longer
// than any slack an encoder keeps (maxSlack), so the pick's edge test
// finds the entity in the next frame of every client that holds it. It is
// two steps longer than maxSlack, because thrKey rounds and may lose a
// step. An entity takes one per tick at most: at 60 ticks per second for a
// year, 2^61 steps, far from overflowing the odometer.
const eventOdo = maxSlack*thrScale + 2

// logged returns the ids the log lists for tick and the longest step of the
// others (nothing when the log no longer holds the tick, or it never was).
func (a *Arena) logged(tick uint32) ([]uint16, float32) {
	seg := &a.log[tick%changeLogTicks]
	if seg.tick != tick {
		return nil, 0
	}
	return seg.wids, seg.maxStep
}

// logReaches reports whether the log holds every tick after since.
func (a *Arena) logReaches(since uint32) bool {
	return a.tick >= since && a.tick-since < changeLogTicks
}

const (
	stPresent uint8 = 1 << iota // Put in the last tick ended
	stAlways                    // goes to every client whatever the distance
	stRest                      // quantized velocity and spin are zero
)

// moveEnt is the 16 bytes an encoder's pick reads, every frame, of every
// entity its client holds, to tell whether to look closer: a pose changed
// and has its turn, an edge may be crossed, or something else changed.
type moveEnt struct {
	// odo is the entity's odometer: the distance it travelled on the
	// ground over all its lives, in steps of 1/thrScale m, each step
	// rounded up, plus eventOdo for each tick with an event (evAt).
	// Together with the centre's odometer it tells an encoder when the
	// entity may have crossed an edge or has news (entPick.edge). It is
	// an integer, so that the pick compares it by an integer subtraction.
	odo    int64
	poseAt uint32 // the latest tick a pose group changed (wire.MaskPose)
	// evAt is the last tick anything but the entity's pose changed, or it
	// stopped or started: a group of wire.MaskState, its life, its
	// presence, its Always or its rest. An encoder looks at such news the
	// general way. markEvent adds a step to the odometer for it, so that
	// the pick tests one key per entity, not two.
	evAt uint32
}

// hotEnt is the rest of what an encoder reads of an entity it looks
// closer at (16 bytes).
type hotEnt struct {
	x, y float32 // ground position for the area of interest
	// stateAt is the latest tick another group changed (wire.MaskState):
	// the largest of the entity's groupAt, kept here too so that an
	// encoder's look at an entity reads one line, not two.
	stateAt uint32
	// life turns over each time the id starts a new life (1 to 65535,
	// then 1 again; 0 before the first).
	life  uint16
	state uint8 // stPresent | stAlways | stRest
}

type stampedEvent struct {
	tick uint32
	ev   wire.Event
}

// eventKeepTicks is how long the arena keeps an event for the encoders: 30
// ticks, half a second. An encoder sends the events of the ticks since its
// last frame; one whose frames are further apart than this loses some.
const eventKeepTicks = 30

// busyEvents is the room made once for the events kept and for each tick's
// log: more than a busy city holds.
const busyEvents = 256

// NewArena returns an empty arena.
func NewArena() *Arena {
	// Room made once for a busy tick's events and log: kept, they grow
	// in play only past these.
	a := &Arena{events: make([]stampedEvent, 0, busyEvents)}
	for i := range a.log {
		a.log[i].wids = make([]uint16, 0, busyEvents)
	}
	a.grid.setCell(gridCell)
	return a
}

// Tick returns the tick of the state the arena holds.
func (a *Arena) Tick() uint32 { return a.tick }

// Begin starts tick: Put and AddEvent follow, then End.
func (a *Arena) Begin(tick uint32) {
	a.tick = tick
	a.next = a.next[:0]
	seg := &a.log[tick%changeLogTicks]
	seg.tick, seg.maxStep, seg.wids = tick, 0, seg.wids[:0]
	a.dropEvents()
}

// arenaIDs is the fewest ids the arena is sized for when it first grows
// (about 1.1 MB, and 1 MB for moves, made for every id at once): the world
// hands wire ids out in turn through all of them (ecs.WireIDs), so a busy
// city goes past a thousand ids in its first minutes, and each doubling of
// the arena is an allocation in a tick for the arena and for every
// client's encoder.
const arenaIDs = 4096

func (a *Arena) grow(wid uint16) {
	n := max(int(wid)+1, 2*len(a.recs), arenaIDs)
	n = min(n, 1<<16)
	a.recs = append(a.recs, make([]wire.Record, n-len(a.recs))...)
	a.qpose = append(a.qpose, make([]poseWords, n-len(a.qpose))...)
	a.hot = append(a.hot, make([]hotEnt, n-len(a.hot))...)
	if a.moves == nil {
		a.moves = new([1 << 16]moveEnt)
	}
	a.putAt = append(a.putAt, make([]uint32, n-len(a.putAt))...)
	a.groupAt = append(a.groupAt, make([]stateTicks, n-len(a.groupAt))...)
	a.input = append(a.input, make([]wire.Entity, n-len(a.input))...)
}

// Put quantizes entity wid of this tick into its record and marks whether
// its pose groups or its others changed since the last tick. An entity Put
// with the very values of the last tick is not quantized again. An id that
// was not present at the last End, or whose generation changed, starts a
// new life: everything counts as changed. always sends the entity to every
// client whatever the distance: a player, whatever a player sits in
// (Replicated.Always). Put of id 0 does nothing.
func (a *Arena) Put(wid uint16, e *wire.Entity, always bool) {
	if wid == 0 {
		return
	}
	if int(wid) >= len(a.recs) {
		a.grow(wid)
	}
	h := &a.hot[wid]
	rec := &a.recs[wid]
	var newLife bool
	if a.putAt[wid] == a.tick && h.life != 0 {
		newLife = rec.Gen() != e.Gen // Put twice in one tick: the same life unless its generation changed
	} else {
		a.next = append(headroom.Ahead(a.next, 1), wid)
		newLife = h.state&stPresent == 0 || rec.Gen() != e.Gen
	}
	a.putAt[wid] = a.tick
	st := h.state &^ stAlways
	if always {
		st |= stAlways
	}
	flipped := st != h.state
	h.state = st
	if flipped || newLife {
		a.markEvent(wid)
	}
	if !newLife && sameInput(&a.input[wid], e) {
		if flipped {
			a.logChange(wid)
		}
		return // the same values: the same record (most entities, most ticks)
	}
	a.input[wid] = *e
	a.step(wid, h, e.Pos.X, e.Pos.Y, newLife || flipped)
	var q wire.Record
	q.Quantize(e)
	switch {
	case newLife:
		h.life++
		if h.life == 0 {
			h.life = 1
		}
		*rec = q
		a.qpose[wid] = poseOf(rec)
		a.moves[wid].poseAt, h.stateAt = a.tick, a.tick
		a.groupAt[wid] = stateTicks{a.tick, a.tick, a.tick, a.tick, a.tick}
	case *rec != q:
		if string(rec[:wire.PoseAt]) != string(q[:wire.PoseAt]) {
			h.stateAt = a.tick
			a.markEvent(wid)
			at := &a.groupAt[wid]
			for g := wire.GroupDrive; g <= wire.GroupIdentity; g++ {
				if !wire.GroupEqual(rec, &q, g) {
					at[g-wire.GroupDrive] = a.tick
				}
			}
			if string(rec[wire.HPAt:wire.MaxHPAt+2]) != string(q[wire.HPAt:wire.MaxHPAt+2]) {
				at[healthAt] = a.tick
			}
		}
		if string(rec[wire.PoseAt:]) != string(q[wire.PoseAt:]) {
			a.moves[wid].poseAt = a.tick
		}
		*rec = q
		a.qpose[wid] = poseOf(rec)
	}
	rest := h.state & stRest
	h.state &^= stRest
	if rec.AtRest() {
		h.state |= stRest
	}
	if h.state&stRest != rest {
		a.markEvent(wid) // a stop or a start: news at once, whatever the turn
	}
}

// poseWords is a quantized pose (a record's bytes from wire.PositionAt)
// as the machine words an encoder compares and writes: position (bytes
// 0-11: a, and the low half of b), rotation (12-15: the high half of b),
// velocity (16-21: the low 48 bits of c) and spin (22-27: the high 16 bits
// of c, and d). 32 bytes, so that one never spans two cache lines (a
// record's pose often does); tick is free for a client's held pose to say
// when it was measured (0 in the arena).
type poseWords struct {
	a, b, c uint64
	d, tick uint32
}

// poseOf returns the quantized pose of rec.
func poseOf(rec *wire.Record) poseWords {
	p := rec[wire.PositionAt:]
	return poseWords{a: le.Uint64(p), b: le.Uint64(p[8:]), c: le.Uint64(p[16:]), d: le.Uint32(p[24:])}
}

// sameInput reports whether a and b hold the same bytes. It compares
// memory, not fields: a field-by-field compare of the 30-odd fields cost
// more than all the rest of an unchanged entity's Put. Bytes are also the
// stricter test (0 and -0 differ, a NaN equals itself); a padding byte that
// differed would only make a needless quantize, never a missed change.
func sameInput(a, b *wire.Entity) bool {
	return *(*[unsafe.Sizeof(wire.Entity{})]byte)(unsafe.Pointer(a)) == *(*[unsafe.Sizeof(wire.Entity{})]byte)(unsafe.Pointer(b))
}

// maxStepOdo caps one step on an odometer, in metres. A NaN or infinite
// position counts as a step this long, past every edge an encoder
// measures, and the odometer stays finite: it takes 9e9 such steps to
// overflow it.
const maxStepOdo = 1e6

// step moves wid's ground position to (x, y): its odometer counts the way,
// and the log lists a jump (or a new life, or a switch of Always: logged).
func (a *Arena) step(wid uint16, h *hotEnt, x, y float32, logged bool) {
	dx, dy := float64(x-h.x), float64(y-h.y)
	d := math.Sqrt(dx*dx + dy*dy)
	if !(d < maxStepOdo) { // NaN or far beyond: count a step past every edge
		d = maxStepOdo
	}
	h.x, h.y = x, y
	a.moves[wid].odo += int64(math.Ceil(d * thrScale))
	seg := &a.log[a.tick%changeLogTicks]
	switch {
	case logged || d > float64(jumpStep):
		seg.wids = append(headroom.Ahead(seg.wids, 1), wid)
	case float32(d) > seg.maxStep:
		seg.maxStep = float32(d)
	}
}

func (a *Arena) logChange(wid uint16) {
	seg := &a.log[a.tick%changeLogTicks]
	seg.wids = append(headroom.Ahead(seg.wids, 1), wid)
}

// End closes the tick: ids not Put since Begin are gone. It builds the list
// of entities sent to everyone and the grid the encoders query.
func (a *Arena) End() {
	for _, wid := range a.live {
		if a.putAt[wid] != a.tick {
			a.hot[wid].state &^= stPresent | stAlways
			a.markEvent(wid)
		}
	}
	a.live, a.next = a.next, a.live
	a.always = a.always[:0]
	for _, wid := range a.live {
		a.hot[wid].state |= stPresent
		if a.hot[wid].state&stAlways != 0 {
			a.always = append(headroom.Ahead(a.always, 1), wid)
		}
	}
	a.grid.build(a)
}

// AddEvent records ev as happening this tick.
func (a *Arena) AddEvent(ev wire.Event) {
	a.events = append(headroom.Ahead(a.events, 1), stampedEvent{tick: a.tick, ev: ev})
}

func (a *Arena) dropEvents() {
	k := 0
	for k < len(a.events) && a.tick-a.events[k].tick >= eventKeepTicks {
		k++
	}
	if k > 0 {
		n := copy(a.events, a.events[k:])
		a.events = a.events[:n]
	}
}

// present reports whether wid was Put in the tick last ended.
func (a *Arena) present(wid uint16) bool {
	return int(wid) < len(a.hot) && a.hot[wid].state&stPresent != 0
}

// ground returns wid's position on the ground (X, Y), in metres.
func (a *Arena) ground(wid uint16) (x, y float32) { return a.hot[wid].x, a.hot[wid].y }
