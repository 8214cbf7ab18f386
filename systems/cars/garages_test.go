package cars_test

import (
	"errors"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/cars"
)

// TestGarages: the level's garage with its two bays, at the level's price
// or the game's.
func TestGarages(t *testing.T) {
	r := newRig(t, ecs.Rules{PlayersHurt: "on"})
	gs := r.c.Garages()
	if len(gs) != 1 || gs[0].ID != "depot" || gs[0].Price != 100 || len(gs[0].Bays) != 2 {
		t.Fatalf("garages %+v: want depot, 100, two bays", gs)
	}
	r = newRig(t, ecs.Rules{PlayersHurt: "on", Garages: []ecs.GaragePrice{{Garage: "elsewhere", Price: 5}, {Garage: "depot", Price: 40}}})
	if p := r.c.Garages()[0].Price; p != 40 {
		t.Fatalf("the game's price 40 over the level's 100: got %d", p)
	}
}

// drive seats e at the wheel of car, driving.
func (r *rig) drive(e, car ecs.Entity) {
	ecstest.Get[components.Seats](r.W, car).Occupant[0] = e
	*ecstest.Get[components.SeatedIn](r.W, e) = components.SeatedIn{Vehicle: car}
	ecstest.Get[components.PersonAction](r.W, e).Act = components.ActDriving
}

// TestKeep: a car its owner (or its key's holder) drives into a garage's
// bay and stops is kept at the garage's price; every other ask is refused
// with its reason and nothing changes.
func TestKeep(t *testing.T) {
	none := func(int, int) bool { return false }
	cases := []struct {
		name  string
		set   func(r *rig) (e, car ecs.Entity)
		taken func(g, bay int) bool
		want  error
		bay   int
	}{
		{"owner, stopped in bay 1", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 50), r.player(3, 10, 52)
			r.drive(p, c)
			return p, c
		}, none, nil, 1},
		{"the van, with its key", func(r *rig) (ecs.Entity, ecs.Entity) {
			p := r.player(4, 0, 2)
			r.give(p, "yard-key")
			r.drive(p, r.van)
			ecstest.Get[components.Pose](r.W, r.van).Pos = components.Vec3{X: -10, Y: 49}
			return p, r.van
		}, none, nil, 0},
		{"bay 1 taken: the next free", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 50), r.player(3, 10, 52)
			r.drive(p, c)
			return p, c
		}, func(_, bay int) bool { return bay == 1 }, nil, 0},
		{"every bay taken", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 50), r.player(3, 10, 52)
			r.drive(p, c)
			return p, c
		}, func(int, int) bool { return true }, cars.ErrBayTaken, 0},
		{"somebody else's car", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 50), r.player(4, 10, 52)
			r.drive(p, c)
			return p, c
		}, none, cars.ErrNotYours, 0},
		{"the van, no key", func(r *rig) (ecs.Entity, ecs.Entity) {
			p := r.player(4, 0, 2)
			r.drive(p, r.van)
			ecstest.Get[components.Pose](r.W, r.van).Pos = components.Vec3{X: -10, Y: 49}
			return p, r.van
		}, none, cars.ErrNoKey, 0},
		{"not in a bay", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 40), r.player(3, 10, 42)
			r.drive(p, c)
			return p, c
		}, none, cars.ErrTooFar, 0},
		{"moving", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 50), r.player(3, 10, 52)
			r.drive(p, c)
			ecstest.Get[components.Velocity](r.W, c).Lin.X = 3
			return p, c
		}, none, cars.ErrMoving, 0},
		{"on foot", func(r *rig) (ecs.Entity, ecs.Entity) {
			return r.player(3, 10, 53), r.car(3, 10, 50)
		}, none, cars.ErrNotDriving, 0},
		{"no cash", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 50), r.player(3, 10, 52)
			ecstest.Get[components.Cash](r.W, p).Amount = 99
			r.drive(p, c)
			return p, c
		}, none, cars.ErrNoCash, 0},
		{"a wreck", func(r *rig) (ecs.Entity, ecs.Entity) {
			c, p := r.car(3, 10, 50), r.player(3, 10, 52)
			ecstest.Get[components.Flags](r.W, c).Bits |= components.FlagWrecked
			r.drive(p, c)
			return p, c
		}, none, cars.ErrWrecked, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, ecs.Rules{PlayersHurt: "on"})
			e, car := c.set(r)
			cash := ecstest.Get[components.Cash](r.W, e).Amount
			k, err := r.c.Keep(r.W, e, c.taken)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Keep: %v, want %v", err, c.want)
			}
			after := ecstest.Get[components.Cash](r.W, e).Amount
			if err != nil {
				t.Logf("refused: %v", err)
				if !r.W.Arche.Alive(car) || after != cash {
					t.Fatal("a refused keep changed something")
				}
				return
			}
			if r.W.Arche.Alive(car) {
				t.Fatal("the kept car is still in the world")
			}
			if k.Garage != 0 || k.Bay != c.bay || k.Price != 100 || after != cash-100 {
				t.Fatalf("kept %+v, cash %d -> %d: want bay %d for 100", k, cash, after, c.bay)
			}
			if sd := ecstest.Get[components.SeatedIn](r.W, e); !sd.Vehicle.IsZero() || ecstest.Get[components.PersonAction](r.W, e).Act != components.ActOnFoot {
				t.Fatal("the driver is not on foot beside the bay")
			}
			r.Step(3) // the seats and physics run on with the car gone
		})
	}
}

