// Package prefab builds the engine's entities: the components each kind of
// entity is made of, with their starting values, in one place. Every
// spawner, the server's joins and the tests make entities through it, so an
// entity of a kind always has the same archetype.
//
// Archetypes (arche stores entities by their set of components):
//
//	vehicle:   Kind Identity Pose Velocity Drive Health Flags Body Seats Replicated CarLock
//	trailer:   the vehicle's and TrailerLink
//	person:    Kind Identity Pose Velocity Drive Health Flags Body PersonAction SeatedIn Replicated
//	character: the person's and Player Wanted Cash Inventory Death
//	item:      Kind Identity Pose Velocity Replicated Loose (a KindItem lying loose)
//	container: Pose Container (a crate or locker of the level; not replicated)
//	thrown:    Kind Identity Pose Velocity Body Replicated Projectile (a grenade in flight)
//	camera:    Kind Identity Pose Velocity Health Flags Body Replicated Camera
//
// Components (archetypes.go) holds each list, the one source: every
// builder makes its entities from it, and a test holds the list above to
// it. A new component on every entity of a kind is one line there.
//
// Seats and SeatedIn are always present (a zero Entity is an empty seat, or
// a person on foot), so entering and leaving a car never changes an
// archetype; so is a vehicle's CarLock (its owner and key: nobody's and
// none until SetCarLock says otherwise), so owning, locking and keeping a
// car never changes one either.
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
// world's component maps and archetypes) and use it only with the world
// unlocked.
type Builder struct {
	w    *ecs.World
	arch archetypes // the archetypes' component ids (archetypes.go)

	// The maps that set a new entity's components, made once with the
	// builder: a map made at each spawn is an allocation in the server's
	// tick.
	vehicle   generic.Map11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated, components.CarLock]
	trailer   generic.Map1[components.TrailerLink]
	person    generic.Map11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn, components.Replicated]
	character generic.Map4[components.Player, components.Wanted, components.Cash, components.Inventory]
	item      generic.Map6[components.Kind, components.Identity, components.Pose, components.Velocity, components.Replicated, components.Loose]
	container generic.Map2[components.Pose, components.Container]
	thrown    generic.Map7[components.Kind, components.Identity, components.Pose, components.Velocity, components.Body, components.Replicated, components.Projectile]
	npc       generic.Map1[components.NPC]
	police    generic.Map2[components.NPC, components.Chaser] // added to a vehicle
	lock      generic.Map2[components.CarLock, components.Flags]
	guard     generic.Map2[components.Sentry, components.Chaser]
	camera    generic.Map9[components.Kind, components.Identity, components.Pose, components.Velocity, components.Health, components.Flags, components.Body, components.Replicated, components.Camera]
}

// New returns a Builder for w.
func New(w *ecs.World) *Builder {
	b := &Builder{
		w:         w,
		vehicle:   generic.NewMap11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.Seats, components.Replicated, components.CarLock](w.Arche),
		trailer:   generic.NewMap1[components.TrailerLink](w.Arche),
		person:    generic.NewMap11[components.Kind, components.Identity, components.Pose, components.Velocity, components.Drive, components.Health, components.Flags, components.Body, components.PersonAction, components.SeatedIn, components.Replicated](w.Arche),
		character: generic.NewMap4[components.Player, components.Wanted, components.Cash, components.Inventory](w.Arche),
		item:      generic.NewMap6[components.Kind, components.Identity, components.Pose, components.Velocity, components.Replicated, components.Loose](w.Arche),
		container: generic.NewMap2[components.Pose, components.Container](w.Arche),
		thrown:    generic.NewMap7[components.Kind, components.Identity, components.Pose, components.Velocity, components.Body, components.Replicated, components.Projectile](w.Arche),
		npc:       generic.NewMap1[components.NPC](w.Arche),
		police:    generic.NewMap2[components.NPC, components.Chaser](w.Arche),
		lock:      generic.NewMap2[components.CarLock, components.Flags](w.Arche),
		guard:     generic.NewMap2[components.Sentry, components.Chaser](w.Arche),
		camera:    generic.NewMap9[components.Kind, components.Identity, components.Pose, components.Velocity, components.Health, components.Flags, components.Body, components.Replicated, components.Camera](w.Arche),
	}
	// After the maps, which register the components in the world in the
	// order they always have.
	b.arch = newArchetypes(w)
	return b
}

// Vehicle makes a car (KindCar, KindPoliceCar) or a trailer (KindTrailer) of
// physics car model model at pos facing yaw, at rest and unoccupied, and
// gives it a wire id. A trailer also gets a TrailerLink to tractor (which
// may be zero: a trailer standing alone).
func (b *Builder) Vehicle(kind components.Kind, model uint8, pos components.Vec3, yaw float32, tractor ecs.Entity) (ecs.Entity, error) {
	if !kind.IsVehicle() {
		return ecs.Entity{}, fmt.Errorf("prefab: %s is not a vehicle", kind)
	}
	e := b.newVehicle(b.arch.of[Vehicle], kind, model, pos, yaw, 0, false)
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
	return b.replicate(b.newPerson(b.arch.of[Person], kind, model, 0, 0, pos, yaw, false))
}

