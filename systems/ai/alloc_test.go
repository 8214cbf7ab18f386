package ai_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// steadyCity returns main-city with 40 traffic cars and 200 pedestrians
// round a player, a police car chasing them, run until the counts are
// reached; nothing is taken away (so nothing new comes either): the
// steady state.
func steadyCity(t testing.TB) *rig {
	t.Helper()
	const traffic, peds = 40, 200
	r := newRig(t, systemstest.Load(t, "main-city"), ecs.Rules{Traffic: traffic, Pedestrians: peds}, 9, func(tu *ai.Tuning) {
		tu.CheckEvery = 1 << 62 // never due: nothing taken away
		tu.CarsPerTick, tu.PedsPerTick = 8, 16
		tu.PedSpawnMax = 200
	})
	p := r.Character(t, -48, -48, 0)
	r.policeCar(t, -200, -193.75, 0, p)
	for i := 0; i < 60*20; i++ {
		r.Step(1)
		if ro := r.ai.Readout(); ro.Traffic == traffic && ro.Pedestrians == peds {
			break
		}
	}
	if ro := r.ai.Readout(); ro.Traffic != traffic || ro.Pedestrians != peds {
		t.Fatalf("counts %d/%d cars, %d/%d pedestrians", ro.Traffic, traffic, ro.Pedestrians, peds)
	}
	r.Step(120) // every buffer grown
	return r
}

// TestSteadyTickAllocatesNothing runs the AI and the pedestrians with 40
// cars, 200 pedestrians and a chase on main-city: a tick with no spawn
// allocates nothing.
func TestSteadyTickAllocatesNothing(t *testing.T) {
	r := steadyCity(t)
	allocs := testing.AllocsPerRun(200, func() { r.W.Step() })
	if allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
	if ro := r.ai.Readout(); len(ro.Chasers) != 1 || ro.Chasers[0].Mode == ai.ModeIdle {
		t.Fatalf("the chase did not run: %+v", ro.Chasers)
	}
}

// dump serializes every replicated entity's pose, velocity, drive and NPC
// state, by wire id.
func dump(w *ecs.World) []byte {
	type row struct {
		wid uint16
		b   []byte
	}
	var rows []row
	f := generic.NewFilter4[components.Identity, components.Pose, components.Velocity, components.Drive]()
	q := f.Query(w.Arche)
	for q.Next() {
		id, pose, vel, drive := q.Get()
		var buf bytes.Buffer
		for _, v := range []any{*id, *pose, *vel, *drive} {
			binary.Write(&buf, binary.LittleEndian, v)
		}
		if npc := ecstest.Get[components.NPC](w, q.Entity()); npc != nil {
			binary.Write(&buf, binary.LittleEndian, *npc)
		}
		rows = append(rows, row{id.WireID, buf.Bytes()})
	}
	slices.SortFunc(rows, func(a, b row) int { return int(a.wid) - int(b.wid) })
	var out []byte
	for _, r := range rows {
		out = append(out, r.b...)
	}
	return out
}

// TestDeterminism runs main-city's traffic, crowd and a chase twice from
// the same seed: the worlds are the same, byte for byte.
func TestDeterminism(t *testing.T) {
	run := func() []byte {
		r := newRig(t, systemstest.Load(t, "main-city"), ecs.FreeRoam(), 4, nil)
		p := r.Character(t, -48, -48, 0)
		r.Character(t, 200, 150, 0)
		r.policeCar(t, -200, -193.75, 0, p)
		r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
			d.MoveY, d.LookYaw = 1, float32(tick/300)
		}
		r.Step(60 * 25)
		return dump(r.W)
	}
	sameWorld(t, run(), run(), "two runs from one seed differ")
}

// sameWorld fails with differ unless the dumps a and b are the same, and
// when they hold nearly nothing: the run then proves little.
func sameWorld(t *testing.T, a, b []byte, differ string) {
	t.Helper()
	if !bytes.Equal(a, b) {
		t.Fatal(differ)
	}
	if len(a) < 1000 {
		t.Fatal("nearly nothing in the world: the test proves little")
	}
}

// BenchmarkCity steps main-city with 40 traffic cars, 200 pedestrians and
// a chase, and reports the AI's and the pedestrian system's time per tick
// (and the physics' for scale).
func BenchmarkCity(b *testing.B) {
	r := steadyCity(b)
	b.ReportAllocs()
	before := map[string]int64{}
	for _, tm := range r.W.Sched.Timings() {
		before[tm.Name] = int64(tm.Total)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.W.Step()
	}
	b.StopTimer()
	for _, tm := range r.W.Sched.Timings() {
		switch tm.Name {
		case ai.Name, "pedestrians", "physics":
			b.ReportMetric(float64(int64(tm.Total)-before[tm.Name])/float64(b.N), tm.Name+"-ns/tick")
		}
	}
}

// BenchmarkSystems times one Update of each system alone on the steady
// city (the world does not move between them).
func BenchmarkSystems(b *testing.B) {
	r := steadyCity(b)
	for _, c := range []struct {
		name string
		sys  ecs.System
	}{{"ai", r.ai}, {"pedestrians", r.peds}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c.sys.Update(r.W)
				r.W.Cmd.Apply(r.W)
			}
		})
	}
}

// TestSharedTickAllocatesNothing: the steady city with a second player
// far from the first, the count shared between them: a tick with no spawn
// allocates nothing.
func TestSharedTickAllocatesNothing(t *testing.T) {
	r := steadyCity(t)
	r.Character(t, 250, 250, 0)
	r.Step(120)
	allocs := testing.AllocsPerRun(200, func() { r.W.Step() })
	if allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}
