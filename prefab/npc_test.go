package prefab_test

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/ecs/ecstest"
	"github.com/fiveonit/engine/physics"
)

func TestTrafficCar(t *testing.T) {
	w, b := world(t)
	car, driver, err := b.TrafficCar(physics.ModelVan, 3, components.Vec3{X: 5, Y: 6}, 1, 17)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []ecs.Entity{car, driver} {
		npc := ecstest.Get[components.NPC](w, e)
		if npc == nil || npc.Role != components.RoleTraffic || npc.Spawner != -1 || npc.Lane != 17 {
			t.Fatalf("NPC %+v", npc)
		}
		if ecstest.Get[components.Identity](w, e).WireID == 0 {
			t.Fatal("no wire id")
		}
	}
	if *ecstest.Get[components.Kind](w, car) != components.KindCar || ecstest.Get[components.Identity](w, car).Model != physics.ModelVan {
		t.Fatal("not a van")
	}
	if *ecstest.Get[components.Kind](w, driver) != components.KindPedestrian || ecstest.Get[components.Identity](w, driver).Model != 3 {
		t.Fatal("the driver is not a pedestrian of model 3")
	}
	if s := ecstest.Get[components.Seats](w, car); s.Occupant[0] != driver {
		t.Fatal("the driver is not at the wheel")
	}
	if in := ecstest.Get[components.SeatedIn](w, driver); in.Vehicle != car || in.Seat != 0 {
		t.Fatalf("driver seated %+v", *in)
	}
	if a := ecstest.Get[components.PersonAction](w, driver); a.Act != components.ActDriving {
		t.Fatalf("driver act %d", a.Act)
	}
	// The same archetypes as the spawners' NPC cars and drivers.
	other, otherDriver, err := b.NPCCar(components.RoleDriver, 0, physics.ModelSedan, components.Vec3{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Arche.Ids(car), w.Arche.Ids(other)) || !slices.Equal(w.Arche.Ids(driver), w.Arche.Ids(otherDriver)) {
		t.Fatal("a traffic car's archetypes differ from an NPC car's")
	}
}

func TestPedestrian(t *testing.T) {
	w, b := world(t)
	for _, role := range []components.NPCRole{components.RoleWalker, components.RoleJogger, components.RoleIdler, components.RoleCivilian} {
		e, err := b.Pedestrian(role, 2, components.Vec3{X: 1}, 0, 4, 12.5)
		if err != nil {
			t.Fatal(err)
		}
		npc := ecstest.Get[components.NPC](w, e)
		if npc.Role != role || npc.Spawner != -1 || npc.Lane != 4 || npc.Along != 12.5 {
			t.Fatalf("NPC %+v", *npc)
		}
		if *ecstest.Get[components.Kind](w, e) != components.KindPedestrian || ecstest.Get[components.Replicated](w, e).Always {
			t.Fatal("not an ambient pedestrian")
		}
	}
	for _, role := range []components.NPCRole{components.RoleTraffic, components.RoleGuard, components.RoleNone} {
		if _, err := b.Pedestrian(role, 0, components.Vec3{}, 0, -1, 0); err == nil {
			t.Errorf("role %d made a pedestrian", role)
		}
	}
}
