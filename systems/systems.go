// Package systems declares the one schedule: every system of a room, its
// name, its phase and its place. Each system lives in its own package under
// systems/ and talks to the others only through components and the world's
// resources.
package systems

import (
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/physics"
	"github.com/fiveonit/engine/systems/seats"
)

// Options are what the systems are built from. Input and Sync come from the
// layers above the simulation (the server's sessions, netsync's arena); nil
// leaves them out, as tests and the physics bench do.
type Options struct {
	// Static is the level's baked geometry (systems/physics.BakeLevel).
	Static *phys.Static
	// Input writes the players' inputs onto their characters' Drive.
	Input ecs.System
	// Sync quantizes the world for the snapshots.
	Sync ecs.System
}

// Entries returns the schedule of a room, in the order the systems run:
//
//	input      input (the server's), seats
//	pre-step   spawners, gates, police, pedestrians, ai   (not built yet)
//	step       physics
//	post-step  missions                                   (not built yet)
//	sync       sync (netsync's)
func Entries(w *ecs.World, o Options) []ecs.Entry {
	var list []ecs.Entry
	add := func(name string, phase ecs.Phase, s ecs.System) {
		if s != nil {
			list = append(list, ecs.Entry{Name: name, Phase: phase, System: s})
		}
	}
	add("input", ecs.PhaseInput, o.Input)
	add(seats.Name, ecs.PhaseInput, seats.New(w, o.Static))
	add(physics.Name, ecs.PhaseStep, physics.New(w, o.Static))
	add("sync", ecs.PhaseSync, o.Sync)
	return list
}
