// Package citytest builds small city worlds for the tests and benchmarks of
// the city's systems (police, spawners, gates, damage, city), as
// net/http/httptest does for servers: a world on a level with the seats, the
// city's systems and the physics in the schedule's order, scripted inputs
// for the people a test drives and, where a test wants one, a stand-in for
// the AI's chaser driving.
package citytest

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/games"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/city"
	"github.com/fiveonit/engine/systems/city/zones"
	"github.com/fiveonit/engine/systems/damage"
	"github.com/fiveonit/engine/systems/gates"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/fiveonit/engine/systems/police"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/spawners"
	"github.com/fiveonit/engine/systems/weapons"
	"github.com/mlange-42/arche/generic"
)

// Rig is a world on a level with the city's systems.
type Rig struct {
	W      *ecs.World
	Level  *levels.Level
	Static *phys.Static
	Zones  *zones.Zones
	B      *prefab.Builder

	Spawners *spawners.System
	Gates    *gates.System
	Police   *police.System
	Damage   *damage.System
	City     *city.System

	// Drive scripts the inputs of the people in Inputs: it is called each
	// tick for each of them with their Drive emptied (its LookYaw kept).
	Drive  func(tick uint64, e ecs.Entity, d *components.Drive)
	Inputs []ecs.Entity
	// Chase, when set, stands in for the AI's chaser driving: every
	// vehicle with a Chaser steers straight at its target at up to Chase
	// of throttle, and brakes to stop a few metres short of it.
	Chase float32

	drives  generic.Map1[components.Drive]
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

// Parse parses a level from JSON for a test.
func Parse(t testing.TB, name, js string) *levels.Level {
	t.Helper()
	l, err := levels.Parse(name+".json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Load loads a shipped level.
func Load(t testing.TB, name string) *levels.Level {
	t.Helper()
	l, err := levels.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// New builds a rig on level l.
func New(t testing.TB, l *levels.Level, o Options) *Rig {
	t.Helper()
	st, err := motion.BakeLevel(l)
	if err != nil {
		t.Fatal(err)
	}
	game, err := games.Lookup(games.Default)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ecs.New(ecs.Config{Seed: o.Seed, Level: l, Rules: o.Rules, Items: game.Items})
	if err != nil {
		t.Fatal(err)
	}
	r := &Rig{
		W: w, Level: l, Static: st, Zones: zones.New(l, o.Safe...), B: prefab.New(w),
		drives:  generic.NewMap1[components.Drive](w.Arche),
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
	entries := []ecs.Entry{
		{Name: "input", Phase: ecs.PhaseInput, System: ecs.SystemFunc(r.input)},
		{Name: seats.Name, Phase: ecs.PhaseInput, System: seats.New(w, st)},
		{Name: weapons.Name, Phase: ecs.PhaseInput, System: weapons.New(w)},
		{Name: spawners.Name, Phase: ecs.PhasePreStep, System: r.Spawners},
		{Name: gates.Name, Phase: ecs.PhasePreStep, System: r.Gates},
		{Name: police.Name, Phase: ecs.PhasePreStep, System: r.Police},
		{Name: "ai", Phase: ecs.PhasePreStep, System: ecs.SystemFunc(r.chase)},
		{Name: motion.Name, Phase: ecs.PhaseStep, System: motion.New(w, st)},
		{Name: damage.Name, Phase: ecs.PhasePostStep, System: r.Damage},
		{Name: city.Name, Phase: ecs.PhasePostStep, System: r.City},
	}
	if err := w.SetSchedule(entries); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *Rig) input(w *ecs.World) {
	for _, e := range r.Inputs {
		if !w.Arche.Alive(e) {
			continue
		}
		d := r.drives.Get(e)
		*d = components.Drive{LookYaw: d.LookYaw}
		if r.Drive != nil {
			r.Drive(w.Tick(), e, d)
		}
	}
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

// Step runs n ticks.
func (r *Rig) Step(n int) {
	for range n {
		r.W.Step()
	}
}

// Character makes a player's character at (x, y) facing yaw, driven by
// Drive.
func (r *Rig) Character(t testing.TB, x, y, yaw float32) ecs.Entity {
	t.Helper()
	e, err := r.B.Character(uint8(len(r.Inputs)+1), 0, 0, components.Vec3{X: x, Y: y}, yaw)
	if err != nil {
		t.Fatal(err)
	}
	r.Inputs = append(r.Inputs, e)
	return e
}

// Give puts n of the item named name (of the default game's catalog) into
// e's inventory.
func (r *Rig) Give(t testing.TB, e ecs.Entity, name string, n int) {
	t.Helper()
	id, ok := r.W.Items.ByName(name)
	inv := Get[components.Inventory](r.W, e)
	if !ok || inv == nil || r.W.Items.Add(inv, id, n, false) != n {
		t.Fatalf("give %d %s: no such item, no inventory or no room", n, name)
	}
}

// Car makes a car of model at (x, y) facing yaw.
func (r *Rig) Car(t testing.TB, kind components.Kind, model uint8, x, y, yaw float32) ecs.Entity {
	t.Helper()
	e, err := r.B.Vehicle(kind, model, components.Vec3{X: x, Y: y}, yaw, ecs.Entity{})
	if err != nil {
		t.Fatal(err)
	}
	return e
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

// Seat puts person at the wheel of car (seat 0), driving at once.
func (r *Rig) Seat(person, car ecs.Entity) {
	pm := generic.NewMap2[components.PersonAction, components.SeatedIn](r.W.Arche)
	sm := generic.NewMap1[components.Seats](r.W.Arche)
	poses := generic.NewMap1[components.Pose](r.W.Arche)
	a, s := pm.Get(person)
	a.Act = components.ActDriving
	s.Vehicle, s.Seat = car, 0
	sm.Get(car).Occupant[0] = person
	*poses.Get(person) = *poses.Get(car)
}

// Get returns e's component T (nil when e has none).
func Get[T any](w *ecs.World, e ecs.Entity) *T {
	m := generic.NewMap1[T](w.Arche)
	return m.Get(e)
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
