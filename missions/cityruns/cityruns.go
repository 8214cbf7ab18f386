// Package cityruns holds the run missions of the game city-jobs on
// main-city: each is played in a run room by a roster of seats in teams
// (package runs), not offered by phone. Each is its own file, in the order
// Runs lists them:
//
//	chase       versus  the Crew drive to the drop; the Police stop them
//	yard-heist  co-op   a crew breaks into the gated yard, takes the strongbox and brings it to the drop
//
// Their teams start at places the game adds to main-city (the places of
// games/data/city-jobs.json): crew-start, police-start and heist-start,
// on roads clear of the buildings; their drops are places too
// (chase-drop, heist-drop). Each finds its places on the level by their
// ids and refuses to start, saying what it misses, on a level without
// them.
package cityruns

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
)

// Runs returns the game's run missions, in the order the game lists them.
func Runs() []missions.RunDef {
	return []missions.RunDef{
		{Name: "chase", Title: "Chase",
			Teams: []missions.RunTeam{{Name: "Crew", Spawn: CrewStart}, {Name: "Police", Spawn: PoliceStart}},
			New:   func() missions.RunMission { return &Chase{} }},
		{Name: "yard-heist", Title: "Yard heist", Coop: true,
			Teams: []missions.RunTeam{{Name: "Crew", Spawn: HeistStart}},
			New:   func() missions.RunMission { return &Heist{} }},
	}
}

// The places the runs look for on the level: the game's (city-jobs.json).
const (
	CrewStart   = "crew-start"
	PoliceStart = "police-start"
	ChaseDrop   = "chase-drop"
	HeistStart  = "heist-start"
	HeistDrop   = "heist-drop"
)

// errNoScreen answers a screen command to a run that opens none.
var errNoScreen = errors.New("this run has no screen to answer")

// secs is a number of seconds in ticks.
func secs(s int) uint64 { return uint64(s) * ecs.TickRate }

// within reports whether p lies within r metres of c.
func within(p, c levels.Vec2, r float32) bool {
	d := p.Sub(c)
	return d.Dot(d) <= r*r
}

// place returns the level's place id, or an error that says the level
// lacks it.
func place(l *levels.Level, id string) (levels.Spawn, error) {
	if p, ok := l.Place(id); ok {
		return p, nil
	}
	return levels.Spawn{}, fmt.Errorf("this level has no place %q for the run", id)
}

// seat returns p's seat, -1 for none or one past what a run holds: an
// index into the runs' per-seat arrays.
func seat(h missions.RunHost, p missions.Player) int {
	if i := h.Seat(p); i >= 0 && i < runs.MaxSeats {
		return i
	}
	return -1
}
