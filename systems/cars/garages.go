package cars

import (
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
)

// Tuning of the garages.
const (
	// BayReach (m): a car whose centre is this near a bay's stands in it
	// (the spawners' bay radius).
	BayReach = 3
	// BayClear (m): a bay is free when no body's centre is this near it.
	BayClear = 3
	// GarageReach (m) is how near one of a garage's bays a player must be
	// to take a car out: on its forecourt.
	GarageReach = 20
	// StopSpeed (m/s) is the most a car may still move to be kept.
	StopSpeed = 1
)

// Garage is one of the level's garages: a building of use garage with the
// bays of the vehicle spawners that name it, where players keep their cars.
type Garage struct {
	// ID is the garage building's id.
	ID string
	// Price is what keeping a car there costs: the game's (ecs.Rules'
	// Garages) over the level's (the highest of its spawners' prices).
	Price int64
	// Bays are its bays, its spawners' in the level's order: a kept car's
	// bay is an index into them.
	Bays []levels.Bay
}

// garagesOf lists the level's garages, in the order their spawners first
// name them, with the game's prices over the level's.
func garagesOf(l *levels.Level, game []ecs.GaragePrice) []Garage {
	if l == nil {
		return nil
	}
	var out []Garage
	for i := range l.VehicleSpawners {
		vs := &l.VehicleSpawners[i]
		if vs.Garage == "" {
			continue
		}
		k := 0
		for k < len(out) && out[k].ID != vs.Garage {
			k++
		}
		if k == len(out) {
			out = append(out, Garage{ID: vs.Garage})
		}
		out[k].Bays = append(out[k].Bays, vs.Bays...)
		out[k].Price = max(out[k].Price, int64(vs.Price))
	}
	for i := range out {
		for _, p := range game {
			if p.Garage == out[i].ID {
				out[i].Price = p.Price
			}
		}
	}
	return out
}

// Garages returns the level's garages. The slice is the system's own.
func (s *System) Garages() []Garage { return s.garages }

// GarageIndex returns the index of the garage with id, false for none.
func (s *System) GarageIndex(id string) (int, bool) {
	for i := range s.garages {
		if s.garages[i].ID == id {
			return i, true
		}
	}
	return -1, false
}

// Kept is a car put away in a garage: where, and what it was.
type Kept struct {
	Garage  int // an index of Garages
	Bay     int // an index of its Bays
	Model   uint8
	Variant uint8
	Health  uint16
	Price   int64 // what the keeping cost
}

// Keep puts the car person e drives into the garage whose bay it stands in,
// stopped: e must own it or carry its key, and pay the garage's price from
// their Cash. taken reports the bays of a garage where e keeps a car
// already: the car goes in the bay it stands in, or e's first free one of
// the garage. Whoever sat in the car stands beside the bay; the car leaves
// the world.
func (s *System) Keep(w *ecs.World, e ecs.Entity, taken func(garage, bay int) bool) (Kept, error) {
	act, seated, _, err := s.alivePerson(w, e)
	if err != nil {
		return Kept{}, err
	}
	car := seated.Vehicle
	if car.IsZero() || !w.Arche.Alive(car) || seated.Seat != 0 || act.Act != components.ActDriving {
		return Kept{}, ErrNotDriving
	}
	if !s.isCar(w, car) {
		return Kept{}, fmt.Errorf("%w: only a car is kept", ErrNotYours)
	}
	_, pose, _, _, vel := s.vehicles.Get(car)
	g, bay, d := s.nearestBay(pose.Pos)
	if g < 0 {
		return Kept{}, fmt.Errorf("%w: this level has no garage", ErrNoGarage)
	}
	if d > BayReach {
		return Kept{}, fmt.Errorf("%w: not in a bay: garage %s's nearest is %.0f m away", ErrTooFar, s.garages[g].ID, d)
	}
	if vel.Lin.X*vel.Lin.X+vel.Lin.Y*vel.Lin.Y > StopSpeed*StopSpeed {
		return Kept{}, ErrMoving
	}
	if _, fl := s.locks.Get(car); fl.Bits&components.FlagWrecked != 0 {
		return Kept{}, ErrWrecked
	}
	if err := s.why(w, e, car); err != nil {
		return Kept{}, err
	}
	gar := &s.garages[g]
	if taken != nil && taken(g, bay) {
		bay = -1
		for j := range gar.Bays {
			if !taken(g, j) {
				bay = j
				break
			}
		}
		if bay < 0 {
			return Kept{}, fmt.Errorf("%w: you keep a car in each of garage %s's %d bays", ErrBayTaken, gar.ID, len(gar.Bays))
		}
	}
	_, cash := s.players.Get(e)
	if cash == nil || cash.Amount < gar.Price {
		have := int64(0)
		if cash != nil {
			have = cash.Amount
		}
		return Kept{}, fmt.Errorf("%w: garage %s asks %d, you have %d", ErrNoCash, gar.ID, gar.Price, have)
	}
	id := s.ids.Get(car)
	k := Kept{Garage: g, Bay: bay, Model: id.Model, Variant: id.Variant, Health: s.health.Get(car).HP, Price: gar.Price}
	cash.Amount -= gar.Price
	s.emptyOut(w, car)
	s.unhitch(w, car)
	w.Despawn(car)
	return k, nil
}

