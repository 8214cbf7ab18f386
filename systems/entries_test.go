package systems_test

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/missions"
	"github.com/fiveonit/engine/netsync"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/systemstest"
)

// TestEntriesOrder holds the schedule to its order. The pre-step's order
// is what the systems' own docs rely on: the spawners put their NPCs in
// first, a gate opened then lets a car through in the same step, the
// signals show this tick's lights before the AI's traffic reads them, the
// police come out before the pedestrians and the AI, the stealth sets the
// sentries' phases before the AI reads them, and the AI drives a chaser
// the tick it comes out. The MissionHost, in a game with missions, steps
// them last in the post-step: after the city has respawned the dead and
// the items system has laid the level's containers out. ecs.NewSchedule checks only the phases; this test
// checks the order within them.
func TestEntriesOrder(t *testing.T) {
	l := systemstest.Load(t, "test-flat")
	st, err := motion.BakeLevel(l)
	if err != nil {
		t.Fatal(err)
	}
	nop := ecs.SystemFunc(func(*ecs.World) {})
	for _, c := range []struct {
		name  string
		rules ecs.Rules
		want  map[ecs.Phase][]string
	}{
		{"police", ecs.FreeRoam(), map[ecs.Phase][]string{
			ecs.PhaseInput:    {"input", "seats", "weapons", "cars"},
			ecs.PhasePreStep:  {"spawners", "gates", "signals", "police", "pedestrians", "stealth", "ai"},
			ecs.PhaseStep:     {"physics"},
			ecs.PhasePostStep: {"damage", "city", "items"},
			ecs.PhaseSync:     {"lagcomp", "sync", "pedestrians-watch"},
		}},
		{"no police", ecs.Rules{}, map[ecs.Phase][]string{
			ecs.PhasePreStep: {"spawners", "gates", "signals", "pedestrians", "stealth", "ai"},
		}},
		{"missions", ecs.Rules{}, map[ecs.Phase][]string{
			ecs.PhasePostStep: {"damage", "city", "items", "missions"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := ecstest.New(t, ecs.Config{Seed: 1, Level: l, Rules: c.rules})
			o := systems.Options{Level: l, Static: st, Input: nop, Arena: netsync.NewArena()}
			if c.name == "missions" {
				o.Missions = []missions.Def{{Name: "m", Title: "M", Contact: "C", New: func() missions.Mission { return nil }}}
			}
			entries := systems.Entries(w, o)
			if _, err := ecs.NewSchedule(entries); err != nil {
				t.Fatal(err)
			}
			got := map[ecs.Phase][]string{}
			for _, e := range entries {
				got[e.Phase] = append(got[e.Phase], e.Name)
			}
			for _, p := range []ecs.Phase{ecs.PhaseInput, ecs.PhasePreStep, ecs.PhaseStep, ecs.PhasePostStep, ecs.PhaseSync} {
				if want, ok := c.want[p]; ok && !slices.Equal(got[p], want) {
					t.Errorf("%s: %q, want %q", p, got[p], want)
				}
			}
		})
	}
}

// resetter is a LevelResetter that notes its calls.
type resetter struct {
	name string
	log  *[]string
}

func (r resetter) Update(*ecs.World) {}
func (r resetter) ResetLevel()       { *r.log = append(*r.log, r.name) }

// TestResetLevel: ResetLevel calls every LevelResetter of the schedule, in
// the schedule's order, and no other system; it reports whether there was
// one. A room's schedule on a level has them; one with no level has none.
func TestResetLevel(t *testing.T) {
	var got []string
	w := ecstest.New(t, ecs.Config{Seed: 1})
	err := w.SetSchedule([]ecs.Entry{
		{Name: "a", Phase: ecs.PhaseInput, System: resetter{"a", &got}},
		{Name: "plain", Phase: ecs.PhasePreStep, System: ecs.SystemFunc(func(*ecs.World) {})},
		{Name: "b", Phase: ecs.PhasePostStep, System: resetter{"b", &got}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !systems.ResetLevel(w) || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("reset %v, want [a b]", got)
	}

	l := systemstest.Load(t, "test-flat")
	st, err := motion.BakeLevel(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range []*levels.Level{l, nil} {
		w := ecstest.New(t, ecs.Config{Seed: 1, Level: l})
		if err := w.SetSchedule(systems.Entries(w, systems.Options{Level: level, Static: st})); err != nil {
			t.Fatal(err)
		}
		if got := systems.ResetLevel(w); got != (level != nil) {
			t.Errorf("a room's schedule, level %v: ResetLevel %v", level != nil, got)
		}
	}
	if systems.ResetLevel(ecstest.New(t, ecs.Config{})) {
		t.Error("a world with no schedule: ResetLevel true")
	}
}
