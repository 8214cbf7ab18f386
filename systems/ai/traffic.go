package ai

import (
	"slices"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
)

// HornAfter is how long (ticks) a car stands blocked before it sounds its
// horn: two seconds.
const HornAfter = 2 * ecs.TickRate

// car is a vehicle the AI drives along the lanes this tick.
type car struct {
	e, driver ecs.Entity
	wid       uint16
	body      int32 // index in System.bodies
	route     Route
	hadRoute  bool
	counted   bool // an ambient car the AI keeps (RoleTraffic, no spawner)
	driven    bool // its NPC driver is at the wheel: the AI drives it
	spec      *phys.CarSpec
	speed     float32 // forward, m/s
	path      path
	aim       nav.Vec
	vCap      float32    // the fastest the lanes allow
	vWant     float32    // the fastest with what is in the way
	vAlt      float32    // the same without the blocker
	blocker   int32      // body index of the vehicle that sets vWant, -1
	vPeople   float32    // the fastest for the people in the way alone
	skip      ecs.Entity // a body it does not stop for (a chaser's target)
	junc      junction
	reversing bool  // backing off (Route.Mode ModeReverse)
	backOff   bool  // to start backing off: it stands in another's way
	yieldTo   int32 // the car it lets go first at a box's edge, -1
	atLight   bool  // it stops at a box's edge for its light
	queued    bool  // it stands for its light, or for a car that does
	waitFor   int32 // the car it stands for, -1
	mark      uint8 // cycle search: 0 new, 1 on the walk, 2 done
}

// driveTraffic drives every NPC-driven car along the lanes: the ambient
// traffic and the spawners' drivers.
func (s *System) driveTraffic(w *ecs.World) {
	s.cars = s.cars[:0]
	q := s.trafficQ.Query(w.Arche)
	for q.Next() {
		npc, id, seats := q.Get()
		if npc.Role != components.RoleTraffic && npc.Role != components.RoleDriver {
			if s.chaserOf.Get(q.Entity()) == nil {
				s.park(w, q.Entity(), seats.Occupant[0])
			}
			continue
		}
		s.cars = append(s.cars, car{
			e: q.Entity(), wid: id.WireID, driver: seats.Occupant[0],
			counted: npc.Role == components.RoleTraffic && npc.Spawner < 0, blocker: -1, yieldTo: -1, waitFor: -1,
		})
	}
	slices.SortFunc(s.cars, func(a, b car) int { return int(a.wid) - int(b.wid) })
	for i := range s.cars {
		s.planCar(w, int32(i))
	}
	s.tallyCars()
	for i := range s.cars {
		if c := &s.cars[i]; c.driven && !c.reversing {
			s.scan(c)
		}
	}
	s.resolveMutual()
	s.yieldAtJunctions()
	s.breakCycles()
	s.markQueues()
	s.backOff()
	s.traffic = 0
	for i := range s.cars {
		s.finishCar(w, &s.cars[i])
	}
}

// park stops an NPC's vehicle the AI has nothing for (a police car taken
// off its chase): its NPC driver's foot on the brake, so the seats do not
// hand on the last chase's throttle.
func (s *System) park(w *ecs.World, e, driver ecs.Entity) {
	if driver.IsZero() || !w.Arche.Alive(driver) || s.npc.Get(driver) == nil {
		return // nobody, or a player, at the wheel
	}
	p, v := s.poses.Get(e)
	co, si := p.Rot.Heading()
	var d components.Drive
	speedTo(&d, v.Lin.X*co+v.Lin.Y*si, 0)
	*s.drives.Get(e) = d
	dd := s.drives.Get(driver)
	d.LookYaw = dd.LookYaw
	*dd = d
}

