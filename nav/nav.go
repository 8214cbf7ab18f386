// Package nav is the AI's map of a level: the road lanes and the pavements
// as paths with lengths and directions, grids to find the nearest of them,
// the road graph's distances to a point (Field) and a grid of the world's
// bodies for neighbour queries (Grid).
//
// A Map is built once from a validated level and never written after, so
// one Map may serve many rooms at once. Every query allocates nothing and
// breaks ties by the lowest index, so the same level and point give the
// same answer everywhere.
package nav

import (
	"math"

	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
)

// Vec is a point or direction on the ground, in metres.
type Vec = phys.Vec

// LaneCell and PavementCell are the sides (m) of the cells the lanes and
// the pavement segments are filed under: a quarter of main-city's blocks,
// so a query looks at a handful of cells and a cell holds a few entries.
const (
	LaneCell     = 24
	PavementCell = 24
)

// Lane is a road lane as the AI drives it.
type Lane struct {
	A, B  Vec     // the centreline, from A to B
	Dir   Vec     // unit direction A to B
	Len   float32 // |B - A|
	Width float32
	// Limit is the lane's speed limit, m/s.
	Limit float32
	// From and To are the indices in Roads.Nodes of the nodes it joins.
	From, To int32
	// Traffic is whether the ambient traffic may take it.
	Traffic bool
}

// Pavement is a walkway as the pedestrians walk it: its points are
// Map.Points(i), its length runs round the closing segment when Closed.
type Pavement struct {
	first, n int32
	Closed   bool
	Width    float32
	Len      float32
}

// Map is a level's navigation data. Build it with New.
type Map struct {
	// Level is the level the map was built from.
	Level *levels.Level
	// Lanes are the level's lanes, by index in Roads.Lanes.
	Lanes []Lane
	// Nodes are the road nodes' positions and Intersection whether each is
	// one, by index in Roads.Nodes.
	Nodes        []Vec
	Intersection []bool
	// NodeRadius is the radius (m) of the box round each node that the
	// roads meeting there cover: the farthest lane edge, and two metres
	// for the corners a turning car sweeps.
	NodeRadius []float32
	// Pavements are the level's pavements, by index in Pavements.
	Pavements []Pavement
	// PavementLen is the length of all pavements together.
	PavementLen float32

	pts    []Vec     // every pavement's points, pavement after pavement
	cum    []float32 // the length from the pavement's first point to each point
	segPav []int32   // the pavement of each point (the segment starting there)
	lanes  cellIndex
	segs   cellIndex // items: the index in pts of a segment's first point
	bounds phys.Rect
}

// New builds the map of l, which must have passed levels.Validate (Parse
// and Load validate). A nil level gives an empty map.
func New(l *levels.Level) *Map {
	m := &Map{Level: l}
	if l == nil {
		m.bounds = phys.Rect{Min: Vec{X: -1, Y: -1}, Max: Vec{X: 1, Y: 1}}
		m.lanes.init(m.bounds, LaneCell)
		m.segs.init(m.bounds, PavementCell)
		m.lanes.build(nil)
		m.segs.build(nil)
		return m
	}
	m.bounds = phys.Rect{Min: Vec{X: l.Ground.Min.X, Y: l.Ground.Min.Y}, Max: Vec{X: l.Ground.Max.X, Y: l.Ground.Max.Y}}
	m.Nodes = make([]Vec, len(l.Roads.Nodes))
	m.Intersection = make([]bool, len(l.Roads.Nodes))
	for i, n := range l.Roads.Nodes {
		m.Nodes[i] = Vec{X: n.Pos.X, Y: n.Pos.Y}
		m.Intersection[i] = n.Intersection
	}
	m.Lanes = make([]Lane, len(l.Roads.Lanes))
	var boxes []itemBox
	for i, ln := range l.Roads.Lanes {
		a, b := l.LaneLine(i)
		from, to := l.LaneNodes(i)
		la := Lane{
			A: Vec{X: a.X, Y: a.Y}, B: Vec{X: b.X, Y: b.Y}, Width: ln.Width, Limit: ln.SpeedLimit,
			From: int32(from), To: int32(to), Traffic: !ln.NoTraffic,
		}
		d := la.B.Sub(la.A)
		la.Len = d.Len()
		if la.Len > 0 {
			la.Dir = d.Scale(1 / la.Len)
		}
		m.Lanes[i] = la
		boxes = append(boxes, segBox(la.A, la.B, ln.Width/2, int32(i)))
	}
	m.NodeRadius = make([]float32, len(l.Roads.Nodes))
	for i, ln := range l.Roads.Lanes {
		r := ln.Offset + ln.Width/2 + 2
		for _, n := range [2]int32{m.Lanes[i].From, m.Lanes[i].To} {
			m.NodeRadius[n] = max(m.NodeRadius[n], r)
		}
	}
	m.lanes.init(m.bounds, LaneCell)
	m.lanes.build(boxes)

	boxes = boxes[:0]
	m.Pavements = make([]Pavement, len(l.Pavements))
	for i, pv := range l.Pavements {
		p := Pavement{first: int32(len(m.pts)), n: int32(len(pv.Points)), Closed: pv.Closed, Width: pv.Width}
		var run float32
		for k, q := range pv.Points {
			v := Vec{X: q.X, Y: q.Y}
			if k > 0 {
				run += v.Sub(m.pts[len(m.pts)-1]).Len()
			}
			m.pts = append(m.pts, v)
			m.cum = append(m.cum, run)
			m.segPav = append(m.segPav, int32(i))
		}
		p.Len = run
		if p.Closed {
			p.Len += m.pts[p.first].Sub(m.pts[len(m.pts)-1]).Len()
		}
		m.Pavements[i] = p
		m.PavementLen += p.Len
		for k := int32(0); k < p.segments(); k++ {
			a, b := m.segment(p, k)
			boxes = append(boxes, segBox(a, b, pv.Width/2, p.first+k))
		}
	}
	m.segs.init(m.bounds, PavementCell)
	m.segs.build(boxes)
	return m
}

