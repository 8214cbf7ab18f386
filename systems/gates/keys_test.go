package gates_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	phys "github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/fiveonit/engine/systems/city/citytest"
	"github.com/fiveonit/engine/systems/gates"
	"github.com/fiveonit/engine/systems/systemstest"
)

// keyLevel is the wall with its gate at the origin (key tag "yard") and a
// gate standing alone far off (key tag "depot"), so a key of the level
// other than the yard's can be given.
var keyLevel = fmt.Sprintf(wallLevel, "test-keys",
	`{"id":"yard","kind":"gate","pos":[0,0],"yaw":1.5707964,"width":10,"rule":{"keyTag":"yard"}},
    {"id":"depot","kind":"barrier","pos":[150,150],"yaw":0,"width":6,"rule":{"keyTag":"depot","police":true}}`)

// keyRig is a rig on keyLevel with the rooms' key hook (CarriedKeys) and a
// sedan 20 m south of the yard gate with a driver at the wheel driving
// north, and a passenger beside them.
func keyRig(t *testing.T) (r *citytest.Rig, car, driver, passenger ecs.Entity) {
	t.Helper()
	r = citytest.New(t, systemstest.Parse(t, "test-keys", keyLevel), citytest.Options{Seed: 1})
	r.Gates.HasKey = r.Gates.CarriedKeys()
	car = r.Vehicle(t, components.KindCar, phys.ModelSedan, 0, -20, 1.5707964)
	driver = r.Character(t, 3, -20, 0)
	r.Seat(driver, car)
	passenger = r.Character(t, -3, -20, 0)
	a, in := ecstest.Get[components.PersonAction](r.W, passenger), ecstest.Get[components.SeatedIn](r.W, passenger)
	a.Act = components.ActPassenger
	*in = components.SeatedIn{Vehicle: car, Seat: 1}
	ecstest.Get[components.Seats](r.W, car).Occupant[1] = passenger
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		if e == driver {
			d.Throttle = 0.5
		}
	}
	return r, car, driver, passenger
}

func TestKeyIDs(t *testing.T) {
	r := citytest.New(t, systemstest.Parse(t, "test-keys", keyLevel), citytest.Options{Seed: 1})
	if got := r.Gates.KeyTags(); !slices.Equal(got, []string{"yard", "depot"}) {
		t.Fatalf("key tags %v, want [yard depot]", got)
	}
	for tag, want := range map[string]int{"yard": 0, "depot": 1, "nope": -1, "": -1} {
		id, ok := r.Gates.KeyID(tag)
		if (want >= 0) != ok || ok && int(id) != want {
			t.Errorf("KeyID(%q) = %d, %v; want %d", tag, id, ok, want)
		}
	}
	p := r.Character(t, 0, -20, 0)
	err := r.Gates.Give(r.W, p, "nope")
	if err == nil || !strings.Contains(err.Error(), "unknown key tag") || !strings.Contains(err.Error(), "yard, depot") {
		t.Fatalf("giving an unknown key: %v", err)
	}
	if k := ecstest.Get[components.Keys](r.W, p); k != nil {
		t.Fatalf("an unknown key gave keys %+v", *k)
	}
	if err := r.Gates.Give(r.W, p, "depot"); err != nil {
		t.Fatal(err)
	}
	if err := r.Gates.Give(r.W, p, "yard"); err != nil {
		t.Fatal(err)
	}
	if k := ecstest.Get[components.Keys](r.W, p); k == nil || k.Bits != 0b11 {
		t.Fatalf("keys %+v, want both", k)
	}
}

// TestKeyGate drives a car at the yard gate: it stays shut unless the
// driver carries the yard's key (another key, or the key on a passenger,
// does not open it).
func TestKeyGate(t *testing.T) {
	cases := []struct {
		name string
		who  string // "driver", "passenger" or "" gets the key
		tag  string
		pass bool
	}{
		{"no key", "", "", false},
		{"another key", "driver", "depot", false},
		{"passenger's key", "passenger", "yard", false},
		{"driver's key", "driver", "yard", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, car, driver, passenger := keyRig(t)
			switch c.who {
			case "driver":
				if err := r.Gates.Give(r.W, driver, c.tag); err != nil {
					t.Fatal(err)
				}
			case "passenger":
				if err := r.Gates.Give(r.W, passenger, c.tag); err != nil {
					t.Fatal(err)
				}
			}
			r.Step(5 * ecs.TickRate)
			y := ecstest.Get[components.Pose](r.W, car).Pos.Y
			if c.pass != (y > 10) {
				t.Fatalf("car at y=%v, want passed %v", y, c.pass)
			}
			if !c.pass && y > 0 {
				t.Fatalf("car went through a shut gate: y=%v", y)
			}
		})
	}
}

// TestResetShutsGates: a gate left open behind a car (its hold time
// running) shuts at the next tick after Reset.
func TestResetShutsGates(t *testing.T) {
	r, car, driver, _ := keyRig(t)
	if err := r.Gates.Give(r.W, driver, "yard"); err != nil {
		t.Fatal(err)
	}
	// Drive through until the car is just out of the gate's reach.
	for i := 0; ecstest.Get[components.Pose](r.W, car).Pos.Y < gates.OpenRange+4; i++ {
		if i > 10*ecs.TickRate {
			t.Fatal("the car never got through")
		}
		r.Step(1)
	}
	r.Step(2)
	e, open := r.Gates.Gate(0)
	if !open {
		t.Fatal("the gate shut at once behind the car: the test proves nothing")
	}
	r.Gates.ResetLevel()
	r.Step(1)
	if _, open := r.Gates.Gate(0); open || ecstest.Get[components.Body](r.W, e).Mask != prefab.GateMask ||
		ecstest.Get[components.Flags](r.W, e).Bits&components.FlagOpen != 0 {
		t.Fatal("the gate is still open after the reset")
	}
}
