package ai_test

import (
	"regexp"
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// smallTune shrinks the AI's distances to the crossroads level: a player
// sees 40 m, cars come 30 to 140 m from one, pedestrians 10 to 200 m.
func smallTune(tu *ai.Tuning) {
	tu.SightRange = 40
	tu.TrafficSpawnMin, tu.TrafficSpawnMax, tu.TrafficDespawn = 30, 140, 150
	tu.PedSpawnMin, tu.PedSpawnMax, tu.PedDespawn, tu.PedSight = 10, 200, 250, 15
}

// newNPCs watches the ambient cars (or the crowd, when cars is false):
// each tick, in the pre-step after the AI, it hands the ones not seen
// before, where they came into the world, to seen.
func newNPCs(r *rig, cars bool, seen func(e ecs.Entity, p phys.Vec)) {
	known := map[ecs.Entity]bool{}
	roles := crowdRoles
	if cars {
		roles = []components.NPCRole{components.RoleTraffic}
	}
	r.post = func(w *ecs.World) {
		for _, e := range npcs(w, cars, roles...) {
			if !known[e] {
				known[e] = true
				seen(e, r.Pos(e))
			}
		}
	}
}

// TestTrafficWithoutSpawnPoints takes the traffic spawn points out of the
// crossroads: the cars still come, on the lanes, out of the player's sight
// (and anywhere on the lanes with no player about).
func TestTrafficWithoutSpawnPoints(t *testing.T) {
	noSpawns := regexp.MustCompile(`(?m)^\s*\{"role": "traffic".*\n`).ReplaceAllString(crossLevel, "")
	l := systemstest.Parse(t, "test", noSpawns)
	if len(l.SpawnsOf(levels.RoleTraffic)) != 0 {
		t.Fatal("the level still has traffic spawn points")
	}
	cases := []struct {
		name   string
		player bool
	}{
		{"a player", true},
		{"no player", false},
	}
	const want = 4
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, l, ecs.Rules{Traffic: want, Pedestrians: 0}, 3, smallTune)
			var pl ecs.Entity
			if c.player {
				pl = r.Character(t, -90, -20, 0)
			}
			came := 0
			newNPCs(r, true, func(e ecs.Entity, p phys.Vec) {
				came++
				lane, d := l.NearestLane(levels.Vec2{X: p.X, Y: p.Y})
				if lane < 0 || d > 0.01 {
					t.Fatalf("a car came at %v, %.2f m off the nearest lane", p, d)
				}
				if !c.player {
					return
				}
				pp := r.Pos(pl)
				if d := pp.Sub(p).Len(); d < 30 || (d < 40 && r.Static.SegmentClear(pp, p)) {
					t.Fatalf("a car came at %v, %.1f m from the player, in sight", p, d)
				}
			})
			r.Step(60 * 4)
			if n := len(npcs(r.W, true, components.RoleTraffic)); n != want || came < want {
				t.Fatalf("%d cars about (%d came), want %d", n, came, want)
			}
		})
	}
}

