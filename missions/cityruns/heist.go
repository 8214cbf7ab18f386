package cityruns

import (
	"errors"
	"math"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/runs"
)

// The heist's numbers.
const (
	// HeistSeconds is the crew's time for the whole job.
	HeistSeconds = 600
	// HeistNight is the time the job goes down: 01:00, an hour a minute.
	HeistNight = 60
	// HeistLoot is the mission's own loot (city-jobs.json), HeistCrate
	// the yard's crate it is locked in (a crowbar forces it), HeistZone
	// the yard's zone and HeistGate its gate.
	HeistLoot  = "strongbox"
	HeistCrate = "yard-crate-1"
	HeistZone  = "yard"
	HeistGate  = "yard-gate"
	// HeistInside (m) is how far north of the gate, inside the yard, the
	// first checkpoint is.
	HeistInside = 8
	// HeistDropRadius (m) is how near the drop the strongbox must come.
	HeistDropRadius = 15
	// HeistLives is how many times a player of the crew may go down: the
	// last takes them out of the run.
	HeistLives = 2
	// HeistReward is what the run pays each player of the crew.
	HeistReward = 1000
)

// The heist's stages.
const (
	stageIn   = iota // get into the yard
	stageLoot        // force the crate, take the strongbox
	stageOut         // bring it to the drop
)

// Heist is a co-op run: a crew breaks into the gated yard at night and
// brings out the strongbox locked in its west crates. The yard's gate
// opens for a driver who holds a yard key (one lies in the park, the
// guards carry them); a crowbar forces the crate (one lies in the yard);
// the guards and cameras watch (the stealth system) and an alarm sends
// the guards after the crew. Its checkpoints: inside the yard's gate once
// one of the crew is in the yard, and where the strongbox was taken. A
// player who goes down comes back at the last checkpoint; one who goes
// down HeistLives times is out of the run, dropping the strongbox where
// they fell. It succeeds when the strongbox comes within HeistDropRadius
// of the drop (heist-drop), paying each of the crew HeistReward. It fails
// when every one of the crew is down or out at once, the strongbox is
// lost, or the time runs out.
type Heist struct {
	yard          []levels.Vec2 // the yard zone's outline
	inside, crate levels.Vec2
	drop          levels.Vec2
	stage         int
	start, ends   uint64
	alarmed       bool
	dropped       ecs.Entity // the strongbox where an out player fell, zero for none
	deaths        [runs.MaxSeats]uint8
	down, out     [runs.MaxSeats]bool
}

// errNoYard refuses the heist on a level without the yard.
var errNoYard = errors.New("this level has no yard, yard gate and yard crate for the run")

// Start finds the yard, its gate and crate and the drop, locks the
// strongbox in the crate, sets the clock to night and marks the gate.
func (t *Heist) Start(h missions.RunHost) error {
	l := h.Level()
	drop, err := place(l, HeistDrop)
	if err != nil {
		return err
	}
	t.drop = drop.Pos
	var gate levels.Vec2
	found := 0
	for _, g := range l.Gates {
		if g.ID == HeistGate {
			gate, found = g.Pos, found+1
		}
	}
	for _, z := range l.Zones {
		if z.ID == HeistZone {
			t.yard, found = z.Polygon, found+1
		}
	}
	for _, c := range l.Containers {
		if c.ID == HeistCrate {
			t.crate, found = c.Pos, found+1
		}
	}
	if found != 3 {
		return errNoYard
	}
	t.inside = levels.Vec2{X: gate.X, Y: gate.Y + HeistInside}
	if err := h.Stash(HeistCrate, HeistLoot, 1, true); err != nil {
		return err
	}
	h.SetClock(HeistNight, 1)
	t.start = h.Tick()
	t.ends = t.start + secs(HeistSeconds)
	h.Message("The strongbox is locked in the yard's west crates. The gate opens for a yard key at the wheel: one lies in the park. Mind the guards.")
	h.SetTracker(missions.Tracker{Objective: "Get into the yard: its gate opens for a yard key at the wheel.", Mark: true, At: gate, Ends: t.ends})
	return nil
}

