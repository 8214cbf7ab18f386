package cars_test

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/games"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems"
	"github.com/fiveonit/engine/systems/cars"
	"github.com/fiveonit/engine/systems/systemstest"
	"github.com/mlange-42/arche/generic"
)

// level has a yard's locked vans (key tag yard) and a garage of two bays.
const level = `{
  "name": "test-cars",
  "version": 1,
  "ground": {"min":[-200,-200],"max":[200,200]},
  "buildings": [
    {"id":"depot","footprint":[[-30,60],[30,60],[30,80],[-30,80]],"height":5,"use":"garage"}
  ],
  "vehicleSpawners": [
    {"id":"vans","model":"van","bays":[{"pos":[0,0],"yaw":0}],"respawn":600,"locked":true,"keyTag":"yard"},
    {"id":"depot-bays","bays":[{"pos":[-10,50],"yaw":1.5707964},{"pos":[10,50],"yaw":1.5707964}],"garage":"depot","price":100}
  ],
  "containers": [
    {"id":"box","kind":"crate","pos":[0,-100],"yaw":0}
  ]
}`

// rig is a world on level with the whole schedule but the server's input.
type rig struct {
	*systemstest.Rig
	t   *testing.T
	c   *cars.System
	van ecs.Entity
}

func newRig(t *testing.T, rules ecs.Rules) *rig {
	t.Helper()
	g, err := games.Lookup(games.Default)
	if err != nil {
		t.Fatal(err)
	}
	k := systemstest.New(t, systemstest.Parse(t, "test-cars", level), systemstest.Options{Seed: 1, Rules: rules, Items: g.Items})
	w := k.W
	k.Schedule(t, systems.Entries(w, systems.Options{Level: k.Level, Static: k.Static, Prices: g.Price})...)
	systems.Warm(w)
	r := &rig{Rig: k, t: t, c: systems.Cars(w)}
	if r.c == nil {
		t.Fatal("no cars system in the schedule")
	}
	r.Step(1)
	q := generic.NewFilter1[components.CarLock]().Query(w.Arche)
	for q.Next() {
		r.van = q.Entity()
	}
	if r.van.IsZero() {
		t.Fatal("the vans' spawner parked nothing")
	}
	return r
}

// player makes a player's character on foot at (x, y) with owner number
// owner.
func (r *rig) player(owner uint32, x, y float32) ecs.Entity {
	r.t.Helper()
	e, err := r.B.Character(uint16(owner), 0, owner, components.Vec3{X: x, Y: y}, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	ecstest.Get[components.Player](r.W, e).Owner = owner
	return e
}

// give puts n of the item named name into e's inventory.
func (r *rig) give(e ecs.Entity, name string) {
	r.t.Helper()
	if err := systems.Items(r.W).Give(r.W, e, name, 1); err != nil {
		r.t.Fatal(err)
	}
}

// car makes a car of owner's at (x, y), open, with nobody in it.
func (r *rig) car(owner uint32, x, y float32) ecs.Entity {
	r.t.Helper()
	c, err := r.B.Vehicle(components.KindCar, phys.ModelSedan, components.Vec3{X: x, Y: y}, 0, ecs.Entity{})
	if err != nil {
		r.t.Fatal(err)
	}
	r.B.SetCarLock(c, components.CarLock{Owner: owner}, false)
	return c
}

// press presses Use for e, runs a tick and lets go.
func (r *rig) press(e ecs.Entity) {
	ecstest.Get[components.Drive](r.W, e).Pressed = components.BtnUse
	r.Step(1)
	ecstest.Get[components.Drive](r.W, e).Pressed = 0
}

func locked(w *ecs.World, car ecs.Entity) bool {
	return ecstest.Get[components.Flags](w, car).Bits&components.FlagLocked != 0
}

func wid(w *ecs.World, e ecs.Entity) uint16 { return ecstest.Get[components.Identity](w, e).WireID }

// TestSpawnersCarsAnswerToTheirKey: the vans' spawner parks them locked,
// nobody's, with the yard's key; the cars system lists them as marked.
func TestSpawnersCarsAnswerToTheirKey(t *testing.T) {
	r := newRig(t, ecs.Rules{PlayersHurt: "on"})
	r.Step(1) // the marked cars are listed in the input phase: the van came after
	l := *ecstest.Get[components.CarLock](r.W, r.van)
	id, ok := l.KeyID()
	if l.Owner != 0 || !ok || r.c.KeyTag(id) != "yard" || !locked(r.W, r.van) {
		t.Fatalf("the van: lock %+v (tag %q), locked %v: want nobody's, the yard key, locked", l, r.c.KeyTag(id), locked(r.W, r.van))
	}
	found := false
	for _, m := range r.c.Marked() {
		found = found || m.WireID == wid(r.W, r.van) && m.Key == l.Key
	}
	if !found {
		t.Fatalf("the van is not among the marked cars %+v", r.c.Marked())
	}
}

// TestLockedVanOpensForItsKey: a locked van lets in whoever carries its
// key (a key item, or the tag on the key ring), and nobody else; its
// owner gets into their own locked car.
func TestLockedVanOpensForItsKey(t *testing.T) {
	cases := []struct {
		name string
		key  func(r *rig, e ecs.Entity)
		want bool
	}{
		{"no key", func(*rig, ecs.Entity) {}, false},
		{"the yard key item", func(r *rig, e ecs.Entity) { r.give(e, "yard-key") }, true},
		{"another key item", func(r *rig, e ecs.Entity) { r.give(e, "police-key") }, false},
		{"the tag on the key ring", func(r *rig, e ecs.Entity) {
			if err := systems.Gates(r.W).Give(r.W, e, "yard"); err != nil {
				r.t.Fatal(err)
			}
		}, true},
		{"a crowbar", func(r *rig, e ecs.Entity) { r.give(e, "crowbar") }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, ecs.Rules{PlayersHurt: "on"})
			p := r.player(1, 0, 1.9) // beside the van's door
			c.key(r, p)
			r.press(p)
			in := ecstest.Get[components.SeatedIn](r.W, p).Vehicle == r.van
			if in != c.want {
				t.Fatalf("got in %v, want %v", in, c.want)
			}
		})
	}
	r := newRig(t, ecs.Rules{PlayersHurt: "on"})
	own := r.car(7, 50, 0)
	r.B.SetCarLock(own, components.CarLock{Owner: 7}, true)
	stranger, owner := r.player(8, 50, 1.9), r.player(7, 50, -1.9)
	r.press(stranger)
	r.press(owner)
	if ecstest.Get[components.SeatedIn](r.W, stranger).Vehicle == own || ecstest.Get[components.SeatedIn](r.W, owner).Vehicle != own {
		t.Fatal("a locked car of its owner's: want the owner in and the stranger out")
	}
}

