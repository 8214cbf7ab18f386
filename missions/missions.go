// Package missions is the mission API: the contract a mission's Go code
// implements (Mission), what a game registers to offer it (Def), and the
// narrow set of actions it may take in the world (Host), which the
// MissionHost (package systems/missionhost) implements.
//
// A mission never touches the world's components or another system's
// state: it reads what the Host tells it (its players, where things are,
// what its players hold) and acts through the Host (spawn a vehicle, an
// item or chasers; stash an item in a container; give and take items; set
// the tracker; send a notice or a phone message; open a screen; change the
// clock or a signal; pay; end). What the room's guards and cameras saw it
// reads through Watch, a read-only view.
// What it spawns is tagged as its own and taken out of the world when it
// ends, and its own items (those of the game's catalog whose mission is
// its name) are taken from its players.
//
// The life of a mission:
//
//  1. A contact offers it by phone message to every player of the room
//     (Def: the contact, the text, the reward).
//  2. A player accepts the offer with a phone command. The mission starts
//     for the player's party, every member present (one instance per
//     party), or for the player alone outside a party: the host calls
//     Def.New, then Mission.Start.
//  3. Every tick, in the post-step after the physics, the host calls
//     Mission.Step. Each of the mission's players' phone commands that
//     concern it (an answer to a screen it opened) go to Mission.Phone,
//     between ticks; a player who leaves the room or the party goes to
//     Mission.Leave.
//  4. The mission ends itself with Host.Succeed or Host.Fail. The host
//     cleans up, tells its players the result and offers the mission
//     again.
//
// A mission that panics is ended with a failure and logged; the room goes
// on. Missions are deterministic like the rest of the simulation: no
// clock, no Go map iterated, no random source but Host.Rand.
package missions

import (
	"errors"
	"math/rand/v2"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
)

// Mission is one running instance of a mission: the Go code a game adds.
// The host makes one per accepted offer with Def.New and calls its
// methods on the room's goroutine, one at a time, never after the
// mission has ended.
//
// Start is called once, when the offer is accepted (between two ticks).
// It sets the mission up: it spawns what it needs and sets the tracker.
// An error refuses the offer: the player is told the error, nothing the
// mission spawned stays, and the offer stays open. Start may also end the
// mission at once (Host.Fail), which is rare.
//
// Step is called once per tick after the physics step (the post-step
// phase, after the city system), while the mission runs. It looks at the
// world through the Host and acts through it. It must be cheap and
// allocate nothing in its steady state: a room runs one per player or
// party, 60 times a second. Build strings when something happens, not
// every tick.
//
// Phone is called for a phone command of one of the mission's players
// that is meant for the mission: today an answer to a screen the mission
// opened (Command "screen", Choice the option picked; the host checks
// that the player has the mission's screen open and that the choice is
// one of its options). An error is the reply the player reads; it must
// then have changed nothing.
//
// Leave is called when one of the mission's players leaves it: they left
// the room, or their party (a party's mission is the party's). p is their
// last state; they are no longer in Host.Players. The mission decides
// whether it goes on (a delivery whose carrier is gone fails; a race of
// the players left goes on). When the last player leaves, the host ends
// the mission after Leave returns, whatever it did.
type Mission interface {
	Start(h Host) error
	Step(h Host)
	Phone(h Host, p Player, c Command) error
	Leave(h Host, p Player)
}

// Def is a mission as a game registers it: what its contact offers and
// how to make an instance.
type Def struct {
	// Name is the mission's id: a level-format name, unique in its game.
	// The game's items whose mission field is Name are its own.
	Name string
	// Title is what the phone and the tracker call it ("Parcel run").
	Title string
	// Contact is who offers it by phone ("Marlo").
	Contact string
	// Offer is the contact's message offering it.
	Offer string
	// Reward is what it pays each player on success, in Cash, for the
	// offer's text. The mission pays it (Host.Pay): the host pays
	// nothing by itself.
	Reward int64
	// Party is the fewest players of one party it takes: 0 or 1 for
	// anyone (a party plays it together all the same), 2 or more for a
	// party job.
	Party int
	// New makes a fresh instance.
	New func() Mission
}

