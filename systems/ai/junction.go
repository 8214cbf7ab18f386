package ai

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/nav"
)

// Junction rules. An intersection's box is the circle of the node's
// radius (nav.Map.NodeRadius): a car may drive into it only when no car in
// it, and no car nearer its own edge of it, goes a way that crosses its
// own (their ways through the box come within Clearance); otherwise it
// stops at the edge. A car that could no longer stop before the edge goes
// in first. So the cars at a crossing take turns by who is nearest, and
// never lock each other in the middle.
//
// At a signalled intersection the light of a car's lane comes first: at
// amber or red it stops at the box's edge (unless it could no longer stop:
// it goes in), and the cars that go at green take no turns with it; among
// themselves, and with the cars still in the box, the rules above hold.
const (
	// Clearance (m) is how much nearer than their half widths two ways
	// through a box may not come; a long vehicle's front swings wide
	// turning, so half of what it is longer than a sedan is added.
	Clearance = 0.8
	// JunctionLook (m) is how far before a box a car starts to care.
	JunctionLook = 40
	// LightDecel (m/s²) is how hard a car plans to brake for an amber or
	// red light: gently, and from as far as that takes, so that it keeps
	// to the plan and does not come to the line too fast to stop.
	LightDecel = 3
	// LightStop (m) is how far before the box's edge a car stops at a
	// light.
	LightStop = 1.5
)

// junction is a car at or near an intersection's box this tick.
type junction struct {
	node      int32
	inside    bool
	committed bool             // too near and fast to stop: it goes in
	light     components.Light // its lane's light at the box's edge (coming to it)
	dEntry    float32          // from its front to the box's edge
	dExit     float32          // from its centre along its path to the way out
	way       [3]nav.Vec       // its way through the box: in, the joint, out
}

// findJunction fills c's junction: the box it is in (of its lane's ends),
// or the one it comes to.
func (s *System) findJunction(c *car, b *body) {
	m := s.nav
	c.junc.node = -1
	r := &c.route
	la := &m.Lanes[r.Lane]
	for _, n := range [2]int32{la.From, la.To} {
		if !m.Intersection[n] {
			continue
		}
		if d := m.Nodes[n].Sub(b.pos).Len(); d < m.NodeRadius[n]+1 {
			c.junc = junction{node: n, inside: true}
			c.junc.way[0] = b.pos
			if n == la.From {
				c.junc.way[1] = b.pos
				c.junc.way[2] = s.boxExit(r.Lane, n)
			} else {
				s.wayOn(c, n)
			}
			return
		}
	}
	n := la.To
	if !m.Intersection[n] || r.Next < 0 {
		return
	}
	along, left := m.Project(r.Lane, m.Nodes[n])
	rad := m.NodeRadius[n]
	entry := along - math32.Sqrt(max(rad*rad-left*left, 0))
	d := entry - c.path.along - b.hx
	v := max(c.speed, 0)
	light, look := components.LightNone, float32(JunctionLook)
	if int(r.Lane) < len(s.lights) {
		light = s.lights[r.Lane]
	}
	if light != components.LightNone {
		// A light is seen from afar: far enough to stop gently.
		look = max(look, v*v/(2*LightDecel)+LightStop+5)
	}
	if d > look {
		return
	}
	// Committed: it could not stop before the edge braking hard.
	hard := 0.8 * c.spec.BrakeDecel
	c.junc = junction{node: n, dEntry: d, committed: d < v*v/(2*hard)+0.5 && v > 1, light: light}
	c.junc.way[0] = la.A.Add(la.Dir.Scale(entry))
	s.wayOn(c, n)
	c.junc.dExit = d + b.hx + c.junc.way[1].Sub(c.junc.way[0]).Len() + c.junc.way[2].Sub(c.junc.way[1]).Len()
}