// TestLock: lock and unlock by the owner or a key's holder within reach or
// sitting inside; every other ask refused with its reason, and nothing
// changed.
func TestLock(t *testing.T) {
	cases := []struct {
		name   string
		set    func(r *rig) (e ecs.Entity, car uint16)
		lock   bool
		want   error
		locked bool // the car's lock after
	}{
		{"owner locks their car", func(r *rig) (ecs.Entity, uint16) {
			return r.player(3, 50, 2), wid(r.W, r.car(3, 50, 0))
		}, true, nil, true},
		{"a stranger locks it", func(r *rig) (ecs.Entity, uint16) {
			return r.player(4, 50, 2), wid(r.W, r.car(3, 50, 0))
		}, true, cars.ErrNotYours, false},
		{"owner, too far", func(r *rig) (ecs.Entity, uint16) {
			return r.player(3, 50, 10), wid(r.W, r.car(3, 50, 0))
		}, true, cars.ErrTooFar, false},
		{"key holder unlocks the van", func(r *rig) (ecs.Entity, uint16) {
			p := r.player(5, 0, 3)
			r.give(p, "yard-key")
			return p, wid(r.W, r.van)
		}, false, nil, false},
		{"no key for the van", func(r *rig) (ecs.Entity, uint16) {
			return r.player(5, 0, 3), wid(r.W, r.van)
		}, false, cars.ErrNoKey, true},
		{"the van is locked already", func(r *rig) (ecs.Entity, uint16) {
			p := r.player(5, 0, 3)
			r.give(p, "yard-key")
			return p, wid(r.W, r.van)
		}, true, cars.ErrAlready, true},
		{"nobody's car with no key", func(r *rig) (ecs.Entity, uint16) {
			return r.player(5, 50, 2), wid(r.W, r.car(0, 50, 0))
		}, true, cars.ErrNotYours, false},
		{"no such car", func(r *rig) (ecs.Entity, uint16) {
			return r.player(5, 50, 2), 999
		}, true, cars.ErrNoCar, false},
		{"not a car", func(r *rig) (ecs.Entity, uint16) {
			p := r.player(5, 50, 2)
			return p, wid(r.W, r.player(6, 50, 3))
		}, true, cars.ErrNoCar, false},
		{"no car named, none sat in", func(r *rig) (ecs.Entity, uint16) {
			return r.player(5, 50, 2), 0
		}, true, cars.ErrNoCar, false},
		{"the dead lock nothing", func(r *rig) (ecs.Entity, uint16) {
			p := r.player(3, 50, 2)
			ecstest.Get[components.Health](r.W, p).HP = 0
			ecstest.Get[components.PersonAction](r.W, p).Act = components.ActDead
			return p, wid(r.W, r.car(3, 50, 0))
		}, true, cars.ErrDead, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, ecs.Rules{PlayersHurt: "on"})
			e, car := c.set(r)
			err := r.c.Lock(r.W, e, car, c.lock)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Lock: %v, want %v", err, c.want)
			}
			if ce, ok := r.W.ByWireID(car); ok && ecstest.Get[components.CarLock](r.W, ce) != nil && locked(r.W, ce) != c.locked {
				t.Fatalf("locked %v after, want %v", locked(r.W, ce), c.locked)
			}
		})
	}
	// Sitting inside, with no car named.
	r := newRig(t, ecs.Rules{PlayersHurt: "on"})
	own := r.car(3, 50, 0)
	p := r.player(3, 50, 1.9)
	r.press(p)
	if err := r.c.Lock(r.W, p, 0, true); err != nil || !locked(r.W, own) {
		t.Fatalf("lock from the driver's seat: %v, locked %v", err, locked(r.W, own))
	}
}