// Bounds returns the level's ground.
func (m *Map) Bounds() phys.Rect { return m.bounds }

// segments returns the number of segments of p.
func (p *Pavement) segments() int32 {
	if p.Closed {
		return p.n
	}
	return p.n - 1
}

// segment returns segment k of p: from point k to point k+1 (or back to the
// first for the closing segment).
func (m *Map) segment(p Pavement, k int32) (a, b Vec) {
	a = m.pts[p.first+k]
	if k+1 < p.n {
		return a, m.pts[p.first+k+1]
	}
	return a, m.pts[p.first]
}

// Project returns where p lies along lane's centreline (metres from A,
// not clamped) and how far to its left (negative: right).
func (m *Map) Project(lane int32, p Vec) (along, left float32) {
	l := &m.Lanes[lane]
	d := p.Sub(l.A)
	return d.Dot(l.Dir), l.Dir.Cross(d)
}

// NearestLane returns the lane nearest to p within maxDist, and its
// distance; -1 when none is that near. With a non-zero unit heading dir, a
// lane pointing away costs up to turnCost metres more (its distance plus
// turnCost*(1-cos)/2), so a car finds the lane it drives along rather than
// the one beside it going the other way. trafficOnly leaves out the lanes
// closed to the ambient traffic.
func (m *Map) NearestLane(p, dir Vec, maxDist, turnCost float32, trafficOnly bool) (lane int32, dist float32) {
	lane = -1
	best := float32(math.MaxFloat32)
	x0, y0, x1, y1 := m.lanes.rangeOf(Vec{X: p.X - maxDist, Y: p.Y - maxDist}, Vec{X: p.X + maxDist, Y: p.Y + maxDist})
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, i := range m.lanes.cell(x, y) {
				l := &m.Lanes[i]
				if trafficOnly && !l.Traffic {
					continue
				}
				d := distToSegment(p, l.A, l.B)
				if d > maxDist {
					continue
				}
				cost := d
				if dir != (Vec{}) {
					cost += turnCost * (1 - dir.Dot(l.Dir)) / 2
				}
				if cost < best || cost == best && i < lane {
					lane, best, dist = i, cost, d
				}
			}
		}
	}
	return lane, dist
}

// Joint returns where a car leaving lane a turns onto lane b (b leaving the
// node a enters): the crossing of their centrelines when they turn, else
// the end of a; and how far along a and along b it lies. A car follows a up
// to the joint and b from there.
func (m *Map) Joint(a, b int32) (j Vec, alongA, alongB float32) {
	la, lb := &m.Lanes[a], &m.Lanes[b]
	cr := la.Dir.Cross(lb.Dir)
	if cr > 0.2 || cr < -0.2 {
		// a.B + a.Dir*s on b's line: s = cross(b.A - a.B, b.Dir) / cross(a.Dir, b.Dir).
		s := lb.A.Sub(la.B).Cross(lb.Dir) / cr
		if s > -la.Len && s < 3*la.Width+10 {
			j = la.B.Add(la.Dir.Scale(s))
			return j, la.Len + s, j.Sub(lb.A).Dot(lb.Dir)
		}
	}
	return la.B, la.Len, la.B.Sub(lb.A).Dot(lb.Dir)
}

// PavementLength returns the length of pavement pav.
func (m *Map) PavementLength(pav int32) float32 { return m.Pavements[pav].Len }

