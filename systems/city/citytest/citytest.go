// Package citytest builds small city worlds for the tests and benchmarks of
// the city's systems (police, spawners, gates, damage, city, weapons), as
// net/http/httptest does for servers: a systemstest rig whose schedule runs
// the seats, the city's systems and the physics in the schedule's order
// and, where a test wants one, a stand-in for the AI's chaser driving.
package citytest

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/city/zones"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/systems/gates"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/spawners"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/fiveonit/engine/systems/weapons"
	"github.com/mlange-42/arche/generic"
)

// Rig is a world on a level with the city's systems: a systemstest.Rig
// whose schedule runs the seats, the city's systems and the physics, and
// an AI stand-in for the chasers.
type Rig struct {
	*systemstest.Rig
	// Zones are the level's zones, with Options.Safe made safe.
	Zones *zones.Zones

	// The city's systems in the schedule.
	Spawners *spawners.System
	Gates    *gates.System
	Police   *police.System
	Damage   *damage.System
	City     *city.System

	// Chase, when set, stands in for the AI's chaser driving: every
	// vehicle with a Chaser steers straight at its target at up to Chase
	// of throttle, and brakes to stop a few metres short of it.
	Chase float32

	chasers *generic.Filter4[components.Chaser, components.Pose, components.Velocity, components.Drive]
	poses   generic.Map1[components.Pose]
}

// Options choose the rig's world.
type Options struct {
	Seed  uint64
	Rules ecs.Rules
	// Safe names zones the game's rules make safe.
	Safe []string
}

// New builds a rig on level l, with the default game's item catalog.
func New(t testing.TB, l *levels.Level, o Options) *Rig {
	t.Helper()
	game, err := games.Lookup(games.Default)
	if err != nil {
		t.Fatal(err)
	}
	k := systemstest.New(t, l, systemstest.Options{Seed: o.Seed, Rules: o.Rules, Items: game.Items})
	w, st := k.W, k.Static
	r := &Rig{
		Rig: k, Zones: zones.New(l, o.Safe...),
		chasers: generic.NewFilter4[components.Chaser, components.Pose, components.Velocity, components.Drive](),
		poses:   generic.NewMap1[components.Pose](w.Arche),
	}
	r.chasers.Register(w.Arche)
	r.Spawners = spawners.New(w, l, st)
	r.Gates = gates.New(w, l)
	r.Spawners.KeyID = r.Gates.KeyID
	r.Police = police.New(w, l, st)
	r.Damage = damage.New(w, r.Zones, st)
	r.City = city.New(w, l, st, r.Zones)
	r.Schedule(t,
		ecs.Entry{Name: "input", Phase: ecs.PhaseInput, System: ecs.SystemFunc(r.Input)},
		ecs.Entry{Name: seats.Name, Phase: ecs.PhaseInput, System: seats.New(w, st)},
		ecs.Entry{Name: weapons.Name, Phase: ecs.PhaseInput, System: weapons.New(w)},
		ecs.Entry{Name: spawners.Name, Phase: ecs.PhasePreStep, System: r.Spawners},
		ecs.Entry{Name: gates.Name, Phase: ecs.PhasePreStep, System: r.Gates},
		ecs.Entry{Name: police.Name, Phase: ecs.PhasePreStep, System: r.Police},
		ecs.Entry{Name: "ai", Phase: ecs.PhasePreStep, System: ecs.SystemFunc(r.chase)},
		ecs.Entry{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, st)},
		ecs.Entry{Name: damage.Name, Phase: ecs.PhasePostStep, System: r.Damage},
		ecs.Entry{Name: city.Name, Phase: ecs.PhasePostStep, System: r.City},
	)
	return r
}

// chase drives every chaser straight at its target (the AI's stand-in).
func (r *Rig) chase(w *ecs.World) {
	if r.Chase == 0 {
		return
	}
	q := r.chasers.Query(w.Arche)
	for q.Next() {
		c, pose, vel, d := q.Get()
		if c.Target.IsZero() || !w.Arche.Alive(c.Target) {
			continue
		}
		tp := r.poses.Get(c.Target).Pos
		dx, dy := tp.X-pose.Pos.X, tp.Y-pose.Pos.Y
		dist := math32.Sqrt(dx*dx + dy*dy)
		co, si := pose.Rot.Heading()
		fwd, left := dx*co+dy*si, -dx*si+dy*co
		*d = components.Drive{Steer: max(-1, min(1, math32.Atan2(left, fwd)*2))}
		c.Sees = dist < police.SightRange
		speed := math32.Sqrt(vel.Lin.X*vel.Lin.X + vel.Lin.Y*vel.Lin.Y)
		switch {
		case dist < 4+speed*speed/16: // brake in time (a police car brakes at 12 m/s²)
			d.Brake = 1
			if speed < 0.5 {
				d.Brake = 0
			}
		case fwd > 0:
			d.Throttle = r.Chase
		default:
			d.Throttle = r.Chase * 0.5
		}
	}
}

// Give puts n of the item named name (of the default game's catalog) into
// e's inventory.
func (r *Rig) Give(t testing.TB, e ecs.Entity, name string, n int) {
	t.Helper()
	id, ok := r.W.Items.ByName(name)
	inv := ecstest.Get[components.Inventory](r.W, e)
	if !ok || inv == nil || r.W.Items.Add(inv, id, n, false) != n {
		t.Fatalf("give %d %s: no such item, no inventory or no room", n, name)
	}
}

// Pedestrian makes an NPC pedestrian standing at (x, y).
func (r *Rig) Pedestrian(t testing.TB, x, y float32) ecs.Entity {
	t.Helper()
	e, err := r.B.NPCPerson(components.KindPedestrian, components.RoleWalker, -1, components.Vec3{X: x, Y: y}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Seat puts person p at the wheel of car (seat 0), driving at once.
func (r *Rig) Seat(p, car ecs.Entity) {
	person := generic.NewMap2[components.PersonAction, components.SeatedIn](r.W.Arche)
	seats := generic.NewMap1[components.Seats](r.W.Arche)
	poses := generic.NewMap1[components.Pose](r.W.Arche)
	a, s := person.Get(p)
	a.Act = components.ActDriving
	s.Vehicle, s.Seat = car, 0
	seats.Get(car).Occupant[0] = p
	*poses.Get(p) = *poses.Get(car)
}

// Count returns how many live entities have component T and kind k (any
// kind when k is KindNone).
func Count[T any](w *ecs.World, k components.Kind) int {
	f := generic.NewFilter2[T, components.Kind]()
	q := f.Query(w.Arche)
	n := 0
	for q.Next() {
		_, kind := q.Get()
		if k == components.KindNone || *kind == k {
			n++
		}
	}
	return n
}

// Crimes returns the crimes of kind filed this tick and last (w.Crimes
// between two Steps holds the last tick's).
func Crimes(w *ecs.World, kind components.CrimeKind) []components.Crime {
	var out []components.Crime
	for _, c := range w.Crimes {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// Events returns the tick's events of kind.
func Events(w *ecs.World, kind components.EventKind) []components.Event {
	var out []components.Event
	for _, ev := range w.Events {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}
