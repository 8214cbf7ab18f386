package physics

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/internal/headroom"
)

// Dt is the fixed step: 1/60 s.
const Dt = float32(1.0 / 60)

// Solver and collision tuning.
const (
	// SolverIterations is the default number of passes over the contacts:
	// Unity Physics' default, enough for a few bodies pressed together in
	// a flat world with no gravity stacking them (two-point contacts are
	// solved exactly by the block solver in each pass).
	SolverIterations = 4
	// Slop (m) is the overlap left alone, so resting contacts do not jitter.
	Slop = 0.01
	// SpeculativeSlop (m) is how far apart shapes still make a contact
	// before their motion this step is added to it.
	SpeculativeSlop = 0.02
	// Beta is the part of an overlap removed per step (by split impulses,
	// which move the bodies without giving them velocity).
	Beta = 0.2
	// MaxPush (m/s) caps the speed at which an overlap is pushed apart, so
	// bodies spawned inside each other part calmly.
	MaxPush = 4
	// RestitutionSpeed (m/s) is the closing speed under which nothing
	// bounces, so that resting and pushing contacts stay put.
	RestitutionSpeed = 1
	// BroadCell (m) is the side of the dynamic grid's cells, and the static
	// grid's unit: a car's length and a bit, so a body covers one to four
	// cells (measured: 6 m beat 4, 8 and 12 m in the city benchmark).
	BroadCell = 6
	// maxSpan caps the cells a body covers on each axis, bounding the work
	// of a body with absurd speed or size; such a body may miss a pair.
	maxSpan = 16
)

// StaticBody is Hit.B for a hit with the static world (a building or the
// level's edge).
const StaticBody = -1

// Hit is one contact event of a step: what hit what, how hard, where.
type Hit struct {
	// A and B are body indices in Bodies.List, A < B; B is StaticBody for
	// the static world.
	A, B int32
	// Impulse is the normal impulse that the step applied (N s = kg m/s),
	// for damage.
	Impulse float32
	// Speed is the closing speed along the normal before the step (m/s).
	Speed float32
	// Point is where they touched; Normal points from A to B.
	Point, Normal Vec
}

// StepStats counts one step's work.
type StepStats struct {
	Candidates     int // dynamic pairs whose bounds overlapped and whose layers collide
	Contacts       int // dynamic pairs in contact (or about to be)
	StaticContacts int // body-static contacts
}

// Scratch is Step's reused memory, and its results: keep one per world and
// pass it to every Step. Its zero value is ready; it grows to the largest
// world it has stepped and then allocates nothing.
type Scratch struct {
	// Hits are this step's contacts that exchanged an impulse, in the order
	// of their body index pairs (dynamic pairs first, then static).
	Hits []Hit
	// Iterations is the solver passes; 0 means SolverIterations.
	Iterations int
	// Stats counts this step's work.
	Stats StepStats

	tmp     []bodyTmp
	bnd     []bounds
	sb      []solverBody
	head    []int32  // per bucket, 1 + its last entry (0: none)
	entries []entry  // the grid's entries, in body order, linked bucket by bucket
	listed  []uint8  // per bucket, 1 once it is in multi
	multi   []uint32 // the buckets holding two entries or more
	near    []int32  // the bodies to look up in the static world, ascending
	pairs   []uint64 // candidate pairs, i<<32 | j with i < j
	found   []uint64 // the pairs as found, before sorting
	first   []int32  // per body, its first pair in pairs (a counting sort)
	cand    []int32
	dyn     []contact
	stat    []contact
	hitches []hitchTmp
	buckets uint64 // the table's size, a power of two
}

// bounds is a body's box swept over the step.
type bounds struct{ lo, hi Vec }

// bodyTmp is a body's per-step derived data.
type bodyTmp struct {
	spin   float32 // the speed of its farthest point about its centre, |w| times its bounding radius
	reach  float32 // |vx|+|vy|+spin: how fast any point of it moves, at most
	pushed float32 // the fastest partner's reach: how fast this body may be shoved
	// The pair filter (see collides), kept here so that the broad phase
	// reads no Body.
	noCollide   int32
	layer, mask uint16
	ok          bool // finite state: takes part in collision
	static      bool // movable and near a building or the level's edge: look them up
	movable     bool // InvMass != 0
}

