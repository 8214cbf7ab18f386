package ai_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/systemstest"
)

// crowdRoles are the roles of the pedestrians the AI keeps.
var crowdRoles = []components.NPCRole{components.RoleWalker, components.RoleJogger, components.RoleIdler}

func TestWant(t *testing.T) {
	city := systemstest.Load(t, "main-city")
	flat := systemstest.Load(t, "test-flat")
	bare := systemstest.Parse(t, "test", `{"name": "main-bare", "version": 1, "ground": {"min": [-10, -10], "max": [10, 10]}}`)
	cases := []struct {
		name         string
		room         int
		l            *levels.Level
		want         int
		wantPedsRoom int
		wantPeds     int
	}{
		{"room option", 7, city, 7, 9, 9},
		{"room says none", 0, city, 0, 0, 0},
		{"level's rules", -1, city, 40, -1, 60},
		{"main default", -1, bare, ai.DefaultTrafficMain, -1, ai.DefaultPedestriansMain},
		{"test default", -1, flat, 0, -1, 0},
		{"no level", -1, nil, 0, -1, 0},
	}
	for _, c := range cases {
		rules := ecs.Rules{Traffic: c.room, Pedestrians: c.wantPedsRoom}
		if got := ai.TrafficWant(&rules, c.l); got != c.want {
			t.Errorf("%s: traffic %d, want %d", c.name, got, c.want)
		}
		if got := ai.PedestriansWant(&rules, c.l); got != c.wantPeds {
			t.Errorf("%s: pedestrians %d, want %d", c.name, got, c.wantPeds)
		}
	}
}

// TestTrafficKept fills main-city's count round a player, then moves the
// player across the city: the cars left far behind are taken away and
// new ones come round the player, the count kept all along.
func TestTrafficKept(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	const want = 20
	r := newRig(t, l, ecs.Rules{Traffic: want, Pedestrians: 0}, 3, nil)
	p := r.Character(t, -48, -48, 0)
	r.Step(60 * 5)
	first := npcs(r.W, true, components.RoleTraffic)
	if len(first) != want || r.ai.Readout().Traffic != want {
		t.Fatalf("%d cars (readout %d), want %d", len(first), r.ai.Readout().Traffic, want)
	}
	ecstest.Get[components.Pose](r.W, p).Pos = components.Vec3{X: 336, Y: 336}
	for sec := 0; sec < 40; sec++ {
		r.Step(60)
		if n := len(npcs(r.W, true, components.RoleTraffic)); n < want-2 || n > want {
			t.Fatalf("after %d s: %d cars, want %d", sec+1, n, want)
		}
	}
	now := npcs(r.W, true, components.RoleTraffic)
	if len(now) != want {
		t.Fatalf("%d cars at the end, want %d", len(now), want)
	}
	kept := 0
	for _, e := range first {
		if r.W.Arche.Alive(e) {
			kept++
		}
	}
	if kept > want/2 {
		t.Fatalf("%d of the first cars are still about", kept)
	}
	tune := ai.DefaultTuning()
	for _, e := range now {
		if d := r.Pos(e).Sub(phys.Vec{X: 336, Y: 336}).Len(); d > tune.TrafficDespawn+10 {
			t.Fatalf("a car %.0f m from the only player", d)
		}
	}
}

// TestSpawnsOutOfSight watches every car and pedestrian the AI brings into
// main-city round three players: none comes in sight of a player, nor
// nearer one than the least spawn distance.
func TestSpawnsOutOfSight(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	r := newRig(t, l, ecs.Rules{Traffic: 30, Pedestrians: 60}, 5, nil)
	players := []ecs.Entity{r.Character(t, -48, -48, 0), r.Character(t, 250, -150, 0), r.Character(t, -200, 300, 0)}
	tune := ai.DefaultTuning()
	seen := map[ecs.Entity]bool{}
	cars, peds := 0, 0
	r.post = func(w *ecs.World) {
		for _, vehicles := range []bool{true, false} {
			roles := crowdRoles
			minDist, sight := tune.PedSpawnMin, tune.PedSight
			if vehicles {
				roles = []components.NPCRole{components.RoleTraffic}
				minDist, sight = tune.TrafficSpawnMin, tune.SightRange
			}
			for _, e := range npcs(w, vehicles, roles...) {
				if seen[e] {
					continue
				}
				seen[e] = true
				if vehicles {
					cars++
				} else {
					peds++
				}
				at := r.Pos(e)
				for _, pl := range players {
					pp := r.Pos(pl)
					d := pp.Sub(at).Len()
					if d < minDist {
						t.Fatalf("tick %d: spawned %.1f m from a player", w.Tick(), d)
					}
					if d < sight && r.Static.SegmentClear(pp, at) {
						t.Fatalf("tick %d: spawned at %v in sight of the player at %v", w.Tick(), at, pp)
					}
				}
			}
		}
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		d.MoveY, d.LookYaw = 1, float32(tick/600) // stroll about
	}
	r.Step(60 * 40)
	if cars < 30 || peds < 60 {
		t.Fatalf("only %d cars and %d pedestrians came: the test proves little", cars, peds)
	}
}

