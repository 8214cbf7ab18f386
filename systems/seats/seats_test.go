package seats_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/systems/seats"
	"github.com/fiveonit/engine/systems/systemstest"
)

// rig is a bare world with a car, a player at its wheel and a second
// player on foot beside its door.
type rig struct {
	*systemstest.Rig
	sys            *seats.System
	car, drv, jack ecs.Entity
}

func newRig(t *testing.T, rules ecs.Rules, drvParty, jackParty uint16) *rig {
	t.Helper()
	k := systemstest.New(t, nil, systemstest.Options{Seed: 1, Rules: rules})
	w, b := k.W, k.B
	car := k.Car(t, 0, 0, 0)
	drv, err := b.Character(1, drvParty, 1, components.Vec3{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Beside the driver's door: the car's left, within Reach.
	jack, err := b.Character(2, jackParty, 2, components.Vec3{Y: physics.CarModel(physics.ModelSedan).HalfY + 0.6}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{Rig: k, sys: seats.New(w, nil), car: car, drv: drv, jack: jack}
	ecstest.Get[components.Seats](w, car).Occupant[0] = drv
	*ecstest.Get[components.SeatedIn](w, drv) = components.SeatedIn{Vehicle: car}
	ecstest.Get[components.PersonAction](w, drv).Act = components.ActDriving
	return r
}

// use presses Use for e and runs the seats once; it reports whether e took
// the wheel.
func (r *rig) use(e ecs.Entity) bool {
	ecstest.Get[components.Drive](r.W, e).Pressed = components.BtnUse
	r.sys.Update(r.W)
	ecstest.Get[components.Drive](r.W, e).Pressed = 0
	return ecstest.Get[components.Seats](r.W, r.car).Occupant[0] == e
}

// TestCarjackParties: a player pulls another out of the car only where the
// rules let them hurt each other, and never a member of their own party,
// whatever the rules (a party's members are numbered from 1; 0 is none).
func TestCarjackParties(t *testing.T) {
	cases := []struct {
		hurt        string
		drv, jacker uint16
		want        bool
	}{
		{"on", 0, 0, true},
		{"on", 1, 2, true},
		{"on", 1, 1, false},
		{"on", 0, 1, true},
		{"rivals", 0, 0, true},
		{"rivals", 1, 2, true},
		{"rivals", 1, 1, false},
		{"rivals", 1, 0, true},
		{"off", 0, 0, false},
		{"off", 1, 2, false},
		{"off", 1, 1, false},
	}
	for _, c := range cases {
		r := newRig(t, ecs.Rules{PlayersHurt: c.hurt}, c.drv, c.jacker)
		got := r.use(r.jack)
		if got != c.want {
			t.Errorf("playersHurt %s, driver's party %d, jacker's %d: carjacked %v, want %v", c.hurt, c.drv, c.jacker, got, c.want)
		}
		if ev := len(r.W.Events); (ev == 1) != c.want {
			t.Errorf("playersHurt %s, parties %d/%d: %d events", c.hurt, c.drv, c.jacker, ev)
		}
	}
}

// TestLockedCar: a locked car with a free seat lets in only whom MayOpen
// lets in; with no hook, nobody; a wrecked car nobody.
func TestLockedCar(t *testing.T) {
	cases := []struct {
		name    string
		locked  bool
		wrecked bool
		hook    seats.OpenRule
		want    bool
	}{
		{"open", false, false, nil, true},
		{"locked, no hook", true, false, nil, false},
		{"locked, the hook says no", true, false, func(*ecs.World, ecs.Entity, ecs.Entity) bool { return false }, false},
		{"locked, the hook says yes", true, false, func(*ecs.World, ecs.Entity, ecs.Entity) bool { return true }, true},
		{"wrecked, the hook says yes", false, true, func(*ecs.World, ecs.Entity, ecs.Entity) bool { return true }, false},
	}
	for _, c := range cases {
		r := newRig(t, ecs.Rules{PlayersHurt: "off"}, 0, 0)
		// Nobody at the wheel: the driver got out.
		ecstest.Get[components.Seats](r.W, r.car).Occupant[0] = ecs.Entity{}
		*ecstest.Get[components.SeatedIn](r.W, r.drv) = components.SeatedIn{}
		ecstest.Get[components.PersonAction](r.W, r.drv).Act = components.ActOnFoot
		ecstest.Get[components.Pose](r.W, r.drv).Pos = components.Vec3{X: 50}
		fl := ecstest.Get[components.Flags](r.W, r.car)
		if c.locked {
			fl.Bits |= components.FlagLocked
		}
		if c.wrecked {
			fl.Bits |= components.FlagWrecked
		}
		r.sys.MayOpen = c.hook
		if got := r.use(r.jack); got != c.want {
			t.Errorf("%s: got in %v, want %v", c.name, got, c.want)
		}
	}
}
