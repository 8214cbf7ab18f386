package cityjobs

import (
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// The party job's numbers.
const (
	// PickupReward is what it pays each player.
	PickupReward = 300
	// PickupSeconds is the time for the whole job.
	PickupSeconds = 300
	// PickupDrop (m) is how near the drop the car must come.
	PickupDrop = 15
	// Bag is the mission's own item (city-jobs.json).
	Bag = "bag"
)

// pickupGoals are the objectives, by bags collected.
var pickupGoals = [...]string{
	"Collect the bags: the driver drives, the collector picks them up (1 of 3).",
	"Collect the bags (2 of 3).",
	"Collect the bags (3 of 3).",
	"Both of you in one car, the driver at the wheel: to the drop by the garage.",
}

// Pickup is a party job for two: the player who accepted drives, the next
// member of the party collects three bags laid about the town, and both
// bring them in one car to the drop. A bag picked up by anyone but the
// collector, a member who leaves the job or dies, or the time running out
// fails it.
type Pickup struct {
	bags       [3]ecs.Entity
	spots      [3]levels.Vec2
	drop       levels.Vec2
	driver     ecs.Entity
	collector  ecs.Entity
	collected  int
	ends       uint64
	lastMarked int
}

// Start lays the bags out and gives the players their parts.
func (k *Pickup) Start(h missions.Host) error {
	ps := h.Players()
	if len(ps) < 2 {
		return errLevel("second player") // the host checks the party first
	}
	k.driver, k.collector = ps[0].Char, ps[1].Char
	l := h.Level()
	shopA, okA := shop(l, "corner-shop")
	shopB, okB := shop(l, "pharmacy")
	park, okC := npcSpawner(l, "park-civilians")
	drop, okD := garageBay(l)
	if !okA || !okB || !okC || !okD {
		return errLevel("shops, park or garage")
	}
	k.spots = [3]levels.Vec2{{X: shopA.X + 3, Y: shopA.Y - 1.5}, {X: shopB.X + 3, Y: shopB.Y - 1.5}, park}
	k.drop = levels.Vec2{X: drop.X, Y: drop.Y - 12}
	for i, at := range k.spots {
		e, err := h.SpawnItem(Bag, 1, at)
		if err != nil {
			return err
		}
		k.bags[i] = e
	}
	k.ends = h.Tick() + secs(PickupSeconds)
	k.lastMarked = -1
	h.Message("You drive, your partner collects. Three bags, then the garage.")
	k.track(h)
	return nil
}

// track points the tracker at the next bag, or the drop.
func (k *Pickup) track(h missions.Host) {
	t := missions.Tracker{Objective: pickupGoals[k.collected], Mark: true, Ends: k.ends}
	if k.collected < len(k.bags) {
		for i, e := range k.bags {
			if !h.Wrecked(e) {
				t.At = k.spots[i]
				break
			}
		}
	} else {
		t.At, t.Radius = k.drop, PickupDrop
	}
	h.SetTracker(t)
}

// Step counts the bags and checks the drop.
func (k *Pickup) Step(h missions.Host) {
	var drv, col *missions.Player
	ps := h.Players()
	for i := range ps {
		switch ps[i].Char {
		case k.driver:
			drv = &ps[i]
		case k.collector:
			col = &ps[i]
		}
		if ps[i].Dead {
			h.Fail("One of you is down: the job's off.")
			return
		}
	}
	if drv == nil || col == nil {
		h.Fail("The crew broke up: the job's off.")
		return
	}
	if h.Tick() >= k.ends {
		h.Fail("Out of time: Kim found another crew.")
		return
	}
	if h.Holds(*drv, Bag) > 0 {
		h.Fail("The driver stays at the wheel: the collector picks the bags up.")
		return
	}
	held := h.Holds(*col, Bag)
	lying := 0
	for _, e := range k.bags {
		if !h.Wrecked(e) {
			lying++
		}
	}
	if held+lying < len(k.bags) {
		h.Fail("A bag went astray.")
		return
	}
	if held != k.collected {
		k.collected = held
		k.track(h)
	}
	if held == len(k.bags) && drv.Driving && col.Vehicle == drv.Vehicle && within(drv.Pos, k.drop, PickupDrop) {
		h.Take(*col, Bag, len(k.bags))
		payAll(h, PickupReward)
		h.Succeed("All three bags in: $300 each.")
	}
}

// Phone refuses every command: the party job opens no screen.
func (k *Pickup) Phone(h missions.Host, p missions.Player, c missions.Command) error {
	return errNoScreen
}

// Leave fails the job when a member leaves: it takes two.
func (k *Pickup) Leave(h missions.Host, p missions.Player) {
	if p.Char == k.driver || p.Char == k.collector {
		h.Fail("Your partner left: the job's off.")
	}
}

// npcSpawner returns where the level's NPC spawner id stands.
func npcSpawner(l *levels.Level, id string) (levels.Vec2, bool) {
	for _, s := range l.NPCSpawners {
		if s.ID == id {
			return s.Pos, true
		}
	}
	return levels.Vec2{}, false
}
