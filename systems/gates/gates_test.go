package gates_test

import (
	"fmt"
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

// wallLevel is a wall along y = 0 with a 10 m gap at the origin, named by
// its first argument, its gates (JSON objects, comma-separated) the second.
const wallLevel = `{
  "name": %q,
  "version": 1,
  "ground": {"min":[-200,-200],"max":[200,200]},
  "buildings": [
    {"id":"wall-w","footprint":[[-60,-0.5],[-5,-0.5],[-5,0.5],[-60,0.5]],"height":3,"use":"wall"},
    {"id":"wall-e","footprint":[[5,-0.5],[60,-0.5],[60,0.5],[5,0.5]],"height":3,"use":"wall"}
  ],
  "gates": [%s]
}`

// level is wallLevel with a 10 m gate in the gap, passed heading north, its
// rule given.
func level(rule string) string {
	return fmt.Sprintf(wallLevel, "test-gates", `{"id":"gate","kind":"gate","pos":[0,0],"yaw":1.5707964,"width":10,"rule":`+rule+`}`)
}

func rig(t testing.TB, rule string) *citytest.Rig {
	t.Helper()
	l := systemstest.Parse(t, "test-gates", level(rule))
	return citytest.New(t, l, citytest.Options{Seed: 1, Rules: ecs.Rules{PlayersHurt: "on"}})
}

func gateOf(t *testing.T, r *citytest.Rig) (ecs.Entity, bool) {
	t.Helper()
	e, open := r.Gates.Gate(0)
	if e.IsZero() {
		t.Fatal("no gate entity")
	}
	return e, open
}

func TestGateMade(t *testing.T) {
	r := rig(t, `{"police":true}`)
	r.Step(1)
	e, open := gateOf(t, r)
	if open {
		t.Fatal("gate open with nobody near")
	}
	if k := *ecstest.Get[components.Kind](r.W, e); k != components.KindGate {
		t.Fatalf("kind %s", k)
	}
	b := ecstest.Get[components.Body](r.W, e)
	if b.Mass != 0 || b.Mask != prefab.GateMask || b.HalfY != 5 {
		t.Fatalf("body %+v", *b)
	}
	if f := ecstest.Get[components.Flags](r.W, e); f.Bits&components.FlagOpen != 0 {
		t.Fatal("FlagOpen on a shut gate")
	}
}

func TestGateRules(t *testing.T) {
	cases := []struct {
		name   string
		rule   string
		police bool   // a police car with an officer at the wheel
		party  uint16 // the player driver's party
		key    bool   // the key hook answers yes
		pass   bool
	}{
		{"police for police", `{"police":true}`, true, 0, false, true},
		{"police for a player", `{"police":true}`, false, 0, false, false},
		{"party member", `{"party":2}`, false, 2, false, true},
		{"other party", `{"party":2}`, false, 1, false, false},
		{"key carried", `{"keyTag":"yard"}`, false, 0, true, true},
		{"no key", `{"keyTag":"yard"}`, false, 0, false, false},
		{"empty rule", `{}`, true, 2, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rig(t, c.rule)
			if c.key {
				r.Gates.HasKey = func(_ *ecs.World, _ ecs.Entity, tag string) bool { return tag == "yard" }
			}
			var car, driver ecs.Entity
			if c.police {
				var err error
				car, driver, err = r.B.PoliceCar(components.Vec3{X: 0, Y: -20}, 1.5707964, ecs.Entity{}, 0)
				if err != nil {
					t.Fatal(err)
				}
				r.Inputs = append(r.Inputs, driver)
			} else {
				car = r.Vehicle(t, components.KindCar, phys.ModelSedan, 0, -20, 1.5707964)
				driver = r.Character(t, 3, -20, 0)
				r.Seat(driver, car)
				ecstest.Get[components.Identity](r.W, driver).Party = c.party
			}
			r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
				if e == driver {
					d.Throttle = 0.5
				}
			}
			r.Step(5 * ecs.TickRate)
			y := ecstest.Get[components.Pose](r.W, car).Pos.Y
			if c.pass != (y > 10) {
				t.Fatalf("car at y=%v, want passed %v", y, c.pass)
			}
			if !c.pass {
				if y > 0 {
					t.Fatalf("car went through a shut gate: y=%v", y)
				}
				return
			}
			// Past it and away: it shuts behind the car.
			r.Step(gates.HoldTicks + 1)
			e, open := gateOf(t, r)
			if open || ecstest.Get[components.Body](r.W, e).Mask != prefab.GateMask ||
				ecstest.Get[components.Flags](r.W, e).Bits&components.FlagOpen != 0 {
				t.Fatal("gate still open after the car left")
			}
		})
	}
}

func TestGateWaitsForTheWayClear(t *testing.T) {
	r := rig(t, `{"party":1}`)
	car := r.Vehicle(t, components.KindCar, phys.ModelSedan, 0, -20, 1.5707964)
	driver := r.Character(t, 3, -20, 0)
	r.Seat(driver, car)
	ecstest.Get[components.Identity](r.W, driver).Party = 1
	walker := r.Character(t, -4, 0.3, 0) // in the opening, clear of the car's way
	leave := uint64(0)
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) {
		switch {
		case e == driver:
			d.Throttle = 0.5
		case e == walker && leave != 0 && tick >= leave:
			d.MoveY, d.LookYaw = 1, -1.5707964 // walk south, out of the opening
		}
	}
	r.Step(8 * ecs.TickRate)
	if y := ecstest.Get[components.Pose](r.W, car).Pos.Y; y < 30 {
		t.Fatalf("car at y=%v", y)
	}
	if _, open := gateOf(t, r); !open {
		t.Fatal("gate shut on a person standing in it")
	}
	leave = r.W.Tick()
	r.Step(2*ecs.TickRate + gates.HoldTicks)
	if _, open := gateOf(t, r); open {
		t.Fatal("gate still open after the way cleared")
	}
}

func TestSteadyAllocatesNothing(t *testing.T) {
	r := rig(t, `{"party":1}`)
	for i := range 20 {
		car := r.Vehicle(t, components.KindCar, phys.ModelSedan, float32(i)*4-40, -20, 1.5707964)
		d := r.Character(t, float32(i)*4-38, -20, 0)
		r.Seat(d, car)
		ecstest.Get[components.Identity](r.W, d).Party = uint16(i % 2)
	}
	r.Drive = func(tick uint64, e ecs.Entity, d *components.Drive) { d.Throttle = 0.3 }
	r.Step(120)
	if allocs := testing.AllocsPerRun(100, r.W.Step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}
