package prefab

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/physics"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// Archetype names one of the sets of components prefab makes entities of
// (see the package doc).
type Archetype uint8

// The archetypes prefab makes.
const (
	Vehicle   Archetype = iota // a car, a police car, a trailer or a gate
	Person                     // a person on foot or seated: an NPC, a player's body
	Character                  // a player's body: the person's and its own
	Item                       // an item lying loose
	Container                  // a crate or locker of the level
	Thrown                     // a grenade in flight
	Camera                     // a camera of the level
	archetypeCount
)

// Components returns the components every entity of archetype a carries,
// as w's component ids. It is the one list of each archetype. Every
// builder of a kind makes its entities from it, and the variants add to it:
// the NPC's NPC on a traffic car, a spawner's car, an NPC person; a police
// or chaser car's Chaser; a trailer's TrailerLink; a guard's Sentry. So
// does systems.Warm, which makes the archetypes of play before the first
// tick.
//
// To give every entity of a kind a new component, add it to the kind's
// list here. When it does not start as its zero value, set its start value
// in the kind's start function: newVehicle, newPerson, or the builder of
// the other kinds. Nothing else changes: the traffic's cars and the
// spawners' cars, made by two paths, stay one archetype (TestTrafficCar),
// and arche's limit of 12 components on a generic map does not apply here.
func Components(w *ecs.World, a Archetype) []arche.ID {
	aw := w.Arche
	switch a {
	case Vehicle:
		return []arche.ID{
			id[components.Kind](aw), id[components.Identity](aw), id[components.Pose](aw),
			id[components.Velocity](aw), id[components.Drive](aw), id[components.Health](aw),
			id[components.Flags](aw), id[components.Body](aw), id[components.Seats](aw),
			id[components.Replicated](aw), id[components.CarLock](aw),
		}
	case Person:
		return []arche.ID{
			id[components.Kind](aw), id[components.Identity](aw), id[components.Pose](aw),
			id[components.Velocity](aw), id[components.Drive](aw), id[components.Health](aw),
			id[components.Flags](aw), id[components.Body](aw), id[components.PersonAction](aw),
			id[components.SeatedIn](aw), id[components.Replicated](aw),
		}
	case Character:
		return append(Components(w, Person),
			id[components.Player](aw), id[components.Wanted](aw), id[components.Cash](aw),
			id[components.Inventory](aw), id[components.Death](aw),
		)
	case Item:
		return []arche.ID{
			id[components.Kind](aw), id[components.Identity](aw), id[components.Pose](aw),
			id[components.Velocity](aw), id[components.Replicated](aw), id[components.Loose](aw),
		}
	case Container:
		return []arche.ID{id[components.Pose](aw), id[components.Container](aw)}
	case Thrown:
		return []arche.ID{
			id[components.Kind](aw), id[components.Identity](aw), id[components.Pose](aw),
			id[components.Velocity](aw), id[components.Body](aw), id[components.Replicated](aw),
			id[components.Projectile](aw),
		}
	case Camera:
		return []arche.ID{
			id[components.Kind](aw), id[components.Identity](aw), id[components.Pose](aw),
			id[components.Velocity](aw), id[components.Health](aw), id[components.Flags](aw),
			id[components.Body](aw), id[components.Replicated](aw), id[components.Camera](aw),
		}
	}
	return nil
}

// id returns the id of component T in w.
func id[T any](w *arche.World) arche.ID { return arche.ComponentID[T](w) }

// archetypes are a Builder's lists of component ids, made once: making an
// entity from one allocates nothing.
type archetypes struct {
	of        [archetypeCount][]arche.ID
	npcCar    []arche.ID // the vehicle's and NPC: a car the AI drives
	npcPerson []arche.ID // the person's and NPC: a person the AI runs
	ownChar   []arche.ID // what a character adds to the person's
}

func newArchetypes(w *ecs.World) archetypes {
	var a archetypes
	for k := range a.of {
		a.of[k] = Components(w, Archetype(k))
	}
	npc := id[components.NPC](w.Arche)
	a.npcCar = append(Components(w, Vehicle), npc)
	a.npcPerson = append(Components(w, Person), npc)
	a.ownChar = a.of[Character][len(a.of[Person]):]
	return a
}

// newVehicle makes a vehicle of archetype ids (the vehicle's, or the
// vehicle's and more) of kind and physics car model model at pos facing
// yaw, at rest and unoccupied, its flags set, sent to every client when
// always. It is every vehicle's start: a component added to the vehicle's
// list that starts other than zero is set here.
func (b *Builder) newVehicle(ids []arche.ID, kind components.Kind, model uint8, pos components.Vec3, yaw float32, flags uint16, always bool) ecs.Entity {
	e := b.w.Arche.NewEntity(ids...)
	k, id, pose, _, _, hp, fl, body, seats, rep, _ := b.vehicle.Get(e)
	*k = kind
	id.Model = model
	*pose = components.Pose{Pos: pos, Rot: components.YawQuat(yaw)}
	*hp = components.Health{HP: VehicleHP, Max: VehicleHP}
	fl.Bits = flags
	*body = physics.CarModel(model).Body()
	seats.Count = Seats(model)
	rep.Always = always
	return e
}

// newPerson makes a person of archetype ids (the person's, or the person's
// and more) of kind and model on foot at pos facing yaw: player and party
// are a player's numbers (0 for an NPC), sent to every client when always.
// It is every person's start: a component added to the person's list that
// starts other than zero is set here.
func (b *Builder) newPerson(ids []arche.ID, kind components.Kind, model uint8, player, party uint16, pos components.Vec3, yaw float32, always bool) ecs.Entity {
	e := b.w.Arche.NewEntity(ids...)
	k, id, pose, _, drive, hp, _, body, act, _, rep := b.person.Get(e)
	*k = kind
	*id = components.Identity{Model: model, Player: player, Party: party}
	*pose = components.Pose{Pos: pos, Rot: components.YawQuat(yaw)}
	drive.LookYaw = yaw
	*hp = components.Health{HP: PersonHP, Max: PersonHP}
	*body = physics.DefaultWalker.Body()
	act.AimYaw = yaw
	rep.Always = always
	return e
}

// set gives e's component T, which e's archetype has, the value v. It
// allocates nothing. The start functions above set a component of their
// kind's list with it.
func set[T any](w *ecs.World, e ecs.Entity, v T) {
	m := generic.NewMap1[T](w.Arche)
	*m.Get(e) = v
}