// TestCarsStartOnSpawnPoints lets the AI fill the crossroads' traffic
// while spawn points are free: every car comes out exactly on a traffic
// spawn point, facing its way, and never on the one too near the player.
func TestCarsStartOnSpawnPoints(t *testing.T) {
	l := systemstest.Parse(t, "test", crossLevel)
	var points []levels.Spawn
	for _, i := range l.SpawnsOf(levels.RoleTraffic) {
		points = append(points, l.Spawns[i])
	}
	cases := []struct {
		name   string
		player bool
		want   int
	}{
		{"no player", false, 4},
		// The player at (-90, -20) is 35 m from the west point (under the
		// 60 m least distance): the other three are used.
		{"a player", true, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, l, ecs.Rules{Traffic: c.want, Pedestrians: 0}, 1, func(tu *ai.Tuning) { tu.SightRange = 40 })
			if c.player {
				r.Character(t, -90, -20, 0)
			}
			used := map[int]bool{}
			newNPCs(r, true, func(e ecs.Entity, p phys.Vec) {
				at := -1
				for i, sp := range points {
					if math32.Abs(sp.Pos.X-p.X) < 1e-4 && math32.Abs(sp.Pos.Y-p.Y) < 1e-4 {
						at = i
					}
				}
				if at < 0 {
					t.Fatalf("a car came at %v, on no traffic spawn point", p)
				}
				if yaw := ecstest.Get[components.Pose](r.W, e).Rot.Yaw(); math32.Abs(math32.Remainder(yaw-points[at].Yaw, 2*math32.Pi)) > 1e-3 {
					t.Fatalf("the car on spawn point %d faces %.3f, want %.3f", at, yaw, points[at].Yaw)
				}
				if used[at] {
					t.Fatalf("two cars came out of spawn point %d", at)
				}
				used[at] = true
			})
			r.Step(60)
			if len(used) != c.want {
				t.Fatalf("%d cars came out of the spawn points, want %d", len(used), c.want)
			}
			if c.player && used[0] {
				t.Fatal("a car came out of the spawn point 35 m from the player")
			}
		})
	}
}

// pavementDist returns how far p lies from the nearest pavement's
// centreline, less that pavement's half width: <= 0 on a pavement.
func pavementDist(l *levels.Level, p phys.Vec) float32 {
	best := float32(math32.MaxFloat32)
	for _, pv := range l.Pavements {
		n := len(pv.Points)
		segs := n - 1
		if pv.Closed {
			segs = n
		}
		for k := 0; k < segs; k++ {
			a, b := pv.Points[k], pv.Points[(k+1)%n]
			best = min(best, segDist(p, phys.Vec{X: a.X, Y: a.Y}, phys.Vec{X: b.X, Y: b.Y})-pv.Width/2)
		}
	}
	return best
}

func segDist(p, a, b phys.Vec) float32 {
	d := b.Sub(a)
	t := clamp01(p.Sub(a).Dot(d) / d.Dot(d))
	return p.Sub(a.Add(d.Scale(t))).Len()
}

func clamp01(x float32) float32 { return min(max(x, 0), 1) }

// TestPedestriansSpawnOnPavements watches every pedestrian the AI brings
// in, on the crossroads and on main-city, with a player and without: each
// comes onto a pavement's strip.
func TestPedestriansSpawnOnPavements(t *testing.T) {
	cross := systemstest.Parse(t, "test", crossLevel)
	city := systemstest.Load(t, "main-city")
	cases := []struct {
		name   string
		l      *levels.Level
		tune   func(*ai.Tuning)
		player bool
		want   int
	}{
		{"crossroads, a player", cross, smallTune, true, 20},
		{"crossroads, no player", cross, nil, false, 20},
		{"main-city, a player", city, nil, true, 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, c.l, ecs.Rules{Traffic: 0, Pedestrians: c.want}, 4, c.tune)
			if c.player {
				if c.l == city {
					r.Character(t, -48, -48, 0)
				} else {
					r.Character(t, -90, -20, 0)
				}
			}
			came := 0
			newNPCs(r, false, func(e ecs.Entity, p phys.Vec) {
				came++
				if d := pavementDist(c.l, p); d > 1e-3 {
					t.Fatalf("a pedestrian came at %v, %.2f m off the pavements", p, d)
				}
			})
			r.Step(60 * 2)
			if came < c.want {
				t.Fatalf("only %d pedestrians came, want %d", came, c.want)
			}
		})
	}
}

// poseVel is an entity's pose and velocity.
type poseVel struct {
	pose components.Pose
	vel  components.Velocity
}

