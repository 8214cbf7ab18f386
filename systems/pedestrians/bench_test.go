package pedestrians_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/pedestrians"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// crowdCity is main-city with n pedestrians spread over its pavements (a
// third each walkers, joggers and idlers) and 40 cars driving about,
// stepped for a few seconds.
func crowdCity(tb testing.TB, n int) (*ecs.World, *pedestrians.System) {
	tb.Helper()
	r := systemstest.New(tb, systemstest.Load(tb, "main-city"), systemstest.Options{Seed: 3})
	w, l, st := r.W, r.Level, r.Static
	m := nav.New(l)
	peds := pedestrians.NewWithMap(w, m, st)
	b := r.B
	roles := []components.NPCRole{components.RoleWalker, components.RoleJogger, components.RoleIdler}
	for i := 0; i < n; i++ {
		pav, along := m.PavementPoint(float32(i) * m.PavementLen / float32(n))
		p, _ := m.PavementAt(pav, along)
		if _, err := b.Pedestrian(roles[i%3], 0, components.Vec3{X: p.X, Y: p.Y}, 0, pav, along); err != nil {
			tb.Fatal(err)
		}
	}
	var cars []ecs.Entity
	for _, sp := range l.SpawnsOf(levels.RoleTraffic)[:40] {
		s := l.Spawns[sp]
		car, err := b.Vehicle(components.KindCar, phys.ModelSedan, components.Vec3{X: s.Pos.X, Y: s.Pos.Y}, s.Yaw, ecs.Entity{})
		if err != nil {
			tb.Fatal(err)
		}
		cars = append(cars, car)
	}
	drives := generic.NewMap1[components.Drive](w.Arche)
	r.Schedule(tb,
		ecs.Entry{Name: "cars", Phase: ecs.PhaseInput, System: ecs.SystemFunc(func(w *ecs.World) {
			for _, c := range cars {
				*drives.Get(c) = components.Drive{Throttle: 0.3, Steer: 0.2}
			}
		})},
		ecs.Entry{Name: pedestrians.Name, Phase: ecs.PhasePreStep, System: peds},
		ecs.Entry{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, st)},
		ecs.Entry{Name: pedestrians.WatchName, Phase: ecs.PhaseSync, System: peds.Watcher()},
	)
	r.Step(300)
	return w, peds
}

func TestCrowdTickAllocatesNothing(t *testing.T) {
	w, _ := crowdCity(t, 200)
	if a := testing.AllocsPerRun(100, func() { w.Step() }); a != 0 {
		t.Fatalf("%v allocations per tick", a)
	}
}

// BenchmarkPedestrians times the pedestrian system's Update with 200
// pedestrians and 40 moving cars on main-city.
func BenchmarkPedestrians(b *testing.B) {
	w, peds := crowdCity(b, 200)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		peds.Update(w)
	}
}
