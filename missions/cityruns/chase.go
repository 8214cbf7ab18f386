package cityruns

import (
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
)

// The chase's teams: indices into its RunDef's Teams.
const (
	TeamCrew   = 0
	TeamPolice = 1
)

// The chase's numbers.
const (
	// ChaseSeconds is the Crew's time to reach the drop.
	ChaseSeconds = 300
	// ChaseDropRadius (m) is how near the drop a Crew player at the
	// wheel must come.
	ChaseDropRadius = 12
	// ChaseReach (m) is how near a Crew player a Police player's car
	// must be, and ChaseSlow (m/s) how slow the Crew player must go, for
	// ChaseCatchSeconds on end, for the Crew player to be caught: a car
	// boxed in.
	ChaseReach        = 6
	ChaseSlow         = 2
	ChaseCatchSeconds = 2
	// ChaseCatches is the catches that take a Crew player out of the run;
	// each catch before it sends them back to the Crew's start.
	ChaseCatches = 2
	// ChaseCatchPoints is the score of a catch to the Police player who
	// made it, ChaseDropPoints the score of the delivery to the Crew
	// player who made it.
	ChaseCatchPoints = 1
	ChaseDropPoints  = 3
	// ChaseReward is what the run pays each player of the winning team.
	ChaseReward = 500
)

// Chase is a versus run of two teams. The Crew start at crew-start, each
// at the wheel of their own car, and must drive one of them to the drop
// (chase-drop) before the timer runs out. The Police start at
// police-start, in cars of their own, and must stop them: a Crew player
// who goes slower than ChaseSlow with a Police player's car within
// ChaseReach for ChaseCatchSeconds is caught. A caught Crew player is sent
// back to the Crew's start in a fresh car (RunHost.SendBack); caught
// ChaseCatches times, they are out of the run (RunHost.TakeOut) and
// watch. The Crew win when one of them reaches the drop at the wheel; the
// Police win when every Crew player is out or the time runs out. A catch
// scores ChaseCatchPoints for the Police player who made it, the delivery
// ChaseDropPoints for its driver; the winners are paid ChaseReward each.
type Chase struct {
	drop    levels.Vec2
	ends    uint64
	since   [runs.MaxSeats]uint64 // the tick a Crew player's catch began, 0 none
	catches [runs.MaxSeats]uint8
	out     [runs.MaxSeats]bool
}

// Start finds the drop and shows it to every player, with the timer.
func (c *Chase) Start(h missions.RunHost) error {
	drop, err := place(h.Level(), ChaseDrop)
	if err != nil {
		return err
	}
	c.drop = drop.Pos
	c.ends = h.Tick() + secs(ChaseSeconds)
	h.SetTracker(missions.Tracker{Objective: "Crew: drive to the drop. Police: box their cars in.",
		Mark: true, At: c.drop, Radius: ChaseDropRadius, Ends: c.ends})
	h.Notice("Go! The Crew make for the drop; the Police must stop them.")
	return nil
}

// Step checks the drop, the catches and the clock.
func (c *Chase) Step(h missions.RunHost) {
	tick := h.Tick()
	ps := h.Players()
	left := 0 // Crew players still in the run
	for i := range ps {
		p := &ps[i]
		s := seat(h, *p)
		if s < 0 || h.Team(*p) != TeamCrew || c.out[s] {
			continue
		}
		if p.Driving && within(p.Pos, c.drop, ChaseDropRadius) {
			h.Score(*p, ChaseDropPoints)
			c.pay(h, TeamCrew)
			h.Win(TeamCrew, "The Crew got to the drop.")
			return
		}
		cop := c.catcher(h, p)
		switch {
		case cop < 0:
			c.since[s] = 0
		case c.since[s] == 0:
			c.since[s] = tick
		case tick-c.since[s] >= secs(ChaseCatchSeconds):
			c.since[s] = 0
			c.catch(h, *p, ps[cop], s)
		}
		if !c.out[s] {
			left++
		}
	}
	switch {
	case left == 0:
		c.pay(h, TeamPolice)
		h.Win(TeamPolice, "The Police caught every one of the Crew.")
	case tick >= c.ends:
		c.pay(h, TeamPolice)
		h.Win(TeamPolice, "Out of time: the Police held the Crew off.")
	}
}

// catcher returns the index in Players of the Police player whose car is
// nearest to the Crew player p within ChaseReach while p goes slower than
// ChaseSlow; -1 for none.
func (c *Chase) catcher(h missions.RunHost, p *missions.Player) int {
	if p.Dead || p.Speed >= ChaseSlow {
		return -1
	}
	best, bestD := -1, float32(0)
	ps := h.Players()
	for i := range ps {
		q := &ps[i]
		if q.Vehicle.IsZero() || q.Vehicle == p.Vehicle || q.Dead || h.Team(*q) != TeamPolice {
			continue
		}
		d := q.Pos.Sub(p.Pos)
		if d2 := d.Dot(d); d2 <= ChaseReach*ChaseReach && (best < 0 || d2 < bestD) {
			best, bestD = i, d2
		}
	}
	return best
}

// catch counts a catch of the Crew player p (seat s) by the Police player
// cop: sent back, or out on the last.
func (c *Chase) catch(h missions.RunHost, p, cop missions.Player, s int) {
	h.Score(cop, ChaseCatchPoints)
	c.catches[s]++
	if int(c.catches[s]) >= ChaseCatches {
		c.out[s] = true
		h.TakeOut(p)
		h.Notice("Caught again: one of the Crew is out.")
		return
	}
	h.SendBack(p)
	h.Notice("Caught! One of the Crew is sent back to the start.")
}

// pay pays every player of team still in the run ChaseReward: the host
// pays nothing once a debug command was honoured in the room.
func (c *Chase) pay(h missions.RunHost, team int) {
	for _, p := range h.Players() {
		if h.Team(p) == team {
			h.Pay(p, ChaseReward)
		}
	}
}

// Phone refuses every command: the chase opens no screen.
func (c *Chase) Phone(h missions.RunHost, p missions.Player, cmd missions.Command) error {
	return errNoScreen
}

// Leave does nothing: the run goes on. A team whose every seat is gone
// forfeits, and the host ends the run.
func (c *Chase) Leave(h missions.RunHost, p missions.Player) {}