// solverBody is what the solver touches per body: velocity, the split
// impulses' pseudo velocity, and inverse mass.
type solverBody struct {
	v, pv      Vec
	w, pw      float32
	invM, invI float32
}

type contactPoint struct {
	rA, rB       Vec
	nMass, tMass float32
	target, bias float32 // velocity floor along the normal; push-apart speed
	pn, pt, pp   float32 // accumulated normal, tangent and push impulses
	vn0, sep     float32
	p            Vec
}

type contact struct {
	a, b        int32 // solver indices; b is the static slot for the world
	n           Vec
	friction    float32
	restitution float32
	count       int32
	block       bool    // two points solved together (Box2D's block solver)
	k12         float32 // the points' coupling: K is [[1/nMass0, k12], [k12, 1/nMass1]]
	pts         [2]contactPoint
}

type hitchTmp struct {
	a, b   int32
	rA, rB Vec
	k11    float32 // inverse of the 2x2 effective mass, symmetric
	k12    float32
	k22    float32
	bias   Vec // push velocity removing the hitch's drift
}

// maxCand is the room made for the buildings a body is checked against:
// more than any body meets in a step.
const maxCand = 64

// Reserve makes room for steps of up to n bodies, so that they allocate
// nothing (unless crowded beyond the room made for their contacts): a
// server sizes its room's scratch once, for more bodies than the room
// holds, rather than as the count creeps up.
func (s *Scratch) Reserve(n int) {
	s.tmp = make([]bodyTmp, 0, n)
	s.bnd = make([]bounds, 0, n)
	s.sb = make([]solverBody, 0, n+1)
	s.makeLists(n)
	// The grid's table, the pairs' counting sort and the static pass are
	// sized by the body count too: made here, a first crowd of n bodies
	// late in play grows none of them.
	size := 64
	for size < 4*n {
		size *= 2
	}
	s.head = make([]int32, 0, size)
	s.listed = make([]uint8, 0, size)
	s.first = make([]int32, 0, n+1)
	s.near = make([]int32, 0, n)
}

func (s *Scratch) reserve(n int) {
	// Room for twice n bodies: a room whose body count creeps up one body
	// at a time makes them all again only once it has doubled, not at
	// every new high.
	m := 2 * n
	if cap(s.tmp) < n || cap(s.sb) < n+1 {
		s.tmp = make([]bodyTmp, n, m)
		s.bnd = make([]bounds, n, m)
		s.sb = make([]solverBody, n+1, m+1)
	}
	if cap(s.dyn) < n {
		s.makeLists(m)
	}
	s.tmp = s.tmp[:n]
	s.bnd = s.bnd[:n]
	s.sb = s.sb[:n+1]
}

// makeLists makes the step's lists with room for m bodies.
func (s *Scratch) makeLists(m int) {
	s.dyn = make([]contact, 0, m)
	s.stat = make([]contact, 0, m/2+8)
	s.Hits = make([]Hit, 0, m)
	s.pairs = make([]uint64, 0, m)
	s.found = make([]uint64, 0, m)
	s.entries = make([]entry, 0, 4*m+4)
	s.cand = make([]int32, 0, maxCand)
}

// Step advances the world by dt: collision against each other and against
// st (nil: no static world, ground at 0), the solver, and the integration
// of every body's pose (Z pinned to the ground). It reads and writes
// b.List[i].Pose and .Vel and fills s.Hits. A body whose state is not finite
// is stopped where it is and left out of collision, so a defect elsewhere
// cannot spread to its neighbours.
func Step(st *Static, b *Bodies, s *Scratch, dt float32) {
	n := len(b.List)
	s.reserve(n)
	s.dyn = s.dyn[:0]
	s.stat = s.stat[:0]
	s.Hits = s.Hits[:0]
	s.Stats = StepStats{}
	if !(dt > 0) {
		return
	}
	s.prepare(st, b.List, dt)
	s.broadPhase(st)
	// The dynamic contacts in the order of their pairs, then the static
	// ones in body order: the two lists are separate, so this is the
	// order of a pass over the bodies doing both.
	for _, p := range s.pairs {
		s.collidePair(b.List, int32(p>>32), int32(uint32(p)), dt)
	}
	if st != nil {
		s.collideStatics(st, b.List, dt)
	}
	s.solve(b, dt)
	ground := float32(0)
	if st != nil {
		ground = st.GroundZ
	}
	s.finish(b.List, dt, ground)
}