// TestAIMovesNothing runs the AI alone (no physics, no pedestrian system)
// on the crossroads with traffic, a crowd, a chasing police car and an
// officer on foot: over the ticks it writes their inputs, brings NPCs in
// and takes them away, but no entity's Pose or Velocity ever changes.
func TestAIMovesNothing(t *testing.T) {
	l := systemstest.Parse(t, "test", crossLevel)
	r := systemstest.New(t, l, systemstest.Options{Seed: 2, Rules: ecs.Rules{Traffic: 6, Pedestrians: 10}})
	w, st, b := r.W, r.Static, r.B
	sys := ai.New(w, l, st)
	smallTune(&sys.Tuning)
	r.Schedule(t, ecs.Entry{Name: ai.Name, Phase: ecs.PhasePreStep, System: sys})
	player, err := b.Character(1, 0, 0, components.Vec3{X: -90, Y: -20}, 0)
	if err != nil {
		t.Fatal(err)
	}
	routeOf := generic.NewMap1[ai.Route](w.Arche)
	var cars []ecs.Entity
	for _, c := range []struct {
		x, y, yaw float32
		lane      int32
	}{
		{-110, -1.75, 0, 0},            // near the player
		{-40, -1.75, 0, 0},             // ahead of it, before the crossing
		{1.75, -100, math32.Pi / 2, 7}, // on the south arm
		{130, 1.75, math32.Pi, 3},      // 220 m off: taken away
		{-1.75, 100, -math32.Pi / 2, 5},
		{1.75, -130, math32.Pi / 2, 7},
	} {
		car, _, err := b.TrafficCar(phys.ModelSedan, 0, components.Vec3{X: c.x, Y: c.y}, c.yaw, c.lane)
		if err != nil {
			t.Fatal(err)
		}
		routeOf.Assign(car, &ai.Route{Lane: c.lane, Next: -1})
		cars = append(cars, car)
	}
	if _, err := b.Pedestrian(components.RoleWalker, 0, components.Vec3{X: 30, Y: 8}, 0, 0, 22); err != nil {
		t.Fatal(err)
	}
	police, err := b.Vehicle(components.KindPoliceCar, phys.ModelPolice, components.Vec3{X: -1.75, Y: 60}, -math32.Pi/2, ecs.Entity{})
	if err != nil {
		t.Fatal(err)
	}
	chaserOf := generic.NewMap1[components.Chaser](w.Arche)
	chaserOf.Assign(police, &components.Chaser{Target: player})
	officer, err := b.NPCPerson(components.KindOfficer, components.RoleOfficer, -1, components.Vec3{X: -80, Y: -20}, 0)
	if err != nil {
		t.Fatal(err)
	}
	chaserOf.Assign(officer, &components.Chaser{Target: player})

	all := generic.NewFilter2[components.Pose, components.Velocity]()
	drives := generic.NewMap1[components.Drive](w.Arche)
	before := map[ecs.Entity]poseVel{}
	var came, gone, driven int
	for tick := 0; tick < 60*5; tick++ {
		clear(before)
		q := all.Query(w.Arche)
		for q.Next() {
			p, v := q.Get()
			before[q.Entity()] = poseVel{*p, *v}
		}
		w.Step()
		q = all.Query(w.Arche)
		left := len(before)
		for q.Next() {
			p, v := q.Get()
			was, ok := before[q.Entity()]
			if !ok {
				came++
				continue
			}
			left--
			if was != (poseVel{*p, *v}) {
				t.Fatalf("tick %d: the AI moved %v: %+v to %+v", w.Tick(), q.Entity(), was, poseVel{*p, *v})
			}
		}
		gone += left
		for _, e := range append(cars, police, officer) {
			if w.Arche.Alive(e) {
				if d := drives.Get(e); d != nil && (d.Throttle != 0 || d.MoveX != 0 || d.MoveY != 0) {
					driven++
				}
			}
		}
	}
	// The AI did its work: else the test proves nothing.
	if came == 0 || gone == 0 || driven == 0 {
		t.Fatalf("the AI brought %d entities in, took %d away and drove %d times", came, gone, driven)
	}
	if w.Arche.Alive(cars[3]) {
		t.Fatal("the car 220 m from the player was not taken away")
	}
}
