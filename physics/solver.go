package physics

import (
	"math"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/internal/headroom"
)

// cross of a scalar angular velocity w with r: w ẑ × r.
func crossW(w float32, r Vec) Vec { return Vec{-w * r.Y, w * r.X} }

// solve runs the sequential-impulse solver. Iterations times it solves the
// hitches, then the contacts between bodies, then those with the static
// world: last, so that a wall has the final word over a body pushed into it.
// Then come the restitution pass, and a last pass of the static contacts'
// normals, so that a bounce off one body cannot drive another into a wall.
func (s *Scratch) solve(b *Bodies, dt float32) {
	inv := 1 / dt
	for k := range s.dyn {
		s.prepareContact(&s.dyn[k], inv)
	}
	for k := range s.stat {
		s.prepareContact(&s.stat[k], inv)
	}
	s.Stats.Contacts = len(s.dyn)
	s.Stats.StaticContacts = len(s.stat)
	s.prepareHitches(b, inv)

	iters := s.Iterations
	if iters <= 0 {
		iters = SolverIterations
	}
	sbs := s.sb
	for it := 0; it < iters; it++ {
		for k := range s.hitches {
			s.solveHitch(&s.hitches[k])
		}
		for k := range s.dyn {
			c := &s.dyn[k]
			if c.count == 1 {
				solvePoint(c, &sbs[c.a], &sbs[c.b])
			} else {
				solveTwo(c, &sbs[c.a], &sbs[c.b])
			}
		}
		for k := range s.stat {
			c := &s.stat[k]
			if c.count == 1 {
				solvePoint(c, &sbs[c.a], &sbs[c.b])
			} else {
				solveTwo(c, &sbs[c.a], &sbs[c.b])
			}
		}
	}
	for k := range s.dyn {
		s.restitute(&s.dyn[k])
	}
	for k := range s.stat {
		s.restitute(&s.stat[k])
	}
	for k := range s.stat {
		c := &s.stat[k]
		A, B := &s.sb[c.a], &s.sb[c.b]
		A.v, A.w, B.v, B.w = solveNormal(c, A, B, A.v, A.w, B.v, B.w, false)
	}
	s.hits()
}

// blockCond caps the condition number of a two-point contact's matrix for
// the block solver; beyond it (two points nearly one) the points are solved
// one after the other.
const blockCond = 1000

func (s *Scratch) prepareContact(c *contact, invDt float32) {
	A, B := &s.sb[c.a], &s.sb[c.b]
	n := c.n
	t := Vec{-n.Y, n.X}
	for k := int32(0); k < c.count; k++ {
		p := &c.pts[k]
		rnA, rnB := p.rA.Cross(n), p.rB.Cross(n)
		kn := A.invM + B.invM + A.invI*rnA*rnA + B.invI*rnB*rnB
		rtA, rtB := p.rA.Cross(t), p.rB.Cross(t)
		kt := A.invM + B.invM + A.invI*rtA*rtA + B.invI*rtB*rtB
		p.nMass, p.tMass = 0, 0
		if kn > 0 {
			p.nMass = 1 / kn
		}
		if kt > 0 {
			p.tMass = 1 / kt
		}
		dv := B.v.Add(crossW(B.w, p.rB)).Sub(A.v).Sub(crossW(A.w, p.rA))
		p.vn0 = dv.Dot(n)
		// Apart: they may close the gap this step, no more (speculative).
		// Touching: they may not close at all; bounce comes after.
		p.target = 0
		if p.sep > 0 {
			p.target = -p.sep * invDt
		}
		p.bias = 0
		if pen := -p.sep - Slop; pen > 0 {
			p.bias = min32(Beta*pen*invDt, MaxPush)
		}
	}
	c.block = false
	if c.count == 2 {
		p0, p1 := &c.pts[0], &c.pts[1]
		r0A, r0B := p0.rA.Cross(n), p0.rB.Cross(n)
		r1A, r1B := p1.rA.Cross(n), p1.rB.Cross(n)
		k11 := A.invM + B.invM + A.invI*r0A*r0A + B.invI*r0B*r0B
		k22 := A.invM + B.invM + A.invI*r1A*r1A + B.invI*r1B*r1B
		k12 := A.invM + B.invM + A.invI*r0A*r1A + B.invI*r0B*r1B
		if k11*k11 < blockCond*(k11*k22-k12*k12) {
			c.block = true
			c.k12 = k12
		}
	}
}

