package wire

// Vec3 is a point or direction in metres (or metres per second), Z up. It has
// the fields of components.Vec3, so one converts to the other.
type Vec3 struct{ X, Y, Z float32 }

// Quat is a unit quaternion (X, Y, Z, W), as components.Quat.
type Quat struct{ X, Y, Z, W float32 }

// Entity is everything a record carries about one entity, as plain values:
// what the server quantizes (Record.Quantize) and what a client gets back
// (Record.Decode). The numbers of Kind, Act and Flags are those of package
// components (mirrored below).
type Entity struct {
	// Identity.
	Kind, Model, Variant uint8
	Party, Player        uint16
	Gen                  uint8  // the life of the entity under its wire id
	Vehicle              uint16 // wire id of the vehicle the person sits in (or enters, or leaves); 0 for none
	Seat                 uint8  // seat in Vehicle, 0 is the driver's
	Tractor              uint16 // wire id of the car towing this trailer; 0 for none

	// Pose.
	Pos Vec3 // metres
	Rot Quat
	Lin Vec3 // metres per second
	Ang Vec3 // radians per second

	// Drive and health.
	Throttle, Brake float32 // 0..1
	Steer           float32 // -1 (right) .. 1 (left)
	Held            uint16  // buttons held (components.Buttons)
	HP, MaxHP       uint16

	// What a person does.
	Act              uint8   // Act*
	Weapon           uint8   // 0 is bare hands
	AimYaw, AimPitch float32 // radians
	Timer            uint16  // ticks left of entering or exiting

	Flags uint16 // Flag*
}

// The kinds of entity (components.Kind). A whole snapshot lists its
// entities by kind, then by wire id.
const (
	KindNone uint8 = iota
	KindCharacter
	KindCar
	KindTrailer
	KindPedestrian
	KindPoliceCar
	KindOfficer
	KindGuard
	KindProjectile
	KindItem
	KindGate
	KindCamera
)

// The person actions (components.Action).
const (
	ActOnFoot uint8 = iota
	ActDriving
	ActPassenger
	ActEntering
	ActExiting
	ActDead
	// ActEmote is the first emote: ActEmote + i plays emote i.
	ActEmote uint8 = 64
)

// The flag bits of Entity.Flags (components.Flag*).
const (
	FlagSiren uint16 = 1 << iota
	FlagHeadlights
	FlagBraking
	FlagHorn
	FlagWrecked
	FlagGhost
	FlagLocked
	FlagOpen
	FlagAlert
	FlagSuspicious
)
