package server

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/internal/race"
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
	if testing.Short() {
		t.Skip("half a minute of main-city: TestJoinedApartBothSeeTraffic plays the same case in -short")
	}
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

// onLane returns the point of a traffic lane of g's map nearest to p, and
// the lane's heading there.
func onLane(g *GameServer, p phys.Vec) (phys.Vec, float32) {
	m := g.w.Sched.System(ai.Name).(*ai.System).Nav()
	best, bestD, yaw := p, float32(math32.MaxFloat32), float32(0)
	for _, ln := range m.Lanes {
		if !ln.Traffic {
			continue
		}
		d := p.Sub(ln.A)
		t := min(max(d.X*ln.Dir.X+d.Y*ln.Dir.Y, 0), ln.Len)
		at := ln.A.Add(ln.Dir.Scale(t))
		if l := p.Sub(at).Len(); l < bestD {
			best, bestD, yaw = at, l, math32.Atan2(ln.Dir.Y, ln.Dir.X)
		}
	}
	return best, yaw
}

// movingCars counts the cars p's client holds (decoded from its
// snapshots, within the area of interest) that move, its own car aside:
// the traffic its player sees go by, not the parked cars.
func movingCars(p *probe) int {
	n := 0
	for _, e := range p.dec.Snapshot().Entities {
		if e.Kind != uint8(components.KindCar) || e.EID == p.welcome.Car {
			continue
		}
		if e.Lin.X*e.Lin.X+e.Lin.Y*e.Lin.Y > 1 {
			n++
		}
	}
	return n
}

// TestJoinedApartBothSeeTraffic: a first player holds main-city's
// population round them for half a minute; a second joins 450 m away.
// Within 10 s, and still at 10 s, each one's client holds moving traffic
// round them: the cars of the snapshots it decodes, which the page draws (issue 37's "two players
// joining 450 m apart both see traffic within 10 s").
func TestJoinedApartBothSeeTraffic(t *testing.T) {
	race.Solo(t)
	// seeCars is how many moving cars round a player count as traffic
	// seen: a fifth of the city's 40. Before the budget was shared the
	// second player saw 1 to 6, the first player's passing by.
	const seeCars = 8
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1] // the race pass: 3 seeds took 43 s there
	}
	for _, seed := range seeds {
		g, err := New(Config{Room: "apart", Level: l, Seed: seed, Rules: ecs.FreeRoam()})
		if err != nil {
			t.Fatal(err)
		}
		atA, yawA := onLane(g, phys.Vec{X: -330, Y: -190})
		atB, yawB := onLane(g, phys.Vec{X: 120, Y: -190})
		if d := atB.Sub(atA).Len(); d < 440 || d > 460 {
			t.Fatalf("the players stand %.0f m apart, want 450", d)
		}
		put := func(p *probe, at phys.Vec, yaw float32) {
			_, seat, _ := g.persons.Get(p.s.char)
			pose, vel := g.poses.Get(seat.Vehicle)
			pose.Pos.X, pose.Pos.Y = at.X, at.Y
			pose.Rot = components.YawQuat(yaw)
			*vel = components.Velocity{}
		}
		step := func(ps ...*probe) {
			for _, p := range ps {
				p.send(components.Drive{})
			}
			g.Tick()
			for _, p := range ps {
				p.read()
			}
		}
		a := join(t, g, Who{})
		step(a)
		put(a, atA, yawA)
		for range 30 * ecs.TickRate {
			step(a)
		}
		if n := movingCars(a); n < seeCars {
			t.Fatalf("seed %d: alone, the first player sees %d moving cars", seed, n)
		}
		b := join(t, g, Who{})
		step(a, b)
		put(b, atB, yawB)
		seen := 0.0
		for tick := 1; tick <= 10*ecs.TickRate; tick++ {
			step(a, b)
			if ca, cb := movingCars(a), movingCars(b); seen == 0 && min(ca, cb) >= seeCars {
				seen = float64(tick) / ecs.TickRate
				t.Logf("seed %d: both see %d moving cars at least after %.2f s (%d and %d)", seed, seeCars, seen, ca, cb)
			}
		}
		ca, cb := movingCars(a), movingCars(b)
		t.Logf("seed %d: at 10 s they see %d and %d moving cars", seed, ca, cb)
		if seen == 0 {
			t.Errorf("seed %d: in 10 s the two players never both saw %d moving cars", seed, seeCars)
		}
		if min(ca, cb) < seeCars {
			t.Errorf("seed %d: at 10 s the players see %d and %d moving cars, want %d each", seed, ca, cb, seeCars)
		}
	}
}
