package ai

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
)

// Chase constants.
const (
	// ChaseTop (m/s) is the fastest a chaser drives along the roads: over
	// any limit, under what its tyres hold through a city.
	ChaseTop = 30
	// StuckTicks is how long a chaser that wants to go may stand before it
	// backs out (a second and a half), ReverseTicks how long it backs.
	StuckTicks   = 90
	ReverseTicks = 70
	// Overtake (m) is how far to the left a chaser aims to pass a slower
	// vehicle in its way.
	Overtake = 3.5
	// FreezeNext (m) is how near its joint a chaser keeps its next lane
	// even when the target's field would change it, so it never changes its
	// mind half-way round a corner.
	FreezeNext = 12
	// DirectClose (m) is how near a chaser goes straight at its target
	// wherever it is, when the way is clear.
	DirectClose = 25
	// ChaseLaneReach (m) is how far off the roads (a car park, a lot it
	// cut across) a chaser looks for a lane to get back on.
	ChaseLaneReach = 50
	// uTurnCost (m) is added to a U-turn's way: a chaser turns round only
	// when going on is that much longer.
	uTurnCost = 40
)

// chaser is a Chaser vehicle (or officer) this tick, for the readout.
type chaser struct {
	wid, target uint16
	mode        uint8
	dist, speed float32
	sees        bool
	lane        int32
}

// field is a target's road distances and when they were solved.
type field struct {
	target       ecs.Entity
	solved, used uint64
	f            nav.Field
}

// probeTurns are the headings (cos, sin) a chaser tries, nearest first,
// when the way straight at its aim is blocked: 15° steps each side to 90°.
var probeTurns = func() (t [12][2]float32) {
	for k := range 6 {
		s, c := math32.Sincos(float32(k+1) * math32.Pi / 12)
		t[2*k] = [2]float32{c, s}
		t[2*k+1] = [2]float32{c, -s}
	}
	return
}()

// driveChasers drives every Chaser vehicle after its target and keeps its
// Sees up to date.
func (s *System) driveChasers(w *ecs.World) {
	s.chasers = s.chasers[:0]
	s.guardCars = 0
	q := s.chaserQ.Query(w.Arche)
	for q.Next() {
		_, id, _ := q.Get()
		s.chasers = append(s.chasers, chaser{wid: id.WireID})
		if n := s.npc.Get(q.Entity()); n != nil && n.Role == components.RoleGuard {
			s.guardCars++
		}
	}
	slices.SortFunc(s.chasers, func(a, b chaser) int { return int(a.wid) - int(b.wid) })
	for i := range s.chasers {
		s.chaseOne(w, &s.chasers[i])
	}
}

// chaseOne drives one chaser.
func (s *System) chaseOne(w *ecs.World, ch *chaser) {
	bi := s.byWire[ch.wid]
	if bi < 0 {
		return
	}
	b := &s.bodies[bi]
	e := b.e
	c := s.chaserOf.Get(e)
	ch.mode, ch.lane, ch.speed = ModeIdle, -1, b.vel.Dot(b.fwd)
	c.Sees = false
	driver := s.seats.Get(e).Occupant[0]
	if !driver.IsZero() && w.Arche.Alive(driver) && s.npc.Get(driver) == nil {
		return // a player took it: theirs to drive
	}
	r, had := Route{Lane: -1, Next: -1}, false
	if p := s.routeOf.Get(e); p != nil {
		r, had = *p, true
	}
	var d components.Drive
	tpos, tvel, text, tbody, ok := s.targetOf(w, c.Target)
	if ok {
		_, tid := s.kinds.Get(c.Target)
		ch.target = tid.WireID
		ch.dist = tpos.Sub(b.pos).Len()
		c.Sees = ch.dist <= s.Tuning.ChaseSight && (s.static == nil || s.static.SegmentClear(b.pos, tpos))
		_, id := s.kinds.Get(e)
		d = s.chase(w, c.Target, tbody, &r, bi, phys.CarModel(id.Model), tpos, tvel, text)
	} else {
		r.Mode = ModeIdle
		speedTo(&d, ch.speed, 0)
	}
	ch.mode, ch.sees, ch.lane = r.Mode, c.Sees, r.Lane
	*s.drives.Get(e) = d
	if !driver.IsZero() && w.Arche.Alive(driver) {
		dd := s.drives.Get(driver)
		look := dd.LookYaw
		*dd = d
		dd.LookYaw = look
	}
	if had {
		*s.routeOf.Get(e) = r
	} else {
		s.routes = append(s.routes, routeAdd{e, r})
	}
}

