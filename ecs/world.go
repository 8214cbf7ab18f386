package ecs

import (
	"fmt"
	"math/rand/v2"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/levels"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// Entity is arche's entity handle, re-exported so systems need one import.
type Entity = arche.Entity

// TickRate is the simulation's fixed rate: 60 ticks a second.
const TickRate = 60

// MaxPlayers is the most players a world may be made for (Config.Players):
// a room's player slots are its setting, up to this. The systems size
// their per-player lists by the world's own (World.Players), made once, so
// that a full room allocates nothing mid-tick.
const MaxPlayers = 1024

// DefaultPlayers is the players a world holds when its Config names none:
// a room's default size.
const DefaultPlayers = 64

// Dt is the fixed step of one tick, in seconds.
const Dt float32 = 1.0 / TickRate

// Config makes a World.
type Config struct {
	Seed  uint64        // seeds World.RNG
	Level *levels.Level // the level the room plays; may be nil (a bare world for tests)
	Rules Rules
	// Items is the room's item catalog (its game's); nil is an empty one.
	Items  *catalog.Catalog
	MaxIDs int // wire ids available; 0 means MaxWireIDs
	// Players is the most players the world holds, 1 to MaxPlayers; 0
	// means DefaultPlayers. The systems size their per-player lists by
	// it.
	Players int
	Entries []Entry
}

// World is one room's simulation: the arche world, its resources and its
// schedule. It is not safe for concurrent use.
type World struct {
	// Arche is the entity store. Systems build their generic filters and
	// maps on it once (at construction) and query it every tick.
	Arche *arche.World
	// IDs gives replicated entities their wire ids.
	IDs *WireIDs
	// Cmd defers structural changes; see the package comment.
	Cmd Commands
	// Sched runs the systems in their one order.
	Sched *Schedule
	// Level is the level the room plays (nil for a bare world): read
	// only, shared by every system that needs the map (roads, spawn
	// points, zones, gates).
	Level *levels.Level
	// Rules are the game's rules for this room.
	Rules Rules
	// Items is the room's item catalog: read only, never nil (an empty
	// catalog when the config gives none).
	Items *catalog.Catalog
	// Clock is the room's tick count and time of day.
	Clock Clock
	// RNG is the room's only random source: PCG, seeded from Config.Seed,
	// drawn in schedule order, so a replay draws the same numbers.
	RNG *rand.Rand
	// Events are this tick's events (shots, blasts, hits, carjacks),
	// emptied at the start of each Step and read by the sync phase at
	// its end.
	Events []components.Event
	// Contacts are the last step's collisions, written in the step phase
	// and read by the systems after it.
	Contacts []components.Contact
	// Crimes are the crimes committed in the last tick (hits, carjacks,
	// shots, restricted zones), appended by the systems that see them and
	// read in the next tick through LastCrimes; Step drops them once that
	// tick's schedule has run.
	Crimes []components.Crime

	identity  generic.Map1[components.Identity]
	players   int // Config.Players
	crimeMark int
}

// LastCrimes returns the crimes of the previous tick (those committed before
// this tick's schedule began): what the police act on.
func (w *World) LastCrimes() []components.Crime { return w.Crimes[:w.crimeMark] }

// New returns a world with cfg's rules, seed and schedule. The schedule may
// be set later with SetSchedule (systems usually need the world to build).
func New(cfg Config) (*World, error) {
	switch {
	case cfg.Players == 0:
		cfg.Players = DefaultPlayers
	case cfg.Players < 0 || cfg.Players > MaxPlayers:
		return nil, fmt.Errorf("ecs: a world holds 1 to %d players, not %d", MaxPlayers, cfg.Players)
	}
	aw := arche.NewWorld()
	w := &World{
		players: cfg.Players,
		Arche:   &aw,
		IDs:     NewWireIDs(cfg.MaxIDs),
		Level:   cfg.Level,
		Rules:   cfg.Rules,
		Items:   cfg.Items,
		RNG:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
	}
	if w.Items == nil {
		w.Items, _ = catalog.New(nil)
	}
	w.Clock.Set(0, cfg.Rules.ClockStart, cfg.Rules.ClockPace)
	w.identity = generic.NewMap1[components.Identity](w.Arche)
	if err := w.SetSchedule(cfg.Entries); err != nil {
		return nil, err
	}
	return w, nil
}

// Players returns the most players the world holds (Config.Players): what
// the systems size their per-player lists by.
func (w *World) Players() int { return w.players }

// SetSchedule replaces the schedule by entries (see NewSchedule).
func (w *World) SetSchedule(entries []Entry) error {
	s, err := NewSchedule(entries)
	if err != nil {
		return err
	}
	w.Sched = s
	return nil
}

// Step runs one tick: it empties the tick's events, runs the schedule
// (applying the command buffer after each system) and advances the clock.
// The crimes of the previous tick are kept until this tick's schedule has
// run (LastCrimes), then replaced by this tick's.
func (w *World) Step() {
	clear(w.Events)
	w.Events = w.Events[:0]
	w.crimeMark = len(w.Crimes)
	w.Sched.Run(w)
	w.Crimes = w.Crimes[:copy(w.Crimes, w.Crimes[w.crimeMark:])]
	w.Cmd.Apply(w)
	w.Clock.Tick++
}

// Tick returns the number of ticks run.
func (w *World) Tick() uint64 { return w.Clock.Tick }

// AssignWireID gives e a wire id and generation and writes them into its
// Identity component, which e must have. It fails with ErrNoWireIDs when
// every id is in use; the caller decides what to do with e (usually remove
// it again).
func (w *World) AssignWireID(e Entity) error {
	id := w.identity.Get(e)
	if id == nil {
		return fmt.Errorf("ecs: entity %v has no Identity", e)
	}
	wid, gen, err := w.IDs.Alloc(e)
	if err != nil {
		return err
	}
	id.WireID, id.Gen = wid, gen
	return nil
}

// Despawn removes e from the world now, freeing its wire id. If a query is
// open it records the removal in Cmd instead. Despawning an entity already
// gone does nothing.
func (w *World) Despawn(e Entity) {
	if !w.Arche.Alive(e) {
		return
	}
	if w.Arche.IsLocked() {
		w.Cmd.Remove(e)
		return
	}
	if id := w.identity.Get(e); id != nil && id.WireID != 0 {
		if held, ok := w.IDs.Entity(id.WireID); ok && held == e {
			w.IDs.Free(id.WireID)
		}
	}
	w.Arche.RemoveEntity(e)
}

// ByWireID returns the live entity holding wire id wid.
func (w *World) ByWireID(wid uint16) (Entity, bool) {
	e, ok := w.IDs.Entity(wid)
	if !ok || !w.Arche.Alive(e) {
		return Entity{}, false
	}
	return e, true
}
