package netsync

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/fiveonit/engine/internal/headroom"
	"github.com/fiveonit/engine/netsync/wire"
)

// View is one client's side of a frame: where its area of interest is
// centred and which entities are its own.
type View struct {
	// Center is the client's character position, or any point for a
	// spectator; only X and Y count.
	Center wire.Vec3
	// Own are the client's character, car and trailer (0 for none): they
	// come with their full pose, every frame they change, to any
	// distance.
	Own [3]uint16
	// LastSeq is the last input of the client the server ran;
	// InputBuffer the inputs waiting in its queue, or below 0 how many
	// ticks its newest input is behind LastSeq (wire.Header).
	LastSeq     uint32
	InputBuffer int8
}

func (v *View) owns(wid uint16) bool {
	return wid != 0 && (wid == v.Own[0] || wid == v.Own[1] || wid == v.Own[2])
}

// frameDelta is what turned S(N-1) into S(N) besides the changes, which
// advance writes serialized (clientState.out): the entities removed (gone,
// out of the area of interest, or a new life).
type frameDelta struct {
	removed []uint16
}

func (d *frameDelta) reset() { d.removed = d.removed[:0] }

// clientState is what one client holds after frame N, S(N): a wire.Store
// updated exactly as the client's decoder updates its own, and what the
// server alone needs per entity. advance computes S(N) from S(N-1) and the
// arena. It is the same for the ordered and the acked snapshots, which
// only serialize it against different bases.
//
// Every frame reads 16 bytes per entity held, in sequence (entPick), and
// the arena's 16 bytes for the entity (moveEnt). It reads the rest, a
// cache line per entity (entWalk), only for the entities it looks closer
// at.
type clientState struct {
	store wire.Store
	// By store slot: what every frame reads of every entity held, and
	// what it reads of those it looks closer at.
	picks []entPick
	walks []entWalk
	has   []uint64 // one bit per wire id: held
	kinds []uint8  // by wire id: the kind of the record held, for the check's canonical order
	cands []int32  // scratch: the slots a frame looks closer at
	order []int32  // scratch of byPriority
	prio  []uint8  // scratch of byPriority: each candidate's key
	keys  []uint16 // scratch: the ids held in the canonical order (check)
	owned []int32  // scratch: the slots of the client's own, looked at first
	stamp uint16   // numbers the calls to advance

	// advance writes each change straight into out, serialized as an
	// ordered frame carries it: both encoders send the ordered delta, the
	// acked one in links. outN counts the changes. A pose sent alone is
	// written into its entWalk only, and the store's records get it when
	// they are read (flushed, check): stale says some have not yet.
	stale bool
	out   []byte
	outN  int
	// budget bounds the bytes of the changes a frame carries beyond what
	// always goes (budget.go); 0 is no bound.
	budget int
	// head is the room left at the start of out for the ordered
	// encoder's header, written after advance, so that the changes go
	// straight into the frame. The removals, known only at the end, move
	// the changes along by their size.
	head int

	// What the last advance saw.
	started    bool
	lastTick   uint32
	lastCenter wire.Vec3
	lastOwn    [3]uint16
	lastIn     Interest
	moved      float64 // the centre's odometer: how far it travelled over every frame, in metres

	// Set for the length of a call to advance.
	arena          *Arena
	in             *Interest
	view           *View
	delta          *frameDelta
	frame, tick    uint32
	cx, cy         float32
	enter2, leave2 float32
	spans          []span

	// The watch: the entities that stood in a ring about the edge of the
	// area of interest (watchMargin inside and outside in.Enter) when it
	// was taken, and those the log listed since near that edge. Until the
	// centre's travel and the entities' steps since add up to watchMargin
	// (watchUsed), a newcomer can only be one of them.
	watch     []watchEnt
	watchUsed float64
}

// flushed returns what the client holds, every pose written into the
// store's records (flush). It must not be changed.
func (s *clientState) flushed() *wire.Store {
	s.flush()
	return &s.store
}