// targetOf returns where target is, how it moves, how far its body
// reaches and which body it is (the vehicle it sits in, if any); false
// when it is gone.
func (s *System) targetOf(w *ecs.World, target ecs.Entity) (pos, vel nav.Vec, ext float32, e ecs.Entity, ok bool) {
	if target.IsZero() || !w.Arche.Alive(target) {
		return
	}
	e = target
	if in := s.seated.Get(target); in != nil && !in.Vehicle.IsZero() && w.Arche.Alive(in.Vehicle) {
		e = in.Vehicle
	}
	p, v := s.poses.Get(e)
	if p == nil {
		return
	}
	ext = phys.DefaultWalker.Radius
	if b := s.bodyOf.Get(e); b != nil {
		ext = b.Radius
		if b.Shape == components.ShapeBox {
			ext = b.HalfY // a chaser pulls up alongside, or rams the side
		}
	}
	return phys.Flat(p.Pos), phys.Flat(v.Lin), ext, e, true
}

// chase returns a chaser's inputs: backing out when stuck, straight at the
// target when close with a clear way (or when the roads do not reach it),
// else along the road graph's shortest way, steering round buildings.
func (s *System) chase(w *ecs.World, target, skip ecs.Entity, r *Route, bi int32, spec *phys.CarSpec, tpos, tvel nav.Vec, text float32) components.Drive {
	var d components.Drive
	b := &s.bodies[bi]
	speed := b.vel.Dot(b.fwd)
	dist := tpos.Sub(b.pos).Len()
	if r.Mode == ModeReverse {
		if r.Timer > 0 {
			r.Timer--
			d.Brake = 1
			d.Steer = pursue(b.pos, b.fwd, tpos, spec.Wheelbase, spec.MaxSteer, true)
			return d
		}
		r.Mode, r.Lane, r.Next = ModeFollow, -1, -1
	}
	f := s.fieldFor(w, target, tpos)
	p, aim, vt, on, followed := s.followField(r, b, spec, f, tvel)
	// Off the roads only near the target with a clear way: on its road
	// or at the end of the way to it, or close; or when the roads do not
	// lead there at all.
	direct := !followed
	if followed && dist <= s.Tuning.DirectRange && (dist < DirectClose || on) {
		direct = s.clearWay(b, tpos)
	}
	road := p.d1 // the way its road runs, to pass on the left of
	if p.l1 < 1 && p.next {
		road = p.d2
	}
	if direct {
		r.Mode = ModeDirect
		aim, vt = s.direct(b, speed, dist, tpos, tvel, text)
		to := aim.Sub(b.pos)
		p = path{a0: b.pos, d1: unit(to), l1: to.Len(), limit1: ChaseTop}
		if !followed {
			road = p.d1
		}
	} else {
		r.Mode = ModeFollow
	}
	aim, vt = s.giveWay(bi, &p, aim, road, vt, skip)
	aim = s.probe(b, speed, aim)
	vt = min(vt, curveCap(b.pos, b.fwd, aim, ChaseGrip))
	d.Steer = pursue(b.pos, b.fwd, aim, spec.Wheelbase, spec.MaxSteer, false)
	speedTo(&d, speed, vt)
	if vt > 2 && abs(speed) < 0.5 {
		r.Stuck++
		if r.Stuck > StuckTicks {
			r.Mode, r.Timer, r.Stuck = ModeReverse, ReverseTicks, 0
		}
	} else {
		r.Stuck = 0
	}
	return d
}

