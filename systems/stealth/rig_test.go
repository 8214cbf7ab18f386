package stealth

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/mlange-42/arche/generic"
)

// rigLevel is open ground with one block east of the origin (x 10..14,
// y -5..5, 5 m tall), a low kerb (0.5 m) south of it, a watched restricted
// zone (the "lot", x 30..60) with a camera in it facing west, and one
// vehicle bay.
const rigLevel = `{
  "name": "stealth-rig",
  "version": 1,
  "ground": {"min": [-100, -100], "max": [100, 100]},
  "buildings": [
    {"id": "block", "footprint": [[10, -5], [14, -5], [14, 5], [10, 5]], "height": 5, "use": "generic"},
    {"id": "kerb", "footprint": [[-20, -40], [20, -40], [20, -39], [-20, -39]], "height": 0.5, "use": "wall"}
  ],
  "spawns": [{"role": "player", "pos": [0, -60], "yaw": 0}],
  "zones": [{"id": "lot", "kind": "restricted", "polygon": [[30, -30], [60, -30], [60, 30], [30, 30]]}],
  "vehicleSpawners": [{"id": "bay", "model": "sedan", "bays": [{"pos": [-30, 50], "yaw": 0}]}],
  "cameras": [{"id": "cam", "pos": [58, 0], "yaw": 3.1415927, "arc": 1, "range": 25, "sweep": 0.5, "period": 4}]
}`

// rig is a world on rigLevel with the stealth system alone in its
// schedule: the tests make the guards, players and cars and move them.
type rig struct {
	t      *testing.T
	w      *ecs.World
	l      *levels.Level
	static *phys.Static
	s      *System
	b      *prefab.Builder
	poses  generic.Map2[components.Pose, components.Velocity]
	seated generic.Map2[components.PersonAction, components.SeatedIn]
	seats  generic.Map1[components.Seats]
	sentry generic.Map1[components.Sentry]
}

// newRig makes a rig with the room clock stopped at hour.
func newRig(t *testing.T, hour float64) *rig {
	t.Helper()
	l, err := levels.Parse("stealth-rig.json", []byte(rigLevel))
	if err != nil {
		t.Fatal(err)
	}
	st, err := motion.BakeLevel(l)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ecs.New(ecs.Config{Seed: 1, Level: l, Rules: ecs.Rules{ClockStart: hour * 60}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(w, l, st)
	if err := w.SetSchedule([]ecs.Entry{{Name: Name, Phase: ecs.PhasePreStep, System: s}}); err != nil {
		t.Fatal(err)
	}
	return &rig{
		t: t, w: w, l: l, static: st, s: s, b: prefab.New(w),
		poses:  generic.NewMap2[components.Pose, components.Velocity](w.Arche),
		seated: generic.NewMap2[components.PersonAction, components.SeatedIn](w.Arche),
		seats:  generic.NewMap1[components.Seats](w.Arche),
		sentry: generic.NewMap1[components.Sentry](w.Arche),
	}
}

// guard makes a guard at (x, y) facing yaw, of no spawner (it keeps its
// post).
func (r *rig) guard(x, y, yaw float32) ecs.Entity {
	r.t.Helper()
	e, err := r.b.NPCPerson(components.KindGuard, components.RoleGuard, -1, components.Vec3{X: x, Y: y}, yaw)
	if err != nil {
		r.t.Fatal(err)
	}
	return e
}

// player makes a player's character on foot at (x, y).
func (r *rig) player(x, y float32) ecs.Entity {
	r.t.Helper()
	e, err := r.b.Character(1, 0, 0, components.Vec3{X: x, Y: y}, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	return e
}

// car parks a sedan at (x, y) facing yaw.
func (r *rig) car(x, y, yaw float32) ecs.Entity {
	r.t.Helper()
	e, err := r.b.Vehicle(components.KindCar, phys.ModelSedan, components.Vec3{X: x, Y: y}, yaw, ecs.Entity{})
	if err != nil {
		r.t.Fatal(err)
	}
	return e
}

// seat puts person p at the wheel of car v.
func (r *rig) seat(p, v ecs.Entity) {
	act, in := r.seated.Get(p)
	act.Act, in.Vehicle, in.Seat = components.ActDriving, v, 0
	r.seats.Get(v).Occupant[0] = p
	pose, _ := r.poses.Get(p)
	vp, _ := r.poses.Get(v)
	pose.Pos = vp.Pos
}

// move puts e at (x, y).
func (r *rig) move(e ecs.Entity, x, y float32) {
	p, _ := r.poses.Get(e)
	p.Pos.X, p.Pos.Y = x, y
}

// step runs n ticks.
func (r *rig) step(n int) {
	for range n {
		r.w.Step()
	}
}

// gather makes the system list the players and sentries as a tick does.
func (r *rig) gather() {
	r.s.light = r.s.Tuning.Light(float32(r.w.Clock.Minutes() / 60))
	r.s.rays = 0
	r.s.gatherSentries(r.w)
	r.s.gatherPlayers(r.w)
}

// rate returns the suspicion a second guard g gains on player p now.
func (r *rig) rate(g, p ecs.Entity) float32 {
	r.t.Helper()
	r.gather()
	var sn *sentry
	for i := range r.s.sentries {
		if r.s.sentries[i].e == g {
			sn = &r.s.sentries[i]
		}
	}
	tg := r.s.playerOf(p)
	if sn == nil {
		r.t.Fatal("no such guard")
	}
	if tg == nil {
		return 0 // out of every sentry's and camera's reach: not even looked at
	}
	se := r.sentry.Get(g)
	rate, ok := r.s.sentryRate(r.w, sn, tg, r.s.Tuning.RangeAt(r.s.light), tg.e == se.Target && se.Phase != components.SentryIdle)
	if !ok {
		r.t.Fatal("out of rays")
	}
	return rate
}