// TestTakeOut: a kept car comes out into its bay, or the garage's first
// free one, owner's and open; too far from the garage and no free bay are
// refused.
func TestTakeOut(t *testing.T) {
	k := cars.Kept{Model: phys.ModelSports, Variant: 2, Health: 640}
	r := newRig(t, ecs.Rules{PlayersHurt: "on"})
	p := r.player(3, 0, 45)
	if _, err := r.c.TakeOut(r.W, r.player(3, 0, 100), 0, 1, k, 3); !errors.Is(err, cars.ErrTooFar) {
		t.Fatalf("take out from 50 m: %v", err)
	}
	car, err := r.c.TakeOut(r.W, p, 0, 1, k, 3)
	if err != nil {
		t.Fatal(err)
	}
	pos := ecstest.Get[components.Pose](r.W, car).Pos
	id := ecstest.Get[components.Identity](r.W, car)
	if pos.X != 10 || pos.Y != 50 || id.Model != phys.ModelSports || id.Variant != 2 || ecstest.Get[components.Health](r.W, car).HP != 640 {
		t.Fatalf("the car at %v, %+v, hp %d", pos, *id, ecstest.Get[components.Health](r.W, car).HP)
	}
	if l := *ecstest.Get[components.CarLock](r.W, car); l.Owner != 3 || l.Key != 0 || locked(r.W, car) {
		t.Fatalf("lock %+v, locked %v: want owner 3's, open", l, locked(r.W, car))
	}
	// Bay 1 taken now: the next comes out in bay 0.
	car2, err := r.c.TakeOut(r.W, p, 0, 1, k, 3)
	if err != nil {
		t.Fatal(err)
	}
	if pos := ecstest.Get[components.Pose](r.W, car2).Pos; pos.X != -10 || pos.Y != 50 {
		t.Fatalf("the second car at %v, want bay 0", pos)
	}
	if _, err := r.c.TakeOut(r.W, p, 0, 0, k, 3); !errors.Is(err, cars.ErrBayTaken) {
		t.Fatalf("take out into a full garage: %v", err)
	}
	if _, err := r.c.TakeOut(r.W, p, 5, 0, k, 3); !errors.Is(err, cars.ErrNoGarage) {
		t.Fatalf("take out of garage 5: %v", err)
	}
	if _, err := r.c.TakeOut(r.W, p, 0, 0, cars.Kept{Model: phys.ModelPolice}, 3); !errors.Is(err, cars.ErrNoCar) {
		t.Fatalf("take out a police car: %v", err)
	}
	r.Step(3)
}
