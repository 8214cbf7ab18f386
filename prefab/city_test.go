package prefab_test

import (
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

// world returns a bare world of seed 1 and a builder on it.
func world(t *testing.T) (*ecs.World, *prefab.Builder) {
	t.Helper()
	w := ecstest.New(t, ecs.Config{Seed: 1})
	return w, prefab.New(w)
}

func TestModelByName(t *testing.T) {
	cases := []struct {
		name string
		want uint8
		ok   bool
	}{
		{"sedan", physics.ModelSedan, true},
		{"van", physics.ModelVan, true},
		{"police", physics.ModelPolice, true},
		{"hovercraft", physics.ModelCompact, false},
	}
	for _, c := range cases {
		if got, ok := prefab.ModelByName(c.name); got != c.want || ok != c.ok {
			t.Errorf("%s: %d %v", c.name, got, ok)
		}
	}
}

func TestPoliceCar(t *testing.T) {
	w, b := world(t)
	target, err := b.Character(1, 0, 0, components.Vec3{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	car, officer, err := b.PoliceCar(components.Vec3{X: 5}, 1, target, 42)
	if err != nil {
		t.Fatal(err)
	}
	if k := *ecstest.Get[components.Kind](w, car); k != components.KindPoliceCar {
		t.Fatalf("car kind %s", k)
	}
	if m := ecstest.Get[components.Identity](w, car); m.Model != physics.ModelPolice || m.WireID == 0 {
		t.Fatalf("car identity %+v", *m)
	}
	if f := ecstest.Get[components.Flags](w, car).Bits; f&components.FlagSiren == 0 {
		t.Fatal("siren off")
	}
	if c := ecstest.Get[components.Chaser](w, car); c == nil || c.Target != target || c.Since != 42 {
		t.Fatalf("chaser %v", c)
	}
	if n := ecstest.Get[components.NPC](w, car); n == nil || n.Role != components.RoleOfficer || n.Spawner != -1 {
		t.Fatalf("car NPC %v", n)
	}
	if k := *ecstest.Get[components.Kind](w, officer); k != components.KindOfficer {
		t.Fatalf("officer kind %s", k)
	}
	if s := ecstest.Get[components.Seats](w, car); s.Occupant[0] != officer {
		t.Fatal("officer not at the wheel")
	}
	if sd := ecstest.Get[components.SeatedIn](w, officer); sd.Vehicle != car || sd.Seat != 0 ||
		ecstest.Get[components.PersonAction](w, officer).Act != components.ActDriving {
		t.Fatal("officer not seated driving")
	}
	if n := ecstest.Get[components.NPC](w, officer); n == nil || n.Role != components.RoleOfficer {
		t.Fatal("officer without NPC")
	}
}

func TestNPCs(t *testing.T) {
	w, b := world(t)
	g, err := b.NPCPerson(components.KindGuard, components.RoleGuard, 3, components.Vec3{X: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := ecstest.Get[components.NPC](w, g); n.Role != components.RoleGuard || n.Spawner != 3 || n.Lane != -1 {
		t.Fatalf("NPC %+v", *n)
	}
	if !ecstest.Get[components.Replicated](w, g).Always {
		t.Fatal("a guard (an enemy) is not sent to every client")
	}
	if _, err := b.NPCPerson(components.KindCharacter, components.RoleGuard, 0, components.Vec3{}, 0); err == nil {
		t.Fatal("an NPC character")
	}
	if _, err := b.NPCPerson(components.KindCar, components.RoleGuard, 0, components.Vec3{}, 0); err == nil {
		t.Fatal("an NPC person of kind car")
	}
	car, driver, err := b.NPCCar(components.RoleDriver, 2, physics.ModelSedan, components.Vec3{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ecstest.Get[components.Seats](w, car).Occupant[0] != driver || ecstest.Get[components.NPC](w, car).Role != components.RoleDriver ||
		ecstest.Get[components.NPC](w, driver).Spawner != 2 {
		t.Fatal("NPC car without its NPC driver")
	}
	parked, err := b.ParkedCar(physics.ModelVan, components.Vec3{X: 9}, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if ecstest.Get[components.Flags](w, parked).Bits&components.FlagLocked == 0 || ecstest.Get[components.NPC](w, parked) != nil {
		t.Fatal("parked car not locked, or run by the AI")
	}
}

func TestGate(t *testing.T) {
	w, b := world(t)
	for _, barrier := range []bool{false, true} {
		e, err := b.Gate(components.Vec3{X: 3}, 0, 8, barrier)
		if err != nil {
			t.Fatal(err)
		}
		body := ecstest.Get[components.Body](w, e)
		if body.Mass != 0 || body.HalfY != 4 || body.Mask != prefab.GateMask || body.Layer != components.LayerProp {
			t.Fatalf("gate body %+v", *body)
		}
		if s := ecstest.Get[components.Seats](w, e); s.Count != 0 {
			t.Fatal("a gate with seats")
		}
		want := prefab.GateModelGate
		if barrier {
			want = prefab.GateModelBarrier
		}
		if m := ecstest.Get[components.Identity](w, e).Model; m != want {
			t.Fatalf("gate model %d", m)
		}
	}
	if _, err := b.Gate(components.Vec3{}, 0, 0, false); err == nil {
		t.Fatal("a gate of width 0")
	}
}

// TestWireIDsRunOut checks that a builder whose world has no wire id left
// leaves nothing behind.
func TestWireIDsRunOut(t *testing.T) {
	w := ecstest.New(t, ecs.Config{Seed: 1, MaxIDs: 1})
	b := prefab.New(w)
	if _, _, err := b.PoliceCar(components.Vec3{}, 0, ecs.Entity{}, 0); err == nil {
		t.Fatal("a police car and its officer with one wire id")
	}
	q := generic.NewFilter1[components.Kind]().Query(w.Arche)
	if n := q.Count(); n != 0 {
		q.Close()
		t.Fatalf("%d entities left", n)
	}
	q.Close()
}