// prepare derives each body's swept bounds and solver state, finds whether
// it is near a building or the level's edge, and files it into the dynamic
// grid (a list per bucket, and the buckets that come to hold two entries).
func (s *Scratch) prepare(st *Static, list []Body, dt float32) {
	n := len(list)
	var in Rect
	if st != nil {
		in = st.inner
	}
	tmp, bnd, sbs := s.tmp[:n], s.bnd[:n], s.sb[:n+1]
	for i := range list {
		bd := &list[i]
		t := &tmp[i]
		sb := &sbs[i]
		px, py := bd.Pose.Pos.X, bd.Pose.Pos.Y
		vx, vy, w := bd.Vel.Lin.X, bd.Vel.Lin.Y, bd.Vel.Ang.Z
		if !finite(px + py + vx + vy + w + bd.Pose.Rot.Z + bd.Pose.Rot.W) {
			*sb = solverBody{}
			*t = bodyTmp{}
			bnd[i] = unfiled
			continue
		}
		sb.v, sb.pv = Vec{vx, vy}, Vec{}
		sb.w, sb.pw = w, 0
		sb.invM, sb.invI = bd.InvMass, bd.InvInertia
		var ex, ey, ext float32
		if bd.Shape == components.ShapeCircle {
			ex, ey, ext = bd.Radius, bd.Radius, bd.Radius
		} else {
			co, si := bd.Pose.Rot.Heading()
			ac, as := abs32(co), abs32(si)
			ex = ac*bd.HalfX + as*bd.HalfY
			ey = as*bd.HalfX + ac*bd.HalfY
			ext = sqrt32(bd.HalfX*bd.HalfX + bd.HalfY*bd.HalfY)
		}
		spin := abs32(w) * ext
		grow := spin*dt + SpeculativeSlop
		ex += grow
		ey += grow
		dx, dy := vx*dt, vy*dt
		lo := Vec{px - ex + neg0(dx), py - ey + neg0(dy)}
		hi := Vec{px + ex + pos0(dx), py + ey + pos0(dy)}
		movable := bd.InvMass != 0
		bnd[i] = bounds{lo, hi}
		t.spin, t.reach, t.pushed = spin, abs32(vx)+abs32(vy)+spin, 0
		t.noCollide, t.layer, t.mask = bd.NoCollide, bd.Layer, bd.Mask
		t.ok, t.movable = true, movable
		t.static = st != nil && movable &&
			(lo.X < in.Min.X || hi.X > in.Max.X || lo.Y < in.Min.Y || hi.Y > in.Max.Y)
	}
	sbs[n] = solverBody{} // the static world's slot
	if st != nil {
		s.nearBuildings(&st.fine)
	}
	s.fileGrid()
}

