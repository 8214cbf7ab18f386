package ai

import (
	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
)

// Driving constants of the lane follower.
const (
	// ComfortDecel (m/s²) is how hard a car plans to brake for a turn or
	// the end of a lane; StopDecel how hard it plans to brake for something
	// in its way (under every model's brakes, so the plan holds).
	ComfortDecel = 3.5
	StopDecel    = 5
	// Standoff (m) is the room a car leaves to what it stops behind.
	Standoff = 2.5
	// The speeds (m/s) a car takes a turn at: right turns are tighter
	// (the corner is on the near side), a U-turn is a crawl.
	RightTurnSpeed = 4.5
	LeftTurnSpeed  = 6.5
	UTurnSpeed     = 3
	// TrafficGrip and ChaseGrip (m/s²) are the sideways accelerations the
	// traffic and the chasers take their curves at: well within the
	// tyres' grip for the traffic, near it for a chase.
	TrafficGrip = 3
	ChaseGrip   = 7
	// CurveCrawl (m/s) is the least speed a curve holds a car to, so it
	// always makes way round it.
	CurveCrawl = 2.5
	// ChaseTurnFactor is how much faster than the traffic a chaser takes
	// its turns.
	ChaseTurnFactor = 1.2
	// LaneOff (m) is how far from its lane's centreline a car may be before
	// it looks for its lane again (pushed off the road, or just come on).
	LaneOff = 6
)

// path is the way ahead of a car along the lanes: from the point of its
// lane's centreline beside it (a0) to the joint with the next lane, then
// along the next lane from b0 to its end.
type path struct {
	a0, d1 nav.Vec
	l1     float32
	b0, d2 nav.Vec
	l2     float32
	next   bool
	limit1 float32
	limit2 float32
	cosT   float32 // cosine of the turn at the joint
	left   bool    // the turn is to the left
	along  float32 // where the car is along its lane
}

// makePath returns the path of a car at p on lane (turning onto next, -1
// for none).
func (s *System) makePath(p nav.Vec, lane, next int32) path {
	m := s.nav
	la := &m.Lanes[lane]
	along, _ := m.Project(lane, p)
	pa := path{d1: la.Dir, limit1: la.Limit, along: along}
	end := la.Len
	if next >= 0 {
		lb := &m.Lanes[next]
		_, tA, tB := m.Joint(lane, next)
		end = tA
		tB = max(tB, 0)
		pa.next = true
		pa.b0 = lb.A.Add(lb.Dir.Scale(tB))
		pa.d2 = lb.Dir
		pa.l2 = max(lb.Len-tB, 0)
		pa.limit2 = lb.Limit
		pa.cosT = la.Dir.Dot(lb.Dir)
		pa.left = la.Dir.Cross(lb.Dir) > 0
	}
	t := clamp(along, 0, end)
	pa.a0 = la.A.Add(la.Dir.Scale(t))
	pa.l1 = end - t
	return pa
}

// at returns the point dist metres along the path (its end beyond it).
func (p *path) at(dist float32) nav.Vec {
	if dist <= p.l1 || !p.next {
		return p.a0.Add(p.d1.Scale(min(dist, p.l1)))
	}
	return p.b0.Add(p.d2.Scale(min(dist-p.l1, p.l2)))
}

// frame returns where q lies along the path (dist from a0), how far from
// it and the path's direction there; false when q is beside neither part.
func (p *path) frame(q nav.Vec) (dist, off float32, dir nav.Vec, ok bool) {
	off = math32.MaxFloat32
	d := q.Sub(p.a0)
	if t := d.Dot(p.d1); t >= 0 && t <= p.l1+1 {
		dist, off, dir, ok = t, abs(p.d1.Cross(d)), p.d1, true
	}
	if p.next {
		d = q.Sub(p.b0)
		t := d.Dot(p.d2)
		if e := abs(p.d2.Cross(d)); t >= -1 && t <= p.l2 && e < off {
			dist, off, dir, ok = p.l1+max(t, 0), e, p.d2, true
		}
	}
	return
}

// turnSpeed returns the speed to take the path's joint at.
func (p *path) turnSpeed() float32 {
	switch {
	case p.cosT > 0.9:
		return p.limit2
	case p.cosT < -0.5:
		return UTurnSpeed
	case p.left:
		return LeftTurnSpeed
	}
	return RightTurnSpeed
}