// TestNoNPCInBuildings runs main-city's traffic and crowd round two
// players for minutes: no car nor pedestrian is ever inside a building,
// and the counts hold.
func TestNoNPCInBuildings(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	r := newRig(t, l, ecs.FreeRoam(), 11, nil)
	r.Character(t, -48, -48, 0)
	r.Character(t, 200, 150, 0)
	secs := 90
	if testing.Short() {
		secs = 30
	}
	for sec := 0; sec < secs; sec++ {
		r.Step(60)
		cars := npcs(r.W, true, components.RoleTraffic)
		people := npcs(r.W, false, append(crowdRoles, components.RoleTraffic)...)
		for _, e := range append(cars, people...) {
			p := r.Pos(e)
			if l.BuildingAt(levels.Vec2{X: p.X, Y: p.Y}) >= 0 || r.Static.Overlaps(p, 0.2) {
				t.Fatalf("after %d s: %s %v inside a building at %v", sec+1, *ecstest.Get[components.Kind](r.W, e), e, p)
			}
		}
		if sec > 10 && (len(cars) < 38 || r.ai.Readout().Pedestrians < 55) {
			t.Fatalf("after %d s: %d cars, %d pedestrians", sec+1, len(cars), r.ai.Readout().Pedestrians)
		}
	}
}

// TestCrowdKeptRoundPlayers fills the crowd round a player who then walks
// off: those far behind are taken off, new ones come round the player.
func TestCrowdKeptRoundPlayers(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	const want = 40
	r := newRig(t, l, ecs.Rules{Traffic: 0, Pedestrians: want}, 2, nil)
	p := r.Character(t, -48, -48, 0)
	r.Step(60 * 3)
	if n := len(npcs(r.W, false, crowdRoles...)); n != want {
		t.Fatalf("%d pedestrians, want %d", n, want)
	}
	roles := map[components.NPCRole]int{}
	for _, e := range npcs(r.W, false, crowdRoles...) {
		roles[ecstest.Get[components.NPC](r.W, e).Role]++
	}
	if len(roles) != 3 {
		t.Fatalf("roles %v: want walkers, joggers and idlers", roles)
	}
	ecstest.Get[components.Pose](r.W, p).Pos = components.Vec3{X: 240, Y: 240}
	r.Step(60 * 20)
	tune := ai.DefaultTuning()
	all := npcs(r.W, false, crowdRoles...)
	if len(all) < want-2 {
		t.Fatalf("%d pedestrians, want %d", len(all), want)
	}
	for _, e := range all {
		if d := r.Pos(e).Sub(phys.Vec{X: 240, Y: 240}).Len(); d > tune.PedDespawn+10 {
			t.Fatalf("a pedestrian %.0f m from the only player", d)
		}
	}
}

// TestPopulationShared: one player holds main-city's whole count of cars
// and pedestrians round them; a second player comes 480 m away. Within a
// few seconds each has three quarters of their fair part (half the count)
// round them, and the room keeps its count.
func TestPopulationShared(t *testing.T) {
	l := systemstest.Load(t, "main-city")
	const cars, peds = 20, 40
	r := newRig(t, l, ecs.Rules{Traffic: cars, Pedestrians: peds}, 7, nil)
	a := r.Character(t, -336, -190.25, 0)
	r.Step(60 * 10)
	tune := ai.DefaultTuning()
	round := func(p ecs.Entity) (nc, np int) {
		at := r.Pos(p)
		for _, e := range npcs(r.W, true, components.RoleTraffic) {
			if r.Pos(e).Sub(at).Len() <= tune.TrafficSpawnMax {
				nc++
			}
		}
		for _, e := range npcs(r.W, false, crowdRoles...) {
			if r.Pos(e).Sub(at).Len() <= tune.PedSpawnMax {
				np++
			}
		}
		return nc, np
	}
	if nc, np := round(a); nc < cars-2 || np < peds-4 {
		t.Fatalf("alone: %d cars and %d pedestrians round the player, want nearly %d and %d", nc, np, cars, peds)
	}
	b := r.Character(t, 48, 97.75, 0)
	if d := r.Pos(b).Sub(r.Pos(a)).Len(); d < 450 {
		t.Fatalf("the players are %.0f m apart", d)
	}
	r.Step(60 * 3)
	for _, p := range []ecs.Entity{a, b} {
		if nc, np := round(p); 4*nc < 3*cars/2 || 4*np < 3*peds/2 {
			t.Errorf("player at %v: %d cars and %d pedestrians round them, want %d and %d at least", r.Pos(p), nc, np, 3*cars/8, 3*peds/8)
		}
	}
	if ro := r.ai.Readout(); ro.Traffic > cars || ro.Pedestrians > peds {
		t.Errorf("%d cars and %d pedestrians in the room, over its %d and %d", ro.Traffic, ro.Pedestrians, cars, peds)
	}
}