// nearBuildings flags the movable bodies whose bounds touch a fine square
// that a polygon overlaps (fineGrid.nearBuilding, written out).
func (s *Scratch) nearBuildings(f *fineGrid) {
	bits, stride := f.bits, f.stride
	fx0, fy0, nx, ny := f.x0, f.y0, f.nx, f.ny
	tmp, bnd := s.tmp, s.bnd[:len(s.tmp)]
	for i := range tmp {
		t := &tmp[i]
		if !t.movable || t.static {
			continue
		}
		b := &bnd[i]
		x0, x1 := f.cell(b.lo.X)-fx0, f.cell(b.hi.X)-fx0
		y0, y1 := f.cell(b.lo.Y)-fy0, f.cell(b.hi.Y)-fy0
		if x0 < 0 || y0 < 0 || x1 >= nx || y1 >= ny {
			t.static = true // off the fine grid: the edge is there
			continue
		}
		w0, d := x0>>6, y1-y0
		if w0 != x1>>6 || d >= 4 {
			t.static = f.nearBuilding(b.lo, b.hi) // the rare wide or tall body
			continue
		}
		// A body's few squares almost always share a word and span at
		// most four rows: test four rows (the last repeated as needed)
		// without a branch on how many: rows y0 + min(d, 1), + min(d, 2)
		// and + d.
		m := ^uint64(0) << (x0 & 63) & (^uint64(0) >> (63 - x1&63))
		k0 := y0*stride + w0
		k1 := k0 + stride*((d+3)>>2)
		k2 := k0 + stride*(d-(d>>1&d&1))
		k3 := k0 + stride*d
		t.static = (bits[k0]|bits[k1]|bits[k2]|bits[k3])&m != 0
	}
}

// unfiled is the bounds of a body left out of collision: inside out, so
// that it covers no cell.
var unfiled = bounds{lo: Vec{BroadCell, BroadCell}}

// fileGrid files every body under each grid cell its bounds touch: a list
// of entries per bucket, and a list of the buckets that come to hold two.
// The table has four buckets per body or more, a power of two: a body covers
// about two cells. So its size follows the bodies, not the level, and its
// buckets stay mostly single-entry.
func (s *Scratch) fileGrid() {
	n := len(s.tmp)
	size := 64
	for size < 4*n {
		size *= 2
	}
	s.buckets = uint64(size)
	s.head = growInt32(s.head, size)
	clear(s.head)
	if cap(s.listed) < size {
		s.listed = make([]uint8, size)
	}
	s.listed = s.listed[:size]
	clear(s.listed)
	// Room for four entries per body, which nearly every body needs at
	// most; fileBodies stops where it runs out, and the room grows. A
	// bucket is listed at most once per entry.
	if cap(s.entries) < 4*n+4 {
		s.entries = make([]entry, 0, 4*n+4)
	}
	if cap(s.multi) < cap(s.entries) {
		s.multi = make([]uint32, 0, cap(s.entries))
	}
	i, k, m := 0, 0, 0
	for {
		i, k, m = s.fileBodies(i, k, m)
		if i == n {
			break
		}
		s.entries = append(s.entries[:k], make([]entry, 2*cap(s.entries)+maxSpan*maxSpan)...)[:0]
		s.multi = append(s.multi[:m], make([]uint32, cap(s.entries)-m)...)[:0]
	}
	s.entries, s.multi = s.entries[:k], s.multi[:m]
}

