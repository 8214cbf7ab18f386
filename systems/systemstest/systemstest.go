// Package systemstest is the kit the tests of the systems build their rigs
// on, as net/http/httptest is for servers: a world on a level with its
// static geometry baked, a prefab builder, scripted inputs for the people
// a test drives, a schedule set or the test failed, and ticks stepped.
//
// A system's test embeds *Rig in a rig of its own that keeps only what is
// particular to the system: which systems its schedule runs, and the
// helpers its tests share. Package systems/city/citytest is such a rig for
// the city's systems, shared by several packages.
package systemstest

import (
	"testing"

	"github.com/chewxy/math32"

	"github.com/fiveonit/engine/catalog"
	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/levels"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/motion"
	"github.com/mlange-42/arche/generic"
)

// Rig is a world on a level with a builder and scripted inputs. Its
// schedule is empty until Schedule sets one.
type Rig struct {
	// W is the world.
	W *ecs.World
	// Level is the world's level: nil for a bare world.
	Level *levels.Level
	// Static is Level's static geometry, baked by motion.BakeLevel: nil
	// for a bare world.
	Static *phys.Static
	// B builds entities in W.
	B *prefab.Builder

	// Drive scripts the inputs of the people in Inputs: Input calls it
	// each tick for each of them with their Drive emptied (its LookYaw
	// kept).
	Drive func(tick uint64, e ecs.Entity, d *components.Drive)
	// Inputs are the people Input drives, in the order it drives them.
	// Character appends to them; a test may append NPCs too.
	Inputs []ecs.Entity

	drives generic.Map1[components.Drive]
}

// Options choose a rig's world.
type Options struct {
	// Seed seeds the world's random source.
	Seed uint64
	// Rules are the world's rules.
	Rules ecs.Rules
	// Items is the world's item catalog (nil: an empty one).
	Items *catalog.Catalog
}

// New returns a rig of o on level l, its static geometry baked; l nil
// makes a bare world with no static geometry. It fails t on any error.
func New(t testing.TB, l *levels.Level, o Options) *Rig {
	t.Helper()
	var st *phys.Static
	if l != nil {
		var err error
		if st, err = motion.BakeLevel(l); err != nil {
			t.Fatal(err)
		}
	}
	w, err := ecs.New(ecs.Config{Seed: o.Seed, Level: l, Rules: o.Rules, Items: o.Items})
	if err != nil {
		t.Fatal(err)
	}
	return &Rig{W: w, Level: l, Static: st, B: prefab.New(w), drives: generic.NewMap1[components.Drive](w.Arche)}
}

// Parse parses a level from JSON for a test: name is its name without
// ".json". It fails t if the level is not valid.
func Parse(t testing.TB, name, js string) *levels.Level {
	t.Helper()
	l, err := levels.Parse(name+".json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Load loads a shipped level by name. It fails t if there is none.
func Load(t testing.TB, name string) *levels.Level {
	t.Helper()
	l, err := levels.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Schedule sets the world's schedule to entries. It fails t if the
// schedule is not valid.
func (r *Rig) Schedule(t testing.TB, entries ...ecs.Entry) {
	t.Helper()
	if err := r.W.SetSchedule(entries); err != nil {
		t.Fatal(err)
	}
}

// Input is the scripted players' input: for each live entity of Inputs,
// it empties its Drive (keeping its LookYaw) and lets Drive, if set, fill
// it. A rig runs it in the input phase, as ecs.SystemFunc(r.Input), where
// the server's input would run.
func (r *Rig) Input(w *ecs.World) {
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

// Hook returns a system that runs *f if it is set when the system runs:
// a place in the schedule where a test may look or meddle, set or cleared
// between steps.
func Hook(f *func(w *ecs.World)) ecs.System {
	return ecs.SystemFunc(func(w *ecs.World) {
		if *f != nil {
			(*f)(w)
		}
	})
}

// Step runs n ticks.
func (r *Rig) Step(n int) {
	for range n {
		r.W.Step()
	}
}

// Character makes a player's character on foot at (x, y) facing yaw, of
// the next player number (1 for the first), in no party, driven by Drive.
func (r *Rig) Character(t testing.TB, x, y, yaw float32) ecs.Entity {
	t.Helper()
	e, err := r.B.Character(uint16(len(r.Inputs)+1), 0, 0, components.Vec3{X: x, Y: y}, yaw)
	if err != nil {
		t.Fatal(err)
	}
	r.Inputs = append(r.Inputs, e)
	return e
}

// Vehicle makes a vehicle of kind and physics model at (x, y) facing yaw,
// with nobody in it.
func (r *Rig) Vehicle(t testing.TB, kind components.Kind, model uint8, x, y, yaw float32) ecs.Entity {
	t.Helper()
	e, err := r.B.Vehicle(kind, model, components.Vec3{X: x, Y: y}, yaw, ecs.Entity{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Car makes a sedan at (x, y) facing yaw, with nobody in it.
func (r *Rig) Car(t testing.TB, x, y, yaw float32) ecs.Entity {
	t.Helper()
	return r.Vehicle(t, components.KindCar, phys.ModelSedan, x, y, yaw)
}

// Pos returns e's position on the ground plane.
func (r *Rig) Pos(e ecs.Entity) phys.Vec {
	return phys.Flat(ecstest.Get[components.Pose](r.W, e).Pos)
}

// Speed returns e's speed on the ground plane, in metres per second.
func (r *Rig) Speed(e ecs.Entity) float32 {
	v := ecstest.Get[components.Velocity](r.W, e).Lin
	return math32.Sqrt(v.X*v.X + v.Y*v.Y)
}
