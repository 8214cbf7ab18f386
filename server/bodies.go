package server

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
)

// bodies handles the players' characters and cars in the world beyond
// their making (prefab): taking them out, and giving a character a fresh
// car.
type bodies struct {
	g *GameServer
}

// remove takes s's character out of the world, and its car too unless
// someone else sits in it (the trailers it towed are let go).
func (b bodies) remove(s *Session) {
	g := b.g
	if g.w.Arche.Alive(s.char) {
		b.unseat(s.char)
		g.w.Despawn(s.char)
	}
	b.release(s.car)
}

// unseat takes person out of the seat it sits in, where it is: on foot,
// standing.
func (b bodies) unseat(person ecs.Entity) {
	g := b.g
	act, in, drive := g.persons.Get(person)
	if v := in.Vehicle; !v.IsZero() && g.w.Arche.Alive(v) {
		st := g.seats.Get(v)
		if int(in.Seat) < len(st.Occupant) && st.Occupant[in.Seat] == person {
			st.Occupant[in.Seat] = ecs.Entity{}
		}
	}
	*in = components.SeatedIn{}
	if act.Act == components.ActDriving || act.Act == components.ActPassenger {
		act.Act = components.ActOnFoot
	}
	*drive = components.Drive{LookYaw: drive.LookYaw}
}

// release takes vehicle v out of the world unless someone sits in it; the
// trailers it towed are let go.
func (b bodies) release(v ecs.Entity) {
	w := b.g.w
	if !w.Arche.Alive(v) {
		return
	}
	for _, o := range b.g.seats.Get(v).Occupant {
		if !o.IsZero() && w.Arche.Alive(o) {
			return // someone else still sits in it
		}
	}
	b.unhitch(v)
	w.Despawn(v)
}

// place stands vehicle v at pos facing yaw, upright and at rest: what a
// car brought to its owner needs (carcall.go). The trailers it towed are
// let go where they are. Nobody sits in v: a seated person would be left
// where v was.
func (b bodies) place(v ecs.Entity, pos components.Vec3, yaw float32) {
	g := b.g
	b.unhitch(v)
	pose, vel := g.poses.Get(v)
	*pose = components.Pose{Pos: pos, Rot: components.YawQuat(yaw)}
	*vel = components.Velocity{}
}

// unhitch lets go of the trailers vehicle v tows.
func (b bodies) unhitch(v ecs.Entity) {
	q := b.g.trailers.Query(b.g.w.Arche)
	for q.Next() {
		if l := q.Get(); l.Tractor == v {
			l.Tractor = ecs.Entity{}
		}
	}
}

// rebody puts s's character at the wheel of a fresh car of its own at pos
// facing yaw, out of whatever it sat in. The car it had goes when nobody
// else sits in it. It reports whether the car could be made.
func (b bodies) rebody(s *Session, pos components.Vec3, yaw float32) bool {
	g := b.g
	b.unseat(s.char)
	car, err := g.pf.Vehicle(components.KindCar, carModel(s.player), pos, yaw, ecs.Entity{})
	if err != nil {
		g.cfg.Log.Warn("no room for a player's fresh car", "session", s.id, "err", err)
		return false
	}
	old := s.car
	s.car = car
	b.release(old)
	g.cars.claim(s) // the fresh car is theirs and open
	g.pf.Seat(s.char, car, 0)
	if _, vel := g.poses.Get(s.char); vel != nil {
		*vel = components.Velocity{}
	}
	return true
}