// planCar checks who drives car i, finds its lanes and its path, and the
// point it steers at.
func (s *System) planCar(w *ecs.World, i int32) {
	c := &s.cars[i]
	c.body = s.byWire[c.wid]
	if c.body < 0 {
		return
	}
	s.bodies[c.body].car = i
	d := c.driver
	switch {
	case d.IsZero() || !w.Arche.Alive(d) || s.npc.Get(d) == nil:
		// Carjacked, or its driver is gone: an ordinary car now.
		s.release = append(s.release, c.e)
		return
	case s.health.Get(d).HP == 0:
		s.release = append(s.release, c.e) // its driver is dead at the wheel
		return
	case s.actions.Get(d).Act != components.ActDriving:
		return // getting in or out: nobody at the wheel yet
	}
	c.driven = true
	if r := s.routeOf.Get(c.e); r != nil {
		c.route, c.hadRoute = *r, true
	} else {
		c.route = Route{Lane: -1, Next: -1}
	}
	c.reversing = c.route.Mode == ModeReverse && c.route.Timer > 0
	_, id := s.kinds.Get(c.e)
	c.spec = phys.CarModel(id.Model)
	b := &s.bodies[c.body]
	c.speed = b.vel.Dot(b.fwd)
	if !s.findLane(&c.route, b, true, 2*LaneOff) {
		c.route.Mode = ModeLost
		c.aim, c.vCap, c.vWant, c.vAlt = b.pos.Add(b.fwd.Scale(10)), 0, 0, 0
		return
	}
	c.route.Mode = ModeFollow
	r := &c.route
	for k := 0; k < 2; k++ {
		if r.Next < 0 {
			r.Next = s.pickNext(w, r.Lane)
		}
		if r.Next < 0 {
			break
		}
		j, _, _ := s.nav.Joint(r.Lane, r.Next)
		if !passed(b.pos, j, s.nav.Lanes[r.Lane].Dir, s.nav.Lanes[r.Next].Dir) {
			break
		}
		r.Lane, r.Next = r.Next, -1
	}
	c.path = s.makePath(b.pos, r.Lane, r.Next)
	look := lookahead(c.spec, max(c.speed, 0))
	c.aim = c.path.at(look)
	c.vCap = min(c.path.speedCap(c.path.limit1, 1, look), curveCap(b.pos, b.fwd, c.aim, TrafficGrip))
	c.vWant, c.vAlt = c.vCap, c.vCap
	s.findJunction(c, b)
	if c.reversing {
		c.route.Mode = ModeReverse
	}
}

// findLane keeps r on its lane while the car is near it, or finds the lane
// nearest within reach (of the traffic's lanes when traffic), the one it
// faces along first; false when there is none.
func (s *System) findLane(r *Route, b *body, traffic bool, reach float32) bool {
	m := s.nav
	if r.Next >= int32(len(m.Lanes)) {
		r.Next = -1
	}
	if r.Lane >= 0 && int(r.Lane) < len(m.Lanes) {
		if s.nearLane(r.Lane, b.pos) {
			return true
		}
		if r.Next >= 0 && s.nearLane(r.Next, b.pos) { // swung wide round the turn
			r.Lane, r.Next = r.Next, -1
			return true
		}
	}
	lane, _ := m.NearestLane(b.pos, b.fwd, reach, 40, traffic)
	r.Lane, r.Next = lane, -1
	return lane >= 0
}

// nearLane reports whether p is near enough lane to follow it.
func (s *System) nearLane(lane int32, p nav.Vec) bool {
	along, left := s.nav.Project(lane, p)
	return abs(left) <= LaneOff && along >= -LaneOff && along <= s.nav.Lanes[lane].Len+2*LaneOff
}

// pickNext chooses the lane an ambient car takes at the end of lane: a
// way out of the node it enters (drawn from the world's random source
// among the traffic's, not back the way it came while there is another),
// and of that way's lanes the one a driver keeps to for the turn: the
// kerb side turning right, the middle turning left, its own going
// straight on. -1 at a dead end.
func (s *System) pickNext(w *ecs.World, lane int32) int32 {
	m := s.nav
	la := &m.Lanes[lane]
	outs := m.Level.LanesOut(int(la.To))
	// The ways out: the distinct nodes the traffic's lanes lead to, in
	// the order of their first lane.
	ways, back := 0, int32(-1)
	for i, o := range outs {
		lo := &m.Lanes[o]
		if !lo.Traffic || !firstTo(m, outs[:i], lo.To) {
			continue
		}
		if lo.To == la.From {
			back = lo.To
			continue
		}
		ways++
	}
	to := back
	if ways > 0 {
		k := w.RNG.IntN(ways)
		for i, o := range outs {
			lo := &m.Lanes[o]
			if !lo.Traffic || !firstTo(m, outs[:i], lo.To) || lo.To == la.From {
				continue
			}
			if k == 0 {
				to = lo.To
				break
			}
			k--
		}
	}
	if to < 0 {
		return -1
	}
	return s.laneFor(lane, outs, to)
}

// firstTo reports whether none of lanes leads to node to.
func firstTo(m *nav.Map, lanes []int32, to int32) bool {
	for _, o := range lanes {
		if m.Lanes[o].Traffic && m.Lanes[o].To == to {
			return false
		}
	}
	return true
}

