// Package gates is the system that runs the level's gates and barriers:
// each is an entity (KindGate, an immovable box across its opening) that
// stands shut, stopping everything, until a car whose driver passes the
// gate's rule (levels.GateRule: a party, a key tag, police) comes within
// OpenRange of it; it then opens (its Body collides with nothing and its
// Flags carry FlagOpen, which the clients show) and shuts again once no
// such car is near and nothing stands in the opening.
//
// A key tag rule opens for a driver carrying that key. The keys a person
// carries are a components.Keys, a bitset of the level's key tags interned
// to small ids (KeyID: every key tag of the level's gates, vehicle
// spawners and containers, in that order, as first met); Give puts a key
// on a person, and CarriedKeys is the HasKey hook that reads them.
//
// Reset shuts every open gate as the level had it (a level reset) without
// waiting for HoldTicks: one a car that may pass is at opens again.
//
// It runs in the pre-step phase after the spawners and before the police
// (systems.Entries), so a gate opened this tick lets the car through in
// this tick's step.
package gates

import (
	"fmt"
	"strings"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "gates"

// Tuning of the gates.
const (
	// OpenRange (m) is how near the centre of a car whose driver may pass
	// must be to the gate's line to open it: a car's length and a half, so
	// the gate is open before the bumper gets there at a crawl.
	OpenRange = 8
	// ClearMargin (m) is the room kept round the gate's box: a body this
	// near the shut line keeps an open gate open.
	ClearMargin = 0.5
	// HoldTicks keeps a gate open this long after the last car that may
	// pass was near, so it does not flap shut between two cars: a second.
	HoldTicks = ecs.TickRate
)

// KeyRule reports whether driver carries a key with tag. CarriedKeys gives
// the one New sets; a test may set its own.
type KeyRule func(w *ecs.World, driver ecs.Entity, tag string) bool

// System is the gates system. Make it with New.
type System struct {
	// HasKey answers the rules' key tags: CarriedKeys (the drivers'
	// Keys) from New; a test may set its own, nil for nobody.
	HasKey KeyRule

	level  *levels.Level
	build  *prefab.Builder
	gates  []gate
	made   bool
	reset  bool
	tags   []string // the level's key tags, by KeyID
	keys   generic.Map1[components.Keys]
	lo, hi phys.Vec // a box round every gate and its reach: nothing outside it matters
	cars   *generic.Filter4[components.Kind, components.Pose, components.Body, components.Seats]
	people *generic.Filter3[components.Pose, components.Body, components.SeatedIn]
	bodies generic.Map2[components.Body, components.Flags]
	kinds  generic.Map2[components.Kind, components.Identity]
}

// gate is one level gate: its entity and its line.
type gate struct {
	e         ecs.Entity
	level     int // index into Level.Gates
	pos       phys.Vec
	co, si    float32 // heading of the cars passing it
	halfW     float32
	rule      levels.GateRule
	open      bool
	wantedAt  uint64 // the last tick a car that may pass was near, +1
	want, hit bool   // this tick: a car that may pass is near; a body is in the way
}

// New returns the gates system of w on level l. The gates are made by the
// first Update.
func New(w *ecs.World, l *levels.Level) *System {
	s := &System{
		level:  l,
		build:  prefab.New(w),
		cars:   generic.NewFilter4[components.Kind, components.Pose, components.Body, components.Seats](),
		people: generic.NewFilter3[components.Pose, components.Body, components.SeatedIn](),
		bodies: generic.NewMap2[components.Body, components.Flags](w.Arche),
		kinds:  generic.NewMap2[components.Kind, components.Identity](w.Arche),
		keys:   generic.NewMap1[components.Keys](w.Arche),
	}
	s.cars.Register(w.Arche)
	s.people.Register(w.Arche)
	s.internKeys()
	s.HasKey = s.CarriedKeys()
	return s
}

// internKeys numbers the level's key tags: the gates' rules first (their
// tags get the first ids), then the vehicle spawners' and the containers'.
// Tags past MaxKeys get none: no key opens for them.
func (s *System) internKeys() {
	if s.level == nil {
		return
	}
	for i := range s.level.Gates {
		s.intern(s.level.Gates[i].Rule.KeyTag)
	}
	for i := range s.level.VehicleSpawners {
		s.intern(s.level.VehicleSpawners[i].KeyTag)
	}
	for i := range s.level.Containers {
		s.intern(s.level.Containers[i].KeyTag)
	}
}

func (s *System) intern(tag string) {
	if _, ok := s.KeyID(tag); ok || tag == "" || len(s.tags) >= components.MaxKeys {
		return
	}
	s.tags = append(s.tags, tag)
}

// KeyID returns the id of the level's key tag, and false for a tag the
// level does not have (or has no id for).
func (s *System) KeyID(tag string) (components.KeyID, bool) {
	for i, t := range s.tags {
		if t == tag {
			return components.KeyID(i), true
		}
	}
	return 0, false
}

// KeyTags returns the level's key tags, by KeyID. The slice is the
// system's own.
func (s *System) KeyTags() []string { return s.tags }

// Give puts the key with tag on person e (adding a Keys component if it
// has none). It makes a structural change: call it between ticks, or from
// a system with no query open.
func (s *System) Give(w *ecs.World, e ecs.Entity, tag string) error {
	id, ok := s.KeyID(tag)
	if !ok {
		known := "none"
		if len(s.tags) > 0 {
			known = strings.Join(s.tags, ", ")
		}
		return fmt.Errorf("unknown key tag %q (this level's: %s)", tag, known)
	}
	if e.IsZero() || !w.Arche.Alive(e) {
		return fmt.Errorf("give key %q: no such entity", tag)
	}
	k := s.keys.Get(e)
	if k == nil {
		s.keys.Assign(e, &components.Keys{})
		k = s.keys.Get(e)
	}
	k.Add(id)
	return nil
}

// CarriedKeys returns the KeyRule that reads the driver's Keys: a driver
// passes a key tag rule when the Keys carry that tag's id.
func (s *System) CarriedKeys() KeyRule {
	return func(w *ecs.World, driver ecs.Entity, tag string) bool {
		id, ok := s.KeyID(tag)
		if !ok || driver.IsZero() || !w.Arche.Alive(driver) {
			return false
		}
		k := s.keys.Get(driver)
		return k != nil && k.Has(id)
	}
}

// ResetLevel shuts the open gates at the next Update, as the level had them,
// without waiting for HoldTicks; one with a body in its way stays open
// until the way is clear, and one a car that may pass is at opens again.
func (s *System) ResetLevel() { s.reset = true }

// Gate returns the entity of the level's gate i (an index into
// Level.Gates) and whether it is open; zero before the first Update.
func (s *System) Gate(i int) (e ecs.Entity, open bool) {
	for _, g := range s.gates {
		if g.level == i {
			return g.e, g.open
		}
	}
	return ecs.Entity{}, false
}

// Update makes the gates on the first tick, then opens and shuts them.
func (s *System) Update(w *ecs.World) {
	if !s.made {
		s.make()
	}
	if len(s.gates) == 0 {
		return
	}
	for i := range s.gates {
		s.gates[i].want, s.gates[i].hit = false, false
	}
	s.scanCars(w)
	s.scanPeople(w)
	tick := w.Tick()
	if s.reset {
		s.reset = false
		for i := range s.gates {
			s.gates[i].wantedAt = 0
		}
	}
	for i := range s.gates {
		g := &s.gates[i]
		if !w.Arche.Alive(g.e) {
			continue
		}
		if g.want {
			g.wantedAt = tick + 1
		}
		switch {
		case g.want && !g.open:
			s.set(g, true)
		case g.open && !g.want && !g.hit && (g.wantedAt == 0 || tick+1-g.wantedAt >= HoldTicks):
			s.set(g, false)
		}
	}
}

// make puts every level gate in the world, shut.
func (s *System) make() {
	s.made = true
	for i := range s.level.Gates {
		lg := &s.level.Gates[i]
		pos := components.Vec3{X: lg.Pos.X, Y: lg.Pos.Y, Z: s.level.Ground.Height}
		e, err := s.build.Gate(pos, lg.Yaw, lg.Width, lg.Kind == levels.GateBarrier)
		if err != nil {
			continue // no wire id left: the opening stays open
		}
		co, si := math32.Cos(lg.Yaw), math32.Sin(lg.Yaw)
		g := gate{e: e, level: i, pos: phys.Vec{X: lg.Pos.X, Y: lg.Pos.Y}, co: co, si: si, halfW: lg.Width / 2, rule: lg.Rule}
		// A car's centre that matters lies within OpenRange plus its own
		// half diagonal (under reachMargin) of the gate's line.
		m := g.halfW + OpenRange + reachMargin
		lo, hi := g.pos.Sub(phys.Vec{X: m, Y: m}), g.pos.Add(phys.Vec{X: m, Y: m})
		if len(s.gates) == 0 {
			s.lo, s.hi = lo, hi
		}
		s.lo = phys.Vec{X: min(s.lo.X, lo.X), Y: min(s.lo.Y, lo.Y)}
		s.hi = phys.Vec{X: max(s.hi.X, hi.X), Y: max(s.hi.Y, hi.Y)}
		s.gates = append(s.gates, g)
	}
}

// reachMargin (m) bounds the half diagonal of any body (a truck's is about
// 4 m): the gates' box is grown by it.
const reachMargin = 6

// near reports whether p lies in the box round the gates.
func (s *System) near(p phys.Vec) bool {
	return p.X >= s.lo.X && p.X <= s.hi.X && p.Y >= s.lo.Y && p.Y <= s.hi.Y
}

// set opens or shuts g.
func (s *System) set(g *gate, open bool) {
	g.open = open
	body, fl := s.bodies.Get(g.e)
	if open {
		body.Mask = 0
		fl.Bits |= components.FlagOpen
		return
	}
	body.Mask = prefab.GateMask
	fl.Bits &^= components.FlagOpen
}

// local returns p in g's frame: along the passing cars' heading, and
// across the opening.
func (g *gate) local(p phys.Vec) (along, across float32) {
	d := p.Sub(g.pos)
	return d.X*g.co + d.Y*g.si, -d.X*g.si + d.Y*g.co
}

// scanCars marks the gates a car that may pass is near, and those a car
// stands in.
func (s *System) scanCars(w *ecs.World) {
	q := s.cars.Query(w.Arche)
	for q.Next() {
		kind, pose, body, seats := q.Get()
		if *kind == components.KindGate {
			continue
		}
		p := phys.Flat(pose.Pos)
		if !s.near(p) {
			continue
		}
		r := math32.Sqrt(body.HalfX*body.HalfX + body.HalfY*body.HalfY)
		for i := range s.gates {
			g := &s.gates[i]
			along, across := g.local(p)
			if math32.Abs(along) > OpenRange+r || math32.Abs(across) > g.halfW+OpenRange {
				continue
			}
			if inWay(along, across, r, g.halfW) {
				g.hit = true
			}
			if !g.want && math32.Abs(across) <= g.halfW+r && s.passes(w, g, *kind, seats.Occupant[0]) {
				g.want = true
			}
		}
	}
}

// scanPeople marks the open gates a person on foot stands in.
func (s *System) scanPeople(w *ecs.World) {
	open := false
	for i := range s.gates {
		open = open || s.gates[i].open
	}
	if !open {
		return
	}
	q := s.people.Query(w.Arche)
	for q.Next() {
		pose, body, seated := q.Get()
		p := phys.Flat(pose.Pos)
		if !seated.Vehicle.IsZero() || !s.near(p) {
			continue
		}
		for i := range s.gates {
			g := &s.gates[i]
			if g.open && !g.hit {
				if along, across := g.local(p); inWay(along, across, body.Radius, g.halfW) {
					g.hit = true
				}
			}
		}
	}
}

// inWay reports whether a body of radius r at (along, across) in a gate's
// frame reaches into the gate's box (grown by ClearMargin).
func inWay(along, across, r, halfW float32) bool {
	return math32.Abs(along) <= prefab.GateThickness/2+ClearMargin+r &&
		math32.Abs(across) <= halfW+ClearMargin+r
}

// passes reports whether the car of kind with driver at the wheel passes
// g's rule: police for a police car (or an officer at the wheel), the
// party of the driver, a key the driver carries.
func (s *System) passes(w *ecs.World, g *gate, kind components.Kind, driver ecs.Entity) bool {
	if driver.IsZero() || !w.Arche.Alive(driver) {
		return false
	}
	dk, did := s.kinds.Get(driver)
	r := &g.rule
	if r.Police && (kind == components.KindPoliceCar || (dk != nil && *dk == components.KindOfficer)) {
		return true
	}
	if r.Party != 0 && did != nil && did.Party == r.Party {
		return true
	}
	return r.KeyTag != "" && s.HasKey != nil && s.HasKey(w, driver, r.KeyTag)
}
