package missions_test

import (
	"errors"
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/missionhost"
	"github.com/mlange-42/arche/generic"
)

// courier is the example mission of docs/extending.md: run to the marked
// spot within a minute and be paid. A real one goes in its game's package
// of missions (missions/cityjobs for city-jobs).
type courier struct {
	to   levels.Vec2
	ends uint64
}

func (c *courier) Start(h missions.Host) error {
	c.to = levels.Vec2{X: 40, Y: 0}
	c.ends = h.Tick() + 60*ecs.TickRate
	h.SetTracker(missions.Tracker{Objective: "Run to the marker.", Mark: true, At: c.to, Radius: 5, Ends: c.ends})
	return nil
}

func (c *courier) Step(h missions.Host) {
	for _, p := range h.Players() {
		if p.Pos.Sub(c.to).Len() <= 5 {
			h.Pay(p, 100)
			h.Succeed("Made it: $100.")
			return
		}
	}
	if h.Tick() >= c.ends {
		h.Fail("Too slow.")
	}
}

func (c *courier) Phone(h missions.Host, p missions.Player, cmd missions.Command) error {
	return errors.New("this job has no screen to answer")
}

func (c *courier) Leave(h missions.Host, p missions.Player) {}

// courierDef is how a game registers it (games/missions.go).
var courierDef = missions.Def{
	Name: "courier", Title: "Courier", Contact: "Ray", Reward: 100,
	Offer: "Run to the marker within a minute: $100.",
	New:   func() missions.Mission { return &courier{} },
}

// Example_addMission runs the walkthrough in docs/extending.md: a mission registered,
// offered on a player's phone, accepted, stepped after the physics until
// the player reaches the marker, and paid.
func Example_addMission() {
	l, _ := levels.Load("test-flat")
	w, _ := ecs.New(ecs.Config{Seed: 1, Level: l})
	h := missionhost.New(w, l, []missions.Def{courierDef})
	w.SetSchedule([]ecs.Entry{{Name: missionhost.Name, Phase: ecs.PhasePostStep, System: h}})
	me, _ := prefab.New(w).Character(1, 0, 1, components.Vec3{}, 0)
	w.Step() // the host sees the player: a phone, with Ray's offer

	ids := generic.NewMap1[components.Identity](w.Arche)
	ph := h.PhoneOf(me, ids.Get(me).WireID)
	offer := ph.Messages()[0]
	fmt.Printf("%s offers %q\n", offer.From, offer.Title)
	if err := h.Accept(w, me, offer.Offer); err != nil { // the phone command "accept"
		fmt.Println(err)
	}
	fmt.Println("tracker:", ph.Tracker.Objective)

	pose := generic.NewMap1[components.Pose](w.Arche)
	cash := generic.NewMap1[components.Cash](w.Arche)
	before := cash.Get(me).Amount
	pose.Get(me).Pos.X = 38 // a teleport stands in for the run
	w.Step()
	for _, n := range ph.TakeNotices() {
		fmt.Printf("%s: %s\n", n.Kind, n.Text)
	}
	fmt.Println("paid:", cash.Get(me).Amount-before)
	// Output:
	// Ray offers "Courier"
	// tracker: Run to the marker.
	// info: Courier: started.
	// success: Made it: $100.
	// paid: 100
}
