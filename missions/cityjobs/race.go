package cityjobs

import (
	"fmt"

	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// The race's numbers.
const (
	// RaceID is the level's race it runs.
	RaceID = "avenue-sprint"
	// RaceReward is what it pays each player.
	RaceReward = 250
	// RaceStartSeconds is the time to reach the start, RaceSeconds the
	// time from the start to the finish.
	RaceStartSeconds = 180
	RaceSeconds      = 45
)

// Race is a race through the level's gates: drive through the start, then
// through every gate in order, at the wheel, before the timer runs out.
// Any of its players may drive it; the first through the finish wins it
// for all. It fails when the time runs out.
type Race struct {
	race  *levels.Race
	next  int      // the gate to drive through next
	goals []string // the objective at each gate
	ends  uint64
}

// Start finds the race and marks its start.
func (r *Race) Start(h missions.Host) error {
	race, ok := h.Level().Race(RaceID)
	if !ok {
		return errLevel("race " + RaceID)
	}
	r.race = race
	n := len(race.Gates)
	r.goals = make([]string, n)
	r.goals[0] = "Drive through the start of the avenue sprint."
	for k := 1; k < n; k++ {
		r.goals[k] = fmt.Sprintf("Drive through gate %d of %d.", k, n-1)
	}
	r.goals[n-1] = "Drive through the finish."
	r.ends = h.Tick() + secs(RaceStartSeconds)
	r.track(h)
	return nil
}

// track points the tracker at the next gate.
func (r *Race) track(h missions.Host) {
	h.SetTracker(missions.Tracker{Objective: r.goals[r.next], Mark: true, At: r.race.Gates[r.next].Pos, Ends: r.ends})
}

// Step checks the gates the drivers crossed this tick and the clock.
func (r *Race) Step(h missions.Host) {
	g := &r.race.Gates[r.next]
	for _, p := range h.Players() {
		if !p.Driving || p.Dead || !g.Crossed(p.Prev, p.Pos) {
			continue
		}
		r.next++
		if r.next == len(r.race.Gates) {
			payAll(h, RaceReward)
			h.Succeed("You made it in time: $250.")
			return
		}
		if r.next == 1 {
			r.ends = h.Tick() + secs(RaceSeconds)
			h.Notice("Go!")
		}
		r.track(h)
		return
	}
	if h.Tick() >= r.ends {
		if r.next == 0 {
			h.Fail("You never showed up at the start.")
		} else {
			h.Fail("Out of time.")
		}
	}
}

// Phone: the race opens no screen.
func (r *Race) Phone(h missions.Host, p missions.Player, c missions.Command) error {
	return errNoScreen
}

// Leave: the race goes on for whoever is left.
func (r *Race) Leave(h missions.Host, p missions.Player) {}
