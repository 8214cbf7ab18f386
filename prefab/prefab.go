// Package prefab builds the engine's entities: the components each kind of
// entity is made of, with their starting values, in one place. Every
// spawner, the server's joins and the tests make entities through it, so an
// entity of a kind always has the same archetype.
//
// Archetypes (arche stores entities by their set of components):
//
//	vehicle:   Kind Identity Pose Velocity Drive Health Flags Body Seats Replicated
//	trailer:   the vehicle's and TrailerLink
//	person:    Kind Identity Pose Velocity Drive Health Flags Body PersonAction SeatedIn Replicated
//	character: the person's and Player Wanted Cash
//
// Seats and SeatedIn are always present (a zero Entity is an empty seat, or
// a person on foot), so entering and leaving a car never changes an
// archetype.
package prefab

import (
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/physics"
	"github.com/mlange-42/arche/generic"
)

// StartCash is what a new player holds: enough for a fine or two.
const StartCash = 500

// Health of a new person and a new vehicle.
const (
	PersonHP  = 100
	VehicleHP = 1000
)

// seatCount is the seats of each car model, the driver's included.
var seatCount = [...]uint8{
	physics.ModelCompact: 4, physics.ModelSedan: 4, physics.ModelSports: 2,
	physics.ModelVan: 2, physics.ModelTruck: 2, physics.ModelPolice: 4, physics.ModelTrailer: 0,
}

// Seats returns the seats of car model m, the driver's included.
func Seats(m uint8) uint8 {
	if int(m) < len(seatCount) {
		return seatCount[m]
	}
	return 2
}

// Builder makes entities in one world. Make one per world (it holds the
// world's component maps) and use it only with the world unlocked.
type Builder struct {
	w         *ecs.World
	vehicle   generic.Map10[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated]
	trailer   generic.Map1[components.TrailerLink]
	person    generic.Map11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn, components.Replicated]
	character generic.Map3[components.Player, components.Wanted, components.Cash]

	// The NPCs' maps, made once with the builder: a map made at each
	// spawn is an allocation in the server's tick.
	npc       generic.Map1[components.NPC]
	npcPerson generic.Map12[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn, components.Replicated, components.NPC]
	npcCar    generic.Map11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated, components.NPC]
	police    generic.Map12[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated, components.NPC, components.Chaser]
}

// New returns a Builder for w.
func New(w *ecs.World) *Builder {
	return &Builder{
		w:         w,
		vehicle:   generic.NewMap10[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated](w.Arche),
		trailer:   generic.NewMap1[components.TrailerLink](w.Arche),
		person:    generic.NewMap11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn, components.Replicated](w.Arche),
		character: generic.NewMap3[components.Player, components.Wanted, components.Cash](w.Arche),
		npc:       generic.NewMap1[components.NPC](w.Arche),
		npcPerson: generic.NewMap12[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn, components.Replicated, components.NPC](w.Arche),
		npcCar:    generic.NewMap11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated, components.NPC](w.Arche),
		police:    generic.NewMap12[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated, components.NPC, components.Chaser](w.Arche),
	}
}

// Vehicle makes a car (KindCar, KindPoliceCar) or a trailer (KindTrailer) of
// physics car model model at pos facing yaw, at rest and unoccupied, and
// gives it a wire id. A trailer also gets a TrailerLink to tractor (which
// may be zero: a trailer standing alone).
func (b *Builder) Vehicle(kind components.Kind, model uint8, pos components.Vec3, yaw float32, tractor ecs.Entity) (ecs.Entity, error) {
	if !kind.IsVehicle() {
		return ecs.Entity{}, fmt.Errorf("prefab: %s is not a vehicle", kind)
	}
	spec := physics.CarModel(model)
	body := spec.Body()
	e := b.vehicle.NewWith(&kind, &components.Identity{Model: model}, &components.Pose{Pos: pos, Rot: components.YawQuat(yaw)},
		&components.Velocity{}, &components.Drive{}, &components.Health{HP: VehicleHP, Max: VehicleHP}, &components.Flags{},
		&body, &components.Seats{Count: Seats(model)}, &components.Replicated{})
	if kind == components.KindTrailer {
		b.trailer.Assign(e, &components.TrailerLink{Tractor: tractor, Length: physics.TrailerLength(model)})
	}
	return b.replicate(e)
}

// Person makes a person of kind (a character, pedestrian, officer or guard)
// on foot at pos facing yaw, and gives it a wire id. Use Character for a
// player's body.
func (b *Builder) Person(kind components.Kind, model uint8, pos components.Vec3, yaw float32) (ecs.Entity, error) {
	if !kind.IsPerson() {
		return ecs.Entity{}, fmt.Errorf("prefab: %s is not a person", kind)
	}
	return b.replicate(b.newPerson(kind, model, 0, 0, pos, yaw, false))
}

// Character makes a player's body on foot at pos facing yaw: player is its
// number in the room (1-based), party its party, session the server's
// session index. Players go to every client (Replicated.Always).
func (b *Builder) Character(player, party uint8, session uint32, pos components.Vec3, yaw float32) (ecs.Entity, error) {
	e := b.newPerson(components.KindCharacter, 0, player, party, pos, yaw, true)
	b.character.Assign(e, &components.Player{Session: session}, &components.Wanted{}, &components.Cash{Amount: StartCash})
	return b.replicate(e)
}

func (b *Builder) newPerson(kind components.Kind, model, player, party uint8, pos components.Vec3, yaw float32, always bool) ecs.Entity {
	body := physics.DefaultWalker.Body()
	return b.person.NewWith(&kind, &components.Identity{Model: model, Player: player, Party: party},
		&components.Pose{Pos: pos, Rot: components.YawQuat(yaw)}, &components.Velocity{},
		&components.Drive{LookYaw: yaw}, &components.Health{HP: PersonHP, Max: PersonHP}, &components.Flags{}, &body,
		&components.PersonAction{AimYaw: yaw}, &components.SeatedIn{}, &components.Replicated{Always: always})
}

// replicate gives e a wire id, or removes it again when none is left.
func (b *Builder) replicate(e ecs.Entity) (ecs.Entity, error) {
	if err := b.w.AssignWireID(e); err != nil {
		b.w.Arche.RemoveEntity(e)
		return ecs.Entity{}, fmt.Errorf("prefab: %w", err)
	}
	return e, nil
}
