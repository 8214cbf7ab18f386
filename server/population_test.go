package server

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/mlange-42/arche/generic"
)

// around counts the ambient cars within ai's TrafficSpawnMax of p, and
// the ambient pedestrians within its PedSpawnMax.
func around(w *ecs.World, p phys.Vec) (cars, peds int) {
	tune := ai.DefaultTuning()
	f := generic.NewFilter3[components.NPC, components.Kind, components.Pose]()
	q := f.Query(w.Arche)
	for q.Next() {
		npc, kind, pose := q.Get()
		if npc.Spawner >= 0 {
			continue // a spawner's own, not the AI's budget
		}
		d := phys.Flat(pose.Pos).Sub(p).Len()
		switch {
		case *kind == components.KindCar && npc.Role == components.RoleTraffic && d <= tune.TrafficSpawnMax:
			cars++
		case *kind == components.KindPedestrian && crowd(npc.Role) && d <= tune.PedSpawnMax:
			peds++
		}
	}
	return cars, peds
}

func crowd(r components.NPCRole) bool {
	return r == components.RoleWalker || r == components.RoleJogger || r == components.RoleIdler
}

// TestSecondPlayerGetsTraffic: a first player drives main-city's
// population round them for half a minute; a second joins 480 m away.
// Within 10 s both have traffic and pedestrians round them, a fair part of
// the city's budget each: the budget is the room's, shared by its players.
func TestSecondPlayerGetsTraffic(t *testing.T) {
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "shared", Level: l, Seed: 5, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	cars, peds := ai.TrafficWant(&g.w.Rules, l), ai.PedestriansWant(&g.w.Rules, l)
	if cars < 20 || peds < 20 {
		t.Fatalf("main-city keeps %d cars and %d pedestrians: the test proves less than it says", cars, peds)
	}
	// On a lane each, in the south-west and at the centre: 480 m apart.
	spots := []phys.Vec{{X: -336, Y: -190.25}, {X: 48, Y: 97.75}}
	put := func(p *probe, at phys.Vec) {
		_, seat, _ := g.persons.Get(p.s.char)
		pose, vel := g.poses.Get(seat.Vehicle)
		pose.Pos.X, pose.Pos.Y = at.X, at.Y
		pose.Rot = components.YawQuat(0)
		*vel = components.Velocity{}
	}
	step := func(ps ...*probe) {
		for _, p := range ps {
			p.send(components.Drive{})
		}
		g.Tick()
		for _, p := range ps {
			p.c.Recv()
		}
	}
	a := join(t, g, Who{})
	g.Tick() // the join
	put(a, spots[0])
	for range 30 * ecs.TickRate {
		step(a)
	}
	if c, p := around(g.w, spots[0]); c < cars*3/4 || p < peds*3/4 {
		t.Fatalf("alone, the first player has %d cars and %d pedestrians round them, want most of %d and %d", c, p, cars, peds)
	}
	b := join(t, g, Who{})
	step(a) // the join
	put(b, spots[1])
	// Each player's fair part is half the budget; half of that counts as
	// having traffic round them.
	wantCars, wantPeds := cars/4, peds/4
	var carsAt, pedsAt float64
	for tick := 1; tick <= 30*ecs.TickRate; tick++ {
		step(a, b)
		if tick%(ecs.TickRate/4) != 0 {
			continue
		}
		sec := float64(tick) / ecs.TickRate
		ca, pa := around(g.w, spots[0])
		cb, pb := around(g.w, spots[1])
		if carsAt == 0 && min(ca, cb) >= wantCars {
			carsAt = sec
		}
		if pedsAt == 0 && min(pa, pb) >= wantPeds {
			pedsAt = sec
		}
		if tick%(5*ecs.TickRate) == 0 {
			t.Logf("%2.0f s: cars %d and %d, pedestrians %d and %d", sec, ca, cb, pa, pb)
		}
	}
	t.Logf("both players had %d cars round them after %.2f s, %d pedestrians after %.2f s (0: never)", wantCars, carsAt, wantPeds, pedsAt)
	if carsAt == 0 || carsAt > 10 {
		t.Errorf("the two players had %d cars round them each after %.2f s, want within 10 s", wantCars, carsAt)
	}
	if pedsAt == 0 || pedsAt > 10 {
		t.Errorf("the two players had %d pedestrians round them each after %.2f s, want within 10 s", wantPeds, pedsAt)
	}
	// And they keep them.
	ca, pa := around(g.w, spots[0])
	cb, pb := around(g.w, spots[1])
	if min(ca, cb) < wantCars || min(pa, pb) < wantPeds {
		t.Errorf("at the end: cars %d and %d, pedestrians %d and %d", ca, cb, pa, pb)
	}
}
