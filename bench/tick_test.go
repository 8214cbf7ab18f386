package bench

import (
	"fmt"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/mlange-42/arche/generic"
)

// drivingCity builds main-city with n cars, each with a character at the
// wheel, and n/2 characters walking (1.5 n bodies), every one of them
// moving: cars on the lanes at a cruise, people walking in circles.
func drivingCity(b *testing.B, n int) *ecs.World {
	b.Helper()
	l, err := levels.Load("main-city")
	if err != nil {
		b.Fatal(err)
	}
	st, err := motion.BakeLevel(l)
	if err != nil {
		b.Fatal(err)
	}
	w, _ := ecs.New(ecs.Config{Seed: 1})
	pf := prefab.New(w)
	drives := generic.NewMap1[components.Drive](w.Arche)
	var people []ecs.Entity
	lanes := len(l.Roads.Lanes)
	for i := 0; i < n; i++ {
		a, z := l.LaneLine(i % lanes)
		t := float32(i/lanes)*0.13 + 0.1
		p := a.Add(z.Sub(a).Scale(t - float32(int(t))))
		d := z.Sub(a)
		var yaw float32
		if d.Len() > 0 {
			yaw = atan2(d.Y, d.X)
		}
		car, err := pf.Vehicle(components.KindCar, phys.ModelSedan, components.Vec3{X: p.X, Y: p.Y}, yaw, ecs.Entity{})
		if err != nil {
			b.Fatal(err)
		}
		c, _ := pf.Character(1, 0, 0, components.Vec3{X: p.X, Y: p.Y}, yaw)
		seat(w, c, car)
		people = append(people, c)
		if i%2 == 0 {
			// Along the pavements, a few metres apart.
			k := i / 2
			pv := l.Pavements[k%len(l.Pavements)]
			seg := (k / len(l.Pavements)) % len(pv.Points)
			a, z := pv.Points[seg], pv.Points[(seg+1)%len(pv.Points)]
			f := float32(k/len(l.Pavements)/len(pv.Points)%8)/8 + 0.05
			q := a.Add(z.Sub(a).Scale(f))
			walker, _ := pf.Character(1, 0, 0, components.Vec3{X: q.X, Y: q.Y}, 0)
			people = append(people, walker)
		}
	}
	input := ecs.SystemFunc(func(w *ecs.World) {
		tick := w.Tick()
		for i, e := range people {
			d := drives.Get(e)
			*d = components.Drive{Throttle: 0.4, Steer: 0.05, MoveY: 1, LookYaw: float32(tick+uint64(i)) * 0.01}
		}
	})
	if err := w.SetSchedule(systems.Entries(w, systems.Options{Static: st, Input: input})); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 60; i++ {
		w.Step()
	}
	return w
}

func seat(w *ecs.World, c, car ecs.Entity) {
	pm := generic.NewMap2[components.PersonAction, components.SeatedIn](w.Arche)
	sm := generic.NewMap1[components.Seats](w.Arche)
	a, s := pm.Get(c)
	a.Act = components.ActDriving
	s.Vehicle, s.Seat = car, 0
	sm.Get(car).Occupant[0] = c
}

// BenchmarkTick runs whole ticks (input, seats, physics) of main-city with
// n driven cars and n/2 walkers.
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("cars=%d", n), func(b *testing.B) {
			w := drivingCity(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.Step()
			}
			b.StopTimer()
			for _, tm := range w.Sched.Timings() {
				b.ReportMetric(float64(tm.Total.Nanoseconds())/float64(tm.Runs)/1000, tm.Name+"-us/tick")
			}
		})
	}
}

// BenchmarkPhysicsStep runs the physics system (the driving models, the
// step, the write-back) of main-city with about 100, 1,000 and 5,000
// moving bodies, and reports its time per body.
func BenchmarkPhysicsStep(b *testing.B) {
	for _, bodies := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("bodies=%d", bodies), func(b *testing.B) {
			w := drivingCity(b, bodies*2/3)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.Step()
			}
			b.StopTimer()
			for _, tm := range w.Sched.Timings() {
				if tm.Name == motion.Name {
					b.ReportMetric(float64(tm.Total.Nanoseconds())/float64(tm.Runs)/float64(bodies), "ns/body/step")
				}
			}
		})
	}
}