// relNormal returns the normal velocity of B relative to A at point p.
func relNormal(p *contactPoint, n, vA Vec, wA float32, vB Vec, wB float32) float32 {
	return (vB.X-wB*p.rB.Y-vA.X+wA*p.rA.Y)*n.X + (vB.Y+wB*p.rB.X-vA.Y-wA*p.rA.X)*n.Y
}

// solveNormal applies the normal impulses of c's points toward their
// targets (velocity, or with push the split impulses toward bias): a point
// at a time, or both at once by Box2D's block solver, which finds the
// impulses (x1, x2) >= 0 leaving each point at or above its target, and at
// its target where it pushes, exactly. It returns the new velocities.
func solveNormal(c *contact, A, B *solverBody, vA Vec, wA float32, vB Vec, wB float32, push bool) (Vec, float32, Vec, float32) {
	n := c.n
	mA, iA, mB, iB := A.invM, A.invI, B.invM, B.invI
	p0, p1 := &c.pts[0], &c.pts[1]
	if !c.block {
		for k := int32(0); k < c.count; k++ {
			p := &c.pts[k]
			acc, target := &p.pn, p.target
			if push {
				acc, target = &p.pp, p.bias
			}
			lam := p.nMass * (target - relNormal(p, n, vA, wA, vB, wB))
			old := *acc
			*acc = max32(old+lam, 0)
			vA, wA, vB, wB = applyNormal(p, n, *acc-old, mA, iA, mB, iB, vA, wA, vB, wB)
		}
		return vA, wA, vB, wB
	}
	a0, a1, t0, t1 := p0.pn, p1.pn, p0.target, p1.target
	if push {
		a0, a1, t0, t1 = p0.pp, p1.pp, p0.bias, p1.bias
	}
	k11, k22, k12 := 1/p0.nMass, 1/p1.nMass, c.k12
	// b is what the velocities less the targets would be with no impulse.
	b0 := relNormal(p0, n, vA, wA, vB, wB) - t0 - (k11*a0 + k12*a1)
	b1 := relNormal(p1, n, vA, wA, vB, wB) - t1 - (k12*a0 + k22*a1)
	var x0, x1 float32
	det := k11*k22 - k12*k12
	switch {
	case solveBoth(b0, b1, k11, k12, k22, det, &x0, &x1):
	case -b0/k11 >= 0 && k12*(-b0/k11)+b1 >= 0:
		x0, x1 = -b0/k11, 0
	case -b1/k22 >= 0 && k12*(-b1/k22)+b0 >= 0:
		x0, x1 = 0, -b1/k22
	case b0 >= 0 && b1 >= 0:
		x0, x1 = 0, 0
	default:
		// No case holds: rounding at a degenerate configuration. Leave the
		// impulses as they are this pass.
		return vA, wA, vB, wB
	}
	vA, wA, vB, wB = applyNormal(p0, n, x0-a0, mA, iA, mB, iB, vA, wA, vB, wB)
	vA, wA, vB, wB = applyNormal(p1, n, x1-a1, mA, iA, mB, iB, vA, wA, vB, wB)
	if push {
		p0.pp, p1.pp = x0, x1
	} else {
		p0.pn, p1.pn = x0, x1
	}
	return vA, wA, vB, wB
}

