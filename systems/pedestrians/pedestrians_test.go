package pedestrians_test

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/nav"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/pedestrians"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// blockLevel is a block with a building, a closed pavement round it, a
// straight open pavement to the south and a road between them.
const blockLevel = `{
  "name": "test-block", "version": 1,
  "ground": {"min": [-100, -100], "max": [100, 100]},
  "buildings": [
    {"id": "house", "footprint": [[-20, -20], [20, -20], [20, 20], [-20, 20]], "height": 10, "use": "residential"}
  ],
  "pavements": [
    {"id": "round", "points": [[-24, -24], [24, -24], [24, 24], [-24, 24]], "width": 4, "closed": true},
    {"id": "south", "points": [[-60, -50], [60, -50]], "width": 4}
  ]
}`

// rig is a world with the pedestrian system, the physics, and a hook for
// the test in the input phase (before the pedestrians) and the post-step
// phase (after them, before the watcher).
type rig struct {
	*systemstest.Rig
	m      *nav.Map
	input  func(w *ecs.World)
	after  func(w *ecs.World)
	drives generic.Map1[components.Drive]
}

func newRig(t testing.TB) *rig {
	t.Helper()
	k := systemstest.New(t, systemstest.Parse(t, "block", blockLevel), systemstest.Options{Seed: 1})
	w, st := k.W, k.Static
	r := &rig{Rig: k, m: nav.New(k.Level), drives: generic.NewMap1[components.Drive](w.Arche)}
	peds := pedestrians.NewWithMap(w, r.m, st)
	r.Schedule(t,
		ecs.Entry{Name: "input", Phase: ecs.PhaseInput, System: systemstest.Hook(&r.input)},
		ecs.Entry{Name: pedestrians.Name, Phase: ecs.PhasePreStep, System: peds},
		ecs.Entry{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, st)},
		ecs.Entry{Name: "after", Phase: ecs.PhasePostStep, System: systemstest.Hook(&r.after)},
		ecs.Entry{Name: pedestrians.WatchName, Phase: ecs.PhaseSync, System: peds.Watcher()},
	)
	return r
}

