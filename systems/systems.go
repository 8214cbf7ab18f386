// Package systems declares the one schedule: every system of a room, its
// name, its phase and its place. Each system lives in its own package under
// systems/ and talks to the others only through components and the world's
// resources.
package systems

import (
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/nav"
	"github.com/fiveonit/engine/netsync"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/cars"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/city/zones"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/systems/gates"
	"github.com/fiveonit/engine/systems/items"
	"github.com/fiveonit/engine/systems/lagcomp"
	"github.com/fiveonit/engine/systems/missionhost"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/pedestrians"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/replicate"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/fiveonit/engine/systems/spawners"
	"github.com/fiveonit/engine/systems/stealth"
	"github.com/fiveonit/engine/systems/weapons"
)

// Options are what the systems are built from. Input and Arena come from
// the server (its sessions, the arena its snapshots are encoded from); nil
// leaves out the system that needs them, as tests and the physics bench do.
type Options struct {
	// Level is the room's level. Nil leaves out every system that needs
	// one (spawners, gates, police, damage, city), as the physics bench
	// does.
	Level *levels.Level
	// Static is the level's baked geometry (systems/motion.BakeLevel).
	Static *phys.Static
	// SafeZones are the ids of zones the game's rules make safe besides
	// the level's safe zones.
	SafeZones []string
	// Prices are the game's shop prices (games.Game.Price); nil sells
	// nothing.
	Prices func(components.ItemID) (int64, bool)
	// Missions are the game's missions (games.Game.Missions); none leaves
	// the MissionHost out, but in a run's room.
	Missions []missions.Def
	// Run makes the room a run's: the MissionHost runs for its run
	// mission (missionhost.System.StartRun) with no missions by phone.
	Run bool
	// Input writes the players' inputs onto their characters' Drive.
	Input ecs.System
	// Arena is what the sync system (systems/replicate) quantizes the
	// world into for the snapshots.
	Arena *netsync.Arena
}

// Entries returns the schedule of a room, in the order the systems run:
//
//	input      input (the server's), seats, weapons, cars (break-ins,
//	           the cars that belong to someone)
//	pre-step   spawners, gates, signals, police, pedestrians, stealth, ai
//	step       physics
//	post-step  damage, city (respawn, zones), items (lays the level's
//	           pickups and containers out, shuts containers left),
//	           missions (the MissionHost: the game's missions, when it
//	           has any)
//	sync       lagcomp (the bodies a round can hit, for the shots
//	           rewound to what their shooter saw), sync (replicate: the
//	           world into the arena), pedestrians-watch (keeps the tick's
//	           dangers for the pedestrians, since the events are emptied
//	           next tick)
func Entries(w *ecs.World, o Options) []ecs.Entry {
	var list []ecs.Entry
	add := func(name string, phase ecs.Phase, s ecs.System) {
		list = append(list, ecs.Entry{Name: name, Phase: phase, System: s})
	}
	if o.Input != nil {
		add("input", ecs.PhaseInput, o.Input)
	}
	st := seats.New(w, o.Static)
	add(seats.Name, ecs.PhaseInput, st)
	add(weapons.Name, ecs.PhaseInput, weapons.New(w))
	var z *zones.Zones
	var peds *pedestrians.System
	var it *items.System
	var sg *signals.System
	if o.Level != nil {
		g := gates.New(w, o.Level)
		it = items.New(w, o.Level, o.Prices, g.KeyID)
		g.HasKey = it.HasKey // a key item opens a keyed gate as a key on the ring does
		cs := cars.New(w, o.Level, o.Static, g.KeyTags(), it.HasKey)
		st.MayOpen = cs.MayOpen // a locked car lets in its owner and its key's holders
		it.ForceCar = cs.Force  // a crowbar forces a locked car's door
		add(cars.Name, ecs.PhaseInput, cs)
		z = zones.New(o.Level, o.SafeZones...)
		sp := spawners.New(w, o.Level, o.Static)
		sp.KeyID = g.KeyID // the spawners' cars answer to the level's key ids
		add(spawners.Name, ecs.PhasePreStep, sp)
		add(gates.Name, ecs.PhasePreStep, g)
		sg = signals.New(w, o.Level)
		add(signals.Name, ecs.PhasePreStep, sg)
		if w.Rules.Police {
			add(police.Name, ecs.PhasePreStep, police.New(w, o.Level, o.Static))
		}
		m := nav.New(o.Level)
		peds = pedestrians.NewWithMap(w, m, o.Static)
		add(pedestrians.Name, ecs.PhasePreStep, peds)
		add(stealth.Name, ecs.PhasePreStep, stealth.New(w, o.Level, o.Static))
		add(ai.Name, ecs.PhasePreStep, ai.NewWithMap(w, m, o.Static))
	}
	add(motion.Name, ecs.PhaseStep, motion.New(w, o.Static))
	var past *lagcomp.History
	if o.Level != nil {
		past = lagcomp.New(w)
		dm := damage.New(w, z, o.Static)
		dm.Rewind = past // the players' shots hit what they saw
		add(damage.Name, ecs.PhasePostStep, dm)
		add(city.Name, ecs.PhasePostStep, city.New(w, o.Level, o.Static, z))
		add(items.Name, ecs.PhasePostStep, it)
		if len(o.Missions) > 0 || o.Run {
			h := missionhost.New(w, o.Level, o.Missions)
			h.HoldSignal, h.ReleaseSignal = sg.Hold, sg.Release
			h.Stash, h.Unstash = it.Stash, it.Unstash
			it.UsePhone = h.UsePhone
			add(missionhost.Name, ecs.PhasePostStep, h)
		}
	}
	if past != nil {
		add(lagcomp.Name, ecs.PhaseSync, past)
	}
	if o.Arena != nil {
		add(replicate.Name, ecs.PhaseSync, replicate.New(w, o.Arena))
	}
	if peds != nil {
		add(pedestrians.WatchName, ecs.PhaseSync, peds.Watcher())
	}
	return list
}