// wayOn fills the joint and the way out of node n of c's junction.
func (s *System) wayOn(c *car, n int32) {
	r := &c.route
	if r.Next < 0 {
		c.junc.way[1] = s.nav.Lanes[r.Lane].B
		c.junc.way[2] = c.junc.way[1]
		return
	}
	j, _, _ := s.nav.Joint(r.Lane, r.Next)
	c.junc.way[1] = j
	c.junc.way[2] = s.boxExit(r.Next, n)
}

// boxExit returns where lane (leaving node n) leaves n's box.
func (s *System) boxExit(lane, n int32) nav.Vec {
	m := s.nav
	l := &m.Lanes[lane]
	along, left := m.Project(lane, m.Nodes[n])
	rad := m.NodeRadius[n]
	return l.A.Add(l.Dir.Scale(along + math32.Sqrt(max(rad*rad-left*left, 0))))
}

// yieldAtJunctions stops at its box's edge every car coming to an
// intersection that shows it amber or red, or that must let another go
// first.
func (s *System) yieldAtJunctions() {
	for i := range s.cars {
		x := &s.cars[i]
		if !x.driven || x.junc.node < 0 || x.junc.inside || x.junc.committed {
			continue
		}
		if x.junc.light.Stop() {
			x.vWant = min(x.vWant, math32.Sqrt(2*LightDecel*max(x.junc.dEntry-LightStop, 0)))
			x.atLight = true
			continue
		}
		for j := range s.cars {
			y := &s.cars[j]
			if j == i || !y.driven || y.junc.node != x.junc.node || y.route.Lane == x.route.Lane {
				continue
			}
			if !y.junc.inside && !y.junc.committed && (y.junc.light.Stop() || !ahead(y, x)) {
				continue // it waits at its edge, for its light or for x
			}
			if y.blocker == x.body {
				continue // it waits for x: x goes first
			}
			if waysCross(&x.junc.way, &y.junc.way, s.clearance(x, y)) {
				if v := safeSpeed(x.junc.dEntry+1, 0); v < x.vWant {
					x.vWant, x.yieldTo = v, int32(j)
				}
				break
			}
		}
	}
}

// ahead reports whether y, coming to the same box as x, goes first: it is
// nearer its edge (the wire id breaks a tie).
func ahead(y, x *car) bool {
	if y.junc.dEntry != x.junc.dEntry {
		return y.junc.dEntry < x.junc.dEntry
	}
	return y.wid < x.wid
}

// clearance returns how near the ways of x and y through a box may come.
func (s *System) clearance(x, y *car) float32 {
	bx, by := &s.bodies[x.body], &s.bodies[y.body]
	long := max(bx.hx-2.3, 0) + max(by.hx-2.3, 0)
	return bx.hy + by.hy + Clearance + long/2
}

// waysCross reports whether two ways through a box come within clear.
func waysCross(a, b *[3]nav.Vec, clear float32) bool {
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			if segDist2(a[i], a[i+1], b[j], b[j+1]) < clear*clear {
				return true
			}
		}
	}
	return false
}

// segDist2 returns the squared distance between segments a-b and c-d.
func segDist2(a, b, c, d nav.Vec) float32 {
	if segmentsCross(a, b, c, d) {
		return 0
	}
	return min(pointSeg2(a, c, d), pointSeg2(b, c, d), pointSeg2(c, a, b), pointSeg2(d, a, b))
}

func pointSeg2(p, a, b nav.Vec) float32 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	q := p.Sub(a)
	if l2 > 0 {
		t := clamp(q.Dot(ab)/l2, 0, 1)
		q = p.Sub(a.Add(ab.Scale(t)))
	}
	return q.Dot(q)
}

func segmentsCross(a, b, c, d nav.Vec) bool {
	o1, o2 := b.Sub(a).Cross(c.Sub(a)), b.Sub(a).Cross(d.Sub(a))
	o3, o4 := d.Sub(c).Cross(a.Sub(c)), d.Sub(c).Cross(b.Sub(c))
	return (o1 > 0) != (o2 > 0) && (o3 > 0) != (o4 > 0) && o1 != 0 && o2 != 0 && o3 != 0 && o4 != 0
}