// laneFor returns, of the traffic's lanes in outs leading to node to, the
// one a car leaving lane keeps to: the rightmost turning right, the
// leftmost turning left, the one nearest its own offset going straight.
func (s *System) laneFor(lane int32, outs []int32, to int32) int32 {
	m := s.nav
	lv := s.level.Roads.Lanes
	la := &m.Lanes[lane]
	best, bestScore := int32(-1), float32(0)
	for _, o := range outs {
		lo := &m.Lanes[o]
		if !lo.Traffic || lo.To != to {
			continue
		}
		off := lv[o].Offset
		var score float32
		switch cr := la.Dir.Cross(lo.Dir); {
		case cr < -0.3: // right
			score = off
		case cr > 0.3: // left
			score = -off
		default:
			score = -abs(off - lv[lane].Offset)
		}
		if best < 0 || score > bestScore {
			best, bestScore = o, score
		}
	}
	return best
}

// scan lowers c's speed for what is in its way: every body on its path
// ahead (where it is, and for a moving vehicle where it will be in a
// moment) and just in front of its bumper.
func (s *System) scan(c *car) {
	self := &s.bodies[c.body]
	v := max(c.speed, 0)
	reach := clamp(v*v/(2*StopDecel)+Standoff+12, 15, 60)
	front := self.pos.Add(self.fwd.Scale(self.hx + 6))
	lo, hi := self.pos, self.pos
	for _, p := range [...]nav.Vec{front, c.path.at(reach * 0.5), c.path.at(reach), c.path.at(min(reach, c.path.l1))} {
		lo = nav.Vec{X: min(lo.X, p.X), Y: min(lo.Y, p.Y)}
		hi = nav.Vec{X: max(hi.X, p.X), Y: max(hi.Y, p.Y)}
	}
	const grow = 4
	x0, y0, x1, y1 := s.grid.Range(nav.Vec{X: lo.X - grow, Y: lo.Y - grow}, nav.Vec{X: hi.X + grow, Y: hi.Y + grow})
	best, alt, bestIdx := c.vCap, c.vCap, int32(-1)
	c.vPeople = c.vCap
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, bi := range s.grid.Cell(x, y) {
				if bi == c.body || s.bodies[bi].e == c.skip && !c.skip.IsZero() {
					continue
				}
				vc := s.constraint(c, self, &s.bodies[bi], reach)
				if !s.bodies[bi].kind.IsVehicle() {
					c.vPeople = min(c.vPeople, vc)
				}
				switch {
				case vc < best:
					alt, best, bestIdx = best, vc, bi
				case vc < alt:
					alt = vc
				}
			}
		}
	}
	c.vWant, c.vAlt = best, alt
	if bestIdx >= 0 && s.bodies[bestIdx].kind.IsVehicle() {
		c.blocker = bestIdx
	}
}

// constraint returns the fastest c may go for body b, +Inf-like when b is
// not in its way.
func (s *System) constraint(c *car, self, b *body, reach float32) float32 {
	const free = float32(1e9)
	rel := b.pos.Sub(self.pos)
	if rel.Dot(rel) > (reach+10)*(reach+10) {
		return free
	}
	vc := free
	q := b.pos
	for k := 0; k < 2; k++ {
		if k == 1 {
			if !b.kind.IsVehicle() || b.vel.Dot(b.vel) < 4 {
				break
			}
			q = b.pos.Add(b.vel.Scale(0.6)) // where it will be in a moment
		}
		dist, off, dir, ok := c.path.frame(q)
		if !ok || dist <= 0 || dist > reach {
			continue
		}
		across, along := b.extents(dir)
		if off > self.hy+across+0.45 {
			continue
		}
		vo := max(b.vel.Dot(dir), 0)
		gap := dist - self.hx - along
		if j := &c.junc; j.node >= 0 && !j.inside && !j.committed && vo < 2 &&
			gap > j.dEntry && gap < j.dExit+self.hx+Standoff {
			gap = j.dEntry + 1 // it would stand in the box: wait at its edge
		}
		vc = min(vc, safeSpeed(gap, vo))
	}
	// Just ahead of the bumper, the way it is turning: half-way between
	// its heading and its aim, as far as it goes in a little while.
	dir := unit(self.fwd.Add(unit(c.aim.Sub(self.pos))))
	if dir == (nav.Vec{}) {
		dir = self.fwd
	}
	lx, ly := rel.Dot(dir), dir.Cross(rel)
	across, along := b.extents(dir)
	if lx > 0 && lx < self.hx+along+clamp(c.speed*0.8, 1.5, 6) && abs(ly) < self.hy+across+0.3 {
		vc = min(vc, safeSpeed(lx-self.hx-along, max(b.vel.Dot(dir), 0)))
	}
	return vc
}

