package missions_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/runs"
	"github.com/fiveonit/engine/server"
	"github.com/fiveonit/engine/server/servertest"
	"github.com/fiveonit/engine/systems/missionhost"
	"github.com/fiveonit/engine/textframe"
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

// exampleTag is the run mission of docs/extending.md ("tag" there): from
// a second after the start, the Chasers must come within 12 m of a Runner
// before the minute is out, else the Runners win. Its names start with
// example, so that a reader who adds the walkthrough's tag to a game
// builds it beside this one.
type exampleTag struct{ from, ends uint64 }

// The example tag's teams: indices into its RunDef's Teams.
const (
	exampleRunners = 0
	exampleChasers = 1
)

func (m *exampleTag) Start(h missions.RunHost) error {
	m.from, m.ends = h.Tick()+ecs.TickRate, h.Tick()+60*ecs.TickRate
	h.SetTracker(missions.Tracker{Objective: "Chasers: tag a Runner. Runners: keep away.", Ends: m.ends})
	return nil
}

func (m *exampleTag) Step(h missions.RunHost) {
	if h.Tick() < m.from {
		return // the Runners' start
	}
	ps := h.Players()
	for _, c := range ps {
		if h.Team(c) != exampleChasers {
			continue
		}
		for _, r := range ps {
			if h.Team(r) == exampleRunners && c.Pos.Sub(r.Pos).Len() <= 12 {
				h.Score(c, 1)
				h.Win(exampleChasers, "Tagged!")
				return
			}
		}
	}
	if h.Tick() >= m.ends {
		h.Win(exampleRunners, "The Runners kept away.")
	}
}

func (m *exampleTag) Phone(h missions.RunHost, p missions.Player, c missions.Command) error {
	return errors.New("this run has no screen to answer")
}

func (m *exampleTag) Leave(h missions.RunHost, p missions.Player) {}

// exampleTagDef is how a game registers it (games/missions.go): its
// teams start at the level's player spawns, having no place of their own.
var exampleTagDef = missions.RunDef{
	Name: "example-tag", Title: "Tag",
	Teams: []missions.RunTeam{{Name: "Runners"}, {Name: "Chasers"}},
	New:   func() missions.RunMission { return &exampleTag{} },
}

// Example_addRunMission runs the walkthrough in docs/extending.md: a run
// room on test-flat playing the run mission for a roster of two seats,
// one a team; the room waits for them, counts down, goes live and steps
// the mission, which ends the run a second later: the players start 10 m
// apart.
func Example_addRunMission() {
	l, _ := levels.Load("test-flat")
	roster := runs.Roster{Seats: []runs.Seat{{Account: "ann", Team: exampleRunners}, {Account: "bob", Team: exampleChasers}}}
	g, err := server.New(server.Config{Room: "example-run", Level: l, Seed: 1,
		Run: &server.RunConfig{Mission: &exampleTagDef, Roster: roster}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ann := servertest.NewMemConn(false, 0)
	for _, s := range roster.Seats {
		c := ann
		if s.Account != "ann" {
			c = servertest.NewMemConn(false, 0)
		}
		if _, err := g.Join(c, server.Who{Account: s.Account, Name: s.Account}); err != nil {
			fmt.Println(err)
			return
		}
	}
	// What ann's run frames say, as the phase changes.
	phase := ""
	for range runs.CountdownTicks + 2*ecs.TickRate {
		g.Tick()
		for _, f := range ann.Recv() {
			var run textframe.RunFrame
			if !f.Text || json.Unmarshal(f.Data, &run) != nil || run.Type != "run" || run.Phase == phase {
				continue
			}
			phase = run.Phase
			fmt.Println("phase:", phase)
			if r := run.Result; r != nil {
				fmt.Printf("%s by %s: %s (bob scored %d)\n", r.Outcome, run.Teams[r.Winner].Name, r.Text, run.Seats[1].Score)
			}
		}
	}
	// Output:
	// phase: countdown
	// phase: live
	// phase: ended
	// won by Chasers: Tagged! (bob scored 1)
}