// applyNormal applies the impulse lam along n at p to the velocities.
func applyNormal(p *contactPoint, n Vec, lam, mA, iA, mB, iB float32, vA Vec, wA float32, vB Vec, wB float32) (Vec, float32, Vec, float32) {
	px, py := n.X*lam, n.Y*lam
	vA = Vec{vA.X - px*mA, vA.Y - py*mA}
	wA -= iA * (p.rA.X*py - p.rA.Y*px)
	vB = Vec{vB.X + px*mB, vB.Y + py*mB}
	wB += iB * (p.rB.X*py - p.rB.Y*px)
	return vA, wA, vB, wB
}

// maxb and minb are max32 and min32 with a branch: the same result bit for
// bit (the sign of a-b decides), but a branch, well predicted in a
// contact's steady state, keeps the choice off the chain of dependent
// arithmetic that a contact's solve is, which the bit trick lengthens.
func maxb(a, b float32) float32 {
	if int32(math.Float32bits(a-b)) < 0 {
		return b
	}
	return a
}

func minb(a, b float32) float32 {
	if int32(math.Float32bits(a-b)) < 0 {
		return a
	}
	return b
}

// solvePoint is solveContact for a contact of one point (most of them),
// written out: friction, the normal impulse, and the split push. It does
// what solveContact does, operation for operation.
func solvePoint(c *contact, A, B *solverBody) {
	p := &c.pts[0]
	nx, ny := c.n.X, c.n.Y
	tx, ty := -ny, nx
	mA, iA, mB, iB := A.invM, A.invI, B.invM, B.invI
	rAx, rAy, rBx, rBy := p.rA.X, p.rA.Y, p.rB.X, p.rB.Y
	vAx, vAy, wA := A.v.X, A.v.Y, A.w
	vBx, vBy, wB := B.v.X, B.v.Y, B.w

	// Friction, bounded by the normal impulse so far.
	dvx := vBx - wB*rBy - vAx + wA*rAy
	dvy := vBy + wB*rBx - vAy - wA*rAx
	lam := -p.tMass * (dvx*tx + dvy*ty)
	maxF := c.friction * p.pn
	old := p.pt
	pt := maxb(-maxF, minb(old+lam, maxF))
	p.pt = pt
	lam = pt - old
	px, py := tx*lam, ty*lam
	vAx, vAy = vAx-px*mA, vAy-py*mA
	wA -= iA * (rAx*py - rAy*px)
	vBx, vBy = vBx+px*mB, vBy+py*mB
	wB += iB * (rBx*py - rBy*px)

	// The normal impulse toward the target.
	rel := (vBx-wB*rBy-vAx+wA*rAy)*nx + (vBy+wB*rBx-vAy-wA*rAx)*ny
	lam = p.nMass * (p.target - rel)
	old = p.pn
	pn := maxb(old+lam, 0)
	p.pn = pn
	lam = pn - old
	px, py = nx*lam, ny*lam
	A.v = Vec{vAx - px*mA, vAy - py*mA}
	A.w = wA - iA*(rAx*py-rAy*px)
	B.v = Vec{vBx + px*mB, vBy + py*mB}
	B.w = wB + iB*(rBx*py-rBy*px)

	// The split push, on the pseudo velocities.
	if A.pv.X == 0 && A.pv.Y == 0 && A.pw == 0 && B.pv.X == 0 && B.pv.Y == 0 && B.pw == 0 && p.bias == 0 {
		return
	}
	vAx, vAy, wA = A.pv.X, A.pv.Y, A.pw
	vBx, vBy, wB = B.pv.X, B.pv.Y, B.pw
	rel = (vBx-wB*rBy-vAx+wA*rAy)*nx + (vBy+wB*rBx-vAy-wA*rAx)*ny
	lam = p.nMass * (p.bias - rel)
	old = p.pp
	pp := maxb(old+lam, 0)
	p.pp = pp
	lam = pp - old
	px, py = nx*lam, ny*lam
	A.pv = Vec{vAx - px*mA, vAy - py*mA}
	A.pw = wA - iA*(rAx*py-rAy*px)
	B.pv = Vec{vBx + px*mB, vBy + py*mB}
	B.pw = wB + iB*(rBx*py-rBy*px)
}