// fileBodies files bodies from i on, with k entries and m buckets listed
// so far, until it has filed them all or has no room left for the next; it
// returns where it stopped.
func (s *Scratch) fileBodies(i, k, m int) (int, int, int) {
	bnd, head, listed := s.bnd, s.head, s.listed
	ents, multi := s.entries[:cap(s.entries)], s.multi[:cap(s.multi)]
	size := s.buckets
	for ; i < len(bnd); i++ {
		b := &bnd[i]
		x0, y0 := cellOf(b.lo.X), cellOf(b.lo.Y)
		x1 := min(cellOf(b.hi.X), x0+maxSpan-1)
		y1 := min(cellOf(b.hi.Y), y0+maxSpan-1)
		dx, dy := x1-x0, y1-y0
		if uint32(dx) > 1 || uint32(dy) > 1 {
			// Large (or unfiled, inside out): every cell, in a loop;
			// room for them and four for each body left.
			if dx < 0 || dy < 0 {
				continue
			}
			if k+int((dx+1)*(dy+1))+4*(len(bnd)-i) > len(ents) {
				return i, k, m
			}
			for y := y0; y <= y1; y++ {
				for x := x0; x <= x1; x++ {
					h := bucket(uint32(x)*0x9E3779B1^uint32(y)*0x85EBCA77, size)
					old := head[h]
					ents[k] = entry{int32(i), old}
					k++
					head[h] = int32(k)
					list := b2i(old != 0) &^ int(listed[h])
					listed[h] |= uint8(list)
					multi[m] = uint32(h)
					m += list
				}
			}
			continue
		}
		if k+4 > len(ents) {
			return i, k, m
		}
		// One to four cells (nearly every body): the four of a 2x2 block,
		// those beyond the bounds written but not kept or linked, so that
		// how many there are takes no branch.
		hx0, hx1 := uint32(x0)*0x9E3779B1, uint32(x1)*0x9E3779B1
		hy0, hy1 := uint32(y0)*0x85EBCA77, uint32(y1)*0x85EBCA77
		h := bucket(hx0^hy0, size)
		old := head[h]
		ents[k] = entry{int32(i), old}
		k++
		head[h] = int32(k)
		list := b2i(old != 0) &^ int(listed[h])
		listed[h] |= uint8(list)
		multi[m] = uint32(h)
		m += list
		h = bucket(hx1^hy0, size)
		old = head[h]
		ents[k] = entry{int32(i), old}
		k += int(dx)
		head[h] = old ^ (old^int32(k))&-dx // k if kept, else old: no branch
		list = b2i(old != 0) &^ int(listed[h]) & int(dx)
		listed[h] |= uint8(list)
		multi[m] = uint32(h)
		m += list
		h = bucket(hx0^hy1, size)
		old = head[h]
		ents[k] = entry{int32(i), old}
		k += int(dy)
		head[h] = old ^ (old^int32(k))&-dy // k if kept, else old: no branch
		list = b2i(old != 0) &^ int(listed[h]) & int(dy)
		listed[h] |= uint8(list)
		multi[m] = uint32(h)
		m += list
		in3 := dx & dy
		h = bucket(hx1^hy1, size)
		old = head[h]
		ents[k] = entry{int32(i), old}
		k += int(in3)
		head[h] = old ^ (old^int32(k))&-in3 // k if kept, else old: no branch
		list = b2i(old != 0) &^ int(listed[h]) & int(in3)
		listed[h] |= uint8(list)
		multi[m] = uint32(h)
		m += list
	}
	return i, k, m
}

// bucket maps a cell's hash to a bucket of a table of size buckets, a power
// of two: its top bits, by a multiplication (not a shift, whose count the
// hot loops would rather not hold in a register of its own).
func bucket(hash uint32, size uint64) uint64 {
	return uint64(hash) * size >> 32
}

// entry is one body's entry in a bucket of the grid, and the bucket's
// entry before it (1 + its index; 0 ends the list).
type entry struct {
	i, next int32
}

// cellOf returns the grid cell of coordinate f: floor(f/BroadCell). It is
// monotonic, which is all the grids need of it (the static world's cells
// are built on it too), for coordinates within ±2^31 cells (12,000 km); past
// them (a body gone wild) the conversion gives some cell, never a panic.
func cellOf(f float32) int32 {
	g := f * (1.0 / BroadCell)
	c := int32(g)
	if float32(c) > g {
		c-- // below zero truncation rounds up
	}
	return c
}

