// Package replicate is the schedule's sync system: once per tick it puts
// every replicated entity into the snapshots' arena, quantized
// (netsync.Arena.Put), with the tick's events. Components an entity lacks
// are zero in its record.
//
// It is the one place the world's components become record values: to
// replicate a new component, give it bytes in netsync/wire (the layout,
// the quantization and the protocol change together) and fill them here.
//
// It sits above netsync, whose arena it fills; the other systems know
// nothing of netsync. It runs in the sync phase, after every system that
// changes what clients see (systems.Entries).
package replicate

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/netsync/wire"
	"github.com/mlange-42/arche/generic"
)

// Name is the system's name in the schedule, and its label in the metrics.
const Name = "sync"

// System copies the world into an arena once per tick.
type System struct {
	arena    *netsync.Arena
	filter   *generic.Filter5[components.Identity, components.Kind, components.Pose, components.Velocity, components.Replicated]
	drives   generic.Map1[components.Drive]
	health   generic.Map1[components.Health]
	flags    generic.Map1[components.Flags]
	actions  generic.Map1[components.PersonAction]
	seated   generic.Map1[components.SeatedIn]
	seats    generic.Map1[components.Seats]
	links    generic.Map1[components.TrailerLink]
	ids      generic.Map1[components.Identity]
	playerOf generic.Map[components.Player]
	world    *ecs.World
	ent      wire.Entity
}

// New returns the sync system of w, filling arena a.
func New(w *ecs.World, a *netsync.Arena) *System {
	s := &System{
		arena:    a,
		filter:   generic.NewFilter5[components.Identity, components.Kind, components.Pose, components.Velocity, components.Replicated](),
		drives:   generic.NewMap1[components.Drive](w.Arche),
		health:   generic.NewMap1[components.Health](w.Arche),
		flags:    generic.NewMap1[components.Flags](w.Arche),
		actions:  generic.NewMap1[components.PersonAction](w.Arche),
		seated:   generic.NewMap1[components.SeatedIn](w.Arche),
		seats:    generic.NewMap1[components.Seats](w.Arche),
		links:    generic.NewMap1[components.TrailerLink](w.Arche),
		ids:      generic.NewMap1[components.Identity](w.Arche),
		playerOf: generic.NewMap[components.Player](w.Arche),
		world:    w,
	}
	s.filter.Register(w.Arche)
	return s
}

// Update puts the tick's replicated entities and events into the arena.
func (s *System) Update(w *ecs.World) {
	a := s.arena
	a.Begin(uint32(w.Tick()))
	q := s.filter.Query(w.Arche)
	for q.Next() {
		id, kind, pose, vel, rep := q.Get()
		e := q.Entity()
		always := s.fill(e, id, *kind, pose, vel) || rep.Always
		a.Put(id.WireID, &s.ent, always)
	}
	for i := range w.Events {
		a.AddEvent(s.event(&w.Events[i]))
	}
	a.End()
}

// fill writes e's record values into s.ent and reports whether a player
// sits in it (it then goes to every client).
func (s *System) fill(e ecs.Entity, id *components.Identity, kind components.Kind, pose *components.Pose, vel *components.Velocity) bool {
	x := &s.ent
	*x = wire.Entity{
		Kind: uint8(kind), Model: id.Model, Variant: id.Variant, Party: id.Party, Player: id.Player, Gen: id.Gen,
		Pos: wire.Vec3(pose.Pos), Rot: wire.Quat(pose.Rot), Lin: wire.Vec3(vel.Lin), Ang: wire.Vec3(vel.Ang),
	}
	if d := s.drives.Get(e); d != nil {
		x.Throttle, x.Brake, x.Steer, x.Held = d.Throttle, d.Brake, d.Steer, uint16(d.Held)
	}
	if h := s.health.Get(e); h != nil {
		x.HP, x.MaxHP = h.HP, h.Max
	}
	if f := s.flags.Get(e); f != nil {
		x.Flags = f.Bits
	}
	if a := s.actions.Get(e); a != nil {
		x.Act, x.Weapon, x.AimYaw, x.AimPitch, x.Timer = uint8(a.Act), a.Weapon, a.AimYaw, a.AimPitch, a.Timer
	}
	if si := s.seated.Get(e); si != nil && !si.Vehicle.IsZero() {
		x.Vehicle, x.Seat = s.wireOf(si.Vehicle), si.Seat
	}
	if l := s.links.Get(e); l != nil {
		x.Tractor = s.wireOf(l.Tractor)
	}
	seats := s.seats.Get(e)
	if seats == nil {
		return false
	}
	for _, o := range seats.Occupant {
		if !o.IsZero() && s.playerOf.Has(o) {
			return true
		}
	}
	return false
}

func (s *System) wireOf(e ecs.Entity) uint16 {
	if e.IsZero() || !s.world.Arche.Alive(e) {
		return 0
	}
	if id := s.ids.Get(e); id != nil {
		return id.WireID
	}
	return 0
}

func (s *System) event(ev *components.Event) wire.Event {
	return wire.Event{
		Kind: uint8(ev.Kind), Source: s.alive(ev.Source), Target: s.alive(ev.Target), Other: s.alive(ev.Other),
		Pos: wire.Vec3(ev.Pos), Dir: wire.Vec3(ev.Dir), Amount: ev.Amount,
	}
}

// alive is the wire id of e, or 0 when it is gone (a carjacked driver
// removed in the same tick).
func (s *System) alive(e ecs.Entity) uint16 {
	if e.IsZero() || !s.world.Arche.Alive(e) {
		return 0
	}
	return s.wireOf(e)
}
