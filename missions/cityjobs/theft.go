package cityjobs

import (
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// The theft's numbers.
const (
	// TheftReward is what it pays each player.
	TheftReward = 600
	// TheftSeconds is the time for the whole job.
	TheftSeconds = 360
	// KeyPrice is what the fence asks for the yard key.
	KeyPrice = 150
	// YardKey is the mission's own key (city-jobs.json): it answers to
	// the yard's key tag, so the yard's gate opens for its holder at the
	// wheel.
	YardKey = "fence-key"
	// TheftReach (m) is how near the fence's laptop a player on foot
	// must stand for it to open; TheftDrop (m) how near the drop the van
	// must come.
	TheftReach    = 3
	TheftDrop     = 15
	TheftChasers  = 2
	theftNotYet   = 1
	theftVanSpotX = 232 // the van's place in the yard, clear of the level's vans and the guards' post
	theftVanSpotY = 214
)

var keyScreen = missions.Screen{
	Title:   "Fence's laptop",
	Text:    "Yard key, cut this morning. $150, no questions asked.",
	Options: []string{"Buy the key ($150)", "Not now"},
}

// Theft is a theft from the gated yard: buy the yard key at the fence's
// laptop by the yard's gate (a screen the world opens), drive in (the gate
// opens for the key), take the van the mission parked inside and drive it
// to the drop by the garage; the guards' cars come after it once it is out
// of the yard. It fails when the van is wrecked, its players are dead or
// the time runs out.
//
// The van is the mission's own and unlocked: the level's yard vans are
// locked, and until locked cars open to their key or a crowbar this job
// leaves them be.
type Theft struct {
	laptop, drop levels.Vec2
	yard         []levels.Vec2
	van          ecs.Entity
	stage        int  // 0 the key, 1 the van, 2 out with it
	shown        bool // the laptop's screen was opened and not yet walked away from
	chased       bool
	ends         uint64
}

// Start parks the van in the yard and marks the fence's laptop.
func (t *Theft) Start(h missions.Host) error {
	l := h.Level()
	gate, ok := levelGate(l, "yard-gate")
	if !ok {
		return errLevel("yard gate")
	}
	t.laptop = levels.Vec2{X: gate.X - 12, Y: gate.Y - 3}
	for _, z := range l.Zones {
		if z.ID == "yard" {
			t.yard = z.Polygon
		}
	}
	drop, ok := garageBay(l)
	if !ok || t.yard == nil {
		return errLevel("yard or garage")
	}
	t.drop = levels.Vec2{X: drop.X, Y: drop.Y - 12}
	van, err := h.SpawnVehicle("van", levels.Vec2{X: theftVanSpotX, Y: theftVanSpotY}, -1.5707964)
	if err != nil {
		return err
	}
	t.van = van
	t.ends = h.Tick() + secs(TheftSeconds)
	h.SetTracker(missions.Tracker{Objective: "Get the yard key: the fence's laptop by the yard gate.", Mark: true, At: t.laptop, Ends: t.ends})
	return nil
}

// Step runs the stages.
func (t *Theft) Step(h missions.Host) {
	if h.Wrecked(t.van) {
		h.Fail("The van is wrecked.")
		return
	}
	if h.Tick() >= t.ends {
		h.Fail("Out of time: the yard is crawling with guards.")
		return
	}
	alive := false
	for _, p := range h.Players() {
		alive = alive || !p.Dead
	}
	if !alive {
		h.Fail("The guards got you.")
		return
	}
	switch t.stage {
	case 0:
		t.atLaptop(h)
	case 1:
		for _, p := range h.Players() {
			if p.Vehicle == t.van && p.Driving {
				t.stage = 2
				h.SetTracker(missions.Tracker{Objective: "Drive the van to the drop by the garage.", Mark: true, At: t.drop, Radius: TheftDrop, Ends: t.ends})
			}
		}
	case 2:
		t.outWithIt(h)
	}
}

// atLaptop opens the fence's screen for a player on foot at the laptop.
func (t *Theft) atLaptop(h missions.Host) {
	near := false
	for _, p := range h.Players() {
		if h.Holds(p, YardKey) > 0 {
			t.stage = 1
			van, _ := h.Where(t.van)
			h.Message("Key's good. The van's inside, by the gate. Bring it to the garage.")
			h.SetTracker(missions.Tracker{Objective: "Drive into the yard and take the van.", Mark: true, At: van, Ends: t.ends})
			return
		}
		if p.Vehicle.IsZero() && !p.Dead && within(p.Pos, t.laptop, TheftReach) {
			near = true
			if !t.shown {
				t.shown = true
				h.OpenScreen(p, keyScreen)
			}
		}
	}
	if !near {
		t.shown = false
	}
}

// outWithIt watches the van out of the yard and to the drop.
func (t *Theft) outWithIt(h missions.Host) {
	at, _ := h.Where(t.van)
	driver := h.Driver(t.van)
	for _, p := range h.Players() {
		if p.Char != driver {
			continue
		}
		if !t.chased && !levels.PointInPolygon(at, t.yard) {
			t.chased = true
			h.SpawnChasers(p, TheftChasers)
			h.Notice("The guards are after the van!")
		}
		if within(at, t.drop, TheftDrop) {
			payAll(h, TheftReward)
			h.Succeed("The van's at the drop: $600.")
		}
	}
}

// Phone answers the fence's screen: buy the key, or not now.
func (t *Theft) Phone(h missions.Host, p missions.Player, c missions.Command) error {
	if t.stage != 0 {
		h.CloseScreen(p)
		return errNoScreen
	}
	if c.Choice == theftNotYet {
		h.CloseScreen(p)
		return nil
	}
	if err := h.Charge(p, KeyPrice); err != nil {
		return err
	}
	if err := h.Give(p, YardKey, 1); err != nil {
		h.Pay(p, KeyPrice)
		return err
	}
	h.CloseScreen(p)
	return nil
}

// Leave: the job goes on for whoever is left.
func (t *Theft) Leave(h missions.Host, p missions.Player) {}

// levelGate returns where the level's gate id stands.
func levelGate(l *levels.Level, id string) (levels.Vec2, bool) {
	for _, g := range l.Gates {
		if g.ID == id {
			return g.Pos, true
		}
	}
	return levels.Vec2{}, false
}

// garageBay returns the first bay of the level's garage.
func garageBay(l *levels.Level) (levels.Vec2, bool) {
	for _, v := range l.VehicleSpawners {
		if v.Garage != "" && len(v.Bays) > 0 {
			return v.Bays[0].Pos, true
		}
	}
	return levels.Vec2{}, false
}