// broadPhase finds the pairs of bodies whose swept bounds overlap and whose
// layers collide, as s.pairs sorted by (i, j), and flags the bodies whose
// cells hold static polygons.
//
// The grid is uniform, hashed into a table of four buckets per body or more,
// so that its size follows the bodies and not the level, with no map. fileGrid
// files each body under every cell its bounds touch, in a list per bucket,
// and marks the buckets holding two or more. The sweep tests the entries
// sharing such a bucket, bucket after bucket. A pair is taken only in the
// bucket of its owner cell: the cell holding the low corner of the overlap
// of its bounds, which both bodies touch. It is taken there once, skipping
// a body's second entry in the bucket, so it is found exactly once. A bucket
// lists its entries by descending body, a body's entries together.
func (s *Scratch) broadPhase(st *Static) {
	head, entries, tmp, bnd := s.head, s.entries, s.tmp, s.bnd
	found := s.found[:0]
	size := s.buckets
	for _, hh := range s.multi {
		h := uint64(hh)
		{
			prevA := int32(-1)
			for a := head[h]; a != 0; {
				p := entries[a-1]
				a = p.next
				if p.i == prevA {
					continue // the body's second cell in this bucket
				}
				prevA = p.i
				prevB := p.i
				pb := bnd[p.i]
				for b := p.next; b != 0; {
					q := entries[b-1]
					b = q.next
					if q.i == prevB {
						continue // p itself again, or q's second cell
					}
					prevB = q.i
					qb := &bnd[q.i]
					// Apart on any axis: one branch, not four.
					if b2i(qb.lo.X > pb.hi.X)|b2i(qb.hi.X < pb.lo.X)|b2i(qb.lo.Y > pb.hi.Y)|b2i(qb.hi.Y < pb.lo.Y) != 0 {
						continue
					}
					ox, oy := uint32(cellOf(max(pb.lo.X, qb.lo.X))), uint32(cellOf(max(pb.lo.Y, qb.lo.Y)))
					if bucket(ox*0x9E3779B1^oy*0x85EBCA77, size) != h {
						continue // taken in the bucket of its owner cell
					}
					ti, tj := &tmp[q.i], &tmp[p.i] // q.i < p.i: the list descends
					if !collides(ti, tj, q.i, p.i) {
						continue
					}
					found = append(headroom.Ahead(found, 1), uint64(q.i)<<32|uint64(p.i))
					// Either may be shoved at the other's fastest point's
					// speed this step, and then into a wall.
					ti.pushed = max(ti.pushed, tj.reach)
					tj.pushed = max(tj.pushed, ti.reach)
					ti.static = st != nil && ti.movable
					tj.static = st != nil && tj.movable
				}
			}
		}
	}
	s.found = found
	s.sortPairs()
	s.Stats.Candidates = len(s.pairs)
}

// sortPairs sorts the pairs found into s.pairs by (i, j): a counting sort
// on i, then each body's few partners by insertion.
func (s *Scratch) sortPairs() {
	found := s.found
	n := len(s.tmp)
	s.first = growInt32(s.first, n+1)
	first := s.first
	clear(first)
	for _, p := range found {
		first[p>>32]++
	}
	var sum int32
	for i, c := range first[:n] {
		first[i] = sum
		sum += c
	}
	first[n] = sum
	if cap(s.pairs) < len(found) {
		s.pairs = make([]uint64, len(found), cap(found))
	}
	pairs := s.pairs[:len(found)]
	for _, p := range found {
		i := p >> 32
		pairs[first[i]] = p
		first[i]++
	}
	// first[i] is now body i's end: sort each run of more than one.
	start := int32(0)
	for _, end := range first[:n] {
		if end-start > 1 {
			run := pairs[start:end]
			for k := 1; k < len(run); k++ {
				v := run[k]
				m := k - 1
				for m >= 0 && run[m] > v {
					run[m+1] = run[m]
					m--
				}
				run[m+1] = v
			}
		}
		start = end
	}
	s.pairs = pairs
}

func growInt32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n, n+n/2)
	}
	return b[:n]
}

func min32i(a, b int32) int32 {
	if a < b {
		return a
	}
	return b
}

// collides reports whether bodies i and j may touch: their layers, a hitch
// between them, and at least one of them movable.
func collides(a, b *bodyTmp, i, j int32) bool {
	return a.mask&b.layer != 0 && b.mask&a.layer != 0 &&
		a.noCollide != j+1 && b.noCollide != i+1 &&
		(a.movable || b.movable)
}

// margin returns how far apart two bodies still make a contact: the most
// they can close this step, plus a little.
func (s *Scratch) margin(i, j int32, dt float32) float32 {
	A, B := &s.sb[i], &s.sb[j]
	dv := abs32(B.v.X-A.v.X) + abs32(B.v.Y-A.v.Y)
	spin := s.tmp[i].spin
	if j < int32(len(s.tmp)) {
		spin += s.tmp[j].spin
	}
	return SpeculativeSlop + (dv+spin)*dt
}