// nearestBay returns the garage and bay nearest p and the distance to it;
// -1 when the level has no garage.
func (s *System) nearestBay(p components.Vec3) (g, bay int, d float32) {
	g, bay, d = -1, -1, 0
	for i := range s.garages {
		for j, b := range s.garages[i].Bays {
			bd := dist(p, components.Vec3{X: b.Pos.X, Y: b.Pos.Y})
			if g < 0 || bd < d {
				g, bay, d = i, j, bd
			}
		}
	}
	return g, bay, d
}

// emptyOut stands everyone in vehicle v on the ground beside it, on foot.
func (s *System) emptyOut(w *ecs.World, v ecs.Entity) {
	_, vpose, body, seats, _ := s.vehicles.Get(v)
	co, si := vpose.Rot.Heading()
	for i, o := range seats.Occupant {
		seats.Occupant[i] = ecs.Entity{}
		if o.IsZero() || !w.Arche.Alive(o) {
			continue
		}
		act, seated, pose := s.person.Get(o)
		if act == nil {
			continue
		}
		// The left side for the driver and the odd seats, the right for
		// the even: each by their own door.
		side := body.HalfY + phys.DefaultWalker.Radius + 0.2
		if i != 0 && i%2 == 0 {
			side = -side
		}
		along := body.HalfX / 2
		if i >= 2 {
			along = -along
		}
		p := phys.Vec{X: vpose.Pos.X + co*along - si*side, Y: vpose.Pos.Y + si*along + co*side}
		if s.static != nil && s.static.Overlaps(p, phys.DefaultWalker.Radius) {
			if free, ok := s.static.ClosestFree(p, phys.DefaultWalker.Radius, 2*body.HalfX); ok {
				p = free
			}
		}
		pose.Pos = components.Vec3{X: p.X, Y: p.Y, Z: vpose.Pos.Z}
		pose.Rot = vpose.Rot
		*seated = components.SeatedIn{}
		act.Act, act.Timer = components.ActOnFoot, 0
	}
}

// unhitch frees the trailers v tows.
func (s *System) unhitch(w *ecs.World, v ecs.Entity) {
	q := s.links.Query(w.Arche)
	for q.Next() {
		if l := q.Get(); l.Tractor == v {
			l.Tractor = ecs.Entity{}
		}
	}
}

// TakeOut brings a car kept in bay of garage g (an index of Garages) out
// for person e, within GarageReach of one of the garage's bays: into that
// bay if it is free, else into the garage's first free bay. The car is
// owner's and open. It refuses a model that is not a player's car.
func (s *System) TakeOut(w *ecs.World, e ecs.Entity, g, bay int, k Kept, owner uint32) (ecs.Entity, error) {
	_, seated, pose, err := s.alivePerson(w, e)
	if err != nil {
		return ecs.Entity{}, err
	}
	if g < 0 || g >= len(s.garages) {
		return ecs.Entity{}, fmt.Errorf("%w: garage %d", ErrNoGarage, g)
	}
	gar := &s.garages[g]
	at := pose.Pos
	if v := seated.Vehicle; !v.IsZero() && w.Arche.Alive(v) {
		_, vpose, _, _, _ := s.vehicles.Get(v)
		at = vpose.Pos
	}
	near := float32(-1)
	for _, b := range gar.Bays {
		if d := dist(at, components.Vec3{X: b.Pos.X, Y: b.Pos.Y}); near < 0 || d < near {
			near = d
		}
	}
	if near > GarageReach {
		return ecs.Entity{}, fmt.Errorf("%w: garage %s is %.0f m away, reach is %g m", ErrTooFar, gar.ID, near, float32(GarageReach))
	}
	if k.Model >= phys.ModelPolice {
		return ecs.Entity{}, fmt.Errorf("%w: car model %d is not a player's", ErrNoCar, k.Model)
	}
	j := -1
	if bay >= 0 && bay < len(gar.Bays) && s.bayFree(w, gar.Bays[bay]) {
		j = bay
	}
	for i := 0; j < 0 && i < len(gar.Bays); i++ {
		if s.bayFree(w, gar.Bays[i]) {
			j = i
		}
	}
	if j < 0 {
		return ecs.Entity{}, fmt.Errorf("%w: every bay of garage %s has something in it", ErrBayTaken, gar.ID)
	}
	b := gar.Bays[j]
	z := float32(0)
	if s.level != nil {
		z = s.level.Ground.Height
	}
	car, err := s.build.Vehicle(components.KindCar, k.Model, components.Vec3{X: b.Pos.X, Y: b.Pos.Y, Z: z}, b.Yaw, ecs.Entity{})
	if err != nil {
		return ecs.Entity{}, fmt.Errorf("%w: %w", ErrBayTaken, err)
	}
	s.ids.Get(car).Variant = k.Variant
	h := s.health.Get(car)
	h.HP = min(max(k.Health, 1), h.Max)
	s.build.SetCarLock(car, components.CarLock{Owner: owner}, false)
	return car, nil
}

// bayFree reports whether no body's centre lies within BayClear of b.
func (s *System) bayFree(w *ecs.World, b levels.Bay) bool {
	c := components.Vec3{X: b.Pos.X, Y: b.Pos.Y}
	q := s.bodies.Query(w.Arche)
	for q.Next() {
		pose, _ := q.Get()
		if dist(pose.Pos, c) < BayClear {
			q.Close()
			return false
		}
	}
	return true
}
