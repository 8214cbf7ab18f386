package cityjobs

import (
	"github.com/fiveonit/engine/missions"
)

// The getaway's numbers.
const (
	// GetawayReward is what it pays each player.
	GetawayReward = 400
	// GetawayChasers is how many cars come after each player.
	GetawayChasers = 2
	// GetawaySeconds is the time to lose them.
	GetawaySeconds = 180
	// GetawayLost (m) is how far every chaser must be, for GetawayClear
	// seconds on end, for the player to have lost them.
	GetawayLost  = 150
	GetawayClear = 8
	// GetawayCaught (m) is how near a chaser may come while the player
	// stands (below GetawayStill m/s) for GetawayCaughtSeconds before
	// they are caught.
	GetawayCaught        = 8
	GetawayStill         = 2
	GetawayCaughtSeconds = 3
	// GetawayNight is the time the job goes down: 23:00, an hour a minute.
	GetawayNight = 23 * 60
)

// Getaway is a getaway: at night, the guards' cars come after the players
// out of the level's guard spawns; once they are on the players' tail,
// the players must lose them (every chaser far away for a while) before
// the timer runs out. Caught (a
// chaser close while they stand still), dead or out of time, they fail.
// It sets the room's clock to night, which every player sees.
type Getaway struct {
	ends        uint64
	clearSince  uint64
	caughtSince uint64
	spotted     bool // a chaser came within GetawayLost: they are on the players' tail
}

// Start sets the clock to night and sends the chasers.
func (g *Getaway) Start(h missions.Host) error {
	for _, p := range h.Players() {
		if _, err := h.SpawnChasers(p, GetawayChasers); err != nil {
			return err
		}
	}
	h.SetClock(GetawayNight, 1)
	g.ends = h.Tick() + secs(GetawaySeconds)
	g.clearSince = h.Tick()
	h.Message("They know it was you. Lose them and I'll pay.")
	h.SetTracker(missions.Tracker{Objective: "Lose the guards' cars: get 150 m away from them.", Ends: g.ends})
	return nil
}

// Step checks how near the chasers are.
func (g *Getaway) Step(h missions.Host) {
	tick := h.Tick()
	near, caught := false, false
	for _, p := range h.Players() {
		if p.Dead {
			h.Fail("They got you.")
			return
		}
		for _, c := range h.Chasers() {
			at, ok := h.Where(c)
			if !ok || h.Wrecked(c) {
				continue
			}
			if within(at, p.Pos, GetawayLost) {
				near = true
			}
			if within(at, p.Pos, GetawayCaught) && p.Speed < GetawayStill {
				caught = true
			}
		}
	}
	switch {
	case !caught:
		g.caughtSince = 0
	case g.caughtSince == 0:
		g.caughtSince = tick
	case tick-g.caughtSince >= secs(GetawayCaughtSeconds):
		h.Fail("They boxed you in: caught.")
		return
	}
	if near {
		if !g.spotted {
			g.spotted = true
			h.Notice("They're on your tail!")
		}
		g.clearSince = tick
	}
	if g.spotted && tick-g.clearSince >= secs(GetawayClear) {
		payAll(h, GetawayReward)
		h.Succeed("You lost them: $400.")
		return
	}
	if tick >= g.ends {
		h.Fail("They kept on your tail: out of time.")
	}
}

// Phone refuses every command: the getaway opens no screen.
func (g *Getaway) Phone(h missions.Host, p missions.Player, c missions.Command) error {
	return errNoScreen
}

// Leave does nothing: the chasers of a player who left chase nobody, and
// the others go on.
func (g *Getaway) Leave(h missions.Host, p missions.Player) {}