func (s *Scratch) collidePair(list []Body, i, j int32, dt float32) {
	a, b := &list[i], &list[j]
	ca, cb := Flat(a.Pose.Pos), Flat(b.Pose.Pos)
	mg := s.margin(i, j, dt)
	var m manifold
	var ok bool
	switch {
	case a.Shape == components.ShapeCircle && b.Shape == components.ShapeCircle:
		m, ok = collideCircles(ca, a.Radius, cb, b.Radius, mg)
	case a.Shape == components.ShapeCircle:
		var v, nr [4]Vec
		boxHullOf(b, &v, &nr)
		m, ok = collidePolygonCircle(v[:], nr[:], ca, a.Radius, mg)
		m.n = m.n.Scale(-1)
	case b.Shape == components.ShapeCircle:
		var v, nr [4]Vec
		boxHullOf(a, &v, &nr)
		m, ok = collidePolygonCircle(v[:], nr[:], cb, b.Radius, mg)
	default:
		var va, na, vb, nb [4]Vec
		boxHullOf(a, &va, &na)
		boxHullOf(b, &vb, &nb)
		m, ok = collideBoxes(&va, &na, &vb, &nb, mg)
	}
	if !ok {
		return
	}
	addContact(&s.dyn, &m, i, j, ca, cb, sqrt32(a.Friction*b.Friction), max32(a.Restitution, b.Restitution))
}

// addContact appends the contact of manifold m between i and j (solver
// slots) to list, written in place: the contact is large, and a value
// built and then appended is copied twice.
func addContact(list *[]contact, m *manifold, i, j int32, ca, cb Vec, mu, e float32) {
	k := len(*list)
	if k == cap(*list) {
		*list = append(headroom.Ahead(*list, 1), contact{})
	} else {
		*list = (*list)[:k+1]
	}
	c := &(*list)[k]
	*c = contact{}
	c.a, c.b, c.n, c.count, c.friction, c.restitution = i, j, m.n, m.count, mu, e
	for q := int32(0); q < m.count; q++ {
		p := &c.pts[q]
		p.p = m.p[q]
		p.rA, p.rB, p.sep = m.p[q].Sub(ca), m.p[q].Sub(cb), m.sep[q]
	}
}

// collideStatics makes the contacts with the static world of the flagged
// bodies, in body order. The flagged are listed without a branch on each (a
// coin toss in a city), and most are dismissed by a look at the squares of
// the buildings' bounding boxes: a body whose box (grown by its shove)
// touches none of them, far from the edge, has no building to collide with.
func (s *Scratch) collideStatics(st *Static, list []Body, dt float32) {
	tmp, bnd := s.tmp, s.bnd[:len(s.tmp)]
	s.near = growInt32(s.near, len(tmp))
	near, k := s.near, 0
	for i := range tmp {
		near[k] = int32(i)
		k += b2i(tmp[i].static)
	}
	f := &st.boxes
	bits, stride := f.bits, f.stride
	fx0, fy0, nx, ny := f.x0, f.y0, f.nx, f.ny
	in := st.inner
	for _, i := range near[:k] {
		// A body shoved by a faster one may cross more than its own
		// motion this step: look, and make speculative contacts, that
		// much farther (with a quarter more for a bounce).
		shove := 1.25 * tmp[i].pushed * dt
		lo, hi := bnd[i].lo.Sub(Vec{shove, shove}), bnd[i].hi.Add(Vec{shove, shove})
		nearEdge := lo.X < in.Min.X || hi.X > in.Max.X || lo.Y < in.Min.Y || hi.Y > in.Max.Y
		if !nearEdge {
			// f.touches(lo, hi), written out where the squares share a
			// word and four rows (nearly always).
			x0, x1 := f.cellBelow(lo.X)-fx0, f.cell(hi.X)-fx0
			y0, y1 := f.cellBelow(lo.Y)-fy0, f.cell(hi.Y)-fy0
			w0, d := x0>>6, y1-y0
			if x0 < 0 || y0 < 0 || x1 >= nx || y1 >= ny || w0 != x1>>6 || d >= 4 {
				if !f.touches(lo, hi) {
					continue
				}
			} else {
				m := ^uint64(0) << (x0 & 63) & (^uint64(0) >> (63 - x1&63))
				k0 := y0*stride + w0
				k1 := k0 + stride*((d+3)>>2)
				k2 := k0 + stride*(d-(d>>1&d&1))
				k3 := k0 + stride*d
				if (bits[k0]|bits[k1]|bits[k2]|bits[k3])&m == 0 {
					continue
				}
			}
		}
		s.collideStatic(st, list, i, lo, hi, shove, nearEdge, dt)
	}
}