// flush writes into the store's records the poses written into the
// entWalks alone (see stale).
func (s *clientState) flush() {
	if !s.stale {
		return
	}
	s.stale = false
	for i := range s.picks {
		if s.picks[i].wid != 0 {
			held := s.store.At(i)
			putPose(&held.Rec, &s.walks[i].pose)
			held.PoseTick = s.walks[i].pose.tick
		}
	}
}

func (s *clientState) held(wid uint16) bool {
	return int(wid>>6) < len(s.has) && s.has[wid>>6]&(1<<(wid&63)) != 0
}

// reset forgets everything the client held: a keyframe follows.
func (s *clientState) reset() {
	clear(s.has)
	s.store.Reset()
	s.picks, s.walks = s.picks[:0], s.walks[:0]
	s.stale = false
	s.started = false
}

func (s *clientState) remove(wid uint16, slot int) {
	s.delta.removed = append(headroom.Ahead(s.delta.removed, 1), wid)
	s.store.Remove(wid)
	s.picks[slot] = entPick{edge: thrMax}
	s.has[wid>>6] &^= 1 << (wid & 63)
}

// reserve sizes the client's lists for ids wire ids and entities entities
// present: the store, and by slot the picks, the walks and the frame's
// candidates. A client holds at most the entities present, so its lists
// grow only when the world's count passes what they hold: to twice that
// count, and to heldEntities at least. They do not grow at each new high
// of the client's own count, which its travels bring now and then all game
// long.
func (s *clientState) reserve(ids, entities int) {
	if cap(s.picks) >= entities {
		s.store.Reserve(ids, 0)
		return
	}
	n := max(2*entities, heldEntities)
	s.store.Reserve(ids, n)
	s.picks = slices.Grow(s.picks, n-len(s.picks))
	s.walks = slices.Grow(s.walks, n-len(s.walks))
	if cap(s.cands) < n {
		s.cands = make([]int32, len(s.cands), n)
	}
	s.keys = slices.Grow(s.keys, n-len(s.keys)) // check's canonical order
	// The watch and the frame's changes too: a frame after the client
	// travelled far, such as a respawn, brings most of the world whole,
	// more than any frame before it.
	s.watch = slices.Grow(s.watch, n-len(s.watch))
	s.out = slices.Grow(s.out, n*changeBytes-len(s.out))
}

// changeBytes is the room reserve makes in a frame for each entity: more
// than a change of an entity whole takes on average.
const changeBytes = 64

// heldEntities is the fewest entities a client's lists are sized for at
// once (about 150 KB): a city room holds about 450.
const heldEntities = 512

