package components

import "github.com/mlange-42/arche/ecs"

// NPCRole is what an NPC does in the city.
type NPCRole uint8

// The NPC roles.
const (
	RoleNone     NPCRole = iota
	RoleTraffic          // drives an ambient car along the lanes
	RoleWalker           // walks the pavements
	RoleJogger           // runs the pavements
	RoleIdler            // stands about, wanders a little
	RoleGuard            // a sentry of the level's NPC spawners
	RoleCivilian         // a bystander of the level's NPC spawners
	RoleDriver           // drives a car of a spawner
	RoleOfficer          // police: drives a police car or walks to an arrest
	RoleTarget           // a mission's target
	RoleVIP              // a guarded person
)

// NPC marks an entity the AI world runs (a person, or a car whose driver
// is an NPC). Systems that own NPCs keep their state here as plain data.
type NPC struct {
	Role NPCRole
	// Spawner is the index of the level spawner (NPC or vehicle) that made
	// it, or -1: a spawner refills its own.
	Spawner int16
	// Mode is the AI's current behaviour (the AI's own numbering).
	Mode uint8
	// Lane is the road lane or pavement the NPC follows, -1 none.
	Lane int32
	// Along is how far along Lane it is, in metres.
	Along float32
	// Timer counts ticks for the current behaviour.
	Timer uint32
	// Flee is the point an NPC runs from, while Mode says it flees.
	Flee Vec3
}

// Chaser is on a police car (or officer) the AI drives after Target, a
// player's character.
type Chaser struct {
	Target ecs.Entity
	// Since is the tick the chase began.
	Since uint64
	// Sees is whether this chaser saw the target in its last look.
	Sees bool
}

// Wanted is a player's Wanted level, on their character.
type Wanted struct {
	Stars uint8   // 0..5
	Heat  float32 // what builds up to the next star, 0..1
	// Unseen counts the ticks since any police saw the player: the stars
	// decay while it grows.
	Unseen uint32
	// Arrest counts the ticks the player has stood stopped beside an
	// officer; at the arrest time they are arrested.
	Arrest uint32
	// Fine is the last arrest's fine, and Arrests the arrests so far: the
	// server sends the fine when Arrests changes.
	Fine    int64
	Arrests uint32
}

// Cash is the money a player holds; an arrest's fine is taken from it.
type Cash struct {
	Amount int64
}

// Ghost is on a player just respawned: no damage and no collision with
// players until the tick Until.
type Ghost struct {
	Until uint64
}

// CrimeKind says what crime a player committed.
type CrimeKind uint8

// The crimes the police see.
const (
	CrimeHitPedestrian CrimeKind = iota + 1 // hit or ran over a pedestrian
	CrimeKillPedestrian
	CrimeCarjack
	CrimeShooting
	CrimeRestricted // entered a restricted zone
	CrimeRamPolice  // rammed a police car
	CrimeAssault    // hurt another player
	CrimeBreakIn    // forced a locked car's door
)

// Crime is one crime of the tick: Offender (a player's character) did Kind
// to Victim at Pos. Systems append crimes to the world's list; the police
// turn the last step's crimes into Wanted levels.
type Crime struct {
	Kind     CrimeKind
	Offender ecs.Entity
	Victim   ecs.Entity
	Pos      Vec3
}

// DeathCause says what killed a player.
type DeathCause uint8

// The causes of a player's death.
const (
	// DeathUnknown is a death no system saw the cause of: a mission's,
	// a debug command's.
	DeathUnknown   DeathCause = iota
	DeathShot                 // a round
	DeathRunOver              // a vehicle hit them on foot
	DeathCrash                // another collision: thrown against a wall
	DeathExplosion            // a grenade's blast, or another vehicle's wreck blowing up
	DeathWreck                // the vehicle they sat in was wrecked and blew up
)

// Death is how a player last died, on their character: the damage system
// writes the cause and who was answerable as the harm that kills them
// lands; the city system writes when they come back. It stays until their
// next death.
type Death struct {
	Cause DeathCause
	// By is the kind of what killed them: KindCharacter for a player (on
	// foot, or at the wheel of the vehicle that did it), the vehicle's
	// kind for one no player drove, the shooter's for a round; for their
	// wreck, what wrecked it. KindNone when nothing else did: they crashed
	// into a wall by themselves.
	By Kind
	// Player is the number (Identity.Player) of the player who killed
	// them when By is KindCharacter, else 0. It may be their own.
	Player uint16
	// Tick is the tick they died; Back the tick they come back, 0 while
	// the rules leave them dead.
	Tick, Back uint64
}