// direct aims a chaser straight at its target, a little ahead of where it
// moves: it pulls up against a target standing still (boxing it in) and
// rams a moving one.
func (s *System) direct(b *body, speed, dist float32, tpos, tvel nav.Vec, text float32) (aim nav.Vec, vt float32) {
	lead := clamp(dist/max(speed, 8), 0, 1.2)
	aim = tpos.Add(tvel.Scale(lead))
	gap := dist - b.hx - text - 0.8
	if tv := tvel.Len(); tv > 1.5 {
		return aim, clamp(tv+clamp(gap*0.5, -2, 12), 0, ChaseTop)
	}
	return aim, min(math32.Sqrt(2*StopDecel*max(gap-0.5, 0)), ChaseTop)
}

// chaseFields is how many chase targets' road distances are made ready
// with the system: as many as the police have cars (police.MaxUnits).
const chaseFields = 16

// warmFields makes chaseFields fields, each solved once so that its
// buffers are there: a target first chased in play then takes a slot (an
// unused one is taken first anyway) and solves into it without
// allocating. A slot made ready has no target and counts as unused for a
// long while, so it is solved again when taken.
func (s *System) warmFields() {
	if s.nav == nil || len(s.nav.Nodes) == 0 {
		return
	}
	s.fields = make([]field, chaseFields)
	for i := range s.fields {
		s.nav.Solve(&s.fields[i].f, nav.Vec{}, 40)
	}
}

// fieldFor returns target's road distances, solved again every FieldEvery
// ticks or when it has moved FieldMove.
func (s *System) fieldFor(w *ecs.World, target ecs.Entity, tpos nav.Vec) *nav.Field {
	now := w.Tick()
	slot := -1
	for i := range s.fields {
		if s.fields[i].target == target {
			slot = i
			break
		}
	}
	if slot < 0 {
		for i := range s.fields { // reuse a slot unused for a while
			if now-s.fields[i].used > 2*s.Tuning.FieldEvery {
				slot = i
				break
			}
		}
		if slot < 0 {
			s.fields = append(s.fields, field{})
			slot = len(s.fields) - 1
		}
		s.fields[slot].target = target
		s.fields[slot].f.Lane = -2 // not solved
	}
	fs := &s.fields[slot]
	fs.used = now
	if fs.f.Lane == -2 || now-fs.solved >= s.Tuning.FieldEvery || fs.f.Target.Sub(tpos).Len() > s.Tuning.FieldMove {
		s.nav.Solve(&fs.f, tpos, 40)
		fs.solved = now
	}
	return &fs.f
}

// followField aims a chaser along its lane toward the target's field:
// at each node onto the lane with the shortest way on. on says the chaser
// is on the target's lane behind it, or has come to the end of the way to
// it. False when the chaser has no lane near or the field does not reach.
func (s *System) followField(r *Route, b *body, spec *phys.CarSpec, f *nav.Field, tvel nav.Vec) (p path, aim nav.Vec, vt float32, on, ok bool) {
	if f.Lane < 0 || !s.findLane(r, b, false, ChaseLaneReach) {
		return p, aim, 0, false, false
	}
	m := s.nav
	ahead := false
	for k := 0; k < 2; k++ {
		if r.Lane == f.Lane || r.Lane == f.Twin {
			if along, _ := m.Project(r.Lane, b.pos); along <= s.targetAlong(f, r.Lane) {
				r.Next, ahead = -1, true // the target is ahead on this lane
				break
			}
		}
		if next := s.bestNext(r, b, f); next != r.Next {
			r.Next = next
		}
		if r.Next < 0 {
			break
		}
		j, _, _ := m.Joint(r.Lane, r.Next)
		if !passed(b.pos, j, m.Lanes[r.Lane].Dir, m.Lanes[r.Next].Dir) {
			break
		}
		r.Lane, r.Next = r.Next, -1
	}
	p = s.makePath(b.pos, r.Lane, r.Next)
	if ahead {
		p.l1 = max(min(p.l1, s.targetAlong(f, r.Lane)-p.along), 0)
	}
	speed := max(b.vel.Dot(b.fwd), 0)
	look := lookahead(spec, speed)
	aim = p.at(look)
	vt = p.speedCap(ChaseTop, ChaseTurnFactor, look)
	if ahead { // keep up with it
		vt = min(vt+max(tvel.Dot(p.d1), 0), ChaseTop)
	}
	return p, aim, vt, ahead || r.Next < 0 && p.l1 < 2*Standoff, true
}

