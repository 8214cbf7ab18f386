package stealth

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/systems/systemstest"
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
	*systemstest.Rig
	t        *testing.T
	s        *System
	poses    generic.Map2[components.Pose, components.Velocity]
	person   generic.Map2[components.PersonAction, components.SeatedIn]
	seats    generic.Map1[components.Seats]
	sentryOf generic.Map1[components.Sentry]
}

// newRig makes a rig with the room clock stopped at hour.
func newRig(t *testing.T, hour float64) *rig {
	t.Helper()
	k := systemstest.New(t, systemstest.Parse(t, "stealth-rig", rigLevel), systemstest.Options{Seed: 1, Rules: ecs.Rules{ClockStart: hour * 60}})
	w := k.W
	s := New(w, k.Level, k.Static)
	k.Schedule(t, ecs.Entry{Name: Name, Phase: ecs.PhasePreStep, System: s})
	return &rig{
		Rig: k, t: t, s: s,
		poses:    generic.NewMap2[components.Pose, components.Velocity](w.Arche),
		person:   generic.NewMap2[components.PersonAction, components.SeatedIn](w.Arche),
		seats:    generic.NewMap1[components.Seats](w.Arche),
		sentryOf: generic.NewMap1[components.Sentry](w.Arche),
	}
}

// guard makes a guard at (x, y) facing yaw, of no spawner (it keeps its
// post).
func (r *rig) guard(x, y, yaw float32) ecs.Entity {
	r.t.Helper()
	e, err := r.B.NPCPerson(components.KindGuard, components.RoleGuard, -1, components.Vec3{X: x, Y: y}, yaw)
	if err != nil {
		r.t.Fatal(err)
	}
	return e
}

// player makes a player's character on foot at (x, y).
func (r *rig) player(x, y float32) ecs.Entity {
	r.t.Helper()
	e, err := r.B.Character(1, 0, 0, components.Vec3{X: x, Y: y}, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	return e
}

// car parks a sedan at (x, y) facing yaw.
func (r *rig) car(x, y, yaw float32) ecs.Entity { return r.Car(r.t, x, y, yaw) }

// seat puts person p at the wheel of car v.
func (r *rig) seat(p, v ecs.Entity) {
	act, in := r.person.Get(p)
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

// gather makes the system list the players and sentries as a tick does.
func (r *rig) gather() {
	r.s.light = r.s.Tuning.Light(float32(r.W.Clock.Minutes() / 60))
	r.s.rays = 0
	r.s.gatherSentries(r.W)
	r.s.gatherPlayers(r.W)
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
	se := r.sentryOf.Get(g)
	rate, ok := r.s.sentryRate(r.W, sn, tg, r.s.Tuning.RangeAt(r.s.light), tg.e == se.Target && se.Phase != components.SentryIdle)
	if !ok {
		r.t.Fatal("out of rays")
	}
	return rate
}
