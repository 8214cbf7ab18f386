package levels

import (
	"math"
	"strconv"
)

// The float32 expressions below convert products explicitly (float32(a*b))
// where a fused multiply-add could otherwise change the result on some
// architectures: the Go spec lets a compiler fuse a*b+c unless the product
// is converted. So the helpers give the same answer on every machine.

// Add returns a + b.
func (a Vec2) Add(b Vec2) Vec2 { return Vec2{a.X + b.X, a.Y + b.Y} }

// Sub returns a - b.
func (a Vec2) Sub(b Vec2) Vec2 { return Vec2{a.X - b.X, a.Y - b.Y} }

// Scale returns a * s.
func (a Vec2) Scale(s float32) Vec2 { return Vec2{float32(a.X * s), float32(a.Y * s)} }

// Dot returns the dot product of a and b.
func (a Vec2) Dot(b Vec2) float32 { return float32(a.X*b.X) + float32(a.Y*b.Y) }

// Cross returns the z of the cross product of a and b: > 0 when b turns
// counter-clockwise from a.
func (a Vec2) Cross(b Vec2) float32 { return float32(a.X*b.Y) - float32(a.Y*b.X) }

// Len returns the length of a.
func (a Vec2) Len() float32 { return sqrt32(a.Dot(a)) }

// Right returns a turned a quarter turn clockwise: the right-hand side of a
// direction a.
func (a Vec2) Right() Vec2 { return Vec2{a.Y, -a.X} }

// String formats a as [x, y].
func (a Vec2) String() string {
	b := []byte{'['}
	b = strconv.AppendFloat(b, float64(a.X), 'g', -1, 32)
	b = append(b, ", "...)
	b = strconv.AppendFloat(b, float64(a.Y), 'g', -1, 32)
	return string(append(b, ']'))
}

// sqrt32 is the correctly rounded square root of x (math.Sqrt is exact, and
// a float32 square root through float64 rounds the same on every machine).
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// PointInPolygon reports whether p lies inside the simple polygon poly
// (either winding), by the even-odd rule. A point exactly on an edge may
// fall either way, the same way every time.
func PointInPolygon(p Vec2, poly []Vec2) bool {
	in := false
	j := len(poly) - 1
	for i := range poly {
		a, b := poly[i], poly[j]
		if (a.Y > p.Y) != (b.Y > p.Y) {
			x := a.X + float32((p.Y-a.Y)*(b.X-a.X))/(b.Y-a.Y)
			if p.X < x {
				in = !in
			}
		}
		j = i
	}
	return in
}

// SignedArea returns the area of the polygon poly, in square metres:
// positive when it winds counter-clockwise, negative when clockwise.
func SignedArea(poly []Vec2) float32 {
	if len(poly) < 3 {
		return 0
	}
	// Relative to the first point, in float64: exact enough for any
	// footprint on a ground of MaxGroundSize.
	o := poly[0]
	var s float64
	for i := 1; i+1 < len(poly); i++ {
		s += orient(o, poly[i], poly[i+1])
	}
	return float32(s / 2)
}

// DistToSegment returns the distance from p to the segment a-b.
func DistToSegment(p, a, b Vec2) float32 {
	return sqrt32(dist2ToSegment(p, a, b))
}

// dist2ToSegment returns the squared distance from p to the segment a-b.
func dist2ToSegment(p, a, b Vec2) float32 {
	d := b.Sub(a)
	q := p.Sub(a)
	l2 := d.Dot(d)
	if l2 > 0 {
		t := q.Dot(d) / l2
		t = min(max(t, 0), 1)
		q = p.Sub(a.Add(d.Scale(t)))
	}
	return q.Dot(q)
}

// orient returns twice the signed area of the triangle a, b, c in float64:
// > 0 when c lies to the left of a->b.
func orient(a, b, c Vec2) float64 {
	abx, aby := float64(b.X)-float64(a.X), float64(b.Y)-float64(a.Y)
	acx, acy := float64(c.X)-float64(a.X), float64(c.Y)-float64(a.Y)
	return float64(abx*acy) - float64(aby*acx)
}

// sign returns -1, 0 or 1.
func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// onSegment reports whether c, known collinear with a-b, lies within the
// segment's bounding box.
func onSegment(a, b, c Vec2) bool {
	return min(a.X, b.X) <= c.X && c.X <= max(a.X, b.X) &&
		min(a.Y, b.Y) <= c.Y && c.Y <= max(a.Y, b.Y)
}

// segmentsTouch reports whether the closed segments a-b and c-d share any
// point (crossing, touching or overlapping).
func segmentsTouch(a, b, c, d Vec2) bool {
	o1, o2 := sign(orient(a, b, c)), sign(orient(a, b, d))
	o3, o4 := sign(orient(c, d, a)), sign(orient(c, d, b))
	if o1 != o2 && o3 != o4 {
		return true
	}
	return o1 == 0 && onSegment(a, b, c) || o2 == 0 && onSegment(a, b, d) ||
		o3 == 0 && onSegment(c, d, a) || o4 == 0 && onSegment(c, d, b)
}

// segmentsCross reports whether the segments a-b and c-d cross properly:
// each one's ends lie strictly on either side of the other.
func segmentsCross(a, b, c, d Vec2) bool {
	return sign(orient(a, b, c))*sign(orient(a, b, d)) < 0 &&
		sign(orient(c, d, a))*sign(orient(c, d, b)) < 0
}

// dist2Segments returns the squared distance between the segments a-b and
// c-d.
func dist2Segments(a, b, c, d Vec2) float32 {
	if segmentsCross(a, b, c, d) {
		return 0
	}
	return min(dist2ToSegment(a, c, d), dist2ToSegment(b, c, d),
		dist2ToSegment(c, a, b), dist2ToSegment(d, a, b))
}

// segmentNearPolygon reports whether the segment a-b comes closer than r to
// the polygon poly (inside it counts as distance 0): whether a strip of
// half-width r along a-b, with round ends, overlaps the polygon.
func segmentNearPolygon(a, b Vec2, r float32, poly []Vec2) bool {
	if PointInPolygon(a, poly) || PointInPolygon(b, poly) {
		return true
	}
	r2 := r * r
	j := len(poly) - 1
	for i := range poly {
		if dist2Segments(a, b, poly[j], poly[i]) < r2 {
			return true
		}
		j = i
	}
	return false
}

// box is an axis-aligned bounding box.
type box struct{ min, max Vec2 }

// boundsOf returns the bounding box of the points pts (at least one).
func boundsOf(pts []Vec2) box {
	b := box{pts[0], pts[0]}
	for _, p := range pts[1:] {
		b.min.X, b.min.Y = min(b.min.X, p.X), min(b.min.Y, p.Y)
		b.max.X, b.max.Y = max(b.max.X, p.X), max(b.max.Y, p.Y)
	}
	return b
}

// grow returns b grown by r on every side.
func (b box) grow(r float32) box {
	return box{Vec2{b.min.X - r, b.min.Y - r}, Vec2{b.max.X + r, b.max.Y + r}}
}

// overlaps reports whether b and o share any point.
func (b box) overlaps(o box) bool {
	return b.min.X <= o.max.X && o.min.X <= b.max.X && b.min.Y <= o.max.Y && o.min.Y <= b.max.Y
}

// contains reports whether p lies in b.
func (b box) contains(p Vec2) bool {
	return b.min.X <= p.X && p.X <= b.max.X && b.min.Y <= p.Y && p.Y <= b.max.Y
}