// solveTwo is solveContact for a contact of two points, written out on
// scalars: it does what solveContact does, operation for operation.
func solveTwo(c *contact, A, B *solverBody) {
	p0, p1 := &c.pts[0], &c.pts[1]
	nx, ny := c.n.X, c.n.Y
	tx, ty := -ny, nx
	mA, iA, mB, iB := A.invM, A.invI, B.invM, B.invI
	vAx, vAy, wA := A.v.X, A.v.Y, A.w
	vBx, vBy, wB := B.v.X, B.v.Y, B.w

	// Friction at each point, bounded by its normal impulse so far.
	for _, p := range [2]*contactPoint{p0, p1} {
		dvx := vBx - wB*p.rB.Y - vAx + wA*p.rA.Y
		dvy := vBy + wB*p.rB.X - vAy - wA*p.rA.X
		lam := -p.tMass * (dvx*tx + dvy*ty)
		maxF := c.friction * p.pn
		old := p.pt
		pt := maxb(-maxF, minb(old+lam, maxF))
		p.pt = pt
		lam = pt - old
		px, py := tx*lam, ty*lam
		vAx, vAy = vAx-px*mA, vAy-py*mA
		wA -= iA * (p.rA.X*py - p.rA.Y*px)
		vBx, vBy = vBx+px*mB, vBy+py*mB
		wB += iB * (p.rB.X*py - p.rB.Y*px)
	}
	vAx, vAy, wA, vBx, vBy, wB = normalTwo(c, p0, p1, mA, iA, mB, iB, vAx, vAy, wA, vBx, vBy, wB, false)
	A.v, A.w, B.v, B.w = Vec{vAx, vAy}, wA, Vec{vBx, vBy}, wB

	// The split push, on the pseudo velocities.
	if A.pv.X == 0 && A.pv.Y == 0 && A.pw == 0 && B.pv.X == 0 && B.pv.Y == 0 && B.pw == 0 && p0.bias == 0 && p1.bias == 0 {
		return
	}
	vAx, vAy, wA, vBx, vBy, wB = normalTwo(c, p0, p1, mA, iA, mB, iB, A.pv.X, A.pv.Y, A.pw, B.pv.X, B.pv.Y, B.pw, true)
	A.pv, A.pw, B.pv, B.pw = Vec{vAx, vAy}, wA, Vec{vBx, vBy}, wB
}

