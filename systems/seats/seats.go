// Package seats is the system that puts people into vehicles and takes them
// out: a person on foot who presses Use enters the nearest vehicle in reach
// with a free seat (the driver's seat first) or, where the rule hook allows,
// pulls its driver out (a carjack); a locked vehicle lets in only whom
// the MayOpen hook lets in (its owner, a holder of its key); a seated person who presses Use gets out
// to a free spot beside the vehicle, never inside a building. It then hands
// each driver's Drive to their vehicle: a driver's input drives, a
// passenger's does not, and a vehicle nobody drives gets an empty Drive.
//
// It runs in the input phase, after the inputs are on the characters' Drive
// and before anything that reads a vehicle's Drive.
package seats

import (
	"slices"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule.
const Name = "seats"

// Reach is how far (m) from a vehicle's body a person may be to get in:
// an arm's length and a step.
const Reach = 1.5

// EnterTicks and ExitTicks are how long getting in and out take: a third
// and a quarter of a second, long enough to show, short enough not to annoy.
const (
	EnterTicks = 20
	ExitTicks  = 15
)

// exitGap is the room (m) left between the vehicle's side and the person
// who gets out.
const exitGap = 0.2

// CarjackRule decides whether jacker may pull driver out of their vehicle.
// Later systems (police, missions) may wrap it; DefaultCarjack is the rule
// of the game's Rules.
type CarjackRule func(w *ecs.World, jacker, driver ecs.Entity) bool

// OpenRule decides whether person may get into vehicle while its doors are
// locked (components.FlagLocked): its owner, a holder of its key.
type OpenRule func(w *ecs.World, person, vehicle ecs.Entity) bool

// System is the seats system. Make it with New.
type System struct {
	// Carjack is the rule hook for carjacks; New sets DefaultCarjack.
	Carjack CarjackRule
	// MayOpen is the rule hook for locked vehicles (systems/cars sets
	// it); nil keeps everybody out of a locked vehicle.
	MayOpen OpenRule

	static   *phys.Static
	walker   phys.WalkSpec
	people   *generic.Filter6[components.Kind, components.Identity, components.Pose, components.Drive, components.PersonAction, components.SeatedIn]
	vehicles *generic.Filter5[components.Kind, components.Identity, components.Pose, components.Seats, components.Drive]
	person   generic.Map6[components.Kind, components.Identity, components.Pose, components.Drive, components.PersonAction, components.SeatedIn]
	vehicle  generic.Map5[components.Identity, components.Pose, components.Seats, components.Body, components.Drive]
	health   generic.Map1[components.Health]
	flags    generic.Map1[components.Flags]
	reqs     []request
	cars     []candidate
}

type request struct {
	e   ecs.Entity
	wid uint16
}

type candidate struct {
	e    ecs.Entity
	wid  uint16
	dist float32
}

// busyList is the room the system's per-tick lists are made with: more than
// a busy city tick holds.
const busyList = 64

// New returns the seats system of w; static is the level's geometry, for
// the spot a person gets out to (nil: anywhere is free).
func New(w *ecs.World, static *phys.Static) *System {
	s := &System{
		Carjack:  DefaultCarjack,
		static:   static,
		walker:   phys.DefaultWalker,
		people:   generic.NewFilter6[components.Kind, components.Identity, components.Pose, components.Drive, components.PersonAction, components.SeatedIn](),
		vehicles: generic.NewFilter5[components.Kind, components.Identity, components.Pose, components.Seats, components.Drive](),
		person:   generic.NewMap6[components.Kind, components.Identity, components.Pose, components.Drive, components.PersonAction, components.SeatedIn](w.Arche),
		vehicle:  generic.NewMap5[components.Identity, components.Pose, components.Seats, components.Body, components.Drive](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		flags:    generic.NewMap1[components.Flags](w.Arche),
	}
	// Room made once for a busy tick's requests and cars within reach,
	// which are kept: in play they grow only past these.
	s.reqs = make([]request, 0, busyList)
	s.cars = make([]candidate, 0, busyList)
	s.people.Register(w.Arche)
	s.vehicles.Register(w.Arche)
	return s
}

// DefaultCarjack lets anyone pull an NPC out, and a player out only where
// the rules let the two players hurt each other; never a player of the
// jacker's own party, whatever the rules.
func DefaultCarjack(w *ecs.World, jacker, driver ecs.Entity) bool {
	kinds := generic.NewMap2[components.Kind, components.Identity](w.Arche)
	jk, jid := kinds.Get(jacker)
	dk, did := kinds.Get(driver)
	if jk == nil || dk == nil {
		return false
	}
	if *dk != components.KindCharacter || *jk != components.KindCharacter {
		return true
	}
	if jid.Party != 0 && jid.Party == did.Party {
		return false
	}
	return w.Rules.MayHurt(jid.Party, did.Party)
}

// Update runs the seats for one tick.
func (s *System) Update(w *ecs.World) {
	s.collect(w)
	for _, r := range s.reqs {
		s.use(w, r.e)
	}
	s.timers(w)
	s.forward(w)
}

// collect lists the people who pressed Use, by wire id, so that two people
// reaching for one seat in one tick get it in the same order on every run.
func (s *System) collect(w *ecs.World) {
	s.reqs = s.reqs[:0]
	q := s.people.Query(w.Arche)
	for q.Next() {
		_, id, _, drive, act, _ := q.Get()
		if drive.Pressed&components.BtnUse != 0 && (act.Act == components.ActOnFoot || act.Act == components.ActDriving || act.Act == components.ActPassenger) {
			s.reqs = append(s.reqs, request{q.Entity(), id.WireID})
		}
	}
	slices.SortFunc(s.reqs, func(a, b request) int { return int(a.wid) - int(b.wid) })
}

// use handles one Use press.
func (s *System) use(w *ecs.World, e ecs.Entity) {
	if h := s.health.Get(e); h != nil && h.HP == 0 {
		return
	}
	_, _, _, _, act, seated := s.person.Get(e)
	if act.Act == components.ActOnFoot {
		s.enter(w, e)
		return
	}
	if !seated.Vehicle.IsZero() {
		act.Act, act.Timer = components.ActExiting, ExitTicks
	}
}

// enter seats e in the nearest vehicle in reach that has a free seat (the
// driver's first) or whose driver the rule lets e pull out.
func (s *System) enter(w *ecs.World, e ecs.Entity) {
	_, _, pose, _, _, _ := s.person.Get(e)
	p := phys.Flat(pose.Pos)
	s.cars = s.cars[:0]
	q := s.vehicles.Query(w.Arche)
	for q.Next() {
		_, id, vpose, seats, _ := q.Get()
		if seats.Count == 0 {
			continue
		}
		_, _, _, body, _ := s.vehicle.Get(q.Entity())
		if d := boxDistance(p, vpose, body); d <= Reach {
			s.cars = append(s.cars, candidate{q.Entity(), id.WireID, d})
		}
	}
	slices.SortFunc(s.cars, func(a, b candidate) int {
		if a.dist != b.dist {
			if a.dist < b.dist {
				return -1
			}
			return 1
		}
		return int(a.wid) - int(b.wid)
	})
	for _, c := range s.cars {
		if s.tryEnter(w, e, c.e) {
			return
		}
	}
}

func (s *System) tryEnter(w *ecs.World, e, v ecs.Entity) bool {
	_, _, seats, _, _ := s.vehicle.Get(v)
	if f := s.flags.Get(v); f != nil {
		if f.Bits&components.FlagWrecked != 0 {
			return false
		}
		if f.Bits&components.FlagLocked != 0 && (s.MayOpen == nil || !s.MayOpen(w, e, v)) {
			return false
		}
	}
	driver := seats.Occupant[0]
	if driver.IsZero() {
		s.seat(e, v, 0)
		return true
	}
	if s.Carjack != nil && s.Carjack(w, e, driver) {
		s.getOut(driver, v, true)
		s.seat(e, v, 0)
		w.Events = append(w.Events, components.Event{Kind: components.EventCarjack, Source: e, Target: driver, Other: v, Pos: s.posOf(v)})
		return true
	}
	for i := uint8(1); i < seats.Count; i++ {
		if seats.Occupant[i].IsZero() {
			s.seat(e, v, i)
			return true
		}
	}
	return false
}

func (s *System) posOf(v ecs.Entity) components.Vec3 {
	_, pose, _, _, _ := s.vehicle.Get(v)
	return pose.Pos
}

// seat puts e into seat i of v: the seat is taken at once, and e gets in
// over EnterTicks.
func (s *System) seat(e, v ecs.Entity, i uint8) {
	_, _, seats, _, _ := s.vehicle.Get(v)
	seats.Occupant[i] = e
	_, _, _, _, act, seated := s.person.Get(e)
	seated.Vehicle, seated.Seat = v, i
	act.Act, act.Timer = components.ActEntering, EnterTicks
}

// timers moves people through getting in and out, and frees the seats of
// people gone or dead and of vehicles gone.
func (s *System) timers(w *ecs.World) {
	q := s.people.Query(w.Arche)
	for q.Next() {
		_, _, _, _, act, seated := q.Get()
		if seated.Vehicle.IsZero() {
			continue
		}
		if !w.Arche.Alive(seated.Vehicle) {
			*seated = components.SeatedIn{}
			act.Act, act.Timer = components.ActOnFoot, 0
			continue
		}
		switch act.Act {
		case components.ActEntering:
			if act.Timer > 0 {
				act.Timer--
			}
			if act.Timer == 0 {
				act.Act = components.ActPassenger
				if seated.Seat == 0 {
					act.Act = components.ActDriving
				}
			}
		case components.ActExiting:
			if act.Timer > 0 {
				act.Timer--
			}
			if act.Timer == 0 {
				s.getOut(q.Entity(), seated.Vehicle, false)
			}
		}
	}
}

// getOut takes e out of v to a free spot beside it. If no spot near v is
// free, e stays in (seated as before) and tries again next tick. A pulled
// out driver (forced) lands beside the car whatever is there, on the
// nearest free spot the static world allows.
func (s *System) getOut(e, v ecs.Entity, forced bool) {
	_, _, pose, drive, act, seated := s.person.Get(e)
	_, vpose, seats, body, _ := s.vehicle.Get(v)
	spot, ok := s.exitSpot(vpose, body, seated.Seat)
	if !ok {
		if !forced {
			act.Timer = 1
			return
		}
		spot = phys.Flat(vpose.Pos)
	}
	if int(seated.Seat) < len(seats.Occupant) && seats.Occupant[seated.Seat] == e {
		seats.Occupant[seated.Seat] = ecs.Entity{}
	}
	pose.Pos = components.Vec3{X: spot.X, Y: spot.Y, Z: vpose.Pos.Z}
	pose.Rot = vpose.Rot
	drive.LookYaw = vpose.Rot.Yaw()
	*seated = components.SeatedIn{}
	act.Act, act.Timer = components.ActOnFoot, 0
	if h := s.health.Get(e); h != nil && h.HP == 0 {
		act.Act = components.ActDead
	}
}

// exitSpot returns a free spot beside the vehicle for the person in seat:
// the door's side first (left for the driver and the odd seats), then the
// other side, the back and the front, then the nearest free spot within a
// few metres.
func (s *System) exitSpot(vpose *components.Pose, body *components.Body, seat uint8) (phys.Vec, bool) {
	r := s.walker.Radius
	c := phys.Flat(vpose.Pos)
	co, si := vpose.Rot.Heading()
	fwd, left := phys.Vec{X: co, Y: si}, phys.Vec{X: -si, Y: co}
	side := body.HalfY + r + exitGap
	end := body.HalfX + r + exitGap
	first := left
	if seat != 0 && seat%2 == 0 {
		first = left.Scale(-1)
	}
	tries := [4]phys.Vec{first.Scale(side), first.Scale(-side), fwd.Scale(-end), fwd.Scale(end)}
	for _, off := range tries {
		p := c.Add(off)
		if s.static == nil || !s.static.Overlaps(p, r) {
			return p, true
		}
	}
	if s.static == nil {
		return c, true
	}
	return s.static.ClosestFree(c.Add(first.Scale(side)), r, 2*end)
}

// forward hands each driver's Drive to their vehicle. A vehicle with no
// driver seated (or one still getting in) gets an empty Drive.
func (s *System) forward(w *ecs.World) {
	q := s.vehicles.Query(w.Arche)
	for q.Next() {
		_, _, _, seats, drive := q.Get()
		*drive = components.Drive{}
		d := seats.Occupant[0]
		if d.IsZero() || !w.Arche.Alive(d) {
			seats.Occupant[0] = ecs.Entity{}
			continue
		}
		_, _, _, pd, act, _ := s.person.Get(d)
		if act.Act == components.ActDriving {
			*drive = *pd
		}
	}
	// Seats of people gone (removed by the server or a despawn) are freed.
	q = s.vehicles.Query(w.Arche)
	for q.Next() {
		_, _, _, seats, _ := q.Get()
		for i := 1; i < int(seats.Count) && i < len(seats.Occupant); i++ {
			if o := seats.Occupant[i]; !o.IsZero() && !w.Arche.Alive(o) {
				seats.Occupant[i] = ecs.Entity{}
			}
		}
	}
}

// boxDistance is the distance from p to a vehicle's box (0 inside).
func boxDistance(p phys.Vec, pose *components.Pose, body *components.Body) float32 {
	co, si := pose.Rot.Heading()
	d := p.Sub(phys.Flat(pose.Pos))
	lx, ly := d.X*co+d.Y*si, -d.X*si+d.Y*co
	ex := math32.Max(math32.Abs(lx)-body.HalfX, 0)
	ey := math32.Max(math32.Abs(ly)-body.HalfY, 0)
	return math32.Sqrt(ex*ex + ey*ey)
}
