package cityjobs

import (
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// The theft's numbers.
const (
	// TheftReward is what it pays each player; TheftClean is paid on top
	// when no guard nor camera saw any of them from the start.
	TheftReward = 600
	TheftClean  = 200
	// TheftSeconds is the time for the whole job.
	TheftSeconds = 480
	// KeyPrice is what the fence asks for the yard key, CrowbarPrice for
	// a crowbar.
	KeyPrice     = 150
	CrowbarPrice = 40
	// YardKey is the mission's own key (city-jobs.json): it answers to
	// the yard's key tag, so the yard's gate opens for its holder at the
	// wheel. Ledger is the loot, also its own.
	YardKey = "fence-key"
	Ledger  = "ledger"
	// TheftCrate is the level's container the ledger is locked in: the
	// yard's west crate, which a crowbar forces.
	TheftCrate = "yard-crate-0"
	// TheftReach (m) is how near the fence's laptop a player on foot
	// must stand for it to open; TheftDrop (m) how near the drop the
	// ledger must come.
	TheftReach   = 3
	TheftDrop    = 15
	TheftChasers = 2
)

// The options of the fence's laptop.
const (
	buyKey = iota
	buyCrowbar
	notNow
)

var keyScreen = missions.Screen{
	Title:   "Fence's laptop",
	Text:    "Yard gate key, cut this morning, and tools. No questions asked.",
	Options: []string{"Buy the yard key ($150)", "Buy a crowbar ($40)", "Not now"},
}

// Theft is a theft from the gated yard, best done unseen. Sal's ledger is
// locked in the yard's west crate. The fence's laptop by the yard gate (a
// screen the world opens) sells the gate's key, which opens the gate for
// its holder at the wheel, and a crowbar, which forces the crate (the
// yard has one lying about too). Take the ledger to the drop by the
// garage before the timer runs out.
//
// The yard's guards and cameras watch (the stealth system): the mission
// reads what they saw through Host.Watch. Done unseen, it pays
// TheftClean on top. Seen, the guards raise the alarm and come after the
// player: before the ledger is taken, Sal calls the job off (a failure);
// after, the guards' cars come after its carrier too. It also fails when
// its players are dead, the ledger is lost or the time runs out.
type Theft struct {
	laptop, crate, drop levels.Vec2
	since               uint64 // the tick it started: seen after it counts
	got                 bool   // a player took the ledger out of the crate
	alarmed             bool
	shown               bool // the laptop's screen was opened and not yet walked away from
	ends                uint64
}

// Start locks the ledger in the crate and marks it.
func (t *Theft) Start(h missions.Host) error {
	l := h.Level()
	gate, ok := levelGate(l, "yard-gate")
	if !ok {
		return errLevel("yard gate")
	}
	t.laptop = levels.Vec2{X: gate.X - 12, Y: gate.Y - 3}
	crate, ok := container(l, TheftCrate)
	drop, ok2 := garageBay(l)
	if !ok || !ok2 {
		return errLevel("yard crate or garage")
	}
	t.crate, t.drop = crate, levels.Vec2{X: drop.X, Y: drop.Y - 12}
	if err := h.Stash(TheftCrate, Ledger, 1, true); err != nil {
		return err
	}
	t.since = h.Tick()
	t.ends = t.since + secs(TheftSeconds)
	h.Message("My ledger's locked in the west crate of the yard. The fence's laptop by the gate sells the gate key and a crowbar. Don't let the guards see you.")
	h.SetTracker(missions.Tracker{Objective: "Take Sal's ledger from the yard's west crate, unseen.", Mark: true, At: t.crate, Ends: t.ends})
	return nil
}

// Step watches the ledger, the guards and the clock.
func (t *Theft) Step(h missions.Host) {
	if h.Tick() >= t.ends {
		h.Fail("Out of time: Sal found someone else.")
		return
	}
	var carrier *missions.Player
	alive := false
	ps := h.Players()
	for i := range ps {
		alive = alive || !ps[i].Dead
		if h.Holds(ps[i], Ledger) > 0 {
			carrier = &ps[i]
		}
	}
	if !alive {
		h.Fail("The guards got you.")
		return
	}
	if !t.alarmed && t.raised(h) {
		t.alarmed = true
		if !t.got && carrier == nil {
			h.Fail("The guards raised the alarm before you had the ledger: Sal calls it off.")
			return
		}
		h.Notice("The alarm is up: the guards are after you!")
		if carrier != nil {
			h.SpawnChasers(*carrier, TheftChasers)
		}
	}
	if !t.got {
		if carrier == nil {
			t.atLaptop(h)
			return
		}
		t.got = true
		h.CloseScreen(*carrier)
		h.Message("Got it? Bring it to the drop by the garage.")
		h.SetTracker(missions.Tracker{Objective: "Bring the ledger to the drop by the garage.", Mark: true, At: t.drop, Radius: TheftDrop, Ends: t.ends})
	}
	switch {
	case carrier == nil:
		h.Fail("The ledger is lost.")
	case within(carrier.Pos, t.drop, TheftDrop):
		h.Take(*carrier, Ledger, 1)
		if t.unseen(h) {
			payAll(h, TheftReward+TheftClean)
			h.Succeed("A clean job, nobody saw a thing: $800.")
			return
		}
		payAll(h, TheftReward)
		h.Succeed("The ledger's in: $600.")
	}
}

// raised reports whether a guard or a camera raised the alarm over one of
// the players since the job started.
func (t *Theft) raised(h missions.Host) bool {
	for _, p := range h.Players() {
		if h.Watch().Alarmed(p, t.since) {
			return true
		}
	}
	return false
}

// unseen reports whether no guard nor camera saw any of the players since
// the job started.
func (t *Theft) unseen(h missions.Host) bool {
	for _, p := range h.Players() {
		if h.Watch().SeenSince(p, t.since) {
			return false
		}
	}
	return true
}

// atLaptop opens the fence's screen for a player on foot at the laptop.
func (t *Theft) atLaptop(h missions.Host) {
	near := false
	for _, p := range h.Players() {
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

// Phone answers the fence's screen: buy the key, a crowbar, or not now.
func (t *Theft) Phone(h missions.Host, p missions.Player, c missions.Command) error {
	item, price := YardKey, int64(KeyPrice)
	switch c.Choice {
	case notNow:
		h.CloseScreen(p)
		return nil
	case buyCrowbar:
		item, price = "crowbar", CrowbarPrice
	}
	if err := h.Charge(p, price); err != nil {
		return err
	}
	if err := h.Give(p, item, 1); err != nil {
		h.Pay(p, price)
		return err
	}
	return nil
}

// Leave does nothing: the job goes on for whoever is left. A carrier who
// leaves takes the ledger with them, which Step finds.
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

// container returns where the level's container id stands.
func container(l *levels.Level, id string) (levels.Vec2, bool) {
	for _, c := range l.Containers {
		if c.ID == id {
			return c.Pos, true
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
