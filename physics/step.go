package physics

import (
	"slices"

	"github.com/fiveonit/engine/components"
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
	sb      []solverBody
	grid    []int32  // per bucket its first proxy, and the end; len buckets+1
	proxies []proxy  // the grid's entries, bucket after bucket
	entries []entry  // the grid's entries in body order, between count and fill
	multi   []uint32 // buckets holding two entries or more
	pairs   []uint64 // candidate pairs, i<<32 | j with i < j
	cand    []int32
	dyn     []contact
	stat    []contact
	hitches []hitchTmp
	shift   uint32
}

// bodyTmp is a body's per-step derived data.
type bodyTmp struct {
	lo, hi Vec     // bounds swept over the step
	spin   float32 // the speed of its farthest point about its centre, |w| times its bounding radius
	pushed float32 // the fastest partner point's speed (|vx|+|vy|+spin): how fast this body may be shoved
	ok     bool    // finite state: takes part in collision
	static bool    // movable and near a building or the level's edge: look them up
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

func (s *Scratch) reserve(n int) {
	if cap(s.tmp) < n || cap(s.sb) < n+1 {
		s.tmp = make([]bodyTmp, n, n+n/4)
		s.sb = make([]solverBody, n+1, n+n/4+1)
	}
	if cap(s.dyn) < n {
		s.dyn = make([]contact, 0, n)
		s.stat = make([]contact, 0, n/2+8)
		s.Hits = make([]Hit, 0, n)
		s.pairs = make([]uint64, 0, n)
		s.multi = make([]uint32, 0, n)
		s.entries = make([]entry, 0, 3*n)
	}
	s.tmp = s.tmp[:n]
	s.sb = s.sb[:n+1]
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
	s.broadPhase(st, b.List)
	pairs := s.pairs
	k := 0
	for i := 0; i < n; i++ {
		for ; k < len(pairs) && int32(pairs[k]>>32) == int32(i); k++ {
			s.collidePair(b.List, int32(i), int32(uint32(pairs[k])), dt)
		}
		if s.tmp[i].static {
			s.collideStatic(st, b.List, int32(i), dt)
		}
	}
	s.solve(b, dt)
	ground := float32(0)
	if st != nil {
		ground = st.GroundZ
	}
	s.finish(b.List, dt, ground)
}

// prepare derives each body's swept bounds and solver state, and files it
// into the dynamic grid's count: its entries (bucket and body), each
// bucket's count, the buckets that come to hold two, and whether it is near
// a building or the level's edge.
func (s *Scratch) prepare(st *Static, list []Body, dt float32) {
	n := len(list)
	// Two buckets a body (which covers about two cells): the table follows
	// the bodies, not the level, and stays mostly single-entry buckets.
	bits := uint32(4)
	for 1<<bits < 2*n {
		bits++
	}
	size := 1 << bits
	s.shift = 32 - bits
	s.grid = growInt32(s.grid, size+1)
	clear(s.grid)
	grid, entries, multi := s.grid, s.entries[:0], s.multi[:0]

	var in Rect
	var fine *fineGrid
	if st != nil {
		in, fine = st.inner, &st.fine
	}
	tmp, sbs := s.tmp[:n], s.sb[:n+1]
	for i := range list {
		bd := &list[i]
		t := &tmp[i]
		sb := &sbs[i]
		px, py := bd.Pose.Pos.X, bd.Pose.Pos.Y
		vx, vy, w := bd.Vel.Lin.X, bd.Vel.Lin.Y, bd.Vel.Ang.Z
		t.ok = finite(px + py + vx + vy + w + bd.Pose.Rot.Z + bd.Pose.Rot.W)
		if !t.ok {
			*sb = solverBody{}
			t.static = false
			continue
		}
		*sb = solverBody{v: Vec{vx, vy}, w: w, invM: bd.InvMass, invI: bd.InvInertia}
		t.pushed = 0
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
		t.spin = abs32(w) * ext
		grow := t.spin*dt + SpeculativeSlop
		ex += grow
		ey += grow
		dx, dy := vx*dt, vy*dt
		lo := Vec{px - ex + neg0(dx), py - ey + neg0(dy)}
		hi := Vec{px + ex + pos0(dx), py + ey + pos0(dy)}
		t.lo, t.hi = lo, hi
		movable := bd.InvMass != 0
		near := st != nil && movable &&
			(lo.X < in.Min.X || hi.X > in.Max.X || lo.Y < in.Min.Y || hi.Y > in.Max.Y)

		x0, y0 := cellOf(lo.X), cellOf(lo.Y)
		x1 := min32i(cellOf(hi.X), x0+maxSpan-1)
		y1 := min32i(cellOf(hi.Y), y0+maxSpan-1)
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				h := s.bucket(x, y)
				entries = append(entries, entry{h, int32(i)})
				grid[h]++
				if grid[h] == 2 {
					multi = append(multi, h)
				}
			}
		}
		if movable && !near && fine != nil {
			near = fine.nearBuilding(lo, hi)
		}
		t.static = near
	}
	sbs[n] = solverBody{} // the static world's slot
	s.entries, s.multi = entries, multi
}

