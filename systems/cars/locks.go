package cars

import (
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// Tuning of the locks.
const (
	// LockReach (m) is how near a car's body a player must stand to lock
	// or unlock it from outside: a step from its door. Sitting in it does
	// too.
	LockReach = 3
	// ForceReach (m) is how near a car's body the one forcing it stays:
	// at its door, an arm's length and a step.
	ForceReach = 1.5
	// BreakTicks is how long a crowbar takes to force a car's door: four
	// seconds, long enough to be seen at it.
	BreakTicks = 4 * ecs.TickRate
)

// MayOpen reports whether person may get into car while it is locked, and
// lock or unlock it: its owner, or a holder of its key. It is the seats
// system's hook (seats.System.MayOpen).
func (s *System) MayOpen(w *ecs.World, person, car ecs.Entity) bool {
	return s.why(w, person, car) == nil
}

// why returns nil when person may open car, else the reason: not theirs,
// or no key.
func (s *System) why(w *ecs.World, person, car ecs.Entity) error {
	if person.IsZero() || car.IsZero() || !w.Arche.Alive(person) || !w.Arche.Alive(car) {
		return ErrNoCar
	}
	l, _ := s.locks.Get(car)
	if l == nil {
		return ErrNoCar
	}
	if l.Owner != 0 {
		if p, _ := s.players.Get(person); p != nil && p.Owner == l.Owner {
			return nil
		}
	}
	id, keyed := l.KeyID()
	if !keyed {
		return fmt.Errorf("%w: the car is somebody else's", ErrNotYours)
	}
	tag := s.KeyTag(id)
	if tag != "" && s.hasKey != nil && s.hasKey(w, person, tag) {
		return nil
	}
	return fmt.Errorf("%w: the car opens with the %q key", ErrNoKey, tag)
}

// Lock locks (lock true) or unlocks the car of wire id wid for person e:
// its owner or a holder of its key, sitting in it or within LockReach of
// it. wid 0 is the car e sits in.
func (s *System) Lock(w *ecs.World, e ecs.Entity, wid uint16, lock bool) error {
	_, seated, pose, err := s.alivePerson(w, e)
	if err != nil {
		return err
	}
	car := seated.Vehicle
	if wid != 0 {
		var ok bool
		if car, ok = w.ByWireID(wid); !ok {
			return fmt.Errorf("%w: nothing has id %d", ErrNoCar, wid)
		}
	}
	if car.IsZero() {
		return fmt.Errorf("%w: name a car (its target) or sit in one", ErrNoCar)
	}
	if !s.isCar(w, car) {
		return fmt.Errorf("%w: %d is not a car", ErrNoCar, wid)
	}
	if car != seated.Vehicle {
		if d := s.bodyDistance(car, pose.Pos); d > LockReach {
			return fmt.Errorf("%w: the car is %.1f m away, reach is %g m", ErrTooFar, d, float32(LockReach))
		}
	}
	if err := s.why(w, e, car); err != nil {
		return err
	}
	_, fl := s.locks.Get(car)
	if locked := fl.Bits&components.FlagLocked != 0; locked == lock {
		if lock {
			return fmt.Errorf("%w: it is locked", ErrAlready)
		}
		return fmt.Errorf("%w: it is open", ErrAlready)
	}
	if lock {
		fl.Bits |= components.FlagLocked
	} else {
		fl.Bits &^= components.FlagLocked
	}
	return nil
}

// Force starts person e forcing the nearest locked car with nobody inside
// within ForceReach of them with a crowbar (the items system calls it for
// the use of a tool): after BreakTicks at it, the car is open. Starting is
// a crime (components.CrimeBreakIn) the police see. e must be on foot and
// carry a tool; a car e may open is unlocked, not forced.
func (s *System) Force(w *ecs.World, e ecs.Entity) error {
	_, seated, pose, err := s.alivePerson(w, e)
	if err != nil {
		return err
	}
	if !seated.Vehicle.IsZero() {
		return fmt.Errorf("%w: get out of the car first", ErrTooFar)
	}
	if !s.holdsTool(w, e) {
		return ErrNoTool
	}
	for _, f := range s.forcing {
		if f.by == e {
			return fmt.Errorf("%w: you are forcing a car's door", ErrAlready)
		}
	}
	car, d := s.nearestLocked(w, pose.Pos)
	if car.IsZero() || d > ForceReach {
		return fmt.Errorf("%w: no locked car within %g m", ErrNoCar, float32(ForceReach))
	}
	if s.occupied(w, car) {
		return fmt.Errorf("%w: a car with somebody inside is not forced", ErrOccupied)
	}
	if s.MayOpen(w, e, car) {
		return fmt.Errorf("%w: it is yours to unlock", ErrAlready)
	}
	for _, f := range s.forcing {
		if f.car == car {
			return fmt.Errorf("%w: somebody is forcing it", ErrOccupied)
		}
	}
	s.forcing = append(s.forcing, force{car: car, by: e, from: w.Tick()})
	_, cpose, _, _, _ := s.vehicles.Get(car)
	w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeBreakIn, Offender: e, Victim: car, Pos: cpose.Pos})
	return nil
}

// Forcing reports whether person e is forcing a car, and which.
func (s *System) Forcing(e ecs.Entity) (ecs.Entity, bool) {
	for _, f := range s.forcing {
		if f.by == e {
			return f.car, true
		}
	}
	return ecs.Entity{}, false
}

// nearestLocked returns the locked car (a KindCar, not wrecked) nearest p
// and the distance to its body.
func (s *System) nearestLocked(w *ecs.World, p components.Vec3) (ecs.Entity, float32) {
	var best ecs.Entity
	bestD := float32(ForceReach + 1)
	q := s.owned.Query(w.Arche)
	for q.Next() {
		e := q.Entity()
		_, fl := s.locks.Get(e)
		if fl.Bits&components.FlagLocked == 0 || fl.Bits&components.FlagWrecked != 0 {
			continue
		}
		k, cpose, _, _, _ := s.vehicles.Get(e)
		if *k != components.KindCar || dist(cpose.Pos, p) > 12 {
			continue
		}
		if d := s.bodyDistance(e, p); d < bestD {
			best, bestD = e, d
		}
	}
	return best, bestD
}

// breakIns runs the break-ins under way: one whose forcer left, died, got
// in a car or dropped the tool, or whose car is gone, opened or boarded,
// stops; one BreakTicks old opens the car.
func (s *System) breakIns(w *ecs.World) {
	keep := s.forcing[:0]
	for _, f := range s.forcing {
		if !s.stillForcing(w, f) {
			continue
		}
		if w.Tick()-f.from < BreakTicks {
			keep = append(keep, f)
			continue
		}
		_, fl := s.locks.Get(f.car)
		fl.Bits &^= components.FlagLocked
	}
	s.forcing = keep
}

// stillForcing reports whether f goes on.
func (s *System) stillForcing(w *ecs.World, f force) bool {
	_, seated, pose, err := s.alivePerson(w, f.by)
	if err != nil || !seated.Vehicle.IsZero() || !w.Arche.Alive(f.car) || s.occupied(w, f.car) || !s.holdsTool(w, f.by) {
		return false
	}
	_, fl := s.locks.Get(f.car)
	if fl.Bits&components.FlagLocked == 0 {
		return false
	}
	return s.bodyDistance(f.car, pose.Pos) <= ForceReach+0.5
}
