package ai_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/systems/ai"
	"github.com/fiveonit/engine/systems/systemstest"
)

// TestGuardChaser: a guard's Chaser with no target leaves the guard's
// drive alone (its patrol, or the stealth system, moves it); sent after a
// player far off it runs there; armed (the stealth draws its pistol) and
// seeing the player within FireRange it stops, aims at them within
// AimError and fires in bursts.
func TestGuardChaser(t *testing.T) {
	l := systemstest.Load(t, "test-flat")
	r := newRig(t, l, ecs.Rules{Traffic: 0, Pedestrians: 0}, 1, nil)
	player := r.Character(t, 0, 0, 0)
	g, err := r.B.NPCPerson(components.KindGuard, components.RoleGuard, -1, components.Vec3{X: 60, Y: 0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := ecstest.Get[components.Drive](r.W, g)
	*d = components.Drive{MoveY: 1, LookYaw: 1.5} // its patrol's
	r.Step(1)
	if *d != (components.Drive{MoveY: 1, LookYaw: 1.5}) {
		t.Fatalf("an idle guard's drive was changed: %+v", *d)
	}
	if len(r.ai.Readout().Chasers) != 0 {
		t.Fatal("an idle guard is listed as a chaser")
	}

	ecstest.Get[components.Chaser](r.W, g).Target = player
	r.Step(1)
	if d.MoveY != 1 || d.Held&components.BtnSprint == 0 || d.Held&components.BtnFire != 0 {
		t.Fatalf("a guard 60 m off: %+v, want it running to the player", *d)
	}
	if c := r.ai.Readout().Chasers; len(c) != 1 || c[0].Dist < 55 {
		t.Fatalf("readout %+v", c)
	}

	ecstest.Get[components.PersonAction](r.W, g).Weapon = 1
	p := ecstest.Get[components.Pose](r.W, g)
	p.Pos.X = ai.FireRange - 3
	fired, stood := 0, 0
	for range 2 * ai.FireBurst {
		r.Step(1)
		if d.MoveY == 0 {
			stood++
		}
		if d.Held&components.BtnFire != 0 {
			fired++
		}
		if off := d.LookYaw - 3.1415927; off > ai.AimError+1e-3 || off < -ai.AimError-1e-3 {
			if off2 := off + 2*3.1415927; off2 > ai.AimError+1e-3 || off2 < -ai.AimError-1e-3 {
				t.Fatalf("aims %g, the player is at π", d.LookYaw)
			}
		}
	}
	if stood != 2*ai.FireBurst || fired != ai.FireBurst {
		t.Fatalf("in range: stood %d, fired %d of %d ticks: want to stand all and fire half", stood, fired, 2*ai.FireBurst)
	}
}
