package physics

// manifold is the narrow phase's answer for one pair: a normal from the
// first shape to the second and one or two points, each with its separation
// along the normal (negative when overlapping). Points are kept up to a
// speculative margin apart, so that the solver can stop a body closing a gap
// before it tunnels.
type manifold struct {
	n     Vec
	count int32
	p     [2]Vec
	sep   [2]float32
}

// boxHull writes the corners (counter-clockwise) and outward edge normals
// of the box at centre c with heading (co, si) and half extents hx, hy.
func boxHull(c Vec, co, si, hx, hy float32, v, n *[4]Vec) {
	ax, ay := Vec{co * hx, si * hx}, Vec{-si * hy, co * hy}
	v[0] = Vec{c.X - ax.X - ay.X, c.Y - ax.Y - ay.Y}
	v[1] = Vec{c.X + ax.X - ay.X, c.Y + ax.Y - ay.Y}
	v[2] = Vec{c.X + ax.X + ay.X, c.Y + ax.Y + ay.Y}
	v[3] = Vec{c.X - ax.X + ay.X, c.Y - ax.Y + ay.Y}
	n[0] = Vec{si, -co}
	n[1] = Vec{co, si}
	n[2] = Vec{-si, co}
	n[3] = Vec{-co, -si}
}

// boxHullOf writes the hull of box body b.
func boxHullOf(b *Body, v, n *[4]Vec) {
	co, si := b.Pose.Rot.Heading()
	boxHull(Flat(b.Pose.Pos), co, si, b.HalfX, b.HalfY, v, n)
}

// maxSeparation returns the edge of polygon 1 along whose normal polygon 2
// lies farthest out, and that separation (negative: overlap depth); the
// first such edge on a tie. The minima and the choice take no branch: which
// corner is deepest is a coin toss, and a mispredicted branch costs more
// than the arithmetic. (Only a NaN, which finite bodies do not make, would
// be taken differently from a comparison and a branch.)
func maxSeparation(v1, n1, v2 []Vec) (int, float32) {
	best, bestSep := 0, float32(-3.4e38)
	for i := range v1 {
		n, o := n1[i], v1[i]
		s := float32(3.4e38)
		for _, w := range v2 {
			s = min(s, n.X*(w.X-o.X)+n.Y*(w.Y-o.Y))
		}
		best += (i - best) & -b2i(s > bestSep)
		bestSep = max(bestSep, s)
	}
	return best, bestSep
}

// collidePolygons collides two convex polygons (counter-clockwise corners
// with outward normals) by the separating axis: the axis of least overlap
// gives the reference face, the other polygon's most opposed edge is clipped
// against its sides, giving one or two points. The normal points from A to
// B. ok is false when they are more than margin apart.
func collidePolygons(va, na, vb, nb []Vec, margin float32) (m manifold, ok bool) {
	ea, sa := maxSeparation(va, na, vb)
	if sa > margin {
		return m, false
	}
	eb, sb := maxSeparation(vb, nb, va)
	if sb > margin {
		return m, false
	}
	return clipFaces(va, na, vb, nb, ea, sa, eb, sb, margin)
}

// collideBoxes is collidePolygons for two boxes, operation for operation,
// on arrays of their four corners and normals (no slices to check).
func collideBoxes(va, na, vb, nb *[4]Vec, margin float32) (m manifold, ok bool) {
	ea, sa := maxSeparation4(va, na, vb)
	if sa > margin {
		return m, false
	}
	eb, sb := maxSeparation4(vb, nb, va)
	if sb > margin {
		return m, false
	}
	return clipFaces(va[:], na[:], vb[:], nb[:], ea, sa, eb, sb, margin)
}

// maxSeparation4 is maxSeparation for two boxes.
func maxSeparation4(v1, n1, v2 *[4]Vec) (int, float32) {
	best, bestSep := 0, float32(-3.4e38)
	for i := range 4 {
		n, o := n1[i], v1[i]
		d0 := n.X*(v2[0].X-o.X) + n.Y*(v2[0].Y-o.Y)
		d1 := n.X*(v2[1].X-o.X) + n.Y*(v2[1].Y-o.Y)
		d2 := n.X*(v2[2].X-o.X) + n.Y*(v2[2].Y-o.Y)
		d3 := n.X*(v2[3].X-o.X) + n.Y*(v2[3].Y-o.Y)
		s := min(float32(3.4e38), min(min(d0, d1), min(d2, d3)))
		best += (i - best) & -b2i(s > bestSep)
		bestSep = max(bestSep, s)
	}
	return best, bestSep
}