// entry is one body's entry in a grid cell, before the fill: the cell's
// bucket and the body.
type entry struct {
	h uint32
	i int32
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

// proxy is one body's entry in one grid cell: its swept bounds and index,
// inline so that the sweep over a bucket reads one run of memory.
type proxy struct {
	lo, hi Vec
	i      int32
}

func (s *Scratch) bucket(x, y int32) uint32 {
	h := uint32(x)*0x9E3779B1 ^ uint32(y)*0x85EBCA77
	h ^= h >> 15
	h *= 0x2C1B3C6D
	return h >> s.shift
}

// broadPhase finds the pairs of bodies whose swept bounds overlap and whose
// layers collide, as s.pairs sorted by (i, j), and flags the bodies whose
// cells hold static polygons.
//
// The grid is uniform, hashed into a table of two buckets per body (prepare
// counts into it) so that its size follows the bodies and not the level,
// with no map; a counting sort
// files each body's proxy under every cell its bounds touch; then a sweep
// over the buckets holding two or more tests the proxies sharing a bucket. A
// pair is taken only in the bucket of the cell holding the low corner of
// the overlap of its bounds (its owner cell, which both bodies touch), and
// there once, skipping a body's second entry in a bucket, so it is found
// exactly once.
func (s *Scratch) broadPhase(st *Static, list []Body) {
	grid, entries, multi := s.grid, s.entries, s.multi
	size := len(grid) - 1
	var sum int32
	for h := range grid[:size] {
		sum += grid[h]
		grid[h] = sum
	}
	grid[size] = sum
	// Fill each bucket from its end, walking the entries backwards, so
	// that grid[h] becomes the bucket's start (and grid[h+1] its end) and
	// each bucket lists its bodies in ascending index.
	s.proxies = growProxies(s.proxies, len(entries))
	px, tmp := s.proxies, s.tmp
	for e := len(entries) - 1; e >= 0; e-- {
		h, i := entries[e].h, entries[e].i
		t := &tmp[i]
		grid[h]--
		px[grid[h]] = proxy{lo: t.lo, hi: t.hi, i: i}
	}

	pairs := s.pairs[:0]
	for _, h := range multi {
		start, end := grid[h], grid[h+1]
		for a := start; a < end-1; a++ {
			p := &px[a]
			if a > start && px[a-1].i == p.i {
				continue // the body's second cell in this bucket
			}
			for b := a + 1; b < end; b++ {
				q := &px[b]
				if q.i == px[b-1].i {
					continue // p itself again, or q's second cell
				}
				if q.lo.X > p.hi.X || q.hi.X < p.lo.X || q.lo.Y > p.hi.Y || q.hi.Y < p.lo.Y {
					continue
				}
				if s.bucket(cellOf(max32(p.lo.X, q.lo.X)), cellOf(max32(p.lo.Y, q.lo.Y))) != h {
					continue // taken in the bucket of its owner cell
				}
				if !collides(&list[p.i], &list[q.i], p.i, q.i) {
					continue
				}
				pairs = append(pairs, uint64(p.i)<<32|uint64(q.i)) // p.i < q.i: buckets ascend
				// Either may be shoved at the other's fastest point's
				// speed this step, and then into a wall.
				ti, tj := &s.tmp[p.i], &s.tmp[q.i]
				bi, bj := &s.sb[p.i], &s.sb[q.i]
				ti.pushed = max32(ti.pushed, abs32(bj.v.X)+abs32(bj.v.Y)+tj.spin)
				tj.pushed = max32(tj.pushed, abs32(bi.v.X)+abs32(bi.v.Y)+ti.spin)
				ti.static = st != nil && list[p.i].InvMass != 0
				tj.static = st != nil && list[q.i].InvMass != 0
			}
		}
	}
	slices.Sort(pairs)
	s.pairs = pairs
	s.Stats.Candidates = len(pairs)
}

func growInt32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n, n+n/2)
	}
	return b[:n]
}