// normalTwo is solveNormal for a contact of two points, on scalars.
func normalTwo(c *contact, p0, p1 *contactPoint, mA, iA, mB, iB, vAx, vAy, wA, vBx, vBy, wB float32, push bool) (float32, float32, float32, float32, float32, float32) {
	nx, ny := c.n.X, c.n.Y
	a0, a1, t0, t1 := p0.pn, p1.pn, p0.target, p1.target
	if push {
		a0, a1, t0, t1 = p0.pp, p1.pp, p0.bias, p1.bias
	}
	var x0, x1 float32
	if !c.block {
		// One point after the other.
		rel := (vBx-wB*p0.rB.Y-vAx+wA*p0.rA.Y)*nx + (vBy+wB*p0.rB.X-vAy-wA*p0.rA.X)*ny
		x0 = max32(a0+p0.nMass*(t0-rel), 0)
		lam := x0 - a0
		px, py := nx*lam, ny*lam
		vAx, vAy = vAx-px*mA, vAy-py*mA
		wA -= iA * (p0.rA.X*py - p0.rA.Y*px)
		vBx, vBy = vBx+px*mB, vBy+py*mB
		wB += iB * (p0.rB.X*py - p0.rB.Y*px)
		rel = (vBx-wB*p1.rB.Y-vAx+wA*p1.rA.Y)*nx + (vBy+wB*p1.rB.X-vAy-wA*p1.rA.X)*ny
		x1 = max32(a1+p1.nMass*(t1-rel), 0)
		lam = x1 - a1
		px, py = nx*lam, ny*lam
		vAx, vAy = vAx-px*mA, vAy-py*mA
		wA -= iA * (p1.rA.X*py - p1.rA.Y*px)
		vBx, vBy = vBx+px*mB, vBy+py*mB
		wB += iB * (p1.rB.X*py - p1.rB.Y*px)
	} else {
		k11, k22, k12 := 1/p0.nMass, 1/p1.nMass, c.k12
		// b is what the velocities less the targets would be with no
		// impulse.
		rel0 := (vBx-wB*p0.rB.Y-vAx+wA*p0.rA.Y)*nx + (vBy+wB*p0.rB.X-vAy-wA*p0.rA.X)*ny
		rel1 := (vBx-wB*p1.rB.Y-vAx+wA*p1.rA.Y)*nx + (vBy+wB*p1.rB.X-vAy-wA*p1.rA.X)*ny
		b0 := rel0 - t0 - (k11*a0 + k12*a1)
		b1 := rel1 - t1 - (k12*a0 + k22*a1)
		det := k11*k22 - k12*k12
		switch {
		case solveBoth(b0, b1, k11, k12, k22, det, &x0, &x1):
		case -b0/k11 >= 0 && k12*(-b0/k11)+b1 >= 0:
			x0, x1 = -b0/k11, 0
		case -b1/k22 >= 0 && k12*(-b1/k22)+b0 >= 0:
			x0, x1 = 0, -b1/k22
		case b0 >= 0 && b1 >= 0:
			x0, x1 = 0, 0
		default:
			// No case holds: rounding at a degenerate configuration.
			// Leave the impulses as they are this pass.
			return vAx, vAy, wA, vBx, vBy, wB
		}
		lam := x0 - a0
		px, py := nx*lam, ny*lam
		vAx, vAy = vAx-px*mA, vAy-py*mA
		wA -= iA * (p0.rA.X*py - p0.rA.Y*px)
		vBx, vBy = vBx+px*mB, vBy+py*mB
		wB += iB * (p0.rB.X*py - p0.rB.Y*px)
		lam = x1 - a1
		px, py = nx*lam, ny*lam
		vAx, vAy = vAx-px*mA, vAy-py*mA
		wA -= iA * (p1.rA.X*py - p1.rA.Y*px)
		vBx, vBy = vBx+px*mB, vBy+py*mB
		wB += iB * (p1.rB.X*py - p1.rB.Y*px)
	}
	if push {
		p0.pp, p1.pp = x0, x1
	} else {
		p0.pn, p1.pn = x0, x1
	}
	return vAx, vAy, wA, vBx, vBy, wB
}

// solveBoth solves K x = -b for both points pushing; false if either
// impulse would pull.
func solveBoth(b0, b1, k11, k12, k22, det float32, x0, x1 *float32) bool {
	if !(det > 0) {
		return false
	}
	inv := 1 / det
	*x0 = -(k22*b0 - k12*b1) * inv
	*x1 = -(k11*b1 - k12*b0) * inv
	return *x0 >= 0 && *x1 >= 0
}