// TestForce: a crowbar forces a locked car with nobody inside in
// BreakTicks, a crime from the start; walking away stops it, a car with
// somebody in it or no crowbar are refused.
func TestForce(t *testing.T) {
	r := newRig(t, ecs.Rules{PlayersHurt: "on", Police: true})
	thief := r.player(9, 0, 1.9)
	if err := r.c.Force(r.W, thief); !errors.Is(err, cars.ErrNoTool) {
		t.Fatalf("force without a crowbar: %v", err)
	}
	r.give(thief, "crowbar")
	slot := -1
	for i, s := range ecstest.Get[components.Inventory](r.W, thief).Slots {
		if s.Item != 0 {
			slot = i
		}
	}
	// Through the items system's use, as the command does.
	if err := systems.Items(r.W).Use(r.W, thief, slot); err != nil {
		t.Fatalf("use the crowbar at the van: %v", err)
	}
	if car, ok := r.c.Forcing(thief); !ok || car != r.van {
		t.Fatal("not forcing the van")
	}
	crimes := 0
	for _, c := range r.W.Crimes {
		if c.Kind == components.CrimeBreakIn && c.Offender == thief && c.Victim == r.van {
			crimes++
		}
	}
	if crimes != 1 {
		t.Fatalf("%d break-in crimes filed, want 1", crimes)
	}
	if err := r.c.Force(r.W, thief); !errors.Is(err, cars.ErrAlready) {
		t.Fatalf("force twice: %v", err)
	}
	r.Step(cars.BreakTicks - 1)
	if !locked(r.W, r.van) {
		t.Fatal("the van gave before BreakTicks")
	}
	if wt := ecstest.Get[components.Wanted](r.W, thief); wt.Heat == 0 && wt.Stars == 0 {
		t.Fatal("the police did not see the break-in: no Heat")
	}
	r.Step(2)
	if locked(r.W, r.van) {
		t.Fatal("the van is still locked after BreakTicks")
	}
	r.press(thief)
	if ecstest.Get[components.SeatedIn](r.W, thief).Vehicle != r.van {
		t.Fatal("the thief did not get into the forced van")
	}

	// Walking away stops it.
	r = newRig(t, ecs.Rules{PlayersHurt: "on"})
	thief = r.player(9, 0, 1.9)
	r.give(thief, "crowbar")
	if err := r.c.Force(r.W, thief); err != nil {
		t.Fatal(err)
	}
	r.Step(10)
	ecstest.Get[components.Pose](r.W, thief).Pos.Y = 20
	r.Step(cars.BreakTicks)
	if !locked(r.W, r.van) {
		t.Fatal("the van gave to a thief who walked away")
	}
	if _, ok := r.c.Forcing(thief); ok {
		t.Fatal("still forcing from 20 m away")
	}

	// Somebody inside.
	r = newRig(t, ecs.Rules{PlayersHurt: "on"})
	own := r.car(3, 50, 0)
	owner := r.player(3, 50, 1.9)
	r.press(owner)
	r.Step(30)
	r.c.Lock(r.W, owner, 0, true)
	thief = r.player(9, 50, -1.9)
	r.give(thief, "crowbar")
	if err := r.c.Force(r.W, thief); !errors.Is(err, cars.ErrOccupied) {
		t.Fatalf("force a locked car with its owner inside: %v", err)
	}
	if !locked(r.W, own) {
		t.Fatal("the car is open")
	}
	// Nothing locked near.
	far := r.player(10, 150, 150)
	r.give(far, "crowbar")
	if err := r.c.Force(r.W, far); !errors.Is(err, cars.ErrNoCar) {
		t.Fatalf("force with no car near: %v", err)
	}
}