// Player is one of a mission's players as the host saw them this tick.
type Player struct {
	// Session is the player's session in the room: who the host sends
	// the tracker, notices and phone to.
	Session uint32
	// Number is the player's number in the room (Identity.Player).
	Number uint16
	// Party is their party's number in the room, 0 for none.
	Party uint16
	// Char is their character.
	Char ecs.Entity
	// Pos is where they are now (their vehicle's centre when they sit in
	// one), and Prev where they were a tick before: a race gate is
	// crossed by the step from Prev to Pos (levels.RaceGate.Crossed).
	Pos, Prev levels.Vec2
	// Vehicle is the vehicle they sit in, zero on foot; Driving is
	// whether they sit at its wheel.
	Vehicle ecs.Entity
	Driving bool
	// Speed is their speed (their vehicle's), in metres per second.
	Speed float32
	// Dead is whether they are dead.
	Dead bool
}

// Tracker is what the mission's players see of it: the objective, a
// marker on the map (a point, or an area of Radius round it), and a timer.
// Every player of the mission sees the same tracker.
type Tracker struct {
	// Objective says what to do now, in a short sentence.
	Objective string
	// Mark shows At on the map: a point, or an area of Radius metres
	// round it (a place to reach, to lose chasers in).
	Mark   bool
	At     levels.Vec2
	Radius float32
	// Ends is the tick the timer runs out, 0 for no timer. The player
	// sees the time left; the mission decides what running out means
	// (usually Fail).
	Ends uint64
}

// Screen is a screen the world opens for a player (a laptop, a counter):
// a title, a text and options the player picks from with a phone command.
type Screen struct {
	Title, Text string
	// Options are what the player may pick, at most MaxOptions; the
	// player's answer is the option's index (Command.Choice).
	Options []string
}

// MaxOptions is the most options a screen offers.
const MaxOptions = 6

// MaxDefs is the most missions one game offers.
const MaxDefs = 16

// Command is a phone command meant for a mission.
type Command struct {
	// Cmd is "screen": an answer to the mission's screen.
	Cmd string
	// Choice is the index of the option picked.
	Choice int
}

