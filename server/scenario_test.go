package server

import (
	"fmt"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/police"
	"github.com/mlange-42/arche/generic"
)

// TestCityScenario is the city's five minutes on main-city (free roam)
// with 16 scripted clients:
//   - the traffic count is kept (checked every 10 s once it is out);
//   - no NPC ends inside a building (checked every 10 s and at the end);
//   - a crime (player 1 drives into the gated yard, a restricted zone)
//     brings the police; player 1 then keeps out of their sight until
//     the stars decay, and the police go;
//   - a dead player (player 2) comes back at a hospital.
func TestCityScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("five minutes of ticks")
	}
	const n, minutes = 16, 5
	l, _ := levels.Load("main-city")
	g, err := New(Config{Room: "scenario", Level: l, Seed: 11, Rules: ecs.FreeRoam()})
	if err != nil {
		t.Fatal(err)
	}
	var ps []*inproc
	for i := 0; i < n; i++ {
		p := newInproc(t, g, false)
		p.s.who.Debug = true // the script's teleports and kill are debug commands
		ps = append(ps, p)
	}
	w := g.World()
	pol := w.Sched.System(police.Name).(*police.System)
	aiSys := w.Sched.System(ai.Name).(*ai.System)
	cmd := func(p *inproc, format string, args ...any) {
		if err := p.s.Receive([]byte(fmt.Sprintf(format, args...)), true); err != nil {
			t.Fatal(err)
		}
	}
	yard := yardSpot(t, g)
	// Hiding places: the four corners of the city, far from the police.
	hides := [][2]float32{{-440, -440}, {440, 440}, {-440, 440}, {440, -440}}
	crimeAt, killAt := 20*ecs.TickRate, 40*ecs.TickRate
	var sawPolice, starsGone, policeGone, backAtHospital bool
	var maxStars uint8
	at := map[string]uint64{}
	mark := func(what string) {
		if _, ok := at[what]; !ok {
			at[what] = w.Tick()
		}
	}
	var deadSince uint64
	hide := 0
	for tick := 0; tick < minutes*60*ecs.TickRate; tick++ {
		for i, p := range ps {
			if _, ok := p.c.Welcome(); ok {
				d := script(i, p.c.Seq())
				if i == 0 && tick > crimeAt {
					d = components.Drive{} // the offender waits where it is put
				}
				if err := p.c.Tick(d); err != nil {
					t.Fatal(err)
				}
			}
		}
		switch {
		case tick == crimeAt:
			cmd(ps[0], `{"type":"debug","cmd":"teleport","x":%g,"y":%g}`, yard.X, yard.Y)
		case tick > crimeAt+15*ecs.TickRate && tick%(4*ecs.TickRate) == 0 && !starsGone:
			// Keep out of the police's sight: from corner to corner.
			h := hides[hide%len(hides)]
			hide++
			cmd(ps[0], `{"type":"debug","cmd":"teleport","x":%g,"y":%g}`, h[0], h[1])
		case tick == killAt:
			cmd(ps[1], `{"type":"debug","cmd":"kill"}`)
		}
		g.Tick()
		for _, p := range ps {
			p.deliver(t)
		}
		wa, _ := g.wanted.Get(ps[0].s.char)
		maxStars = max(maxStars, wa.Stars)
		if wa.Stars > 0 {
			mark("stars")
		}
		if _, chasing := pol.Units(); chasing > 0 {
			sawPolice = true
			mark("police chasing")
		}
		if sawPolice && wa.Stars == 0 && wa.Arrests == 0 {
			starsGone = true
			mark("stars decayed")
		}
		if starsGone {
			if all, _ := pol.Units(); all == 0 {
				policeGone = true
				mark("police gone")
			}
		}
		if h := g.health.Get(ps[1].s.char); h.HP == 0 && deadSince == 0 {
			deadSince = w.Tick()
		} else if deadSince != 0 && h.HP > 0 && !backAtHospital {
			pos := g.posOf(ps[1].s.char).Pos
			sp, _ := l.NearestSpawn(levels.RoleHospital, levels.Vec2{X: pos.X, Y: pos.Y})
			if d := sp.Pos.Sub(levels.Vec2{X: pos.X, Y: pos.Y}).Len(); d > 15 {
				t.Fatalf("player 2 came back %.0f m from the nearest hospital spawn", d)
			}
			backAtHospital = true
			mark("back at hospital")
		}
		if tick%(10*ecs.TickRate) == 0 && tick >= 60*ecs.TickRate {
			r := aiSys.Readout()
			if r.Traffic < r.TrafficWant*9/10 || r.Traffic > r.TrafficWant {
				t.Fatalf("tick %d: traffic %d, the room keeps %d", tick, r.Traffic, r.TrafficWant)
			}
		}
		if tick%(10*ecs.TickRate) == 0 || tick == minutes*60*ecs.TickRate-1 {
			if e, pos, ok := npcInBuilding(g); ok {
				t.Fatalf("tick %d: NPC %v inside a building at %v", tick, e, pos)
			}
		}
	}
	t.Logf("crime at tick %d, kill at %d; max stars %d; milestones (tick): %v", crimeAt, killAt, maxStars, at)
	if !sawPolice || !starsGone || !policeGone {
		t.Fatalf("police came %v, stars decayed %v, police went %v", sawPolice, starsGone, policeGone)
	}
	if !backAtHospital {
		t.Fatal("the dead player never came back at a hospital")
	}
	for _, p := range ps {
		if st := p.c.Stats(); st.Resyncs != 0 {
			t.Fatalf("client %d refused %d frames", p.s.ID(), st.Resyncs)
		}
	}
}

// npcInBuilding finds an NPC standing inside a building (its centre more
// than a few centimetres in).
func npcInBuilding(g *GameServer) (ecs.Entity, components.Vec3, bool) {
	f := generic.NewFilter3[components.NPC, components.Pose, components.Body]()
	q := f.Query(g.w.Arche)
	for q.Next() {
		_, pose, _ := q.Get()
		if g.static.Overlaps(phys.Flat(pose.Pos), 0.05) {
			e := q.Entity()
			q.Close()
			return e, pose.Pos, true
		}
	}
	return ecs.Entity{}, components.Vec3{}, false
}

// yardSpot finds a spot for a car inside main-city's restricted yard.
func yardSpot(t *testing.T, g *GameServer) phys.Vec {
	t.Helper()
	for _, z := range g.cfg.Level.Zones {
		if z.ID != "yard" {
			continue
		}
		var c levels.Vec2
		for _, p := range z.Polygon {
			c = c.Add(p)
		}
		c = c.Scale(1 / float32(len(z.Polygon)))
		for r := float32(0); r < 40; r += 2 {
			for _, d := range [][2]float32{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}} {
				p := levels.Vec2{X: c.X + d[0]*r, Y: c.Y + d[1]*r}
				if levels.PointInPolygon(p, z.Polygon) && !g.static.Overlaps(phys.Vec{X: p.X, Y: p.Y}, 3) {
					return phys.Vec{X: p.X, Y: p.Y}
				}
			}
		}
	}
	t.Fatal("no free spot in the yard")
	return phys.Vec{}
}
