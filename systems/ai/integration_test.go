package ai_test

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/nav"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/pedestrians"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// TestRoomSchedule runs the AI and the pedestrians in a room's whole
// schedule (systems.Entries, with the two added where they go if it has
// them not yet: pedestrians and ai last of the pre-step, the watcher in
// the sync phase) on
// main-city with free roam's police: a wanted player standing in the
// street brings police units out, which the AI drives to them; traffic
// and crowd fill round them; a steady tick allocates nothing.
func TestRoomSchedule(t *testing.T) {
	r := systemstest.New(t, systemstest.Load(t, "main-city"), systemstest.Options{Seed: 5, Rules: ecs.FreeRoam()})
	w, l, st := r.W, r.Level, r.Static
	entries := systems.Entries(w, systems.Options{Level: l, Static: st})
	if !slices.ContainsFunc(entries, func(e ecs.Entry) bool { return e.Name == ai.Name }) {
		// Not wired into the room's schedule yet: add the two where they
		// go.
		m := nav.New(l)
		peds := pedestrians.NewWithMap(w, m, st)
		var with []ecs.Entry
		for _, e := range entries {
			if e.Phase == ecs.PhaseStep {
				with = append(with,
					ecs.Entry{Name: pedestrians.Name, Phase: ecs.PhasePreStep, System: peds},
					ecs.Entry{Name: ai.Name, Phase: ecs.PhasePreStep, System: ai.NewWithMap(w, m, st)})
			}
			with = append(with, e)
		}
		entries = append(with, ecs.Entry{Name: pedestrians.WatchName, Phase: ecs.PhaseSync, System: peds.Watcher()})
	}
	r.Schedule(t, entries...)
	aiSys := w.Sched.System(ai.Name).(*ai.System)
	p, err := r.B.Character(1, 0, 0, components.Vec3{X: 150, Y: -1.75}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wanted := generic.NewMap1[components.Wanted](w.Arche)
	came, saw := false, false
	for i := 0; i < 60*40; i++ {
		if wt := wanted.Get(p); wt.Arrests == 0 {
			wt.Stars, wt.Unseen = 2, 0 // wanted until the police get them
		}
		w.Step()
		for _, c := range aiSys.Readout().Chasers {
			saw = saw || c.Sees
			came = came || c.Dist < 15
		}

	}
	ro := aiSys.Readout()
	if ro.Traffic != 40 || ro.Pedestrians < 55 {
		t.Fatalf("traffic %d, crowd %d", ro.Traffic, ro.Pedestrians)
	}
	if !came || !saw {
		t.Fatalf("the police came %v, saw the player %v", came, saw)
	}
	if wanted.Get(p).Arrests == 0 {
		t.Fatal("the police never made the arrest")
	}
	t.Logf("%v allocations a tick in the whole room's schedule", testing.AllocsPerRun(100, w.Step))
}
