package city_test

import (
	"testing"
	"time"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/systems/gates"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/spawners"
	"github.com/fiveonit/engine/systems/weapons"
	"github.com/mlange-42/arche/generic"
)

// city64 is main-city under free roam (police on) with 64 players driving
// round at up to 10 m/s, 40 more cars with NPC drivers doing the same
// (standing in for the AI's traffic), 200 pedestrians walking in circles on
// the pavements, and eight of the players wanted (three stars, renewed
// every 20 s), chased by police cars driven by the AI's stand-in.
func city64(b *testing.B) *citytest.Rig {
	b.Helper()
	r, players := mainCity(b, 64, 1)
	l := r.Level
	for i := range 40 {
		sp := l.Spawns[l.SpawnsOf("traffic")[i*2]]
		_, d, err := r.B.NPCCar(components.RoleTraffic, -1, phys.ModelCompact, components.Vec3{X: sp.Pos.X, Y: sp.Pos.Y}, sp.Yaw)
		if err != nil {
			b.Fatal(err)
		}
		r.Inputs = append(r.Inputs, d)
	}
	for i := range 200 {
		pav := l.Pavements[i%len(l.Pavements)]
		p := pav.Points[(i/len(l.Pavements))%len(pav.Points)]
		r.Inputs = append(r.Inputs, r.Pedestrian(b, p.X+float32(i%3), p.Y))
	}
	vels := generic.NewMap1[components.Velocity](r.W.Arche)
	seated := generic.NewMap1[components.SeatedIn](r.W.Arche)
	r.Chase = 0.6
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		sd := seated.Get(e)
		if sd.Vehicle.IsZero() {
			d.MoveY, d.LookYaw = 1, float32(tick)*0.01+float32(e.ID())
			return
		}
		v := vels.Get(sd.Vehicle).Lin
		if v.X*v.X+v.Y*v.Y < 100 {
			d.Throttle = 0.5
		}
		d.Steer = 0.3 * math32.Sin(float32(tick)/120+float32(e.ID()))
	}
	renew := ecs.SystemFunc(func(w *ecs.World) {
		if w.Tick()%(20*ecs.TickRate) != 1 {
			return
		}
		for _, p := range players[:8] {
			for range 3 {
				w.Crimes = append(w.Crimes, components.Crime{Kind: components.CrimeKillPedestrian, Offender: p})
			}
		}
	})
	entries := append([]ecs.Entry{{Name: "crimes", Phase: ecs.PhaseInput, System: renew}}, r.W.Sched.Entries()...)
	if err := r.W.SetSchedule(entries); err != nil {
		b.Fatal(err)
	}
	r.Step(30 * ecs.TickRate) // police out, buffers grown
	return r
}

// BenchmarkCity64 measures a tick of city64 and, as metrics, each of the
// city's systems' share of it (ns a tick, from the schedule's timings).
//
//	go test ./systems/city -run '^$' -bench City64 -benchtime 3000x
func BenchmarkCity64(b *testing.B) {
	r := city64(b)
	before := timings(r.W)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r.W.Step()
	}
	b.StopTimer()
	after := timings(r.W)
	for _, name := range []string{weapons.Name, spawners.Name, gates.Name, police.Name, damage.Name, city.Name, "physics"} {
		d := after[name].Total - before[name].Total
		runs := after[name].Runs - before[name].Runs
		if runs > 0 {
			b.ReportMetric(float64(d)/float64(runs), name+"-ns/tick")
		}
	}
	all, chasing := r.Police.Units()
	b.ReportMetric(float64(all), "police-cars")
	b.ReportMetric(float64(chasing), "chasing")
}

func timings(w *ecs.World) map[string]struct {
	Total time.Duration
	Runs  uint64
} {
	out := map[string]struct {
		Total time.Duration
		Runs  uint64
	}{}
	for _, t := range w.Sched.Timings() {
		out[t.Name] = struct {
			Total time.Duration
			Runs  uint64
		}{t.Total, t.Runs}
	}
	return out
}
