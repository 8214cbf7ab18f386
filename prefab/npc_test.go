package prefab_test

import (
	"slices"
	"testing"

	"github.com/fiveonit/engine/components"
	"github.com/fiveonit/engine/ecs"
	"github.com/fiveonit/engine/physics"
	"github.com/fiveonit/engine/prefab"
	"github.com/mlange-42/arche/generic"
)

func newNPCWorld(t *testing.T) (*ecs.World, *prefab.Builder) {
	t.Helper()
	w, err := ecs.New(ecs.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return w, prefab.New(w)
}

func comp[T any](w *ecs.World, e ecs.Entity) *T {
	m := generic.NewMap1[T](w.Arche)
	return m.Get(e)
}

func TestTrafficCar(t *testing.T) {
	w, b := newNPCWorld(t)
	car, driver, err := b.TrafficCar(physics.ModelVan, 3, components.Vec3{X: 5, Y: 6}, 1, 17)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []ecs.Entity{car, driver} {
		npc := comp[components.NPC](w, e)
		if npc == nil || npc.Role != components.RoleTraffic || npc.Spawner != -1 || npc.Lane != 17 {
			t.Fatalf("NPC %+v", npc)
		}
		if comp[components.Identity](w, e).WireID == 0 {
			t.Fatal("no wire id")
		}
	}
	if *comp[components.Kind](w, car) != components.KindCar || comp[components.Identity](w, car).Model != physics.ModelVan {
		t.Fatal("not a van")
	}
	if *comp[components.Kind](w, driver) != components.KindPedestrian || comp[components.Identity](w, driver).Model != 3 {
		t.Fatal("the driver is not a pedestrian of model 3")
	}
	if s := comp[components.Seats](w, car); s.Occupant[0] != driver {
		t.Fatal("the driver is not at the wheel")
	}
	if in := comp[components.SeatedIn](w, driver); in.Vehicle != car || in.Seat != 0 {
		t.Fatalf("driver seated %+v", *in)
	}
	if a := comp[components.PersonAction](w, driver); a.Act != components.ActDriving {
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
	w, b := newNPCWorld(t)
	for _, role := range []components.NPCRole{components.RoleWalker, components.RoleJogger, components.RoleIdler, components.RoleCivilian} {
		e, err := b.Pedestrian(role, 2, components.Vec3{X: 1}, 0, 4, 12.5)
		if err != nil {
			t.Fatal(err)
		}
		npc := comp[components.NPC](w, e)
		if npc.Role != role || npc.Spawner != -1 || npc.Lane != 4 || npc.Along != 12.5 {
			t.Fatalf("NPC %+v", *npc)
		}
		if *comp[components.Kind](w, e) != components.KindPedestrian || comp[components.Replicated](w, e).Always {
			t.Fatal("not an ambient pedestrian")
		}
	}
	for _, role := range []components.NPCRole{components.RoleTraffic, components.RoleGuard, components.RoleNone} {
		if _, err := b.Pedestrian(role, 0, components.Vec3{}, 0, -1, 0); err == nil {
			t.Errorf("role %d made a pedestrian", role)
		}
	}
}