// Wrap returns along on pavement pav wrapped round a closed pavement's
// loop, or clamped to an open one's ends.
func (m *Map) Wrap(pav int32, along float32) float32 {
	p := &m.Pavements[pav]
	if p.Len <= 0 {
		return 0
	}
	if p.Closed {
		along = float32(math.Mod(float64(along), float64(p.Len)))
		if along < 0 {
			along += p.Len
		}
		return along
	}
	return min(max(along, 0), p.Len)
}

// PavementAt returns the point along metres along pavement pav's
// centreline (wrapped or clamped, see Wrap) and the unit direction of its
// segment there.
func (m *Map) PavementAt(pav int32, along float32) (p, dir Vec) {
	pv := m.Pavements[pav]
	along = m.Wrap(pav, along)
	k := m.segmentAt(pv, along)
	a, b := m.segment(pv, k)
	d := b.Sub(a)
	l := d.Len()
	if l <= 0 {
		return a, Vec{X: 1}
	}
	dir = d.Scale(1 / l)
	t := min(max(along-m.cum[pv.first+k], 0), l)
	return a.Add(dir.Scale(t)), dir
}

// segmentAt returns the segment of p that holds along (within [0, Len]).
func (m *Map) segmentAt(p Pavement, along float32) int32 {
	cum := m.cum[p.first : p.first+p.n]
	lo, hi := int32(0), p.segments()-1
	for lo < hi { // the last segment whose start is at or before along
		mid := (lo + hi + 1) / 2
		if cum[mid] <= along {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// ProjectPavement returns how far along pavement pav the point nearest to
// q lies, looking at the segment holding hint and its neighbours (a walker
// moves less than a segment a tick), and the distance from q to it.
func (m *Map) ProjectPavement(pav int32, q Vec, hint float32) (along, dist float32) {
	pv := m.Pavements[pav]
	k := m.segmentAt(pv, m.Wrap(pav, hint))
	segs := pv.segments()
	best := float32(math.MaxFloat32)
	for dk := int32(-1); dk <= 1; dk++ {
		s := k + dk
		if pv.Closed {
			s = (s + segs) % segs
		} else if s < 0 || s >= segs {
			continue
		}
		a, b := m.segment(pv, s)
		t, d := projectSegment(q, a, b)
		if d < best {
			best, along = d, m.cum[pv.first+s]+t
		}
	}
	return along, best
}

// NearestPavement returns the pavement whose centreline passes nearest to
// q within maxDist, how far along it that point lies and the distance; -1
// when none is that near.
func (m *Map) NearestPavement(q Vec, maxDist float32) (pav int32, along, dist float32) {
	pav = -1
	best := float32(math.MaxFloat32)
	bestSeg := int32(-1)
	x0, y0, x1, y1 := m.segs.rangeOf(Vec{X: q.X - maxDist, Y: q.Y - maxDist}, Vec{X: q.X + maxDist, Y: q.Y + maxDist})
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, s := range m.segs.cell(x, y) {
				p := m.segPav[s]
				pv := m.Pavements[p]
				a, b := m.segment(pv, s-pv.first)
				t, d := projectSegment(q, a, b)
				if d > maxDist {
					continue
				}
				if d < best || d == best && s < bestSeg {
					best, bestSeg, pav, along, dist = d, s, p, m.cum[s]+t, d
				}
			}
		}
	}
	return pav, along, dist
}

// OnPavement reports whether q lies on a pavement's strip widened by
// margin on each side.
func (m *Map) OnPavement(q Vec, margin float32) bool {
	x, y := m.segs.cellOf(q)
	for _, s := range m.segs.cell(x, y) {
		pv := m.Pavements[m.segPav[s]]
		a, b := m.segment(pv, s-pv.first)
		if _, d := projectSegment(q, a, b); d <= pv.Width/2+margin {
			return true
		}
	}
	return false
}

// PavementPoint returns the pavement and the distance along it of the
// point u metres into all pavements laid end to end (0 <= u <
// PavementLen): a point uniform over the pavements' length.
func (m *Map) PavementPoint(u float32) (pav int32, along float32) {
	for i := range m.Pavements {
		l := m.Pavements[i].Len
		if u < l || i == len(m.Pavements)-1 {
			return int32(i), min(max(u, 0), l)
		}
		u -= l
	}
	return -1, 0
}

// projectSegment returns how far along a-b the point nearest to q lies
// and the distance from q to it.
func projectSegment(q, a, b Vec) (t, dist float32) {
	d := b.Sub(a)
	l := d.Len()
	if l <= 0 {
		return 0, q.Sub(a).Len()
	}
	dir := d.Scale(1 / l)
	t = min(max(q.Sub(a).Dot(dir), 0), l)
	return t, q.Sub(a.Add(dir.Scale(t))).Len()
}

// distToSegment returns the distance from q to the segment a-b.
func distToSegment(q, a, b Vec) float32 {
	_, d := projectSegment(q, a, b)
	return d
}
