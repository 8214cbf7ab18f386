package components

import "github.com/mlange-42/arche/ecs"

// Pose is where an entity is and which way it faces.
type Pose struct {
	Pos Vec3
	Rot Quat
}

// Velocity is an entity's motion: Lin in metres per second, Ang in radians
// per second about each axis (only Ang.Z moves anything on a flat ground).
type Velocity struct {
	Lin Vec3
	Ang Vec3
}

// Kind says what an entity is. The order is the wire's: a whole snapshot
// lists its entities by Kind, then by wire id. Append new kinds at the end.
type Kind uint8

// The kinds of entity.
const (
	KindNone       Kind = iota
	KindCharacter       // a player's body
	KindCar             // any car a player can drive, parked or ambient traffic
	KindTrailer         // towed by a car through TrailerLink
	KindPedestrian      // an ambient NPC on foot
	KindPoliceCar       // a car driven by police
	KindOfficer         // a police officer on foot
	KindGuard           // an armed NPC (sentry, mission enemy)
	KindProjectile      // a thrown or fired object in flight (a grenade)
	KindItem            // a light piece lying loose: a pickup, a dropped weapon
	KindGate            // a gate or barrier of the level
	KindCamera          // a security camera of the level
	KindCount           // number of kinds; not a kind
)

var kindNames = [KindCount]string{"none", "character", "car", "trailer", "pedestrian", "police-car", "officer", "guard", "projectile", "item", "gate", "camera"}

// String returns the kind's name as the levels and the debug readout spell it.
func (k Kind) String() string {
	if k < KindCount {
		return kindNames[k]
	}
	return "kind?"
}

// IsVehicle reports whether k can be driven (has Seats).
func (k Kind) IsVehicle() bool { return k == KindCar || k == KindPoliceCar || k == KindTrailer }

// IsPerson reports whether k walks on foot.
func (k Kind) IsPerson() bool {
	return k == KindCharacter || k == KindPedestrian || k == KindOfficer || k == KindGuard
}

// Identity is who and what a replicated entity is.
type Identity struct {
	// WireID is the entity's id on the wire (the snapshots' u16 eid),
	// given by ecs.World's wire id allocator; 0 is never a valid id.
	WireID uint16
	// Gen is the id's generation: it turns over each time WireID is freed
	// and given again, so a client tells a new life from the old one.
	Gen uint8
	// Model and Variant choose the look and tuning (car model, skin).
	Model, Variant uint8
	// Party is the player's party or team; 0 is no party. Members of one
	// party never carjack or hurt each other under the rivals rule.
	Party uint16
	// Player is the player number for a KindCharacter (1-based), else 0.
	Player uint16
}

// Buttons is a bitset of the buttons of an input.
type Buttons uint16

// The buttons. Held buttons stay set while the key is down; a one-shot press
// (Drive.Pressed) is set for exactly one tick and is never lost or doubled by
// the input queue.
const (
	BtnHandbrake Buttons = 1 << iota // held: lock the rear wheels
	BtnSprint                        // held: run on foot
	BtnUse                           // press: enter or exit a vehicle (carjack when a driver sits)
	BtnFire                          // held: the trigger (a guess never holds it); pressed too on its first tick held, so that a tap is a press
	BtnJump                          // press
	BtnHorn                          // held
	BtnReload                        // press
	BtnPin                           // held: a grenade with its pin out (a guess keeps it held)
	BtnSiren                         // press: toggle the siren of a police car
	BtnLights                        // press: toggle the headlights
	BtnWeapon                        // press: draw or holster the pistol (on foot)
)

// Drive is what a car or a character obeys this tick: the player's input for
// a character (forwarded to the car it drives), the AI's for an NPC.
type Drive struct {
	Throttle  float32 // 0..1 forward
	Brake     float32 // 0..1; held at rest it reverses
	Steer     float32 // -1 (right) .. 1 (left)
	MoveX     float32 // on foot, -1..1: strafe right is +
	MoveY     float32 // on foot, -1..1: forward is +
	LookYaw   float32 // on foot: the heading the person turns to, radians
	LookPitch float32
	Held      Buttons // buttons down this tick
	Pressed   Buttons // one-shot presses this tick
	// View is the server tick whose world the player saw when it made
	// this input, for the lag compensation of its shots; the server sets
	// it from the input frame after checking it. 0 is the present: an
	// NPC's, an old client's.
	View uint64
}

// Health is an entity's hit points. At 0 a person is dead and a car wrecked.
type Health struct {
	HP, Max uint16
}

// Flag bits of Flags.
const (
	FlagSiren      uint16 = 1 << iota // police lights and siren on
	FlagHeadlights                    // headlights on
	FlagBraking                       // brake lights
	FlagHorn                          // horn sounding
	FlagWrecked                       // a car at 0 health
	FlagGhost                         // just respawned: no damage, no collision with players
	FlagLocked                        // doors locked
	FlagOpen                          // a gate or barrier is open
	FlagAlert                         // an NPC is alerted ("!"), a camera has a player in sight
	FlagSuspicious                    // an NPC is suspicious ("?"); with FlagAlert, searching
)

