package main

import (
	"github.com/fiveonit/engine/nav"
)

// The route to an objective, as the page draws it on the map and the
// minimap (a satnav's line): along the roads, by the road graph's
// distances to the target (nav.Field, the same search the AI drives by),
// from the lane nearest to you to the lane nearest to the target.

// RouteSnap (m) is how far from a road you or the target may be for the
// route to start or end on it; farther, the route is a straight line.
const RouteSnap = 80

// RouteMaxLegs bounds the lanes a route follows: main-city is crossed in
// about 40.
const RouteMaxLegs = 400

// Route returns the route from (x0, y0) to (x1, y1) as a flat list of
// points (x, y, x, y, ...), reused by the next call: you, the roads
// between, the target. Off the roads, or before the level is known, it is
// the straight line.
func (p *Page) Route(x0, y0, x1, y1 float32) []float32 {
	p.route = append(p.route[:0], x0, y0)
	from, to := nav.Vec{X: x0, Y: y0}, nav.Vec{X: x1, Y: y1}
	m := p.nav
	if m == nil {
		return append(p.route, x1, y1)
	}
	if p.field.Target != to || len(p.field.Dist) == 0 {
		m.Solve(&p.field, to, RouteSnap)
	}
	f := &p.field
	lane, _ := m.NearestLane(from, nav.Vec{}, RouteSnap, 0, false)
	if lane < 0 || f.Lane < 0 {
		return append(p.route, x1, y1)
	}
	// Of the lane you are nearest and its twin (the other way along the
	// same road), the one whose way on is shorter.
	start, startAlong := lane, along(m, lane, from)
	best := m.Lanes[lane].Len - startAlong + f.Dist[m.Lanes[lane].To]
	if lane == f.Lane && f.AlongLane >= startAlong {
		best = f.AlongLane - startAlong
	}
	for _, o := range m.Level.LanesOut(int(m.Lanes[lane].To)) {
		if m.Lanes[o].To != m.Lanes[lane].From {
			continue
		}
		a := along(m, o, from)
		d := m.Lanes[o].Len - a + f.Dist[m.Lanes[o].To]
		if o == f.Lane && f.AlongLane >= a {
			d = f.AlongLane - a
		}
		if d < best {
			start, startAlong, best = o, a, d
		}
	}
	if best >= nav.Unreachable {
		return append(p.route, x1, y1)
	}
	l := &m.Lanes[start]
	at := l.A.Add(l.Dir.Scale(startAlong))
	p.route = append(p.route, at.X, at.Y)
	cur := start
	for range RouteMaxLegs {
		l := &m.Lanes[cur]
		if cur == f.Lane || cur == f.Twin {
			along := f.AlongLane
			if cur == f.Twin {
				along = f.AlongTwin
			}
			if cur != start || along >= startAlong {
				end := l.A.Add(l.Dir.Scale(along))
				p.route = append(p.route, end.X, end.Y)
				break
			}
		}
		p.route = append(p.route, l.B.X, l.B.Y)
		next, nextCost := int32(-1), nav.Unreachable
		for _, o := range m.Level.LanesOut(int(l.To)) {
			if c := f.Cost(m, o); c < nextCost {
				next, nextCost = o, c
			}
		}
		if next < 0 {
			break
		}
		cur = next
	}
	return append(p.route, x1, y1)
}

// along returns where q lies along lane, clamped to the lane.
func along(m *nav.Map, lane int32, q nav.Vec) float32 {
	a, _ := m.Project(lane, q)
	return min(max(a, 0), m.Lanes[lane].Len)
}