// giveWay returns a chaser's aim and speed with what is in its way on
// its path (as the traffic sees it, its target skip left out: that it
// rams): a vehicle it passes on the left when that side is clear, else it
// slows behind it; it never runs anyone down.
func (s *System) giveWay(bi int32, p *path, aim, road nav.Vec, vt float32, skip ecs.Entity) (nav.Vec, float32) {
	b := &s.bodies[bi]
	c := car{body: bi, path: *p, aim: aim, speed: b.vel.Dot(b.fwd), vCap: vt, blocker: -1, junc: junction{node: -1}, skip: skip}
	s.scan(&c)
	if c.blocker >= 0 && c.vWant < vt && c.vPeople >= vt {
		if passed, ok := s.passLeft(b, aim, road, c.blocker); ok {
			return passed, vt
		}
	}
	return aim, c.vWant
}

// targetAlong returns where the field's target lies along lane (its lane
// or twin).
func (s *System) targetAlong(f *nav.Field, lane int32) float32 {
	if lane == f.Lane {
		return f.AlongLane
	}
	return f.AlongTwin
}

// bestNext returns the lane out of the end of r.Lane with the shortest way
// to the target (a U-turn costing uTurnCost more), or r.Next while the
// chaser is within FreezeNext of its joint.
func (s *System) bestNext(r *Route, b *body, f *nav.Field) int32 {
	m := s.nav
	if r.Next >= 0 {
		if j, _, _ := m.Joint(r.Lane, r.Next); j.Sub(b.pos).Len() < FreezeNext {
			return r.Next
		}
	}
	from := m.Lanes[r.Lane].From
	best, bestCost := int32(-1), nav.Unreachable
	for _, o := range m.Level.LanesOut(int(m.Lanes[r.Lane].To)) {
		cost := f.Cost(m, o)
		if cost == nav.Unreachable {
			continue
		}
		if m.Lanes[o].To == from {
			cost += uTurnCost
		}
		if cost < bestCost {
			best, bestCost = o, cost
		}
	}
	return best
}

// passLeft returns a chaser's aim moved Overtake to the left of the way
// dir (its road's: so the pass does not drift), to pass the vehicle
// blocker (a body index), and whether that side is clear of bodies and
// buildings for the pass.
func (s *System) passLeft(b *body, aim, dir nav.Vec, blocker int32) (nav.Vec, bool) {
	if dir == (nav.Vec{}) {
		return aim, false
	}
	left := nav.Vec{X: -dir.Y, Y: dir.X}.Scale(Overtake)
	from := b.pos.Add(left)
	to := aim.Add(left).Add(dir.Scale(2 * b.hx))
	if s.static != nil && (!s.static.SegmentClear(b.pos, from) || !s.static.SegmentClear(from, to)) {
		return aim, false
	}
	lo := nav.Vec{X: min(from.X, to.X) - 5, Y: min(from.Y, to.Y) - 5}
	hi := nav.Vec{X: max(from.X, to.X) + 5, Y: max(from.Y, to.Y) + 5}
	x0, y0, x1, y1 := s.grid.Range(lo, hi)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			for _, oi := range s.grid.Cell(x, y) {
				o := &s.bodies[oi]
				if o.e == b.e || oi == blocker {
					continue
				}
				across, _ := o.extents(dir)
				if pointSeg2(o.pos, from, to) < sq(b.hy+across+0.5) {
					return aim, false
				}
			}
		}
	}
	return aim.Add(left), true
}

func sq(x float32) float32 { return x * x }

// clearWay reports whether a chaser could drive straight to p: no building
// on the lines from its sides and its centre.
func (s *System) clearWay(b *body, p nav.Vec) bool {
	if s.static == nil {
		return true
	}
	dir := unit(p.Sub(b.pos))
	side := nav.Vec{X: -dir.Y, Y: dir.X}.Scale(b.hy)
	return s.static.SegmentClear(b.pos, p) &&
		s.static.SegmentClear(b.pos.Add(side), p.Add(side)) &&
		s.static.SegmentClear(b.pos.Sub(side), p.Sub(side))
}