// resolveMutual lets one of two cars that each wait for the other go: the
// one of the lower wire id ignores the other (which keeps waiting for it).
func (s *System) resolveMutual() {
	for i := range s.cars {
		c := &s.cars[i]
		if !c.driven || c.blocker < 0 {
			continue
		}
		j := s.bodies[c.blocker].car
		if j < 0 || int(j) <= i {
			continue
		}
		o := &s.cars[j]
		if o.driven && o.blocker == c.body {
			c.vWant = c.vAlt
		}
	}
}

// CreepAfter is how long (ticks) cars stand waiting for each other round
// a cycle (each waiting for the next) before one of them creeps on at
// CreepSpeed (m/s), nudging its way through: a second and a half.
const (
	CreepAfter = 90
	CreepSpeed = 1.5
)

// breakCycles finds the cars that stand waiting for each other round a
// cycle, and lets the one of the lowest wire id in each (of those not
// letting another go first at a box) creep on regardless of the cars
// (never of the people) once they have waited CreepAfter.
func (s *System) breakCycles() {
	for i := range s.cars {
		c := &s.cars[i]
		c.waitFor, c.mark = -1, 0
		if !c.driven || c.vWant >= 0.5 {
			continue
		}
		switch {
		case c.atLight:
			// The light holds it, not a car: it is in no cycle, and
			// never the one to creep on.
		case c.yieldTo >= 0:
			c.waitFor = c.yieldTo
		case c.blocker >= 0:
			c.waitFor = s.bodies[c.blocker].car
		}
	}
	for i := range s.cars {
		// Walk the waits from i; meeting the walk itself is a cycle.
		j := int32(i)
		for j >= 0 && s.cars[j].mark == 0 {
			s.cars[j].mark = 1
			j = s.cars[j].waitFor
		}
		if j >= 0 && s.cars[j].mark == 1 {
			low, k := int32(-1), j
			for {
				// Never one that lets another go first at a box's edge:
				// creeping in would only lock the box.
				if c := &s.cars[k]; c.yieldTo < 0 && c.route.Waited > CreepAfter && (low < 0 || c.wid < s.cars[low].wid) {
					low = k
				}
				if k = s.cars[k].waitFor; k == j {
					break
				}
			}
			if low >= 0 {
				c := &s.cars[low]
				c.vWant = min(c.vCap, CreepSpeed, c.vPeople)
			}
			// Creeping got nowhere for long: those at the boxes' edges
			// back off where they have room, to open the box.
			for k = j; ; {
				if c := &s.cars[k]; !c.junc.inside && c.route.Waited > 4*CreepAfter {
					c.backOff = true
				}
				if k = s.cars[k].waitFor; k == j {
					break
				}
			}
		}
		for j = int32(i); j >= 0 && s.cars[j].mark == 1; j = s.cars[j].waitFor {
			s.cars[j].mark = 2
		}
	}
}

// queueLook is how far along the cars waiting for each other markQueues
// looks for one standing at a light.
const queueLook = 16

// markQueues marks the cars that stand at a light, or wait for one that
// does (a queue at a red light): they stand for the road's own sake, so
// they neither count the time nor sound the horn.
func (s *System) markQueues() {
	for i := range s.cars {
		c := &s.cars[i]
		for j, k := int32(i), 0; j >= 0 && k < queueLook; j, k = s.cars[j].waitFor, k+1 {
			if s.cars[j].atLight {
				c.queued = true
				break
			}
		}
	}
}

// Backing off: a car that has tried to go for BackOffAfter ticks and not
// moved (it pushes against its blocker) makes the car in its way back off
// for BackOffTicks (about a metre and a half), where there is room behind.
const (
	BackOffAfter = 60
	BackOffTicks = 35
	// backRoom (m) is the room a car needs behind its bumper to back off.
	backRoom = 1.2
)

// backOff counts each car's ticks of trying to go in vain, and marks the
// car in the way of one that has tried long enough to back off.
func (s *System) backOff() {
	for i := range s.cars {
		c := &s.cars[i]
		if !c.driven || c.reversing {
			continue
		}
		if c.vWant < 1 || c.speed > 0.3 {
			c.route.Stuck = 0
			continue
		}
		if c.route.Stuck++; c.route.Stuck <= BackOffAfter || c.blocker < 0 {
			continue
		}
		c.route.Stuck = 0
		if j := s.bodies[c.blocker].car; j >= 0 {
			if o := &s.cars[j]; o.driven && !o.reversing && o.speed < 0.3 {
				o.backOff = true
			}
		}
	}
}