// speedCap returns the fastest a car may go now to keep to the limits and
// make the turn ahead (factor on the turn speeds) by the time it starts
// turning (look before the joint: it aims that far ahead), or stop at the
// end of a lane that leads nowhere.
func (p *path) speedCap(limit, turnFactor, look float32) float32 {
	if !p.next {
		return min(limit, math32.Sqrt(2*ComfortDecel*max(p.l1-Standoff, 0)))
	}
	vt := min(p.turnSpeed()*turnFactor, max(limit, p.limit2))
	return min(limit, math32.Sqrt(vt*vt+2*ComfortDecel*max(p.l1-look, 0)))
}

// curveCap returns the fastest a car at pos facing fwd may go on the arc
// through aim (pure pursuit's) at a sideways acceleration of grip.
func curveCap(pos, fwd, aim nav.Vec, grip float32) float32 {
	d := aim.Sub(pos)
	lx, ly := d.Dot(fwd), abs(fwd.Cross(d))
	if lx <= 0 {
		return CurveCrawl
	}
	k := 2 * ly / (lx*lx + ly*ly)
	if k < 1e-4 {
		return math32.MaxFloat32
	}
	return max(math32.Sqrt(grip/k), CurveCrawl)
}

// passed reports whether a car at q has passed the joint j of a lane of
// direction dA onto one of dB: past the bisector of the turn (half-way
// round), or for a U-turn at the joint itself.
func passed(q, j, dA, dB nav.Vec) bool {
	if dA.Dot(dB) > -0.5 {
		return q.Sub(j).Dot(dA.Add(dB)) >= 0
	}
	return q.Sub(j).Dot(dA) >= 0
}

// lookahead returns how far ahead along its path a car of spec at speed v
// aims: further the faster it goes, and never nearer than a turn it can
// make (a truck starts its turns early).
func lookahead(spec *phys.CarSpec, v float32) float32 {
	turn := 1.3 * spec.Wheelbase / math32.Tan(spec.MaxSteer)
	return max(clamp(4+0.45*v, 5, 14), turn)
}

// pursue returns the steering (-1 right .. 1 left) that turns a car at pos
// facing fwd onto an arc through target (pure pursuit), for a car of
// wheelbase wb and full lock maxSteer; backwards (reversing) it steers the
// other way round.
func pursue(pos, fwd, target nav.Vec, wb, maxSteer float32, backwards bool) float32 {
	if backwards { // aim the tail: the car turns the other way going back
		fwd = fwd.Scale(-1)
	}
	d := target.Sub(pos)
	lx, ly := d.Dot(fwd), fwd.Cross(d)
	l2 := lx*lx + ly*ly
	if l2 < 1e-4 {
		return 0
	}
	var steer float32
	if lx <= 0 { // behind: full lock toward it
		steer = 1
		if ly < 0 {
			steer = -1
		}
	} else {
		k := 2 * ly / l2 // the arc's curvature
		steer = math32.Atan(k*wb) / maxSteer
	}
	if backwards {
		steer = -steer
	}
	return clamp(steer, -1, 1)
}

// speedTo sets d's throttle, brake and handbrake to bring a car going v
// (forward, m/s) to vt. Standing, it holds the handbrake: a held brake
// would reverse.
func speedTo(d *components.Drive, v, vt float32) {
	switch {
	case vt < 0.3 && v < 1:
		d.Held |= components.BtnHandbrake
	case v > vt+0.4:
		d.Brake = clamp((v-vt)*0.5, 0.15, 1)
	case v < vt:
		d.Throttle = clamp(0.25+(vt-v)*0.4, 0, 1)
	}
}

// safeSpeed returns the speed from which a car stops Standoff behind
// something gap metres ahead going vo along its way (or keeps its pace
// behind it), braking at StopDecel.
func safeSpeed(gap, vo float32) float32 {
	if gap <= Standoff {
		return vo * clamp((gap-0.5)/(Standoff-0.5), 0, 1)
	}
	return math32.Sqrt(vo*vo + 2*StopDecel*(gap-Standoff))
}

// extents returns the half extents of b across and along a direction dir.
func (b *body) extents(dir nav.Vec) (across, along float32) {
	c, s := abs(b.fwd.Dot(dir)), abs(b.fwd.Cross(dir))
	return s*b.hx + c*b.hy, c*b.hx + s*b.hy
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