// collideStatic makes body i's contacts with the buildings whose bounding
// boxes meet lo..hi and with the level's edge.
func (s *Scratch) collideStatic(st *Static, list []Body, i int32, lo, hi Vec, shove float32, nearEdge bool, dt float32) {
	a := &list[i]
	x0, y0, x1, y1 := st.cellRange(lo, hi)
	cand := s.cand[:0]
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for k, items := 0, st.items(y*st.nx+x); k < len(items); k++ {
				it := &items[k]
				if it.min.X > hi.X || it.max.X < lo.X || it.min.Y > hi.Y || it.max.Y < lo.Y {
					continue
				}
				cand = append(headroom.Ahead(cand, 1), it.poly)
			}
		}
	}
	if len(cand) == 0 && !nearEdge {
		return
	}
	s.cand = cand

	ws := int32(len(list)) // the static world's solver slot
	c := Flat(a.Pose.Pos)
	mg := s.margin(i, ws, dt) + shove
	mu, e := sqrt32(a.Friction*st.Friction), max32(a.Restitution, st.Restitution)
	circle := a.Shape == components.ShapeCircle
	var hv, hn [4]Vec
	if !circle {
		boxHullOf(a, &hv, &hn)
	}
	if len(cand) > 1 {
		cand = sortUnique(cand)
	}
	for _, pi := range cand {
		v, nr := st.polyVerts(pi)
		var m manifold
		var ok bool
		if circle {
			m, ok = collidePolygonCircle(v, nr, c, a.Radius, mg)
			m.n = m.n.Scale(-1)
		} else {
			m, ok = collidePolygons(hv[:], hn[:], v, nr, mg)
		}
		if ok {
			addContact(&s.stat, &m, i, ws, c, c, mu, e)
		}
	}
	if !nearEdge {
		return
	}
	// The walls at the level's edge: half-planes beyond each side.
	bd := st.Bounds
	if lo.X < bd.Min.X {
		s.wall(Vec{-1, 0}, -bd.Min.X, a, i, c, &hv, mg, mu, e)
	}
	if hi.X > bd.Max.X {
		s.wall(Vec{1, 0}, bd.Max.X, a, i, c, &hv, mg, mu, e)
	}
	if lo.Y < bd.Min.Y {
		s.wall(Vec{0, -1}, -bd.Min.Y, a, i, c, &hv, mg, mu, e)
	}
	if hi.Y > bd.Max.Y {
		s.wall(Vec{0, 1}, bd.Max.Y, a, i, c, &hv, mg, mu, e)
	}
}

func (s *Scratch) wall(n Vec, off float32, a *Body, i int32, c Vec, corners *[4]Vec, mg, mu, e float32) {
	m, ok := collideWall(n, off, a.Shape == components.ShapeCircle, c, a.Radius, corners, mg)
	if ok {
		addContact(&s.stat, &m, i, int32(len(s.tmp)), c, c, mu, e)
	}
}

// sortInt32 sorts a short list ascending by insertion.
func sortInt32(c []int32) {
	for k := 1; k < len(c); k++ {
		v := c[k]
		m := k - 1
		for m >= 0 && c[m] > v {
			c[m+1] = c[m]
			m--
		}
		c[m+1] = v
	}
}

// sortUnique sorts a short list ascending by insertion and drops repeats.
func sortUnique(c []int32) []int32 {
	sortInt32(c)
	out := c[:1]
	for _, v := range c[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// b2i is 1 for true, 0 for false, without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