// Flags is a bitset of visible states (Flag* constants).
type Flags struct {
	Bits uint16
}

// Action is what a person is doing.
type Action uint8

// The person actions.
const (
	ActOnFoot Action = iota
	ActDriving
	ActPassenger
	ActEntering // walking into a seat; SeatedIn says which
	ActExiting  // getting out; SeatedIn still says where from
	ActDead

	// ActEmote is the first emote: a person on foot playing emote i has
	// the action ActEmote + i (package social names them) while Timer
	// counts its ticks down. The emotes take the values from 64 on, clear
	// of the states above, so that a new state is appended there without
	// moving them.
	ActEmote Action = 64
)

// PersonAction is what a person does: the state, the weapon in hand, the aim.
type PersonAction struct {
	Act      Action
	Weapon   uint8   // 0 is bare hands
	AimYaw   float32 // radians
	AimPitch float32
	// Timer counts down the ticks left of Entering or Exiting.
	Timer uint16
}

// MaxPassengers is the passenger seats a vehicle may have besides the driver.
const MaxPassengers = 3

// Seats are a vehicle's seats: seat 0 is the driver's, 1..Count-1 the
// passengers'. A zero Entity is a free seat.
type Seats struct {
	Occupant [1 + MaxPassengers]ecs.Entity
	Count    uint8 // seats this vehicle has, driver's included (1..4)
}

// SeatedIn is on a person sitting in (or entering, or leaving) a vehicle.
type SeatedIn struct {
	Vehicle ecs.Entity
	Seat    uint8 // 0 is the driver's seat
}

// TrailerLink is on a trailer: the car that tows it and the hitch length
// (centre of the car to centre of the trailer), in metres.
type TrailerLink struct {
	Tractor ecs.Entity
	Length  float32
}

// Shape kinds of Body.
const (
	ShapeBox    uint8 = iota // an oriented box: HalfX along the heading, HalfY across
	ShapeCircle              // a circle (vertical cylinder) of Radius
)

// Body makes an entity a physics body: its shape and its mass. Static level
// geometry is not made of entities; it is baked once from the level.
type Body struct {
	Shape        uint8
	HalfX, HalfY float32 // ShapeBox half extents in metres
	Radius       float32 // ShapeCircle radius in metres
	Height       float32 // for the ground contact and line of sight
	Mass         float32 // kilograms; 0 means immovable (a gate)
	Friction     float32 // Coulomb coefficient against other bodies
	Restitution  float32 // bounce, 0..1
	// Layer is the body's collision layer bit, Mask the layers it collides with.
	Layer, Mask uint16
}

// Collision layers of Body.
const (
	LayerVehicle uint16 = 1 << iota
	LayerPerson
	LayerProp
	LayerGhost // a ghost person or car: collides with the world, not players
)

// Replicated marks an entity that goes into snapshots. Its Identity.WireID
// is valid while it is replicated.
type Replicated struct {
	// Always sends the entity to every client whatever the distance (every
	// player, whatever a player sits in, enemy NPCs, loose light pieces).
	Always bool
}

// Player marks the character of a connected client (or one who dropped and
// keeps a seat). Session is the server's index of the session.
type Player struct {
	Session uint32
	// Owner is the player's owner number in the room: the cars whose
	// CarLock.Owner it is are theirs. The server gives one per account
	// (the same each time the account comes back to the room) and one per
	// join to a player without an account; 0 owns nothing.
	Owner uint32
}

// EventKind says what happened in an Event.
type EventKind uint8

// The kinds of event the snapshots carry.
const (
	EventShot    EventKind = iota + 1 // Source fired from Pos in direction Dir
	EventBlast                        // an explosion at Pos of radius Amount
	EventHit                          // Source hurt Target by Amount at Pos
	EventCarjack                      // Source pulled Target out of the car Other
)

// Event is something that happened this tick that clients show once (a
// shot, a blast, a hit, a carjack). Systems append events to the world's
// per-tick list; netsync sends them to the clients whose area of interest
// holds Pos.
type Event struct {
	Kind   EventKind
	Source ecs.Entity
	Target ecs.Entity
	Other  ecs.Entity
	Pos    Vec3
	Dir    Vec3 // unit direction of a shot
	Amount float32
	// View is a shot's: the tick of the world its shooter saw (the
	// shooter's Drive.View), whose bodies it is tested against. 0 is the
	// present.
	View uint64
}

// Contact is one collision of the last physics step that exchanged an
// impulse: A hit B (B is the zero Entity for a building or the level's
// edge). Damage, crimes and AI read the world's contact list after the step.
type Contact struct {
	A, B    ecs.Entity
	Impulse float32 // normal impulse, N s
	Speed   float32 // closing speed before the step, m/s
	Point   Vec3
	Normal  Vec3 // from A toward B
}