// Host is what a mission may do: read the world as its players see it,
// and act on it through narrow actions. The MissionHost implements it for
// each instance. Its methods are called only from the mission's own
// methods, on the room's goroutine. Its reads allocate nothing; an action
// that makes something (a spawn, a message, a held signal) may, the first
// times: call those when something happens, not every tick.
type Host interface {
	// Tick returns the room's tick.
	Tick() uint64
	// Level returns the room's level (read only).
	Level() *levels.Level
	// Rand returns the room's random source: the only one a mission may
	// draw from, so that a replay draws the same numbers.
	Rand() *rand.Rand
	// Players returns the mission's players this tick, in the order they
	// joined it (the one who accepted first). The slice is the host's:
	// read it, never keep it past the call.
	Players() []Player

	// Where returns where entity e is, false when it is gone.
	Where(e ecs.Entity) (levels.Vec2, bool)
	// Wrecked reports whether e is gone, a vehicle wrecked or a person
	// dead.
	Wrecked(e ecs.Entity) bool
	// Holds returns how many of the item named item p carries.
	Holds(p Player, item string) int
	// Driver returns who sits at the wheel of vehicle v, zero for nobody.
	Driver(v ecs.Entity) ecs.Entity

	// Watch returns what the room's guards and cameras saw, read only:
	// never nil (a room without them sees nobody).
	Watch() Watch

	// SpawnVehicle parks a car of the named model ("van") at at facing
	// yaw, unlocked and empty: the mission's own. It fails where the
	// place is taken or no wire id is free.
	SpawnVehicle(model string, at levels.Vec2, yaw float32) (ecs.Entity, error)
	// SpawnItem lays n of the item named item on the ground at at: the
	// mission's own while it lies there.
	SpawnItem(item string, n int, at levels.Vec2) (ecs.Entity, error)
	// SpawnChasers sends n enemy cars of the AI after p, out of the
	// level's guard spawns (the nearest ones at least ChaserMinDistance
	// away, else any) and returns how many came. They are the mission's
	// own: they go when it ends.
	SpawnChasers(p Player, n int) (int, error)
	// Chasers returns the mission's chasers still in the world (car
	// entities). The slice is the host's: read it, never keep it.
	Chasers() []ecs.Entity

	// Stash puts n of the item named item into the level's container
	// named container (a crate, a locker), locked when lock is set: the
	// container's own lock, which opens as the level's containers do (a
	// key with its tag, a crowbar for a crate). It fails where the
	// container is unknown or full. The mission's own items left in it
	// are taken out when it ends.
	Stash(container, item string, n int, lock bool) error
	// Give puts n of the item named item in p's inventory; it fails
	// when it does not fit whole.
	Give(p Player, item string, n int) error
	// Take takes up to n of the item named item from p and returns how
	// many it took.
	Take(p Player, item string, n int) int
	// Pay adds cash to p's Cash (a reward).
	Pay(p Player, cash int64)
	// Charge takes cash from p's Cash; it fails with ErrNoCash, taking
	// nothing, when p holds less.
	Charge(p Player, cash int64) error

	// SetTracker sets what the mission's players see of it. Setting the
	// same tracker again sends nothing.
	SetTracker(t Tracker)
	// Notice shows every player of the mission a short notice.
	Notice(text string)
	// Message sends every player of the mission a phone message from its
	// contact.
	Message(text string)
	// OpenScreen opens s on p's phone (one at a time: it replaces any
	// other); their answer comes to Mission.Phone.
	OpenScreen(p Player, s Screen)
	// CloseScreen closes p's screen, if the mission's is open.
	CloseScreen(p Player)

	// SetClock sets the room's clock to minute (minutes after midnight)
	// going on at pace game minutes per second: every player of the
	// room sees it.
	SetClock(minute, pace float64)
	// HoldSignal holds traffic signal id on phase (-1: red for every
	// lane), ReleaseSignal lets it run its cycle again: every player of
	// the room sees it. The host releases the mission's held signals
	// when it ends.
	HoldSignal(id string, phase int) error
	ReleaseSignal(id string) error

	// Succeed ends the mission with success, Fail with failure; text
	// says why, to every player of it. The host cleans up after the
	// mission's method returns. The first call ends it; later ones do
	// nothing.
	Succeed(text string)
	Fail(reason string)
}

// Watch is a read-only view of what the room's guards and cameras saw:
// what a job that must be done unseen asks. The stealth system keeps the
// record; a mission reads it here and never changes it.
type Watch interface {
	// SeenSince reports whether a guard or a camera saw p (grew
	// suspicious of them, raised the alarm, was called after them,
	// spotted them or saw them steal a car) at tick since or later.
	SeenSince(p Player, since uint64) bool
	// LastSeen returns the last time a guard or a camera saw p, false
	// when none did.
	LastSeen(p Player) (Sighting, bool)
	// Alarmed reports whether a guard or a camera raised the alarm over
	// p (a guard's alert, a camera's spotting) at tick since or later.
	Alarmed(p Player, since uint64) bool
	// Alarm reports whether the room's alarm is up, and the tick it went
	// up.
	Alarm() (on bool, since uint64)
}

// Sighting is one time the guards or cameras saw a player.
type Sighting struct {
	// Tick is when, At where the player was.
	Tick uint64
	At   levels.Vec2
	// Camera is set when a camera saw them, not a guard; Alarm when the
	// sighting raised the alarm (a guard's alert, a camera's spotting).
	Camera, Alarm bool
}

// ChaserMinDistance (m) is how far from its target a chaser comes out when
// a guard spawn that far is free: out of sight round a corner or two, not
// on top of the player.
const ChaserMinDistance = 80

// Errors a Host's actions return, and a mission may return in turn.
var (
	ErrNoCash   = errors.New("not enough cash")
	ErrNoSpawns = errors.New("the level has no guard spawns for chasers")
	ErrNoRoom   = errors.New("no room to spawn it there")
	ErrUnknown  = errors.New("no such thing in this game")
)
