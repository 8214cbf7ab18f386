package server

import (
	"math/rand/v2"

	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/mlange-42/arche/generic"
)

// reachGap (m) is how near a police car or an officer must come to the
// player to count as having reached them: a car's length, the chaser
// pulling up alongside.
const reachGap = 10

// policeReach puts one player, at the wheel of their car and standing
// still, on a road of main-city's quarter (sx, sy) (the signs of x and y),
// on a lane drawn with seed, at two stars under free roam; it reports
// whether a police car or officer came within reachGap of them before the
// stars ran out, and the seconds it took.
func policeReach(t *testing.T, sx, sy float32, seed uint64) (bool, float64) {
	t.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Room: "reach", Level: l, Seed: seed, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	p := join(t, g, Who{})
	for range ecs.TickRate { // the traffic comes out round the player
		g.Tick()
		p.c.Recv()
	}
	// A lane of the quarter, 30 m and more from the city's centre lines
	// and inside the ring road, drawn with the seed.
	m := g.w.Sched.System(ai.Name).(*ai.System).Nav()
	var lanes []int
	for i, ln := range m.Lanes {
		mid := ln.A.Add(ln.Dir.Scale(ln.Len / 2))
		if ln.Traffic && ln.Len > 40 && mid.X*sx > 30 && mid.Y*sy > 30 && mid.X*sx < 370 && mid.Y*sy < 370 {
			lanes = append(lanes, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 37))
	ln := m.Lanes[lanes[rng.IntN(len(lanes))]]
	at := ln.A.Add(ln.Dir.Scale(ln.Len / 2))
	in := g.persons
	_, seat, _ := in.Get(p.s.char)
	car := seat.Vehicle
	pose, vel := g.poses.Get(car)
	pose.Pos.X, pose.Pos.Y = at.X, at.Y
	pose.Rot = components.YawQuat(math32.Atan2(ln.Dir.Y, ln.Dir.X))
	*vel = components.Velocity{}
	p.send(components.Drive{})
	g.Tick() // the player rides to where their car now stands
	p.c.Recv()
	wa, _ := g.wanted.Get(p.s.char)
	wa.Stars, wa.Heat, wa.Unseen = 2, 0, 0

	cops := generic.NewFilter2[components.Kind, components.Pose]()
	start := g.w.Tick()
	for g.w.Tick()-start < 120*ecs.TickRate {
		p.send(components.Drive{})
		g.Tick()
		p.c.Recv()
		me := phys.Flat(g.posOf(car).Pos)
		wa, _ := g.wanted.Get(p.s.char)
		if wa.Stars == 0 {
			return false, float64(g.w.Tick()-start) / ecs.TickRate
		}
		q := cops.Query(g.w.Arche)
		for q.Next() {
			k, cp := q.Get()
			if *k != components.KindPoliceCar && *k != components.KindOfficer {
				continue
			}
			if phys.Flat(cp.Pos).Sub(me).Len() <= reachGap {
				q.Close()
				return true, float64(g.w.Tick()-start) / ecs.TickRate
			}
		}
	}
	return false, float64(g.w.Tick()-start) / ecs.TickRate
}

// TestPoliceReachEveryQuarter puts a player at two stars on a road of each
// quarter of main-city, ten seeded runs each: a police unit reaches them
// before the stars run out in at least 9 of the 10.
func TestPoliceReachEveryQuarter(t *testing.T) {
	if testing.Short() {
		t.Skip("forty runs of up to two minutes of ticks")
	}
	quarters := []struct {
		name   string
		sx, sy float32
	}{{"south-west", -1, -1}, {"south-east", 1, -1}, {"north-west", -1, 1}, {"north-east", 1, 1}}
	for _, qu := range quarters {
		t.Run(qu.name, func(t *testing.T) {
			reached := 0
			var secs []float64
			for seed := uint64(1); seed <= 10; seed++ {
				ok, s := policeReach(t, qu.sx, qu.sy, seed)
				if ok {
					reached++
				}
				secs = append(secs, s)
			}
			t.Logf("%s: reached %d of 10 (seconds: %.0f)", qu.name, reached, secs)
			if reached < 9 {
				t.Errorf("%s: the police reached the player in %d of 10 runs, want 9 at least", qu.name, reached)
			}
		})
	}
}