// advance computes what the client holds after frame number frame, of the
// arena's tick, and writes into d what changed. The client holds the
// entities of its area of interest: every one within in.Enter, every one
// held and within in.Leave, every one the arena sends to every client, and
// the client's own. Each change has the groups whose bytes differ from
// what the client holds. A pose, quantized or the full pose of the
// client's own, goes on its tier's turn (wire.Due). It goes at once for
// tier 0 and the client's own, when its rest differs from the pose held,
// and when its pose mode changes. A tier or a pose mode (PoseFull) that
// changed alone makes a change with no group. The changes go into out,
// serialized; the removals into d.
//
// It reads, in slot order, 16 bytes of each entity held and the arena's
// moveEnt of it, and looks closer only at those that may have changed:
// a pose the arena changed that has its turn, something other than the
// pose changed, the client's own before and now, and entities near enough
// an edge that the centre's travel and theirs may have crossed it.
// Newcomers come from the arena's log (new lives, jumps) and from the
// entities watched about the edge of the area (newcomers). It looks at
// everything on its first frame, after a keyframe, when the interest
// changed, when the centre is not a number, and when the arena's log no
// longer reaches back to its last frame.
func (s *clientState) advance(a *Arena, in *Interest, v *View, frame uint32, d *frameDelta) {
	in.prepare()
	d.reset()
	s.out, s.outN = headroom.Ahead(s.out[:0], s.head)[:s.head], 0
	s.arena, s.in, s.view, s.delta, s.frame, s.tick = a, in, v, d, frame, a.tick
	s.cx, s.cy, s.enter2, s.leave2 = v.Center.X, v.Center.Y, in.enter2, in.leave2
	// Sized by the arena's ids, which grow by doubling: the client's
	// lists by wire id grow with them, all in the frame after, and not
	// again until the arena grows again.
	if n := (len(a.recs) + 63) / 64; len(s.has) < n {
		s.has = append(s.has, make([]uint64, n-len(s.has))...)
		s.kinds = append(s.kinds, make([]uint8, 64*n-len(s.kinds))...)
	}
	s.reserve(len(a.recs), len(a.live))
	// Room for every slot's entity to be removed this frame, the most a
	// frame can remove, so that a frame that removes more than any before
	// does not allocate.
	if cap(d.removed) < cap(s.picks) {
		d.removed = slices.Grow(d.removed, cap(s.picks))
	}
	s.stamp++
	if s.stamp == 0 {
		for i := range s.walks {
			s.walks[i].stamp = 0
		}
		s.stamp = 1
	}
	dx, dy := float64(v.Center.X-s.lastCenter.X), float64(v.Center.Y-s.lastCenter.Y)
	step := math.Sqrt(dx*dx + dy*dy)
	all := !s.started || !a.logReaches(s.lastTick) || *in != s.lastIn
	if !(step <= maxStepOdo) { // the centre, now or before, is not a number, and the odometer must stay one
		step, all = 0, true
	}
	s.moved += step

	// The client's own, before and now: their pose mode may change.
	s.owned = s.owned[:0]
	for _, own := range [2]*[3]uint16{&s.lastOwn, &v.Own} {
		for _, wid := range own {
			if wid != 0 && s.held(wid) {
				if slot := s.store.SlotOf(wid); s.walks[slot].stamp != s.stamp {
					s.owned = append(headroom.Ahead(s.owned, 1), int32(slot))
					s.keep(wid, slot)
				}
			}
		}
	}
	if all {
		for i := 0; i < len(s.picks); i++ {
			if wid := s.picks[i].wid; wid != 0 && s.walks[i].stamp != s.stamp {
				s.keep(wid, i)
			}
		}
	} else {
		s.walk()
	}
	// Newcomers: those the log lists (new lives, jumps), the client's own,
	// those sent to everyone, and those watched about the edge.
	reach := step
	if !all {
		for t := s.lastTick + 1; t != a.tick+1; t++ {
			wids, maxStep := a.logged(t)
			reach += float64(maxStep)
			for _, wid := range wids {
				// The arena's facts first, which every client shares
				// and the caches hold; what the client holds last,
				// its own and cold. Most listed are far and need no
				// more.
				if !a.present(wid) {
					continue
				}
				d2 := s.dist2(wid)
				switch {
				case d2 <= s.enter2:
					if !s.held(wid) {
						s.whole(wid, v.owns(wid), d2)
					}
				case s.watchable(d2) && !s.held(wid):
					s.watchLeft(wid, d2)
				}
			}
		}
	}
	for _, wid := range v.Own {
		if wid != 0 && a.present(wid) && !s.held(wid) {
			s.whole(wid, true, s.dist2(wid))
		}
	}
	for _, wid := range a.always {
		if !s.held(wid) {
			s.whole(wid, v.owns(wid), s.dist2(wid))
		}
	}
	s.newcomers(all, reach)
	s.started, s.lastTick, s.lastCenter, s.lastOwn, s.lastIn = true, a.tick, v.Center, v.Own, *in
	s.arena, s.in, s.view, s.delta = nil, nil, nil, nil
}

// dist2 returns the squared ground distance of wid from the centre.
func (s *clientState) dist2(wid uint16) float32 {
	h := &s.arena.hot[wid]
	dx, dy := h.x-s.cx, h.y-s.cy
	return dx*dx + dy*dy
}

// b2i is 1 for true: a flag set without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var le = binary.LittleEndian

// lowBit returns the number of the lowest bit set in m (m != 0).
func lowBit(m uint16) int { return bits.TrailingZeros16(m) }
