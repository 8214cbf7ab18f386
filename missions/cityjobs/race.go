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
// From the start on it holds the traffic signals on its way green.
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

// RaceSignalReach (m) is how near the line between two gates a signal's
// junction must stand for the race to hold it green.
const RaceSignalReach = 8

// holdSignals holds every traffic signal on the race's way green for the
// race's direction (the phase with a lane heading from gate to gate), so
// that the AI's traffic waits at the cross streets: every player sees them
// held, and the host releases them when the race ends.
func (r *Race) holdSignals(h missions.Host) {
	l := h.Level()
	gates := r.race.Gates
	for i := range l.Roads.Signals {
		sg := &l.Roads.Signals[i]
		n, ok := l.NodeIndex(sg.Node)
		if !ok {
			continue
		}
		at := l.Roads.Nodes[n].Pos
		for k := 1; k < len(gates); k++ {
			a, b := gates[k-1].Pos, gates[k].Pos
			if segDist(at, a, b) > RaceSignalReach {
				continue
			}
			if ph := phaseAlong(l, sg, b.Sub(a)); ph >= 0 {
				h.HoldSignal(sg.ID, ph)
			}
			break
		}
	}
}

// phaseAlong returns the phase of sg that gives green to a lane heading
// along dir, -1 for none.
func phaseAlong(l *levels.Level, sg *levels.Signal, dir levels.Vec2) int {
	dl := dir.Len()
	for ph, p := range sg.Phases {
		for _, id := range p.Lanes {
			li, ok := l.LaneIndex(id)
			if !ok {
				continue
			}
			a, b := l.LaneLine(li)
			d := b.Sub(a)
			if d.Dot(dir) > 0.9*d.Len()*dl {
				return ph
			}
		}
	}
	return -1
}

// segDist returns how far p lies from the segment a-b.
func segDist(p, a, b levels.Vec2) float32 {
	ab := b.Sub(a)
	t := float32(0)
	if l2 := ab.Dot(ab); l2 > 0 {
		t = min(max(p.Sub(a).Dot(ab)/l2, 0), 1)
	}
	return p.Sub(a.Add(ab.Scale(t))).Len()
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
			r.holdSignals(h)
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

// Phone refuses every command: the race opens no screen.
func (r *Race) Phone(h missions.Host, p missions.Player, c missions.Command) error {
	return errNoScreen
}

// Leave does nothing: the race goes on for whoever is left.
func (r *Race) Leave(h missions.Host, p missions.Player) {}
