package ai_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/pedestrians"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/signals"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// rig is a world on a level with the systems of a room's tick: the
// players' inputs (scripted), seats, signals, pedestrians, ai, physics and
// the pedestrians' watcher.
type rig struct {
	*systemstest.Rig
	ai   *ai.System
	peds *pedestrians.System
	sig  *signals.System
	pre  func(w *ecs.World) // runs in the input phase, after the inputs
	post func(w *ecs.World) // runs in the pre-step phase, after the AI
}

func newRig(t testing.TB, l *levels.Level, rules ecs.Rules, seed uint64, tune func(*ai.Tuning)) *rig {
	t.Helper()
	r := &rig{Rig: systemstest.New(t, l, systemstest.Options{Seed: seed, Rules: rules})}
	w, st := r.W, r.Static
	r.ai = ai.New(w, l, st)
	if tune != nil {
		tune(&r.ai.Tuning)
	}
	r.peds = pedestrians.New(w, l, st)
	r.sig = signals.New(w, l)
	input := ecs.SystemFunc(func(w *ecs.World) {
		r.Input(w)
		if r.pre != nil {
			r.pre(w)
		}
	})
	r.Schedule(t,
		ecs.Entry{Name: "input", Phase: ecs.PhaseInput, System: input},
		ecs.Entry{Name: seats.Name, Phase: ecs.PhaseInput, System: seats.New(w, st)},
		ecs.Entry{Name: signals.Name, Phase: ecs.PhasePreStep, System: r.sig},
		ecs.Entry{Name: pedestrians.Name, Phase: ecs.PhasePreStep, System: r.peds},
		ecs.Entry{Name: ai.Name, Phase: ecs.PhasePreStep, System: r.ai},
		ecs.Entry{Name: "check", Phase: ecs.PhasePreStep, System: systemstest.Hook(&r.post)},
		ecs.Entry{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, st)},
		ecs.Entry{Name: pedestrians.WatchName, Phase: ecs.PhaseSync, System: r.peds.Watcher()},
	)
	return r
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