// SetCarLock makes vehicle car's owner and key l, and locks or unlocks
// its doors. It changes no archetype: every vehicle has a CarLock from
// its making.
func (b *Builder) SetCarLock(car ecs.Entity, l components.CarLock, locked bool) {
	cl, fl := b.lock.Get(car)
	if cl == nil {
		return
	}
	*cl = l
	if locked {
		fl.Bits |= components.FlagLocked
	} else {
		fl.Bits &^= components.FlagLocked
	}
}

// Character makes a player's body on foot at pos facing yaw: player is its
// number in the room (1-based), party its party, session the server's
// session index. Players go to every client (Replicated.Always). It starts
// with StartCash and an empty inventory, but for the phone in the last
// slot when the rules give one and the catalog has one.
func (b *Builder) Character(player, party uint16, session uint32, pos components.Vec3, yaw float32) (ecs.Entity, error) {
	// Made a person first, then given its own, as it always was: the
	// same steps between archetypes.
	e := b.newPerson(b.arch.of[Person], components.KindCharacter, 0, player, party, pos, yaw, true)
	b.w.Arche.Add(e, b.arch.ownChar...)
	pl, _, cash, inv := b.character.Get(e)
	pl.Session = session
	cash.Amount = StartCash
	if phone := b.w.Items.Phone(); b.w.Rules.Phone && phone != 0 {
		inv.Slots[components.InventorySlots-1] = components.Stack{Item: phone, Count: 1}
	}
	return b.replicate(e)
}

// Item makes an item lying loose (KindItem) at pos: n of item, laid out
// from the level's pickup (an index of Level.Pickups) or dropped in play
// (pickup -1). Loose pieces go to every client (Replicated.Always); the
// item id is its Identity.Model and the count, up to 255, its Variant, so
// that a client names and counts what it sees.
func (b *Builder) Item(item components.ItemID, n uint16, pickup int16, pos components.Vec3) (ecs.Entity, error) {
	if item == 0 || n == 0 {
		return ecs.Entity{}, fmt.Errorf("prefab: an item of %d of item %d", n, item)
	}
	e := b.w.Arche.NewEntity(b.arch.of[Item]...)
	kind, id, pose, _, rep, loose := b.item.Get(e)
	*kind = components.KindItem
	*id = components.Identity{Model: uint8(item), Variant: uint8(min(n, 255))}
	*pose = components.Pose{Pos: pos, Rot: components.NoRotation}
	rep.Always = true
	*loose = components.Loose{Stack: components.Stack{Item: item, Count: n}, Pickup: pickup}
	return b.replicate(e)
}

// Container makes the level's container index (of Level.Containers) at
// pos facing yaw, locked or not, with slots. It is not replicated: the
// clients draw it from the level, and its holder gets it in a frame.
func (b *Builder) Container(index int16, pos components.Vec3, yaw float32, locked bool, slots [components.ContainerSlots]components.Stack) ecs.Entity {
	e := b.w.Arche.NewEntity(b.arch.of[Container]...)
	pose, box := b.container.Get(e)
	*pose = components.Pose{Pos: pos, Rot: components.YawQuat(yaw)}
	*box = components.Container{Level: index, Locked: locked, Slots: slots}
	return e
}

// Thrown makes a thrown object (KindProjectile) of item at pos, flying at
// vel, its height and climb in p with the rest of its Projectile: a small
// ball that bounces off the static world and passes through bodies.
func (b *Builder) Thrown(pos components.Vec3, vel components.Vec3, p components.Projectile) (ecs.Entity, error) {
	e := b.w.Arche.NewEntity(b.arch.of[Thrown]...)
	kind, id, pose, v, body, _, proj := b.thrown.Get(e)
	*kind = components.KindProjectile
	id.Model = uint8(p.Item)
	*pose = components.Pose{Pos: pos, Rot: components.NoRotation}
	v.Lin = vel
	*body = components.Body{Shape: components.ShapeCircle, Radius: ThrownRadius, Height: ThrownRadius * 2, Mass: 0.4,
		Friction: 0.4, Restitution: 0.5, Layer: components.LayerProp}
	*proj = p
	return b.replicate(e)
}

// ThrownRadius (m) is a thrown object's radius: a grenade's.
const ThrownRadius = 0.06

// replicate gives e a wire id, or removes it again when none is left.
func (b *Builder) replicate(e ecs.Entity) (ecs.Entity, error) {
	if err := b.w.AssignWireID(e); err != nil {
		b.w.Arche.RemoveEntity(e)
		return ecs.Entity{}, fmt.Errorf("prefab: %w", err)
	}
	return e, nil
}