// probe returns aim, or when a building stands between the car and it
// within the way it covers in a second, a point as far off on the nearest
// heading (in 15° steps, to 90° either side) that is clear.
func (s *System) probe(b *body, speed float32, aim nav.Vec) nav.Vec {
	if s.static == nil {
		return aim
	}
	to := aim.Sub(b.pos)
	dir := unit(to)
	if dir == (nav.Vec{}) {
		return aim
	}
	look := min(clamp(abs(speed)+b.hx+3, 6, 25), to.Len())
	if s.clearAlong(b, dir, look) {
		return aim
	}
	for _, t := range probeTurns {
		d := nav.Vec{X: dir.X*t[0] - dir.Y*t[1], Y: dir.X*t[1] + dir.Y*t[0]}
		if s.clearAlong(b, d, look) {
			return b.pos.Add(d.Scale(look))
		}
	}
	return aim
}

// clearAlong reports whether a car's width can go look metres along dir
// from where it is without meeting a building.
func (s *System) clearAlong(b *body, dir nav.Vec, look float32) bool {
	side := nav.Vec{X: -dir.Y, Y: dir.X}.Scale(b.hy + 0.3)
	end := b.pos.Add(dir.Scale(look))
	return s.static.SegmentClear(b.pos, end) &&
		s.static.SegmentClear(b.pos.Add(side), end.Add(side)) &&
		s.static.SegmentClear(b.pos.Sub(side), end.Sub(side))
}

// Armed chasers on foot (a guard alert, its weapon drawn): within FireRange
// of a target they see they stop and fire, in bursts of FireBurst ticks
// with as long between, aiming within AimError (rad) either way of it.
const (
	FireRange = 18
	FireBurst = ecs.TickRate
	AimError  = 0.1
)

// walkOfficers walks every officer on foot with a Chaser (not a player's
// character) to its target: at a run when it is far. One with a weapon in
// hand fires at a target it sees within FireRange. A sentry whose Chaser
// has no target is left alone: its patrol or the stealth system moves it.
func (s *System) walkOfficers(w *ecs.World) {
	q := s.officerQ.Query(w.Arche)
	for q.Next() {
		c, id, in := q.Get()
		if !in.Vehicle.IsZero() {
			continue // a seated officer rides their car, which chases
		}
		e := q.Entity()
		if c.Target.IsZero() && s.sentryOf.Has(e) {
			continue
		}
		p, _ := s.poses.Get(e)
		d := s.drives.Get(e)
		pos := phys.Flat(p.Pos)
		tpos, _, _, _, ok := s.targetOf(w, c.Target)
		ch := chaser{wid: id.WireID, mode: ModeIdle, lane: -1}
		*d = components.Drive{LookYaw: d.LookYaw}
		c.Sees = false
		if ok {
			_, tid := s.kinds.Get(c.Target)
			to := tpos.Sub(pos)
			dist := to.Len()
			c.Sees = dist <= s.Tuning.ChaseSight && (s.static == nil || s.static.SegmentClear(pos, tpos))
			ch.target, ch.dist, ch.mode, ch.sees = tid.WireID, dist, ModeDirect, c.Sees
			if dist > 1.2 {
				d.LookYaw = math32.Atan2(to.Y, to.X)
				d.MoveY = 1
			}
			if dist > 6 {
				d.Held |= components.BtnSprint
			}
			if act := s.actions.Get(e); act != nil && act.Weapon != 0 && c.Sees && dist <= FireRange {
				d.MoveY, d.Held = 0, 0
				d.LookYaw += AimError * aimJitter(w.Tick(), id.WireID)
				if (w.Tick()/FireBurst+uint64(id.WireID))%2 == 0 {
					d.Held |= components.BtnFire
				}
			}
		}
		s.chasers = append(s.chasers, ch)
	}
}

// aimJitter returns a number in [-1, 1) that stands for a shooter's hand:
// the same for a shooter (wire id) and a round's worth of ticks, different
// from round to round. A hash, not the room's random source, so that it
// draws nothing and depends on nothing but its arguments.
func aimJitter(tick uint64, wid uint16) float32 {
	x := (tick/15)*0x9e3779b97f4a7c15 ^ uint64(wid)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	x ^= x >> 29
	return float32(x>>40)/float32(1<<23) - 1
}