// clipFaces finishes collidePolygons from the two polygons' deepest edges
// and separations: the reference face, the incident edge clipped against
// it, the points.
func clipFaces(va, na, vb, nb []Vec, ea int, sa float32, eb int, sb float32, margin float32) (m manifold, ok bool) {
	// Prefer A's face unless B's is clearly better, so that a tie does not
	// flicker between faces from step to step.
	v1, n1, v2, n2, e1, flip := va, na, vb, nb, ea, false
	if sb > sa+0.001 {
		v1, n1, v2, n2, e1, flip = vb, nb, va, na, eb, true
	}
	ref := n1[e1]
	// Incident edge: the edge of polygon 2 whose normal opposes ref most.
	inc, minDot := 0, float32(3.4e38)
	for i := range n2 {
		d := ref.Dot(n2[i])
		inc += (i - inc) & -b2i(d < minDot)
		minDot = min(minDot, d)
	}
	c0, c1 := v2[inc], v2[(inc+1)%len(v2)]
	r0, r1 := v1[e1], v1[(e1+1)%len(v1)]
	tan := Vec{-ref.Y, ref.X} // along the reference edge, r0 to r1

	// Clip the incident edge to the reference edge's extent.
	var pts [2]Vec
	var np int
	if pts, np = clipSegment(c0, c1, tan.Scale(-1), -tan.Dot(r0)); np < 2 {
		return m, false
	}
	if pts, np = clipSegment(pts[0], pts[1], tan, tan.Dot(r1)); np < 2 {
		return m, false
	}
	front := ref.Dot(r0)
	for _, p := range pts {
		s := ref.Dot(p) - front
		if s > margin {
			continue
		}
		// The point midway between the incident corner and its image on
		// the reference face.
		m.p[m.count] = p.Sub(ref.Scale(0.5 * s))
		m.sep[m.count] = s
		m.count++
	}
	if m.count == 0 {
		return m, false
	}
	m.n = ref
	if flip {
		m.n = ref.Scale(-1)
	}
	return m, true
}

// clipSegment keeps the part of a..b where dot(n, p) <= off.
func clipSegment(a, b, n Vec, off float32) (out [2]Vec, count int) {
	da, db := n.Dot(a)-off, n.Dot(b)-off
	if da <= 0 {
		out[count] = a
		count++
	}
	if db <= 0 {
		out[count] = b
		count++
	}
	if da*db < 0 && count < 2 {
		t := da / (da - db)
		out[count] = a.Add(b.Sub(a).Scale(t))
		count++
	}
	return out, count
}

// collidePolygonCircle collides a convex polygon with a circle at c of
// radius r; the normal points from the polygon to the circle.
func collidePolygonCircle(v, nrm []Vec, c Vec, r, margin float32) (m manifold, ok bool) {
	best, sepMax := 0, float32(-3.4e38)
	for i := range v {
		s := nrm[i].Dot(c.Sub(v[i]))
		if s > r+margin {
			return m, false
		}
		best += (i - best) & -b2i(s > sepMax)
		sepMax = max(sepMax, s)
	}
	v1, v2 := v[best], v[(best+1)%len(v)]
	n := nrm[best]
	sep := sepMax - r
	if sepMax > 0 {
		// Outside the polygon: the nearest feature is a corner when the
		// centre lies beyond either end of the edge.
		var corner Vec
		isCorner := false
		if c.Sub(v1).Dot(v2.Sub(v1)) <= 0 {
			corner, isCorner = v1, true
		} else if c.Sub(v2).Dot(v1.Sub(v2)) <= 0 {
			corner, isCorner = v2, true
		}
		if isCorner {
			d := c.Sub(corner)
			dist := d.Len()
			sep = dist - r
			if sep > margin {
				return m, false
			}
			if dist > 1e-6 {
				n = d.Scale(1 / dist)
			}
		}
	}
	m.n = n
	m.count = 1
	m.sep[0] = sep
	m.p[0] = c.Sub(n.Scale(r + 0.5*sep))
	return m, true
}

// collideCircles collides circle A (ca, ra) with circle B (cb, rb).
func collideCircles(ca Vec, ra float32, cb Vec, rb float32, margin float32) (m manifold, ok bool) {
	d := cb.Sub(ca)
	d2 := d.Dot(d)
	rs := ra + rb + margin
	if d2 > rs*rs {
		return m, false
	}
	dist := sqrt32(d2)
	n := Vec{1, 0}
	if dist > 1e-6 {
		n = d.Scale(1 / dist)
	}
	sep := dist - ra - rb
	m.n = n
	m.count = 1
	m.sep[0] = sep
	m.p[0] = ca.Add(n.Scale(ra + 0.5*sep))
	return m, true
}

// collideWall collides a shape with the wall of the half-plane beyond
// dot(n, p) = off (n points out of the level, into the wall): a circle, or a
// box given by its corners, keeping the two deepest corners. The normal is n.
func collideWall(n Vec, off float32, circle bool, c Vec, r float32, corners *[4]Vec, margin float32) (m manifold, ok bool) {
	m.n = n
	if circle {
		s := off - n.Dot(c) - r
		if s > margin {
			return m, false
		}
		m.count = 1
		m.sep[0] = s
		m.p[0] = c.Add(n.Scale(r + 0.5*s))
		return m, true
	}
	for _, p := range corners {
		s := off - n.Dot(p)
		if s > margin {
			continue
		}
		pt := p.Add(n.Scale(0.5 * s))
		switch {
		case m.count < 2:
			m.p[m.count], m.sep[m.count] = pt, s
			m.count++
		case s < m.sep[0] && m.sep[0] >= m.sep[1]:
			m.p[0], m.sep[0] = pt, s
		case s < m.sep[1]:
			m.p[1], m.sep[1] = pt, s
		}
	}
	return m, m.count > 0
}