// Step counts the crew's falls, moves the job on and checks the clock.
func (t *Heist) Step(h missions.RunHost) {
	if h.Tick() >= t.ends {
		h.Fail("Out of time: the job is off.")
		return
	}
	carrier := -1
	up := false
	ps := h.Players()
	for i := range ps {
		p := &ps[i]
		s := seat(h, *p)
		if s < 0 || t.out[s] {
			continue
		}
		if t.fell(h, p, s) {
			continue
		}
		up = up || !p.Dead
		if h.Holds(*p, HeistLoot) > 0 {
			carrier = i
		}
	}
	if !up {
		h.Fail("The crew is down: the job is off.")
		return
	}
	if on, since := h.Watch().Alarm(); on && since >= t.start && !t.alarmed {
		t.alarmed = true
		h.Notice("The alarm is up: the guards are coming!")
	}
	switch t.stage {
	case stageIn:
		for i := range ps {
			if !ps[i].Dead && levels.PointInPolygon(ps[i].Pos, t.yard) {
				t.stage = stageLoot
				h.Checkpoint(t.inside, math.Pi/2)
				h.Notice("Checkpoint: in the yard.")
				h.SetTracker(missions.Tracker{Objective: "Force the west crate and take the strongbox.", Mark: true, At: t.crate, Ends: t.ends})
				break
			}
		}
		if t.stage == stageIn {
			return
		}
		fallthrough
	case stageLoot:
		if carrier < 0 {
			return
		}
		t.stage = stageOut
		h.Checkpoint(ps[carrier].Pos, math.Pi/2)
		h.Notice("Checkpoint: the strongbox is ours.")
		h.SetTracker(missions.Tracker{Objective: "Bring the strongbox to the drop.", Mark: true, At: t.drop, Radius: HeistDropRadius, Ends: t.ends})
	case stageOut:
		switch {
		case carrier >= 0 && within(ps[carrier].Pos, t.drop, HeistDropRadius):
			h.Take(ps[carrier], HeistLoot, 1)
			for _, p := range ps {
				if s := seat(h, p); s >= 0 && !t.out[s] {
					h.Pay(p, HeistReward)
				}
			}
			h.Succeed("The strongbox is in: a clean haul.")
		case carrier < 0 && !t.lying(h):
			h.Fail("The strongbox is lost.")
		}
	}
}

// fell notes a fall of p (seat s): a player who goes down comes back at
// the last checkpoint (the run's respawn), and the last of their lives
// takes them out, the strongbox dropped where they fell. It reports
// whether p is out now.
func (t *Heist) fell(h missions.RunHost, p *missions.Player, s int) bool {
	if !p.Dead {
		t.down[s] = false
		return false
	}
	if t.down[s] {
		return false
	}
	t.down[s] = true
	t.deaths[s]++
	if int(t.deaths[s]) < HeistLives {
		h.Notice("One of the crew is down: back at the last checkpoint soon.")
		return false
	}
	if h.Holds(*p, HeistLoot) > 0 {
		t.dropped, _ = h.SpawnItem(HeistLoot, 1, p.Pos)
	}
	t.out[s] = true
	h.TakeOut(*p)
	h.Notice("One of the crew is down for good: out of the job.")
	return true
}

// lying reports whether the strongbox an out player dropped still lies on
// the ground.
func (t *Heist) lying(h missions.RunHost) bool {
	if t.dropped.IsZero() {
		return false
	}
	_, ok := h.Where(t.dropped)
	return ok
}

// Phone refuses every command: the heist opens no screen.
func (t *Heist) Phone(h missions.RunHost, p missions.Player, c missions.Command) error {
	return errNoScreen
}

// Leave does nothing: the job goes on for whoever is left. A carrier who
// leaves takes the strongbox with them, which Step finds.
func (t *Heist) Leave(h missions.RunHost, p missions.Player) {}