// LevelResetter is a system that keeps a part of the level as the level
// made it (the spawners' bays, the gates, the pickups and containers, the
// traffic signals, the cameras) and can put it back. ResetLevel finds the
// systems that implement it in a world's schedule.
type LevelResetter interface {
	// ResetLevel puts the system's part of the level back as the level
	// made it, at once or at the system's next Update. It touches no
	// other system and no entity, so the order in which a level reset
	// calls the systems does not matter.
	ResetLevel()
}

// The systems of a room's schedule that reset a part of the level.
var (
	_ LevelResetter = (*spawners.System)(nil)
	_ LevelResetter = (*gates.System)(nil)
	_ LevelResetter = (*signals.System)(nil)
	_ LevelResetter = (*stealth.System)(nil)
	_ LevelResetter = (*items.System)(nil)
)

// ResetLevel puts w's level back as it was made, as far as the schedule's
// systems can: it calls ResetLevel on every system of the schedule that is
// a LevelResetter, in the schedule's order. In a room's schedule these are
// the spawners, which park every bay again and put back their NPCs; the
// gates, which shut; the traffic signals held by hand, which go back to
// their cycles; the stealth, which empties its book and puts every camera
// back on and whole; and the items, which lay the pickups and containers
// out again. It takes effect at the next tick. It reports false when the
// schedule has no LevelResetter (a room with no level).
func ResetLevel(w *ecs.World) bool {
	if w.Sched == nil {
		return false
	}
	done := false
	for _, e := range w.Sched.Entries() {
		if r, ok := e.System.(LevelResetter); ok {
			r.ResetLevel()
			done = true
		}
	}
	return done
}

// Items returns the items system of w's schedule, nil when it has none (a
// room with no level).
func Items(w *ecs.World) *items.System {
	if w.Sched == nil {
		return nil
	}
	it, _ := w.Sched.System(items.Name).(*items.System)
	return it
}

// Signals returns the traffic signals system of w's schedule, nil when it
// has none (a room with no level). A mission holds and releases a signal
// through it (signals.System.Hold, Release).
func Signals(w *ecs.World) *signals.System {
	if w.Sched == nil {
		return nil
	}
	s, _ := w.Sched.System(signals.Name).(*signals.System)
	return s
}

// Missions returns the MissionHost of w's schedule, nil when it has none
// (a game without missions, a room with no level).
func Missions(w *ecs.World) *missionhost.System {
	if w.Sched == nil {
		return nil
	}
	h, _ := w.Sched.System(missionhost.Name).(*missionhost.System)
	return h
}

// Cars returns the cars system of w's schedule (locks, keys, garages),
// nil when it has none (a room with no level).
func Cars(w *ecs.World) *cars.System {
	if w.Sched == nil {
		return nil
	}
	c, _ := w.Sched.System(cars.Name).(*cars.System)
	return c
}

// Stealth returns the stealth system of w's schedule, nil when it has none
// (a room with no level).
func Stealth(w *ecs.World) *stealth.System {
	if w.Sched == nil {
		return nil
	}
	st, _ := w.Sched.System(stealth.Name).(*stealth.System)
	return st
}

// Gates returns the gates system of w's schedule, nil when it has none (a
// room with no level).
func Gates(w *ecs.World) *gates.System {
	if w.Sched == nil {
		return nil
	}
	g, _ := w.Sched.System(gates.Name).(*gates.System)
	return g
}
