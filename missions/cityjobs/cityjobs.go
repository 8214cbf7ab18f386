// Package cityjobs holds the missions of the game city-jobs on main-city,
// each its own file and contact, in the order Missions lists them:
//
//	delivery  Marlo   a parcel from the corner shop to the hospital, against the clock
//	getaway   Dutch   at night: the guards' cars come after you; lose them
//	race      Lina    the avenue sprint through its gates, in time
//	theft     Sal     a ledger out of the gated yard's locked crate: the key and a crowbar from the fence's laptop, unseen by the guards
//	pickup    Kim     a party job: one drives, one collects three bags, both bring them in
//
// Each finds its places on the level by their ids (a shop, a spawn role, a
// race, a zone) and refuses to start, saying what it misses, on a level
// without them.
package cityjobs

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
)

// Missions returns the game's missions, in the order the phone offers them.
func Missions() []missions.Def {
	return []missions.Def{
		{Name: "delivery", Title: "Parcel run", Contact: "Marlo", Reward: DeliveryReward,
			Offer: "Got a parcel at the corner shop that needs to be at the hospital, fast. $300 in it for you.",
			New:   func() missions.Mission { return &Delivery{} }},
		{Name: "getaway", Title: "Getaway", Contact: "Dutch", Reward: GetawayReward,
			Offer: "Job tonight. When the guards' cars come after you, lose them. $400.",
			New:   func() missions.Mission { return &Getaway{} }},
		{Name: "race", Title: "Avenue sprint", Contact: "Lina", Reward: RaceReward,
			Offer: "Think you're quick? The avenue sprint, start to finish in 45 seconds. $250.",
			New:   func() missions.Mission { return &Race{} }},
		{Name: "theft", Title: "Yard job", Contact: "Sal", Reward: TheftReward,
			Offer: "My ledger's locked in a crate in the gated yard. Get it out without the guards seeing you: $600, $200 more if nobody saw a thing.",
			New:   func() missions.Mission { return &Theft{} }},
		{Name: "pickup", Title: "Bag run", Contact: "Kim", Reward: PickupReward, Party: 2,
			Offer: "Need a crew of two: one drives, one collects three bags. $300 each. Bring a partner.",
			New:   func() missions.Mission { return &Pickup{} }},
	}
}

// errNoScreen answers a screen command to a mission that opens none.
var errNoScreen = errors.New("this job has no screen to answer")

// secs is a number of seconds in ticks.
func secs(s int) uint64 { return uint64(s) * ecs.TickRate }

// within reports whether p lies within r metres of c.
func within(p, c levels.Vec2, r float32) bool {
	d := p.Sub(c)
	return d.Dot(d) <= r*r
}

// payAll pays every player of the mission cash.
func payAll(h missions.Host, cash int64) {
	for _, p := range h.Players() {
		h.Pay(p, cash)
	}
}

// errLevel says what the level lacks for a mission.
func errLevel(what string) error {
	return fmt.Errorf("this level has no %s for the job", what)
}

// shop returns the counter of the level's shop id.
func shop(l *levels.Level, id string) (levels.Vec2, bool) {
	for _, s := range l.Shops {
		if s.ID == id {
			return s.Pos, true
		}
	}
	return levels.Vec2{}, false
}