// roomBehind reports whether nothing stands within backRoom behind c.
func (s *System) roomBehind(c *car) bool {
	self := &s.bodies[c.body]
	back := self.pos.Sub(self.fwd.Scale(self.hx + backRoom/2))
	r := backRoom/2 + self.hy + 2.5
	x0, y0, x1, y1 := s.grid.Range(nav.Vec{X: back.X - r, Y: back.Y - r}, nav.Vec{X: back.X + r, Y: back.Y + r})
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, bi := range s.grid.Cell(x, y) {
				if bi == c.body {
					continue
				}
				b := &s.bodies[bi]
				rel := b.pos.Sub(self.pos)
				across, along := b.extents(self.fwd)
				lx, ly := rel.Dot(self.fwd), abs(self.fwd.Cross(rel))
				if lx < 0 && -lx-along < self.hx+backRoom && ly < self.hy+across+0.2 {
					return false
				}
			}
		}
	}
	return s.static == nil || !s.static.Overlaps(back, self.hy)
}

// finishCar writes c's inputs and its route, counts it, and takes it away
// when no player is near to see it.
func (s *System) finishCar(w *ecs.World, c *car) {
	if !c.driven {
		if c.counted && c.body >= 0 && !slices.Contains(s.release, c.e) {
			s.traffic++ // getting in or out: still the AI's
		}
		return
	}
	b := &s.bodies[c.body]
	r := &c.route
	var d components.Drive
	if c.backOff && s.roomBehind(c) {
		r.Mode, r.Timer, c.reversing = ModeReverse, BackOffTicks, true
	}
	switch {
	case c.reversing:
		if r.Timer--; r.Timer == 0 || !s.roomBehind(c) {
			r.Mode, r.Timer = ModeFollow, 0
		}
		if c.speed > -1.5 {
			d.Brake = 0.5 // held at rest, the brake backs the car
		}
	case r.Mode == ModeFollow:
		aim := c.aim
		if j := &c.junc; j.node >= 0 && !j.inside && !j.committed && c.vWant < 2 {
			// Stopping at a box's edge: straight along its lane, so its
			// nose does not swing into the box before it may go.
			aim = c.path.a0.Add(c.path.d1.Scale(lookahead(c.spec, 0) + c.speed))
		}
		d.Steer = pursue(b.pos, b.fwd, aim, c.spec.Wheelbase, c.spec.MaxSteer, false)
		speedTo(&d, c.speed, c.vWant)
	default:
		speedTo(&d, c.speed, c.vWant)
	}
	switch {
	case c.speed < 0.5 && r.Mode == ModeFollow && c.vCap > 0.5 && !c.queued:
		r.Waited++ // standing, and not for the road's own sake
		if r.Waited > HornAfter && c.vWant < 0.5 && (r.Waited/30)%4 == 0 {
			d.Held |= components.BtnHorn
		}
	case c.speed > 1:
		r.Waited = 0
	}
	*s.drives.Get(c.e) = d
	dd := s.drives.Get(c.driver)
	look := dd.LookYaw
	*dd = d
	dd.LookYaw = look

	if npc := s.npc.Get(c.e); npc != nil {
		npc.Mode, npc.Lane, npc.Along = r.Mode, r.Lane, c.path.along
	}
	if c.hadRoute {
		*s.routeOf.Get(c.e) = *r
	} else {
		s.routes = append(s.routes, routeAdd{c.e, *r})
	}
	if !c.counted {
		return
	}
	if s.due(w, c.wid) && s.trafficGone(c, b) {
		s.takeAway(w, c.e, c.wid)
		return
	}
	s.traffic++
}

// trafficGone reports whether an ambient car may be taken away now: far
// from every player, or stuck, or lost, or one too many, or one of a
// player over their part of the budget while another lacks (share.go);
// and seen by none.
func (s *System) trafficGone(c *car, b *body) bool {
	i, d := s.nearest(b.pos)
	far := i >= 0 && d > s.Tuning.TrafficDespawn
	stuck := c.route.Waited > s.Tuning.WaitDespawn || c.route.Mode == ModeLost
	extra := s.traffic+s.guardCars >= s.trafficWant
	if !far && !stuck && !extra && s.pops[popCars].spare == 0 || s.seen(b.pos, s.Tuning.SightRange) {
		return false
	}
	return far || stuck || extra || s.moveOff(popCars, i, d, s.Tuning.TrafficSpawnMin)
}
