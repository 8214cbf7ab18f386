package ai_test

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/pedestrians"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/mlange-42/arche/generic"
)

// rig is a world on a level with the systems of a room's tick: the
// players' inputs (scripted), seats, signals, pedestrians, ai, physics and
// the pedestrians' watcher.
type rig struct {
	w      *ecs.World
	l      *levels.Level
	st     *phys.Static
	ai     *ai.System
	peds   *pedestrians.System
	sig    *signals.System
	b      *prefab.Builder
	drive  func(tick uint64, e ecs.Entity, d *components.Drive)
	pre    func(w *ecs.World) // runs in the input phase, after the inputs
	post   func(w *ecs.World) // runs in the pre-step phase, after the AI
	inputs []ecs.Entity
	drives generic.Map1[components.Drive]
}

func loadLevel(t testing.TB, name string) *levels.Level {
	t.Helper()
	l, err := levels.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func parseLevel(t testing.TB, js string) *levels.Level {
	t.Helper()
	l, err := levels.Parse("test.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newRig(t testing.TB, l *levels.Level, rules ecs.Rules, seed uint64, tune func(*ai.Tuning)) *rig {
	t.Helper()
	st, err := motion.BakeLevel(l)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ecs.New(ecs.Config{Seed: seed, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{w: w, l: l, st: st, b: prefab.New(w), drives: generic.NewMap1[components.Drive](w.Arche)}
	r.ai = ai.New(w, l, st)
	if tune != nil {
		tune(&r.ai.Tuning)
	}
	r.peds = pedestrians.New(w, l, st)
	r.sig = signals.New(w, l)
	input := ecs.SystemFunc(func(w *ecs.World) {
		for _, e := range r.inputs {
			if !w.Arche.Alive(e) {
				continue
			}
			d := r.drives.Get(e)
			*d = components.Drive{LookYaw: d.LookYaw}
			if r.drive != nil {
				r.drive(w.Tick(), e, d)
			}
		}
		if r.pre != nil {
			r.pre(w)
		}
	})
	err = w.SetSchedule([]ecs.Entry{
		{Name: "input", Phase: ecs.PhaseInput, System: input},
		{Name: seats.Name, Phase: ecs.PhaseInput, System: seats.New(w, st)},
		{Name: signals.Name, Phase: ecs.PhasePreStep, System: r.sig},
		{Name: pedestrians.Name, Phase: ecs.PhasePreStep, System: r.peds},
		{Name: ai.Name, Phase: ecs.PhasePreStep, System: r.ai},
		{Name: "check", Phase: ecs.PhasePreStep, System: ecs.SystemFunc(func(w *ecs.World) {
			if r.post != nil {
				r.post(w)
			}
		})},
		{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, st)},
		{Name: pedestrians.WatchName, Phase: ecs.PhaseSync, System: r.peds.Watcher()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) step(n int) {
	for i := 0; i < n; i++ {
		r.w.Step()
	}
}

// character makes a player's character standing at (x, y).
func (r *rig) character(t testing.TB, x, y float32) ecs.Entity {
	t.Helper()
	e, err := r.b.Character(uint8(len(r.inputs)+1), 0, 0, components.Vec3{X: x, Y: y}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.inputs = append(r.inputs, e)
	return e
}

func get[T any](w *ecs.World, e ecs.Entity) *T {
	m := generic.NewMap1[T](w.Arche)
	return m.Get(e)
}

func pos(w *ecs.World, e ecs.Entity) phys.Vec { return phys.Flat(get[components.Pose](w, e).Pos) }

func speedOf(w *ecs.World, e ecs.Entity) float32 {
	v := get[components.Velocity](w, e).Lin
	return math32.Sqrt(v.X*v.X + v.Y*v.Y)
}

// npcs returns the entities with an NPC of one of roles, by wire id,
// vehicles or people as vehicles says.
func npcs(w *ecs.World, vehicles bool, roles ...components.NPCRole) []ecs.Entity {
	f := generic.NewFilter3[components.NPC, components.Identity, components.Kind]()
	var out []ecs.Entity
	q := f.Query(w.Arche)
	for q.Next() {
		npc, _, kind := q.Get()
		if kind.IsVehicle() != vehicles {
			continue
		}
		for _, r := range roles {
			if npc.Role == r {
				out = append(out, q.Entity())
				break
			}
		}
	}
	return out
}

func genericMap[T any](w *ecs.World) generic.Map1[T] { return generic.NewMap1[T](w.Arche) }