// ped makes a pedestrian of role on pavement pav, along metres along it.
func (r *rig) ped(t testing.TB, role components.NPCRole, pav int32, along float32) ecs.Entity {
	t.Helper()
	p, dir := r.m.PavementAt(pav, along)
	e, err := r.B.Pedestrian(role, 0, components.Vec3{X: p.X, Y: p.Y}, math32.Atan2(dir.Y, dir.X), pav, along)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestWalkPavements walks a walker, a jogger and an idler on the pavement
// round the block for half a minute: the walker and the jogger go round
// at their paces, the idler stays about its place, and all stay on the
// pavement, each on the right-hand side of its way.
func TestWalkPavements(t *testing.T) {
	cases := []struct {
		role           components.NPCRole
		minWay, maxWay float32 // metres along the loop in 30 s
	}{
		{components.RoleWalker, 30, 50},
		{components.RoleJogger, 80, 110},
		{components.RoleIdler, 0, 12},
	}
	for _, c := range cases {
		r := newRig(t)
		e := r.ped(t, c.role, 0, 20)
		start := r.Pos(e)
		var way, lastAlong float32 = 0, 20
		wrong := 0
		for i := 0; i < 60*30; i++ {
			r.Step(1)
			p := r.Pos(e)
			pav, along, dist := r.m.NearestPavement(p, 10)
			if pav != 0 || dist > 2-phys.DefaultWalker.Radius {
				t.Fatalf("role %d: off the pavement at %v (%.2f m from its line)", c.role, p, dist)
			}
			d := along - lastAlong
			if d > 80 { // round the loop's end
				d -= r.m.PavementLength(0)
			} else if d < -80 {
				d += r.m.PavementLength(0)
			}
			way += math32.Abs(d)
			lastAlong = along
			if c.role != components.RoleIdler && i%60 == 59 {
				// Right of its way: right of the points' order going with
				// it, left going against it.
				q, dir := r.m.PavementAt(0, along)
				left := dir.Cross(p.Sub(q)) > 0
				back := ecstest.Get[components.NPC](r.W, e).Mode&pedestrians.Back != 0
				if left != back {
					wrong++
				}
			}
		}
		if way < c.minWay || way > c.maxWay {
			t.Errorf("role %d: went %.1f m in 30 s, want %.0f..%.0f", c.role, way, c.minWay, c.maxWay)
		}
		if c.role == components.RoleIdler && r.Pos(e).Sub(start).Len() > 12 {
			t.Errorf("idler wandered %.1f m off", r.Pos(e).Sub(start).Len())
		}
		if c.role != components.RoleIdler && wrong > 3 {
			t.Errorf("role %d: on the left of its way %d times in 30", c.role, wrong)
		}
	}
}

// TestOpenPavementTurnsRound walks a walker to the end of the open
// pavement: it turns round there and walks back.
func TestOpenPavementTurnsRound(t *testing.T) {
	r := newRig(t)
	e := r.ped(t, components.RoleWalker, 1, 110)
	ecstest.Get[components.NPC](r.W, e).Mode = pedestrians.ModeWalk // east, with the points
	maxX, back := float32(-1e9), float32(1e9)
	for i := 0; i < 60*40; i++ {
		r.Step(1)
		p := r.Pos(e)
		if p.X < -61 || p.X > 61 {
			t.Fatalf("walked off the pavement's end to %v", p)
		}
		if p.X > maxX {
			maxX, back = p.X, p.X
		}
		back = min(back, p.X)
	}
	if maxX < 56 || back > maxX-30 {
		t.Fatalf("got to x=%.1f and back to %.1f in 40 s", maxX, back)
	}
}

// TestFleeFromShot fires a shot near pedestrians, the shot's event made
// before the pedestrian system runs or after it (then its watcher keeps
// it): those in range run from it, those beyond walk on.
func TestFleeFromShot(t *testing.T) {
	for _, late := range []bool{false, true} {
		r := newRig(t)
		near := []ecs.Entity{r.ped(t, components.RoleWalker, 1, 40), r.ped(t, components.RoleIdler, 1, 50), r.ped(t, components.RoleJogger, 1, 60)}
		far := r.ped(t, components.RoleWalker, 0, 60) // round the block, 60 m off
		r.Step(60)
		shot := components.Vec3{X: -5, Y: -50}
		fire := func(w *ecs.World) {
			if w.Tick() == 60 {
				w.Events = append(w.Events, components.Event{Kind: components.EventShot, Pos: shot, Dir: components.Vec3{X: 1}})
			}
		}
		if late {
			r.after = fire
		} else {
			r.input = fire
		}
		before := make([]float32, len(near))
		for i, e := range near {
			before[i] = r.Pos(e).Sub(phys.Flat(shot)).Len()
		}
		r.Step(60)
		for i, e := range near {
			npc := ecstest.Get[components.NPC](r.W, e)
			d := r.Pos(e).Sub(phys.Flat(shot)).Len()
			if npc.Mode&0x7f != pedestrians.ModeFlee || r.Speed(e) < 4 || d < before[i]+3 {
				t.Fatalf("late %v: pedestrian %d: mode %d, %.1f m/s, %.1f m from the shot (was %.1f)", late, i, npc.Mode, r.Speed(e), d, before[i])
			}
		}
		if m := ecstest.Get[components.NPC](r.W, far).Mode & 0x7f; m == pedestrians.ModeFlee {
			t.Fatalf("late %v: the pedestrian round the block flees", late)
		}
		// They run a few seconds, then walk back to a pavement.
		r.Step(60 * 12)
		for i, e := range near {
			if m := ecstest.Get[components.NPC](r.W, e).Mode & 0x7f; m == pedestrians.ModeFlee {
				t.Fatalf("pedestrian %d still flees after 12 s", i)
			}
			if _, _, dist := r.m.NearestPavement(r.Pos(e), 50); dist > 2 {
				t.Fatalf("pedestrian %d is %.1f m off the pavements", i, dist)
			}
			if r.Static.Overlaps(r.Pos(e), phys.DefaultWalker.Radius*0.9) {
				t.Fatalf("pedestrian %d ran into a building", i)
			}
		}
	}
}

// TestFleeFromCar drives a car at pedestrians: one on the pavement it
// drives along, one in the road in front of it: both get out of its way;
// one beside a car passing slowly on the road stays calm.
func TestFleeFromCar(t *testing.T) {
	cases := []struct {
		name       string
		carY, pedY float32
		throttle   float32
		flee       bool
	}{
		{"car on the pavement", -50, -50, 0.6, true},
		{"car coming fast in the road", -42, -42, 1, true},
		{"slow car in the road beside", -42, -50, 0.12, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			e, err := r.B.Vehicle(components.KindCar, phys.ModelSedan, components.Vec3{X: -58, Y: c.carY}, 0, ecs.Entity{})
			if err != nil {
				t.Fatal(err)
			}
			p := r.ped(t, components.RoleIdler, 1, 0)
			ecstest.Get[components.Pose](r.W, p).Pos = components.Vec3{X: 20, Y: c.pedY}
			r.input = func(w *ecs.World) {
				if w.Arche.Alive(e) {
					r.drives.Get(e).Throttle = c.throttle
				}
			}
			fled := false
			for i := 0; i < 60*6 && !fled; i++ {
				r.Step(1)
				fled = ecstest.Get[components.NPC](r.W, p).Mode&0x7f == pedestrians.ModeFlee
			}
			if fled != c.flee {
				t.Fatalf("fled %v, want %v", fled, c.flee)
			}
			if !c.flee {
				return
			}
			for i := 0; i < 60*4; i++ { // the car drives on through
				r.Step(1)
				for _, h := range r.W.Contacts {
					if h.A == p || h.B == p {
						t.Fatalf("run down all the same at %v", r.Pos(p))
					}
				}
			}
			if r.Pos(e).X < 25 {
				t.Fatalf("the car is only at %v: it did not pass", r.Pos(e))
			}
		})
	}
}
