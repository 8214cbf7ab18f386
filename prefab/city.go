package prefab

import (
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/physics"
)

// The city's entities (spawners, police, gates) add to the archetypes of
// prefab.go:
//
//	police car:  the vehicle's and NPC Chaser
//	NPC car:     the vehicle's and NPC (a spawner driver's car)
//	NPC person:  the person's and NPC (civilian, officer, driver, target, VIP)
//	guard:       the NPC person's and Sentry Chaser (the Chaser's Target is
//	             zero until the stealth system sends the guard after a player)
//	gate:        the vehicle's with no seats: Kind gate, a Body of mass 0
//
// A gate has the vehicle's components so that the physics step, which
// gathers vehicles and people, collides with it; Seats.Count 0 keeps
// everybody out of it and its mass of 0 keeps it where it stands.

// Gate sizes: the thickness of a gate or boom along the heading of the cars
// that pass it, and the heights of each kind (for line of sight).
const (
	GateThickness = 0.4
	GateHeight    = 2.5
	BarrierHeight = 1.2
)

// Identity.Model of a gate entity: what it looks like.
const (
	GateModelGate    uint8 = 0 // a solid gate in a wall or fence
	GateModelBarrier uint8 = 1 // a boom across a driveway
)

// GateMask is the collision mask of a shut gate: it stops everything.
const GateMask uint16 = 0xFFFF

// ModelByName returns the physics car model whose name is name ("sedan",
// "van"), as the levels' vehicle spawners spell it; false when there is
// none (CarModel then gives the compact).
func ModelByName(name string) (uint8, bool) {
	for i := range physics.CarModels {
		if physics.CarModels[i].Name == name {
			return uint8(i), true
		}
	}
	return physics.ModelCompact, false
}

// ParkedCar makes a car of model parked at pos facing yaw, with no driver,
// its doors locked when locked.
func (b *Builder) ParkedCar(model uint8, pos components.Vec3, yaw float32, locked bool) (ecs.Entity, error) {
	e, err := b.Vehicle(components.KindCar, model, pos, yaw, ecs.Entity{})
	if err != nil || !locked {
		return e, err
	}
	_, _, _, _, _, _, fl, _, _, _, _ := b.vehicle.Get(e)
	fl.Bits |= components.FlagLocked
	return e, nil
}

// NPCPerson makes a person of kind (pedestrian, officer or guard) on foot
// at pos facing yaw, run by the AI in role; spawner is the index of the
// level's NPC spawner that made it, or -1. Guards, the enemies, go to every
// client (Replicated.Always), and see: they carry a Sentry, its Home where
// they came in, and a Chaser with no Target.
func (b *Builder) NPCPerson(kind components.Kind, role components.NPCRole, spawner int16, pos components.Vec3, yaw float32) (ecs.Entity, error) {
	if !kind.IsPerson() || kind == components.KindCharacter {
		return ecs.Entity{}, fmt.Errorf("prefab: %s is not an NPC person", kind)
	}
	e := b.newPerson(b.arch.npcPerson, kind, 0, 0, 0, pos, yaw, kind == components.KindGuard)
	set(b.w, e, components.NPC{Role: role, Spawner: spawner, Lane: -1})
	if kind == components.KindGuard {
		b.guard.Assign(e, &components.Sentry{Home: pos, HomeYaw: yaw}, &components.Chaser{})
	}
	return b.replicate(e)
}

// npcVehicle makes a vehicle of kind and model with an NPC of role: a car
// the AI drives.
func (b *Builder) npcVehicle(kind components.Kind, model uint8, role components.NPCRole, spawner int16, pos components.Vec3, yaw float32, flags uint16) (ecs.Entity, error) {
	e := b.newVehicle(b.arch.npcCar, kind, model, pos, yaw, flags, false)
	set(b.w, e, components.NPC{Role: role, Spawner: spawner, Lane: -1})
	return b.replicate(e)
}

// NPCCar makes a car of model at pos facing yaw with an NPC driver of role
// seated at the wheel (a spawner's driver): both carry NPC{role, spawner}.
// The AI drives it.
func (b *Builder) NPCCar(role components.NPCRole, spawner int16, model uint8, pos components.Vec3, yaw float32) (car, driver ecs.Entity, err error) {
	car, err = b.npcVehicle(components.KindCar, model, role, spawner, pos, yaw, components.FlagHeadlights)
	if err != nil {
		return ecs.Entity{}, ecs.Entity{}, err
	}
	driver, err = b.NPCPerson(components.KindPedestrian, role, spawner, pos, yaw)
	if err != nil {
		b.w.Despawn(car)
		return ecs.Entity{}, ecs.Entity{}, err
	}
	b.seatDriver(car, driver)
	return car, driver, nil
}