// solveContact applies one pass of friction, then the normal impulses and
// the split push impulses, at c's points.
func (s *Scratch) solveContact(c *contact) {
	A, B := &s.sb[c.a], &s.sb[c.b]
	vA, wA, vB, wB := A.v, A.w, B.v, B.w
	mA, iA, mB, iB := A.invM, A.invI, B.invM, B.invI
	n := c.n
	t := Vec{-n.Y, n.X}
	for k := int32(0); k < c.count; k++ {
		p := &c.pts[k]
		// Friction, bounded by the normal impulse so far.
		dv := Vec{vB.X - wB*p.rB.Y - vA.X + wA*p.rA.Y, vB.Y + wB*p.rB.X - vA.Y - wA*p.rA.X}
		lam := -p.tMass * dv.Dot(t)
		maxF := c.friction * p.pn
		old := p.pt
		p.pt = clampFinite(old+lam, -maxF, maxF)
		lam = p.pt - old
		P := t.Scale(lam)
		vA = vA.Sub(P.Scale(mA))
		wA -= iA * p.rA.Cross(P)
		vB = vB.Add(P.Scale(mB))
		wB += iB * p.rB.Cross(P)
	}
	A.v, A.w, B.v, B.w = solveNormal(c, A, B, vA, wA, vB, wB, false)

	// Split impulses: the same constraint on the pseudo velocities, which
	// move the bodies apart this step and are then forgotten. Nothing to do
	// while neither body is being pushed and the contact pushes nothing.
	if A.pv != (Vec{}) || A.pw != 0 || B.pv != (Vec{}) || B.pw != 0 || c.pts[0].bias != 0 || c.pts[1].bias != 0 {
		A.pv, A.pw, B.pv, B.pw = solveNormal(c, A, B, A.pv, A.pw, B.pv, B.pw, true)
	}
}

// restitute bounces the points that were closing faster than
// RestitutionSpeed and took an impulse: their target becomes restitution
// times the closing speed, and the normals are solved again (Box2D's
// restitution pass). A point not bouncing keeps its target, so a block pair
// stays exact.
func (s *Scratch) restitute(c *contact) {
	if c.restitution == 0 {
		return
	}
	bounce := false
	for k := int32(0); k < c.count; k++ {
		p := &c.pts[k]
		if p.vn0 <= -RestitutionSpeed && p.pn > 0 {
			p.target = max32(p.target, -c.restitution*p.vn0)
			bounce = true
		}
	}
	if !bounce {
		return
	}
	A, B := &s.sb[c.a], &s.sb[c.b]
	A.v, A.w, B.v, B.w = solveNormal(c, A, B, A.v, A.w, B.v, B.w, false)
}

// hits reports every contact that exchanged an impulse.
func (s *Scratch) hits() {
	ws := int32(len(s.tmp))
	for _, list := range [2][]contact{s.dyn, s.stat} {
		for k := range list {
			c := &list[k]
			var imp, vn float32
			var pt Vec
			for q := int32(0); q < c.count; q++ {
				p := &c.pts[q]
				imp += p.pn
				vn = min32(vn, p.vn0)
				pt = pt.Add(p.p)
			}
			if !(imp > 0) {
				continue
			}
			b := c.b
			if b == ws {
				b = StaticBody
			}
			s.Hits = append(headroom.Ahead(s.Hits, 1), Hit{
				A: c.a, B: b, Impulse: imp, Speed: -vn,
				Point: pt.Scale(1 / float32(c.count)), Normal: c.n,
			})
		}
	}
}

// prepareHitches turns each hitch into a point constraint: world anchors,
// the inverse of its 2x2 effective mass, and the push removing its drift.
func (s *Scratch) prepareHitches(b *Bodies, invDt float32) {
	s.hitches = s.hitches[:0]
	n := int32(len(b.List))
	for _, h := range b.Hitches {
		if h.A < 0 || h.B < 0 || h.A >= n || h.B >= n || h.A == h.B ||
			!s.tmp[h.A].ok || !s.tmp[h.B].ok {
			continue
		}
		A, B := &s.sb[h.A], &s.sb[h.B]
		ca, sa := b.List[h.A].Pose.Rot.Heading()
		cb, sb := b.List[h.B].Pose.Rot.Heading()
		rA := Vec{ca*h.AnchorA.X - sa*h.AnchorA.Y, sa*h.AnchorA.X + ca*h.AnchorA.Y}
		rB := Vec{cb*h.AnchorB.X - sb*h.AnchorB.Y, sb*h.AnchorB.X + cb*h.AnchorB.Y}
		m := A.invM + B.invM
		k11 := m + A.invI*rA.Y*rA.Y + B.invI*rB.Y*rB.Y
		k12 := -A.invI*rA.X*rA.Y - B.invI*rB.X*rB.Y
		k22 := m + A.invI*rA.X*rA.X + B.invI*rB.X*rB.X
		det := k11*k22 - k12*k12
		if !(det > 0) {
			continue
		}
		id := 1 / det
		pa := Flat(b.List[h.A].Pose.Pos).Add(rA)
		pb := Flat(b.List[h.B].Pose.Pos).Add(rB)
		drift := pb.Sub(pa)
		s.hitches = append(headroom.Ahead(s.hitches, 1), hitchTmp{
			a: h.A, b: h.B, rA: rA, rB: rB,
			k11: k22 * id, k12: -k12 * id, k22: k11 * id,
			bias: drift.Scale(-Beta * invDt),
		})
	}
}

