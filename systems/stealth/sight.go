package stealth

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
)

// occluder is a body that may stand in a line of sight: a vehicle (a box)
// or a person on foot (a circle).
type occluder struct {
	e      ecs.Entity
	pos    phys.Vec
	co, si float32 // a box's heading
	hx, hy float32 // a box's half extents; a circle's radius in hx
	box    bool
}

// gatherBodies files, once a tick and only when a look needs them, the
// bodies tall enough to hide a player within the sentries' reach: the
// vehicles and shut gates, and the living people on foot.
func (s *System) gatherBodies(w *ecs.World) {
	if s.bodiesAt == w.Tick()+1 {
		return
	}
	s.bodiesAt = w.Tick() + 1
	s.bodies = s.bodies[:0]
	// Only the bodies within the sentries' reach can stand in a look.
	r := s.Tuning.RangeAt(s.light) + bodyReach
	lo, hi := phys.Vec{X: math32.MaxFloat32, Y: math32.MaxFloat32}, phys.Vec{X: -math32.MaxFloat32, Y: -math32.MaxFloat32}
	for i := range s.sentries {
		p := s.sentries[i].pos
		lo = phys.Vec{X: min(lo.X, p.X-r), Y: min(lo.Y, p.Y-r)}
		hi = phys.Vec{X: max(hi.X, p.X+r), Y: max(hi.Y, p.Y+r)}
	}
	in := func(p phys.Vec) bool { return p.X >= lo.X && p.X <= hi.X && p.Y >= lo.Y && p.Y <= hi.Y }
	cover := s.Tuning.CoverHeight
	vq := s.vehicleQ.Query(w.Arche)
	for vq.Next() {
		pose, b, _ := vq.Get()
		if b.Mask == 0 || b.Height < cover || !in(phys.Flat(pose.Pos)) {
			continue // an open gate, low, or far
		}
		co, si := pose.Rot.Heading()
		s.bodies = append(s.bodies, occluder{e: vq.Entity(), pos: phys.Flat(pose.Pos), co: co, si: si, hx: b.HalfX, hy: b.HalfY, box: b.Shape == components.ShapeBox})
	}
	pq := s.personQ.Query(w.Arche)
	for pq.Next() {
		pose, b, seat, hp := pq.Get()
		if !seat.Vehicle.IsZero() || hp.HP == 0 || b.Height < cover || !in(phys.Flat(pose.Pos)) {
			continue
		}
		s.bodies = append(s.bodies, occluder{e: pq.Entity(), pos: phys.Flat(pose.Pos), hx: b.Radius})
	}
	s.bpts = s.bpts[:0]
	for i := range s.bodies {
		s.bpts = append(s.bpts, s.bodies[i].pos)
	}
	s.bgrid.Build(s.bpts)
}

// sight returns how much of t a look from eye sees: the share (0, 1/3,
// 2/3 or 1) of the rays to its middle and its two sides that no building
// taller than the eye blocks, nor (with bodies) a body in the way other
// than self, t and what t rides. ok is false when the tick's rays ran out
// first.
func (s *System) sight(w *ecs.World, eye phys.Vec, t *target, self ecs.Entity, bodies bool) (vis float32, ok bool) {
	if s.rays+3 > s.Tuning.MaxRays {
		return 0, false
	}
	d := t.pos.Sub(eye)
	l := d.Len()
	var side phys.Vec
	if l > 1e-3 {
		side = phys.Vec{X: -d.Y / l, Y: d.X / l}.Scale(0.9 * t.r)
	}
	clear := 0
	for _, k := range [3]float32{0, 1, -1} {
		p := t.pos.Add(side.Scale(k))
		s.rays++
		if s.static != nil && !s.static.SegmentClearAbove(eye, p, s.Tuning.EyeHeight) {
			continue
		}
		if bodies && !s.bodiesClear(w, eye, p, self, t) {
			continue
		}
		clear++
	}
	return float32(clear) / 3, true
}

// bodiesClear reports whether no body stands on the segment a-b, other
// than self, t's own and the vehicle t rides.
func (s *System) bodiesClear(w *ecs.World, a, b phys.Vec, self ecs.Entity, t *target) bool {
	s.gatherBodies(w)
	lo := nav.Vec{X: min(a.X, b.X) - bodyReach, Y: min(a.Y, b.Y) - bodyReach}
	hi := nav.Vec{X: max(a.X, b.X) + bodyReach, Y: max(a.Y, b.Y) + bodyReach}
	x0, y0, x1, y1 := s.bgrid.Range(lo, hi)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, i := range s.bgrid.Cell(x, y) {
				o := &s.bodies[i]
				if o.e == self || o.e == t.e || o.e == t.car {
					continue
				}
				if o.blocks(a, b) {
					return false
				}
			}
		}
	}
	return true
}

// blocks reports whether the segment a-b passes through o.
func (o *occluder) blocks(a, b phys.Vec) bool {
	if !o.box {
		return segDist2(o.pos, a, b) < o.hx*o.hx
	}
	// Into the box's frame, then the slabs of its two axes.
	ra, rb := a.Sub(o.pos), b.Sub(o.pos)
	la := phys.Vec{X: ra.X*o.co + ra.Y*o.si, Y: -ra.X*o.si + ra.Y*o.co}
	lb := phys.Vec{X: rb.X*o.co + rb.Y*o.si, Y: -rb.X*o.si + rb.Y*o.co}
	d := lb.Sub(la)
	t0, t1 := float32(0), float32(1)
	return slab(la.X, d.X, o.hx, &t0, &t1) && slab(la.Y, d.Y, o.hy, &t0, &t1)
}

// slab narrows [t0, t1] to where o + t*d lies within [-h, h].
func slab(o, d, h float32, t0, t1 *float32) bool {
	if d == 0 {
		return o >= -h && o <= h
	}
	a, b := (-h-o)/d, (h-o)/d
	if a > b {
		a, b = b, a
	}
	*t0 = max(*t0, a)
	*t1 = min(*t1, b)
	return *t0 <= *t1
}

// segDist2 returns the squared distance from p to the segment a-b.
func segDist2(p, a, b phys.Vec) float32 {
	ab := b.Sub(a)
	t := float32(0)
	if l2 := ab.Dot(ab); l2 > 0 {
		t = min(max(p.Sub(a).Dot(ab)/l2, 0), 1)
	}
	q := p.Sub(a.Add(ab.Scale(t)))
	return q.Dot(q)
}

// inCone reports whether p lies within half (rad) of the heading fwd (a
// unit vector) seen from eye; a point at the eye is in.
func inCone(eye, fwd, p phys.Vec, half float32) bool {
	d := p.Sub(eye)
	l := d.Len()
	return l < 1e-3 || d.Dot(fwd) >= l*math32.Cos(half)
}

// sheltered reports whether t rides a car the sentries and cameras do not
// know to be stolen: they pay it no mind (unless it is the one they are
// after, known).
func (s *System) sheltered(t *target, known bool) bool {
	return !t.car.IsZero() && !known && !s.book.Stolen(t.car)
}