// PoliceCar makes a police car (KindPoliceCar, the police model, siren and
// lights on) at pos facing yaw with an officer at the wheel, chasing target
// (a player's character) from tick on: the car carries the Chaser the AI
// drives after target, and both carry NPC{RoleOfficer}.
func (b *Builder) PoliceCar(pos components.Vec3, yaw float32, target ecs.Entity, tick uint64) (car, officer ecs.Entity, err error) {
	e := b.newVehicle(b.arch.of[Vehicle], components.KindPoliceCar, physics.ModelPolice, pos, yaw,
		components.FlagSiren|components.FlagHeadlights, false)
	b.police.Assign(e, &components.NPC{Role: components.RoleOfficer, Spawner: -1, Lane: -1},
		&components.Chaser{Target: target, Since: tick})
	if car, err = b.replicate(e); err != nil {
		return ecs.Entity{}, ecs.Entity{}, err
	}
	officer, err = b.NPCPerson(components.KindOfficer, components.RoleOfficer, -1, pos, yaw)
	if err != nil {
		b.w.Despawn(car)
		return ecs.Entity{}, ecs.Entity{}, err
	}
	b.seatDriver(car, officer)
	return car, officer, nil
}

// Seat puts person in seat i of vehicle at once, with no getting in: at
// the wheel (seat 0) driving, else a passenger, where the vehicle is.
func (b *Builder) Seat(person, vehicle ecs.Entity, i uint8) {
	_, _, vpose, _, _, _, _, _, seats, _, _ := b.vehicle.Get(vehicle)
	seats.Occupant[i] = person
	_, _, pose, _, _, _, _, _, act, seated, _ := b.person.Get(person)
	act.Act = components.ActPassenger
	if i == 0 {
		act.Act = components.ActDriving
	}
	seated.Vehicle, seated.Seat = vehicle, i
	*pose = *vpose
}

// seatDriver puts person at the wheel of car, driving at once.
func (b *Builder) seatDriver(car, person ecs.Entity) {
	_, _, _, _, _, _, _, _, seats, _, _ := b.vehicle.Get(car)
	seats.Occupant[0] = person
	_, _, _, _, _, _, _, _, act, seated, _ := b.person.Get(person)
	act.Act = components.ActDriving
	seated.Vehicle, seated.Seat = car, 0
}

// Gate makes a level gate (barrier false) or barrier (true) across an
// opening width metres wide at pos, cars passing it heading yaw: a box of
// mass 0 GateThickness deep, shut (it collides with everything). The gates
// system opens it by clearing Body.Mask and setting FlagOpen.
func (b *Builder) Gate(pos components.Vec3, yaw, width float32, barrier bool) (ecs.Entity, error) {
	if !(width > 0) {
		return ecs.Entity{}, fmt.Errorf("prefab: gate width %v", width)
	}
	model, height := GateModelGate, float32(GateHeight)
	if barrier {
		model, height = GateModelBarrier, BarrierHeight
	}
	e := b.newVehicle(b.arch.of[Vehicle], components.KindGate, model, pos, yaw, 0, false)
	_, _, _, _, _, _, _, body, seats, _, _ := b.vehicle.Get(e)
	*body = components.Body{
		Shape: components.ShapeBox, HalfX: GateThickness / 2, HalfY: width / 2, Height: height,
		Friction: 0.5, Layer: components.LayerProp, Mask: GateMask,
	}
	seats.Count = 0
	return b.replicate(e)
}

// Camera sizes and strength: a small box on a wall, as a circle for the
// rounds (two pistol rounds shoot it out). It collides with nothing.
const (
	CameraRadius = 0.3
	CameraHP     = 50
)

// Camera makes the level's camera index (into the level's Cameras) at pos
// facing yaw, and gives it a wire id. It is no physics body (nothing
// collides with it) but the rounds find it: its Health at 0 is a camera
// shot out.
func (b *Builder) Camera(index int16, pos components.Vec3, yaw float32) (ecs.Entity, error) {
	e := b.w.Arche.NewEntity(b.arch.of[Camera]...)
	kind, _, pose, _, hp, _, body, _, cam := b.camera.Get(e)
	*kind = components.KindCamera
	*pose = components.Pose{Pos: pos, Rot: components.YawQuat(yaw)}
	*hp = components.Health{HP: CameraHP, Max: CameraHP}
	*body = components.Body{Shape: components.ShapeCircle, Radius: CameraRadius, Height: 2 * CameraRadius, Layer: components.LayerProp}
	cam.Index = index
	return b.replicate(e)
}