// solveHitch holds the two anchors together: velocity, and the pseudo
// velocity that pulls a drifted hitch back.
func (s *Scratch) solveHitch(h *hitchTmp) {
	A, B := &s.sb[h.a], &s.sb[h.b]
	dv := B.v.Add(crossW(B.w, h.rB)).Sub(A.v).Sub(crossW(A.w, h.rA))
	P := Vec{-(h.k11*dv.X + h.k12*dv.Y), -(h.k12*dv.X + h.k22*dv.Y)}
	A.v = A.v.Sub(P.Scale(A.invM))
	A.w -= A.invI * h.rA.Cross(P)
	B.v = B.v.Add(P.Scale(B.invM))
	B.w += B.invI * h.rB.Cross(P)

	dp := B.pv.Add(crossW(B.pw, h.rB)).Sub(A.pv).Sub(crossW(A.pw, h.rA))
	e := h.bias.Sub(dp)
	P = Vec{h.k11*e.X + h.k12*e.Y, h.k12*e.X + h.k22*e.Y}
	A.pv = A.pv.Sub(P.Scale(A.invM))
	A.pw -= A.invI * h.rA.Cross(P)
	B.pv = B.pv.Add(P.Scale(B.invM))
	B.pw += B.invI * h.rB.Cross(P)
}

// finish writes the solved velocities back and integrates every pose by
// velocity plus push; a body whose state was not finite is stopped. The
// turn is turn's, written out (the call would cost more than the turn).
func (s *Scratch) finish(list []Body, dt, ground float32) {
	tmp, sbs := s.tmp[:len(list)], s.sb[:len(list)]
	for i := range list {
		bd := &list[i]
		if !tmp[i].ok {
			bd.Vel = components.Velocity{}
			continue
		}
		sb := &sbs[i]
		vx, vy, w := sb.v.X, sb.v.Y, sb.w
		bd.Vel.Lin.X, bd.Vel.Lin.Y, bd.Vel.Ang.Z = vx, vy, w
		bd.Pose.Pos.X += (vx + sb.pv.X) * dt
		bd.Pose.Pos.Y += (vy + sb.pv.Y) * dt
		bd.Pose.Pos.Z = ground
		a := (w + sb.pw) * dt
		if !finite(a) {
			continue
		}
		h := a * 0.5
		if h > 0.75 { // clampFinite(h, -0.75, 0.75)
			h = 0.75
		} else if h < -0.75 {
			h = -0.75
		}
		h2 := h * h
		sn := h * (1 - h2*(1.0/6)*(1-h2*(1.0/20)))
		c := 1 - h2*0.5*(1-h2*(1.0/12))
		q := &bd.Pose.Rot
		x := q.X*c + q.Y*sn
		y := q.Y*c - q.X*sn
		z := q.Z*c + q.W*sn
		ww := q.W*c - q.Z*sn
		// normalize
		nn := x*x + y*y + z*z + ww*ww
		k := (3 - nn) * 0.5
		if d := nn - 1; d > 1e-3 || d < -1e-3 {
			if !(nn > 0) || !finite(nn) {
				*q = components.NoRotation
				continue
			}
			k = 1 / sqrt32(nn)
		}
		*q = components.Quat{X: x * k, Y: y * k, Z: z * k, W: ww * k}
	}
}