func growProxies(b []proxy, n int) []proxy {
	if cap(b) < n {
		return make([]proxy, n, n+n/2)
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
func collides(a, b *Body, i, j int32) bool {
	return a.Mask&b.Layer != 0 && b.Mask&a.Layer != 0 &&
		a.NoCollide != j+1 && b.NoCollide != i+1 &&
		(a.InvMass != 0 || b.InvMass != 0)
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
		m, ok = collidePolygons(va[:], na[:], vb[:], nb[:], mg)
	}
	if !ok {
		return
	}
	s.dyn = append(s.dyn, s.makeContact(&m, i, j, ca, cb,
		sqrt32(a.Friction*b.Friction), max32(a.Restitution, b.Restitution)))
}

func (s *Scratch) makeContact(m *manifold, i, j int32, ca, cb Vec, mu, e float32) contact {
	c := contact{a: i, b: j, n: m.n, count: m.count, friction: mu, restitution: e}
	for k := int32(0); k < m.count; k++ {
		p := m.p[k]
		c.pts[k] = contactPoint{rA: p.Sub(ca), rB: p.Sub(cb), sep: m.sep[k], p: p}
	}
	return c
}

// collideStatic makes body i's contacts with the buildings near it and with
// the level's edge.
func (s *Scratch) collideStatic(st *Static, list []Body, i int32, dt float32) {
	a := &list[i]
	t := &s.tmp[i]
	// A body shoved by a faster one may cross more than its own motion
	// this step: look, and make speculative contacts, that much farther
	// (with a quarter more for a bounce).
	shove := 1.25 * t.pushed * dt
	lo, hi := t.lo.Sub(Vec{shove, shove}), t.hi.Add(Vec{shove, shove})
	x0, y0, x1, y1 := st.cellRange(lo, hi)
	cand := s.cand[:0]
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for k, items := 0, st.items(y*st.nx+x); k < len(items); k++ {
				it := &items[k]
				if it.min.X > hi.X || it.max.X < lo.X || it.min.Y > hi.Y || it.max.Y < lo.Y {
					continue
				}
				cand = append(cand, it.poly)
			}
		}
	}
	in := st.inner
	nearEdge := lo.X < in.Min.X || hi.X > in.Max.X || lo.Y < in.Min.Y || hi.Y > in.Max.Y
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
			s.stat = append(s.stat, s.makeContact(&m, i, ws, c, c, mu, e))
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
		s.stat = append(s.stat, s.makeContact(&m, i, int32(len(s.tmp)), c, c, mu, e))
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
