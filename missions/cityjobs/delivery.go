package cityjobs

import (
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// The delivery's numbers.
const (
	// DeliveryReward is what it pays each player.
	DeliveryReward = 300
	// DeliveryPickupSeconds is the time to pick the parcel up, and
	// DeliveryDropSeconds the time to drive it across town after.
	DeliveryPickupSeconds = 90
	DeliveryDropSeconds   = 150
	// DeliveryRadius (m) is how near the hospital's door the parcel must
	// come.
	DeliveryRadius = 20
	// Parcel is the mission's own item (city-jobs.json).
	Parcel = "parcel"
)

// Delivery is a delivery against the clock: pick up the parcel at the
// corner shop, then take it to the hospital before the timer runs out.
// It fails when the time runs out, the parcel is taken by someone else or
// lost, or its carrier dies.
type Delivery struct {
	parcel   ecs.Entity
	drop     levels.Vec2
	carrying bool
	ends     uint64
}

// Start lays the parcel by the corner shop's counter and sets the clock.
func (d *Delivery) Start(h missions.Host) error {
	l := h.Level()
	at, ok := shop(l, "corner-shop")
	if !ok {
		return errLevel("corner shop")
	}
	hosp, ok := l.NearestSpawn(levels.RoleHospital, at)
	if !ok {
		return errLevel("hospital")
	}
	d.drop = hosp.Pos
	at.Y -= 1.5 // on the pavement before the counter
	e, err := h.SpawnItem(Parcel, 1, at)
	if err != nil {
		return err
	}
	d.parcel = e
	d.ends = h.Tick() + secs(DeliveryPickupSeconds)
	h.SetTracker(missions.Tracker{Objective: "Pick up the parcel at the corner shop.", Mark: true, At: at, Ends: d.ends})
	return nil
}

// Step watches the parcel and the clock.
func (d *Delivery) Step(h missions.Host) {
	var carrier *missions.Player
	players := h.Players()
	for i := range players {
		if h.Holds(players[i], Parcel) > 0 {
			carrier = &players[i]
		}
	}
	if !d.carrying {
		switch {
		case carrier != nil:
			d.carrying = true
			h.Message("Got it? Good. The hospital's back door, and step on it.")
			d.ends = h.Tick() + secs(DeliveryDropSeconds)
			h.SetTracker(missions.Tracker{Objective: "Drive the parcel to the hospital.", Mark: true, At: d.drop, Radius: DeliveryRadius, Ends: d.ends})
		case h.Wrecked(d.parcel):
			h.Fail("Someone else took the parcel.")
		case h.Tick() >= d.ends:
			h.Fail("Too slow: the parcel went back to the shop.")
		}
		return
	}
	switch {
	case carrier == nil:
		h.Fail("The parcel is lost.")
	case carrier.Dead:
		h.Fail("The parcel's carrier is dead.")
	case within(carrier.Pos, d.drop, DeliveryRadius):
		h.Take(*carrier, Parcel, 1)
		payAll(h, DeliveryReward)
		h.Succeed("Delivered: $300.")
	case h.Tick() >= d.ends:
		h.Fail("Too slow: the hospital sent the parcel back.")
	}
}

// Phone refuses every command: the delivery opens no screen.
func (d *Delivery) Phone(h missions.Host, p missions.Player, c missions.Command) error {
	return errNoScreen
}

// Leave does nothing: the delivery goes on while one of its players is
// left. A carrier who leaves takes the parcel with them, which Step finds.
func (d *Delivery) Leave(h missions.Host, p missions.Player) {}
