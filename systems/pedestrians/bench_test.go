package pedestrians_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/pedestrians"
)

// crowdCity is main-city with n pedestrians spread over its pavements (a
// third each walkers, joggers and idlers) and 40 cars driving about,
// stepped for a few seconds.
func crowdCity(tb testing.TB, n int) (*ecs.World, *pedestrians.System) {
	tb.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		tb.Fatal(err)
	}
	st, err := motion.BakeLevel(l)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := ecs.New(ecs.Config{Seed: 3})
	if err != nil {
		tb.Fatal(err)
	}
	m := nav.New(l)
	peds := pedestrians.NewWithMap(w, m, st)
	b := prefab.New(w)
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
	drive := genericDrive(w)
	err = w.SetSchedule([]ecs.Entry{
		{Name: "cars", Phase: ecs.PhaseInput, System: ecs.SystemFunc(func(w *ecs.World) {
			for _, c := range cars {
				*drive.Get(c) = components.Drive{Throttle: 0.3, Steer: 0.2}
			}
		})},
		{Name: pedestrians.Name, Phase: ecs.PhasePreStep, System: peds},
		{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, st)},
		{Name: pedestrians.WatchName, Phase: ecs.PhaseSync, System: peds.Watcher()},
	})
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		w.Step()
	}
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
